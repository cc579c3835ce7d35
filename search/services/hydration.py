"""Turning ranked chunk ids into displayed hits, one query, and one slot per passage.

The same file uploaded into several folders (same sha256) is indexed once per copy, so its
passages would take several of the k slots with identical text. Hits are keyed by (file hash,
offsets): the best-ranked copy keeps its slot and `also_in` lists every other readable copy of
that document (folder and document ids), found by the same hydration query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.conf import settings
from django.db import connection

from documents.embedding import embedding_stamp


@dataclass(frozen=True)
class Location:
    document_id: int
    folder_id: int
    folder_name: str


@dataclass
class SearchHit:
    chunk_id: int
    document_id: int
    document_title: str
    folder_id: int
    folder_name: str
    section: str
    content: str
    char_start: int
    char_end: int
    page_start: int
    page_end: int
    distance: float | None  # cosine distance to the query; None for a stale-model document
    dense_rank: int | None  # 1-based rank in the dense leg, None if not in it
    bm25_rank: int | None
    bm25_score: float | None
    score: float  # fused RRF score, or the leg's own score (1 − distance, BM25) for one leg
    context: str = ""  # the retrieval prefix ("Title > Section"): read by a reranker, never quoted
    rerank_score: float | None = None  # the reader's relevance score, when a reader ran
    also_in: list[Location] = field(default_factory=list)  # other readable copies of the same file
    sha256: str = ""
    document_authors: list[str] = field(default_factory=list)
    document_published: date | None = None


@dataclass
class Ranked:
    chunk_id: int
    score: float
    dense_rank: int | None
    bm25_rank: int | None
    bm25_score: float | None


# One round trip for every displayed field, the cosine distance for BM25-only hits too, and the
# other readable copies of the same file that a reader may open: those with an index in place
# (`indexed_at`, the reader's rule in documents.selectors.documents_for_user). A stale-model
# document's vector lives in another space: its distance is NULL, not a number.
_HYDRATE_SQL = """
SELECT c.id, c.document_id, d.title, d.folder_id, f.name, c.section, c.content,
       c.char_start, c.char_end, c.page_start, c.page_end,
       CASE WHEN d.embedding_model = %(model)s AND d.embedding_dims = %(dims)s
            THEN c.embedding <=> %(vector)s::vector END AS distance,
       c.context, d.sha256,
       (SELECT coalesce(json_agg(json_build_array(o.id, o.folder_id, fo.name) ORDER BY fo.name, o.id), '[]')
          FROM documents_document AS o
          JOIN documents_folder AS fo ON fo.id = o.folder_id
         WHERE o.sha256 = d.sha256 AND o.id <> d.id AND o.indexed_at IS NOT NULL
           AND o.folder_id = ANY(%(folders)s)) AS copies,
       d.authors, d.published
  FROM documents_chunk AS c
  JOIN documents_document AS d ON d.id = c.document_id
  JOIN documents_folder AS f ON f.id = d.folder_id
 WHERE c.id = ANY(%(ids)s)
"""


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
    with connection.cursor() as cursor:
        cursor.execute(_HYDRATE_SQL, params)
        rows = {row[0]: row for row in cursor.fetchall()}
    hits: list[SearchHit] = []
    seen: set[tuple[str, int, int]] = set()
    for r in ranked:
        row = rows.get(r.chunk_id)
        if row is None:  # deleted between ranking and hydration
            continue
        key = (row[13], row[7], row[8])
        if key in seen:  # another copy of a passage already shown
            continue
        seen.add(key)
        hits.append(_hit(row, r))
    return hits


def _hit(row: tuple[Any, ...], ranked: Ranked) -> SearchHit:
    return SearchHit(
        chunk_id=row[0],
        document_id=row[1],
        document_title=row[2],
        folder_id=row[3],
        folder_name=row[4],
        section=row[5],
        content=row[6],
        char_start=row[7],
        char_end=row[8],
        page_start=row[9],
        page_end=row[10],
        distance=None if row[11] is None else float(row[11]),
        dense_rank=ranked.dense_rank,
        bm25_rank=ranked.bm25_rank,
        bm25_score=ranked.bm25_score,
        score=ranked.score,
        context=row[12] or "",
        sha256=row[13],
        also_in=[Location(doc, folder, name) for doc, folder, name in row[14]],
        document_authors=list(row[15] or []),
        document_published=row[16],
    )
