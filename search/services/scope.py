"""What one search may read: the permission filter, and the reader's document filters under it.

`folder_ids` are every folder the caller may read: both legs keep to them, and BM25's statistics
(N, avgdl, df) are theirs, with or without filters. Active filters (documents/filters.py) add
the ids of the allowed documents — indexed documents of those folders that pass every filter —
which both legs apply in their own SQL (search/services/dense.py, search/services/bm25_packed.py):
a filter narrows the results, never the statistics, so it changes no passage's score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from documents.access import access_document_readable, access_folder_readable
from documents.filters import Filters, filter_documents
from documents.models import Document
from documents.selectors import readable_folder_ids

if TYPE_CHECKING:
    from documents.selectors import AnyUser


@dataclass(frozen=True)
class Scope:
    folder_ids: list[int]  # readable folders: the permission filter and the BM25 statistics
    documents: list[int] | None = None  # allowed documents under active filters; None: no filter
    chunk_count: int = 0  # chunks of `documents` (each leg picks its filtered path by it)

    @property
    def filtered(self) -> bool:
        return self.documents is not None


def search_scope(user: AnyUser, filters: Filters | None) -> Scope:
    """The caller's scope; a filter's folder or document the caller may not read raises
    `NotFoundOrForbidden`, worded like one that does not exist."""
    folder_ids = readable_folder_ids(user)
    if filters is None or not filters.active:
        return Scope(folder_ids)
    if filters.folder is not None:
        access_folder_readable(user=user, folder_id=filters.folder)
    if filters.document is not None:
        access_document_readable(user=user, document_id=filters.document)
    return Scope(folder_ids, *allowed_documents(user, folder_ids, filters))


def allowed_documents(user: AnyUser, folder_ids: list[int], filters: Filters) -> tuple[list[int], int]:
    """(ids, chunk total) of the indexed readable documents passing `filters` (one query)."""
    subtree = set(readable_folder_ids(user, filters.folder)) if filters.folder is not None else None
    readable = Document.objects.filter(folder_id__in=folder_ids, indexed_at__isnull=False)
    rows = list(filter_documents(readable, filters, subtree).order_by("pk").values_list("pk", "chunk_count"))
    return [pk for pk, _ in rows], sum(count for _, count in rows)
