"""Browse reads: the folders a reader may open, their indexed documents, and a document's outline.

Readers browse indexed documents only (`indexed_at` set, as search reads them): an upload still
queued or one that failed is not listed, whoever asks, even a writer of its folder (writers
manage those in the admin). Folders and documents come through `documents.selectors`, so the
permission rule stays in one place; a folder or document a reader may not open is
`NotFoundOrForbidden`, worded as a missing one.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet
from django.db.models.expressions import OrderBy

from documents.access import access_document_readable, access_folder_readable, document_not_found
from documents.models import Chunk, Document, Folder
from documents.selectors import AnyUser, documents_for_user, folders_readable_by

# How a folder's documents may be ordered: the URL's word, and the columns it sorts by.
# Documents without a known publication date come last either way.
SORTS: dict[str, tuple[str | OrderBy, ...]] = {
    "title": ("title", "pk"),
    "-title": ("-title", "-pk"),
    "date": ("indexed_at", "pk"),
    "-date": ("-indexed_at", "-pk"),
    "published": (F("published").asc(nulls_last=True), "pk"),
    "-published": (F("published").desc(nulls_last=True), "-pk"),
}


def library_folders(*, user: AnyUser) -> QuerySet[Folder]:
    """Readable folders, each with `document_count`: its indexed documents (not its subfolders')."""
    return folders_readable_by(user).annotate(
        document_count=Count("documents", filter=Q(documents__indexed_at__isnull=False))
    )


def library_folder(*, user: AnyUser, folder_id: int) -> Folder:
    return access_folder_readable(user=user, folder_id=folder_id)


def folder_documents(*, user: AnyUser, folder: Folder, sort: str = "title") -> QuerySet[Document]:
    """The folder's indexed documents (not its subfolders'), ordered by `sort` (one of SORTS)."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
    documents = documents_for_user(user=user).filter(folder=folder, indexed_at__isnull=False)
    return documents.order_by(*SORTS[sort]).defer("canonical_text", "page_starts", "warnings")


def library_document(*, user: AnyUser, document_id: int) -> Document:
    """A readable, indexed document; anything else answers like a missing one."""
    document = access_document_readable(user=user, document_id=document_id)
    if document.indexed_at is None:
        raise document_not_found(document_id)
    return document


@dataclass(frozen=True)
class OutlineEntry:
    title: str  # the section's own heading (the last part of its path)
    depth: int  # 0 for a top-level section
    char_start: int  # where its first passage starts in the canonical text
    page: int


def document_outline(document: Document) -> list[OutlineEntry]:
    """The document's sections, in reading order, from its chunks' section paths ("A > B").

    Chunks carry the path of the section they sit in (documents/chunking.py); a heading enters
    the outline where its first chunk starts, and every ancestor of a path enters before it (a
    chapter whose text all sits in its subsections is still listed)."""
    entries: list[OutlineEntry] = []
    seen: set[tuple[str, ...]] = set()
    rows = (
        Chunk.objects.filter(document=document).order_by("ordinal").values_list("section", "char_start", "page_start")
    )
    for section, char_start, page in rows:
        parts = tuple(part.strip() for part in section.split(" > ") if part.strip())
        for depth in range(len(parts)):
            path = parts[: depth + 1]
            if path not in seen:
                seen.add(path)
                entries.append(OutlineEntry(parts[depth], depth, char_start, page))
    return entries
