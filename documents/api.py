"""Folders and documents endpoints: list, create, upload, inspect, retry, delete.

A folder or document the caller may not read answers 404, never 403, so ids reveal nothing.
403 only means "you can see it, but you may not change it". Lists are paged as every list of the
API is (documents/api_pages.py: `page`, `page_size`, and `{items, count, next}`).

Metadata, tags and folder are changed by PATCH, of one document or of many at once (all or
nothing: one id that may not be changed refuses the whole request and changes none), with the
admin's rules and effects (documents/services/document_edit.py).
"""

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import pgettext_lazy
from ninja import File, Form, Query, Router, Status, UploadedFile
from ninja.pagination import paginate

from documents.access import (
    access_document_readable,
    access_document_writable,
    access_folder_readable,
    access_folder_writable,
    access_staff,
)
from documents.api_pages import Page
from documents.filters import filter_documents, parse_filters
from documents.models import Document, Folder
from documents.references import references
from documents.schemas import (
    DocumentBulkIn,
    DocumentBulkOut,
    DocumentDetailOut,
    DocumentFilters,
    DocumentOut,
    DocumentPatch,
    DuplicateOut,
    ErrorOut,
    FolderIn,
    FolderOut,
    UploadForm,
    document_status_url,
)
from documents.selectors import documents_for_user, folders_for_user, stale_rule
from documents.services.document_edit import DocumentChanges, documents_edit
from documents.services.library import document_delete, document_retry, folder_create, folder_delete
from documents.services.upload import IncomingFile, document_upload
from ragsite.caller import request_user
from ragsite.ratelimit import UPLOAD, FixedWindowRateLimit

folders_router = Router(tags=["folders"])
router = Router(tags=["documents"])

# Errors every authenticated endpoint may answer.
COMMON_ERRORS: dict[int, Any] = {401: ErrorOut, 422: ErrorOut}


# --- folders ------------------------------------------------------------------------------


@folders_router.get(
    "/folders",
    response={200: list[FolderOut], **COMMON_ERRORS},
    url_name="folder_list",
    operation_id="listFolders",
    summary="List readable folders",
)
@paginate(Page)
def folder_list(request: HttpRequest) -> QuerySet[Folder]:
    """Folders you may read (staff: all), by name."""
    return folders_for_user(user=request_user(request)).order_by("name", "id")


