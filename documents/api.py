"""Folders and documents endpoints: list, create, upload, inspect, retry, delete.

A folder or document the caller may not read answers 404, never 403, so ids reveal nothing.
403 only means "you can see it, but you may not change it". Lists are paginated with
`limit` (1..200, default 50) and `offset`; `count` is the number of matching items the caller
may see, and `next` the URL of the next page (null on the last).
"""

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from ninja import Field, File, Form, Query, Router, Schema, Status, UploadedFile
from ninja.pagination import LimitOffsetPagination, paginate

from documents.access import (
    access_document_readable,
    access_document_writable,
    access_folder_readable,
    access_folder_writable,
    access_staff,
)
from documents.filters import filter_documents, parse_filters
from documents.models import Document, Folder
from documents.references import references
from documents.schemas import (
    DocumentDetailOut,
    DocumentFilters,
    DocumentOut,
    DuplicateOut,
    ErrorOut,
    FolderIn,
    FolderOut,
    UploadForm,
    ValidationErrorOut,
    document_status_url,
)
from documents.selectors import documents_for_user, folders_for_user, stale_rule
from documents.services.library import document_delete, document_retry, folder_create, folder_delete
from documents.services.upload import IncomingFile, document_upload
from ragsite.caller import request_user
from ragsite.ratelimit import UPLOAD, FixedWindowRateLimit

folders_router = Router(tags=["folders"])
router = Router(tags=["documents"])

# Errors every authenticated endpoint may answer.
COMMON_ERRORS: dict[int, Any] = {401: ErrorOut, 422: ValidationErrorOut}


class PageParams(Schema):
    limit: int = Field(50, ge=1, le=200, description="Items per page (1..200).")
    offset: int = Field(0, ge=0, description="Items to skip.")


class PageOut(Schema):
    items: list[Any]
    count: int = Field(description="All matching items the caller may see.")
    next: str | None = Field(
        description="The next page's absolute URL (same parameters, offset moved on); null on the last."
    )


class Page(LimitOffsetPagination):
    """`limit` items (1..200, default 50) after skipping `offset`; `count` = all matching items;
    `next` = the next page's URL, every other parameter kept."""

    Input = PageParams  # type: ignore[assignment]
    Output = PageOut  # type: ignore[assignment]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_limit=200, **kwargs)

    def paginate_queryset(self, queryset: QuerySet, pagination: Any, request: HttpRequest, **params: Any) -> Any:
        page = super().paginate_queryset(queryset, pagination, request, **params)
        page["items"] = list(page["items"])
        # The page's folder paths in one query, not one per item.
        references(request).prime(i.pk if isinstance(i, Folder) else i.folder_id for i in page["items"])
        following = pagination.offset + min(pagination.limit, self.max_limit)
        page["next"] = references(request).next_page({"offset": following}) if following < page["count"] else None
        return page


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
    access_staff(user=user, action="create folders")
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
    access_staff(user=user, action="delete folders")
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
    folder = access_folder_writable(user=user, folder_id=form.folder, action="upload into")
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
    document = access_document_writable(user=request_user(request), document_id=document_id, action="retry")
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
    document = access_document_writable(user=request_user(request), document_id=document_id, action="delete")
    document_delete(document=document)
    return Status(204, None)


__all__ = ["folders_router", "router"]
