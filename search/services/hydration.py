"""Turning ranked chunk ids into displayed hits, one query, and one slot per passage.

A `SearchHit` is the one shape of a passage found by search: the search page, the grouped
result list (search/services/grouping.py), the answer (citations/services/answer.py) and the
API schemas all read it, and `hit_from_row` is the one place a database row becomes one.

The same file uploaded into several folders (same sha256) is indexed once per copy, so its
passages would take several of the k slots with identical text. Hits are keyed by (file hash,
offsets): the best-ranked copy keeps its slot and `also_in` lists every other readable copy of
that document, found by the same hydration query.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.conf import settings
from django.db import connection

from documents import locators
from documents.embedding import embedding_stamp


@dataclass(frozen=True)
class Location:
    """Another readable copy of a hit's file."""

    document_id: int
    document_title: str
    folder_id: int
    folder_name: str
    content_type: str


@dataclass
class SearchHit:
    chunk_id: int
    document_id: int
    document_title: str
    folder_id: int
    folder_name: str
    content_type: str
    section: str
    char_start: int
    char_end: int
    page_start: int
    page_end: int
    score: float  # fused score (0–1), or the leg's own score (1 − distance, BM25) for one leg
    content: str = ""  # the passage's own words; never the context prefix
    distance: float | None = None  # cosine distance to the query; None for a stale-model document
    dense_rank: int | None = None  # 1-based rank in the dense leg, None if not in it
    bm25_rank: int | None = None
    bm25_score: float | None = None
    context: str = ""  # the retrieval prefix ("Title > Section"): read by a reranker, never quoted
    rerank_score: float | None = None  # the reader's relevance score, when a reader ran
    also_in: list[Location] = field(default_factory=list)  # other readable copies of the same file
    sha256: str = ""
    document_authors: list[str] = field(default_factory=list)
    document_published: date | None = None
    snippet: str = ""  # grouped results: plain text around the query's words
    highlights: list[tuple[int, int]] = field(default_factory=list)  # [start, end) of matched words in `snippet`

    @property
    def is_pdf(self) -> bool:
        return self.content_type == "application/pdf"

    @property
    def url(self) -> str:
        """The viewer at this passage (site-relative)."""
        return locators.viewer_url(self.document_id, self.char_start, self.char_end)

    @property
    def page_url(self) -> str | None:
        """For a PDF, the rendered page with the passage highlighted."""
        if not self.is_pdf:
            return None
        return locators.page_url(self.document_id, self.page_start, self.char_start, self.char_end)

    @property
    def file_url(self) -> str:
        """The original file, at "#page=N" for a PDF."""
        return locators.file_url(self.document_id, self.page_start if self.is_pdf else None)


@dataclass
class Ranked:
    chunk_id: int
    score: float
    dense_rank: int | None
    bm25_rank: int | None
    bm25_score: float | None


# The columns every hit is built from (`hit_from_row`); a query may select more of SearchHit's
# fields by their names.
HIT_COLUMNS = """c.id AS chunk_id, c.document_id, d.title AS document_title, d.folder_id, f.name AS folder_name,
       d.content_type, c.section, c.char_start, c.char_end, c.page_start, c.page_end, d.sha256,
       d.authors AS document_authors, d.published AS document_published"""
HIT_FROM = """documents_chunk AS c
  JOIN documents_document AS d ON d.id = c.document_id
  JOIN documents_folder AS f ON f.id = d.folder_id"""

# One round trip for every displayed field, the cosine distance for BM25-only hits too, and the
# other readable copies of the same file that a reader may open: those with an index in place
# (`indexed_at`, the reader's rule in documents.selectors.documents_for_user). A stale-model
# document's vector lives in another space: its distance is NULL, not a number.
_HYDRATE_SQL = f"""
SELECT {HIT_COLUMNS}, c.content, c.context,
       CASE WHEN d.embedding_model = %(model)s AND d.embedding_dims = %(dims)s
            THEN c.embedding <=> %(vector)s::vector END AS distance,
       (SELECT coalesce(json_agg(json_build_array(o.id, o.title, o.folder_id, fo.name, o.content_type)
                                 ORDER BY fo.name, o.id), '[]')
          FROM documents_document AS o
          JOIN documents_folder AS fo ON fo.id = o.folder_id
         WHERE o.sha256 = d.sha256 AND o.id <> d.id AND o.indexed_at IS NOT NULL
           AND o.folder_id = ANY(%(folders)s)) AS also_in
  FROM {HIT_FROM}
 WHERE c.id = ANY(%(ids)s)
"""


def fetch_rows(sql: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """`sql`'s rows as dicts by column name."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        names = [column.name for column in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


_HIT_FIELDS = frozenset(SearchHit.__dataclass_fields__)


def hit_from_row(row: Mapping[str, Any], **values: Any) -> SearchHit:
    """The hit of a row selected with HIT_COLUMNS (and any other SearchHit field by name);
    `values` (the ranking: score, ranks) complete or override it."""
    hit = SearchHit(**{name: value for name, value in row.items() if name in _HIT_FIELDS}, **values)
    hit.document_authors = list(hit.document_authors or [])
    hit.context = hit.context or ""
    # A vector without a direction has no distance (pgvector says NaN): none, as for a stale model's.
    hit.distance = None if hit.distance is None or not math.isfinite(hit.distance) else float(hit.distance)
    hit.also_in = [Location(*copy) for copy in row.get("also_in") or []]
    return hit


def hydrate(ranked: list[Ranked], vector: str, folder_ids: list[int]) -> list[SearchHit]:
    """Hits for `ranked`, in its order, one per distinct passage (chunks deleted meanwhile dropped)."""
    if not ranked:
        return []
    params: dict[str, Any] = {
        "ids": [r.chunk_id for r in ranked],
        "vector": vector,
        "model": embedding_stamp(),
        "dims": settings.EMBEDDING_DIMS,
        "folders": folder_ids,
    }
    rows = {row["chunk_id"]: row for row in fetch_rows(_HYDRATE_SQL, params)}
    hits: list[SearchHit] = []
    seen: set[tuple[str, int, int]] = set()
    for r in ranked:
        row = rows.get(r.chunk_id)
        if row is None:  # deleted between ranking and hydration
            continue
        key = (row["sha256"], row["char_start"], row["char_end"])
        if key in seen:  # another copy of a passage already shown
            continue
        seen.add(key)
        hits.append(
            hit_from_row(row, score=r.score, dense_rank=r.dense_rank, bm25_rank=r.bm25_rank, bm25_score=r.bm25_score)
        )
    return hits