@folders_router.post(
    "/folders",
    response={201: FolderOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    url_name="folder_create",
    operation_id="createFolder",
    summary="Create a folder",
)
def folder_create_view(request: HttpRequest, payload: FolderIn) -> Status:
    """Create a folder (staff only). Names are unique within their parent."""
    user = request_user(request)
    access_staff(user=user, action=pgettext_lazy("an action only staff may take", "create folders"))
    parent = access_folder_readable(user=user, folder_id=payload.parent) if payload.parent is not None else None
    folder = folder_create(
        name=payload.name,
        parent=parent,
        is_public=payload.is_public,
        reader_groups=payload.reader_groups,
        writer_groups=payload.writer_groups,
    )
    return Status(201, access_folder_readable(user=user, folder_id=folder.pk))


@folders_router.get(
    "/folders/{folder_id}",
    response={200: FolderOut, 404: ErrorOut, **COMMON_ERRORS},
    url_name="folder_detail",
    operation_id="getFolder",
    summary="Get a folder",
)
def folder_detail(request: HttpRequest, folder_id: int) -> Folder:
    return access_folder_readable(user=request_user(request), folder_id=folder_id)


@folders_router.delete(
    "/folders/{folder_id}",
    response={204: None, 403: ErrorOut, 404: ErrorOut, **COMMON_ERRORS},
    url_name="folder_delete",
    operation_id="deleteFolder",
    summary="Delete a folder",
)
def folder_delete_view(request: HttpRequest, folder_id: int) -> Status:
    """Delete a folder with its subfolders and all their documents, chunks and files (staff only)."""
    user = request_user(request)
    folder = access_folder_readable(user=user, folder_id=folder_id)
    access_staff(user=user, action=pgettext_lazy("an action only staff may take", "delete folders"))
    folder_delete(folder=folder)
    return Status(204, None)


# --- documents ----------------------------------------------------------------------------


@router.get(
    "/documents",
    response={200: list[DocumentOut], 400: ErrorOut, 404: ErrorOut, **COMMON_ERRORS},
    url_name="document_list",
    operation_id="listDocuments",
    summary="List readable documents",
)
@paginate(Page)
def document_list(request: HttpRequest, filters: Query[DocumentFilters]) -> QuerySet[Document]:
    """Documents you may read, newest first, optionally narrowed by folder, status, staleness and
    the reader's filters (type, tag, author, published from/to), as /api/search takes them.
    A filter that matches nothing gives an empty page (`count` 0), never every document."""
    user = request_user(request)
    documents = (
        documents_for_user(user=user)
        .defer("canonical_text", "page_starts")
        .select_related("folder")
        .prefetch_related("tags")
    )
    if filters.folder is not None:
        access_folder_readable(user=user, folder_id=filters.folder)
    # Parsed once for every reader's entry point (unknown values: 400); folder: this one only.
    reader = parse_filters(lambda name: [] if name == "document" else request.GET.getlist(name))
    folder = {filters.folder} if filters.folder is not None else None
    documents = filter_documents(documents, reader, folder)
    if filters.status is not None:
        documents = documents.filter(status=filters.status)
    if filters.stale is not None:
        documents = documents.filter(stale_rule()) if filters.stale else documents.exclude(stale_rule())
    return documents.order_by("-created_at", "-id")


@router.post(
    "/documents",
    response={
        202: DocumentOut,
        400: ErrorOut,
        403: ErrorOut,
        404: ErrorOut,
        409: DuplicateOut,
        413: ErrorOut,
        415: ErrorOut,
        429: ErrorOut,
        **COMMON_ERRORS,
    },
    throttle=FixedWindowRateLimit(UPLOAD),
    url_name="document_upload",
    operation_id="uploadDocument",
    summary="Upload a document",
)
def document_upload_view(
    request: HttpRequest, response: HttpResponse, file: File[UploadedFile], form: Form[UploadForm]
) -> Status:
    """Upload a PDF, Word (.docx), HTML, Markdown or text file (multipart) into a folder you may
    write; PDF and Word files are recognised by content whatever their name, and a `.pdf` or
    `.docx` whose first bytes cannot be one is refused (415) and not stored. It is queued
    for processing. Poll the returned `url` until `status` is `indexed` or `failed`. Each user may
    upload `UPLOAD_RATE_LIMIT_PER_MINUTE` files a minute (429 with Retry-After past it)."""
    user = request_user(request)
    folder = access_folder_writable(
        user=user, folder_id=form.folder, action=pgettext_lazy("an action on a folder", "upload into")
    )
    incoming = IncomingFile(name=file.name or "upload", size=file.size or 0, stream=file)
    document = document_upload(folder=folder, incoming=incoming, uploaded_by=user, title=form.title)
    response["Location"] = references(request).url(document_status_url(document.pk))
    return Status(202, Document.objects.select_related("folder").get(pk=document.pk))


@router.get(
    "/documents/{document_id}",
    response={200: DocumentDetailOut, 404: ErrorOut, **COMMON_ERRORS},
    url_name="document_detail",
    operation_id="getDocument",
    summary="Get a document's status",
)
def document_detail(request: HttpRequest, document_id: int) -> Document:
    """A document's processing status, failure reason, stamps and counts."""
    return access_document_readable(user=request_user(request), document_id=document_id)


def _changes(request: HttpRequest, patch: DocumentPatch) -> DocumentChanges:
    """The changes a PATCH body asks for, its target folder checked writable."""
    given = patch.model_fields_set
    user = request_user(request)
    folder = (
        access_folder_writable(
            user=user, folder_id=patch.folder, action=pgettext_lazy("an action on a folder", "move documents into")
        )
        if patch.folder is not None
        else None
    )
    return DocumentChanges(
        title=patch.title,
        authors=patch.authors,
        published=patch.published,
        clear_published="published" in given and patch.published is None,
        tags=patch.tags,
        add_tags=patch.add_tags or (),
        remove_tags=patch.remove_tags or (),
        folder=folder,
    )


def _edited(document_ids: list[int]) -> list[Document]:
    found = Document.objects.defer("canonical_text", "page_starts").select_related("folder").prefetch_related("tags")
    by_id = {d.pk: d for d in found.filter(pk__in=document_ids)}
    return [by_id[pk] for pk in document_ids]


@router.patch(
    "/documents/{document_id}",
    response={200: DocumentOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    url_name="document_update",
    operation_id="updateDocument",
    summary="Change a document's metadata, tags or folder",
)
def document_update(request: HttpRequest, document_id: int, patch: DocumentPatch) -> Document:
    """Change the fields sent, leave the others: title, authors and published are then marked
    corrected (`metadata_edited`: re-indexing keeps them); `tags` replaces the tag set,
    `add_tags` / `remove_tags` change it; `folder` moves the document with its index (409 if that
    folder already holds the same file). You must be able to write the document's folder and the
    target folder. Like the admin's edits, these changes send no webhook."""
    access_document_writable(
        user=request_user(request), document_id=document_id, action=pgettext_lazy("an action on a document", "change")
    )
    documents_edit([document_id], _changes(request, patch))
    (document,) = _edited([document_id])
    return document


@router.patch(
    "/documents",
    response={200: DocumentBulkOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    url_name="document_bulk_update",
    operation_id="updateDocuments",
    summary="Change many documents at once",
)
def document_bulk_update(request: HttpRequest, bulk: DocumentBulkIn) -> dict[str, Any]:
    """The same change to every document of `ids`, as PATCH /api/documents/{id} makes it, all or
    nothing: if any id cannot be read (404) or changed (403), or the move would leave a file
    behind (409), the answer names it and no document is changed."""
    user = request_user(request)
    ids = list(dict.fromkeys(bulk.ids))
    for document_id in ids:
        access_document_writable(
            user=user, document_id=document_id, action=pgettext_lazy("an action on a document", "change")
        )
    documents_edit(ids, _changes(request, bulk.changes))
    return {"items": _edited(ids), "count": len(ids)}


@router.post(
    "/documents/{document_id}/retry",
    response={202: DocumentOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    url_name="document_retry",
    operation_id="retryDocument",
    summary="Retry or re-index a document",
)
def document_retry_view(request: HttpRequest, document_id: int, force: bool = False) -> Status:
    """Queue a failed document again. Other statuses answer 409 unless `force=true`, which
    re-indexes an indexed (e.g. stale) or queued document; one being processed is never re-queued."""
    document = access_document_writable(
        user=request_user(request), document_id=document_id, action=pgettext_lazy("an action on a document", "retry")
    )
    document = document_retry(document=document, force=force)
    return Status(202, document)


@router.delete(
    "/documents/{document_id}",
    response={204: None, 403: ErrorOut, 404: ErrorOut, **COMMON_ERRORS},
    url_name="document_delete",
    operation_id="deleteDocument",
    summary="Delete a document",
)
def document_delete_view(request: HttpRequest, document_id: int) -> Status:
    """Delete a document: its file, chunks and BM25 statistics. Search stops showing it at once."""
    document = access_document_writable(
        user=request_user(request), document_id=document_id, action=pgettext_lazy("an action on a document", "delete")
    )
    document_delete(document=document)
    return Status(204, None)


__all__ = ["folders_router", "router"]
