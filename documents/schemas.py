"""Request and response shapes of the folders and documents API."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.urls import reverse
from django.utils import timezone
from ninja import Field, Schema
from pydantic import field_validator

from documents.locators import viewer_url
from documents.models import PROCESSING_STATUSES, Document, DocumentStatus, Folder
from documents.progress import progress_of
from documents.references import file_type, references
from documents.selectors import is_stale

# The rule itself is documents/names.py; the services apply it, so a breach is a 400 with its reason.
NAME_RULE = (
    "Printable text on one line: a control character (NUL, tab, line break…) or a bidirectional "
    "override is refused (400, naming the character)."
)


class FieldErrorOut(Schema):
    loc: list[str | int] = Field(description='Where: the source, then the field ("query", "k").')
    msg: str = Field(description="What is wrong with it.")
    type: str = Field(description="The kind of problem (pydantic's error type).")


class ErrorOut(Schema):
    """The one body of every error the API answers, whatever its status."""

    detail: str = Field(description="What went wrong, in words a person can act on.")
    errors: list[FieldErrorOut] = Field(
        default_factory=list, description="The problems field by field (a 422); empty for any other error."
    )


class DuplicateOut(ErrorOut):
    existing_document_id: int | None = Field(
        None,
        description="The document that already holds these bytes in this folder; left out when the uploader "
        "may write the folder but not read it.",
    )


class FolderRef(Schema):
    """A folder, the same object wherever the API names one (documents/references.py)."""

    id: int
    name: str
    path: str = Field(description='"Parent / Child" as you may see it: no folder you cannot read is named.')


class DocumentRef(Schema):
    """A document, the same object wherever the API names one (documents/references.py)."""

    id: int
    title: str
    folder: FolderRef
    type: str = Field(
        description="The file format, as the `type` filter names it: pdf, docx, html, markdown, plaintext."
    )


def deprecated(instead: str) -> Any:
    """A field kept one release beside its replacement `instead` (docs/api.md "API changes"), marked
    deprecated in the schema."""
    return Field(
        description=f"Deprecated (removed in the next release): read `{instead}`.",
        json_schema_extra={"deprecated": True},
    )


class FolderOut(Schema):
    id: int
    name: str
    path: str = Field(description='"Parent / Child" as you may see it: no folder you cannot read is named.')
    parent: int | None = Field(description="Parent folder id; null at the top level or when you cannot read it.")
    is_public: bool
    writable: bool = Field(description="Whether you may upload into this folder.")
    created_at: datetime

    @staticmethod
    def resolve_path(obj: Folder, context: dict[str, Any]) -> str:
        return str(references(context["request"]).folder(obj.pk, obj.name)["path"])

    @staticmethod
    def resolve_parent(obj: Any) -> int | None:
        return getattr(obj, "visible_parent_id", None)

    @staticmethod
    def resolve_writable(obj: Any) -> bool:
        return bool(getattr(obj, "writable", False))


class FolderIn(Schema):
    name: str = Field(min_length=1, max_length=200, description=f"The folder's name. {NAME_RULE}")
    parent: int | None = Field(None, description="Id of the parent folder; omit for a top-level folder.")
    is_public: bool = Field(False, description="Anyone, even anonymous callers, may read it.")
    reader_groups: list[str] = Field(default_factory=list, description="Names of existing groups that may read.")
    writer_groups: list[str] = Field(default_factory=list, description="Names of existing groups that may upload.")

    @field_validator("name")
    @classmethod
    def name_not_blank(cls, value: str) -> str:
        value = value.strip()
        if not value or "/" in value:
            raise ValueError("a folder name must not be blank or contain '/'")
        return value


class UploadForm(Schema):
    folder: int = Field(description="Id of the folder to upload into.")
    title: str = Field("", max_length=500, description=f"Title; by default derived from the file name. {NAME_RULE}")


class ProgressOut(Schema):
    stage: str = Field(
        description="The stage within the status: reading (PDF pages read, OCR'd where scanned), layout (PDF pages "
        "laid out), chunking, contexts (model-written chunk contexts), embedding (chunks with a vector), storing."
    )
    done: int = Field(description="Units of the stage done: pages, contexts or chunks.")
    total: int | None = Field(description="Units the stage has in all; null when it has no count.")
    percent: int | None = Field(description="done of total, 0-100; null when the stage has no count.")
    eta_seconds: int | None = Field(
        description="Seconds the stage may still take at its rate so far; null until the rate is known well enough."
    )
    updated_at: datetime | None = Field(description="When the worker last recorded this.")


def document_status_url(document_id: int) -> str:
    return reverse("api:document_detail", kwargs={"document_id": document_id})


class DocumentOut(Schema):
    id: int
    title: str = Field(description="The document's own title (read from the file, or corrected by staff).")
    authors: list[str] = Field(description="Its authors, when the file names them; staff may correct them.")
    published: date | None = Field(description="The document's own date, when known.")
    tags: list[str] = Field(description="Labels staff gave the document.")
    metadata_edited: list[str] = Field(
        description="Which of title, authors and published staff corrected: re-indexing keeps those."
    )
    folder: FolderRef
    type: str = Field(
        description="The file format, as the `type` filter names it: pdf, docx, html, markdown, plaintext."
    )
    status: DocumentStatus
    failure_reason: str = Field(description="Why processing failed; empty unless status is 'failed'.")
    attempts: int
    original_name: str
    content_type: str
    size: int = Field(description="Bytes.")
    sha256: str
    page_count: int | None
    chunk_count: int = Field(description="Chunks stored when indexing finished (written by the server).")
    language: str = Field(
        description="The main language of its text, an ISO 639-1 code (en, pt); empty until detected at indexing."
    )
    extractor: str
    embedding_model: str
    embedding_dims: int | None
    pipeline: str
    stale: bool = Field(description="Indexed with a model or pipeline other than the current one.")
    context_failures: int = Field(
        description="Chunks whose model-written context failed on the last indexing (they keep the header)."
    )
    context_cache_hits: int = Field(description="Chunks whose written context was reused from the cache.")
    context_prompt_tokens: int = Field(description="Prompt tokens the context writer's server reported.")
    context_cached_prompt_tokens: int = Field(description="Of those, prompt tokens the server served from cache.")
    context_completion_tokens: int = Field(description="Completion tokens of the written contexts.")
    context_seconds: float = Field(description="Seconds spent writing chunk contexts.")
    warnings: list[str] = Field(description="Pages that could not be read (the document is indexed without them).")
    created_at: datetime
    updated_at: datetime
    status_changed_at: datetime
    indexed_at: datetime | None
    url: str = Field(description="This document's status URL (absolute).")
    viewer_url: str = Field(description="The document in the viewer (absolute).")
    progress: ProgressOut | None = Field(
        description="Where processing is within its stage (a few updates a second at most); null unless the status "
        "is extracting, chunking or embedding and the worker has reported."
    )

    @staticmethod
    def resolve_folder(obj: Document, context: dict[str, Any]) -> dict[str, Any]:
        return references(context["request"]).folder(obj.folder_id, obj.folder.name)

    @staticmethod
    def resolve_type(obj: Document) -> str:
        return file_type(obj.content_type)

    @staticmethod
    def resolve_tags(obj: Document) -> list[str]:
        return [tag.name for tag in obj.tags.all()]

    @staticmethod
    def resolve_stale(obj: Document) -> bool:
        return is_stale(obj)

    @staticmethod
    def resolve_url(obj: Document, context: dict[str, Any]) -> str:
        return references(context["request"]).url(document_status_url(obj.pk))

    @staticmethod
    def resolve_viewer_url(obj: Document, context: dict[str, Any]) -> str:
        return references(context["request"]).url(viewer_url(obj.pk))

    @staticmethod
    def resolve_progress(obj: Document) -> dict[str, Any] | None:
        found = progress_of(obj, obj.status in PROCESSING_STATUSES, timezone.now())
        if found is None:
            return None
        return {
            "stage": found.stage,
            "done": found.done,
            "total": found.total,
            "percent": found.percent,
            "eta_seconds": found.eta_seconds,
            "updated_at": found.updated_at,
        }


class FilterParams(Schema):
    """The reader's document filters (documents/filters.py), as /api/search and GET /api/documents
    take them. Values of one parameter are alternatives; different parameters must all hold."""

    type: list[str] = Field([], description="File format: pdf, docx, html, markdown or plaintext; repeatable.")
    tag: list[str] = Field(
        [], description="A tag's name (any case); repeatable. A tag no document you may read holds matches nothing."
    )
    author: list[str] = Field([], description="An author's whole name (any case); repeatable.")
    language: list[str] = Field(
        [], description="The document's main language, an ISO 639-1 code (en, pt; pt-BR reads as pt); repeatable."
    )
    date_from: str | None = Field(
        None, alias="from", description="Published on or after: YYYY-MM-DD, YYYY-MM or YYYY (its first day)."
    )
    date_to: str | None = Field(None, alias="to", description="Published on or before: YYYY-MM-DD, YYYY-MM or YYYY.")


class DocumentFilters(FilterParams):
    folder: int | None = Field(None, description="Only documents directly in this folder (404 if unreadable).")
    status: DocumentStatus | None = Field(None, description="Only documents with this status.")
    stale: bool | None = Field(None, description="true: only stale documents; false: only non-stale ones.")


class OcrPageOut(Schema):
    number: int = Field(description="1-based page number.")
    mean_confidence: float | None = Field(description="Tesseract's mean word confidence (0-100); null if no word.")
    word_count: int


class DocumentDetailOut(DocumentOut):
    ocr_pages: list[OcrPageOut] = Field(description="The pages read by OCR (they have no text layer).")

    @staticmethod
    def resolve_ocr_pages(obj: Document) -> list[dict[str, Any]]:
        pages = obj.ocr_pages.order_by("number").only("number", "mean_confidence", "word_count")
        return [{"number": p.number, "mean_confidence": p.mean_confidence, "word_count": p.word_count} for p in pages]


# --- writes -------------------------------------------------------------------------------

MAX_BULK_IDS = 500
MAX_TAGS = 50


class DocumentPatch(Schema):
    """The fields to change; a field left out is left as it is."""

    title: str | None = Field(None, min_length=1, max_length=500, description=f"The title. {NAME_RULE}")
    authors: list[str] | None = Field(None, max_length=100, description="The authors, in order (replaces them).")
    published: date | None = Field(None, description="The document's own date; null clears it.")
    tags: list[str] | None = Field(None, max_length=MAX_TAGS, description="The whole tag set (new names are created).")
    add_tags: list[str] | None = Field(None, max_length=MAX_TAGS, description="Tags to add (new names are created).")
    remove_tags: list[str] | None = Field(None, max_length=MAX_TAGS, description="Tags to remove (any case).")
    folder: int | None = Field(None, description="Move into this folder (you must be able to write it).")

    @field_validator("authors", "tags", "add_tags", "remove_tags")
    @classmethod
    def short_names(cls, values: list[str] | None) -> list[str] | None:
        if values is not None and any(len(v) > 300 for v in values):
            raise ValueError("a name is at most 300 characters")
        return values


class DocumentBulkIn(Schema):
    ids: list[int] = Field(min_length=1, max_length=MAX_BULK_IDS, description="The documents to change.")
    changes: DocumentPatch


class DocumentBulkOut(Schema):
    items: list[DocumentOut] = Field(description="The documents as changed, in the order of `ids`.")
    count: int


class TagIn(Schema):
    name: str = Field(min_length=1, max_length=100, description=f"Unique whatever its case. {NAME_RULE}")


class TagOut(Schema):
    id: int
    name: str
    documents: int = Field(description="Documents you may read that hold it.")

    @staticmethod
    def resolve_documents(obj: Any) -> int:
        return int(getattr(obj, "readable_documents", 0))


class WebhookEndpointOut(Schema):
    id: int
    name: str
    url: str
    events: list[str]
    all_folders: bool
    folders: list[int] = Field(description="Ids of the folders it hears of (each folder itself, not its subfolders).")
    is_active: bool
    created_at: datetime

    @staticmethod
    def resolve_folders(obj: Any) -> list[int]:
        return sorted(f.pk for f in obj.folders.all())


class WebhookEndpointCreatedOut(WebhookEndpointOut):
    secret: str = Field(description="The signing secret: shown in this answer only, never on reads. Keep it.")


WEBHOOK_EVENTS = "document.indexed, document.failed or document.deleted"


class WebhookEndpointIn(Schema):
    name: str = Field("", max_length=100, description="What the endpoint is for.")
    url: str = Field(max_length=2000, description="An http or https URL; deliveries are POSTed to it.")
    events: list[str] = Field(min_length=1, max_length=10, description=f"What it is told of: {WEBHOOK_EVENTS}.")
    all_folders: bool = Field(False, description="Every folder, including folders created later.")
    folders: list[int] = Field(default_factory=list, max_length=1000, description="Folder ids (unless all_folders).")
    is_active: bool = True


class WebhookEndpointPatch(Schema):
    name: str | None = Field(None, max_length=100)
    url: str | None = Field(None, max_length=2000)
    events: list[str] | None = Field(None, min_length=1, max_length=10, description=WEBHOOK_EVENTS)
    all_folders: bool | None = None
    folders: list[int] | None = Field(None, max_length=1000)
    is_active: bool | None = None
