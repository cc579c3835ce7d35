"""Hybrid retrieval: dense (pgvector HNSW) + lexical (BM25 in SQL), fused by reciprocal rank.

`retrieve` is the one code path; `search_chunks` resolves the caller's readable folders first
and calls it. Folder ids enter both legs' WHERE clauses, so ranking and BM25 statistics only
ever see readable text; nothing is filtered after ranking.

SQL per search, independent of the results: folder ids (1, or 2 with a folder narrowed),
the dense leg (set_config + SELECT in one transaction), the BM25 leg, and one hydration query.

The gate: when the nearest current-model chunk in the readable folders is farther than
ANSWER_MAX_DISTANCE (or there is none), the search is refused with no hits. It is refused
too when the query names something no readable document mentions (search/services/gate.py;
one more query, run only for a query holding name-like words; ANSWER_REFUSE_UNKNOWN_NAMES). Every mode runs
the dense leg for this decision — mode="bm25" asks it for a single row — so a question is
refused or not regardless of the ranking mode. `apply_gate=False` (evaluation) still reports
the decision in `refused` but returns the hits anyway.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from django.conf import settings
from django.db import connection

from documents.selectors import readable_folder_ids
from search.services.bm25 import bm25_candidates
from search.services.dense import dense_candidates
from search.services.fusion import reciprocal_rank_fusion
from search.services.gate import unknown_names
from search.services.query_embedding import clean_query, embed_query, vector_literal

if TYPE_CHECKING:
    from documents.selectors import AnyUser

Mode = Literal["dense", "bm25", "hybrid"]
MODES: tuple[str, ...] = ("dense", "bm25", "hybrid")
MAX_K = 1000  # pgvector's ef_search ceiling bounds how many dense candidates one scan returns


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


@dataclass
class SearchResult:
    query: str
    refused: bool
    threshold: float
    best_distance: float | None
    hits: list[SearchHit] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)  # names in the query no readable text mentions
    timings_ms: dict[str, float] = field(default_factory=dict)


class _Clock:
    """Milliseconds per stage, in the order the stages ran."""

    def __init__(self) -> None:
        self.start = self.mark = time.perf_counter()
        self.timings: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round((now - self.mark) * 1000, 3)
        self.mark = now

    def done(self) -> dict[str, float]:
        self.timings["total"] = round((time.perf_counter() - self.start) * 1000, 3)
        return self.timings


def search_chunks(
    *, user: AnyUser, query: str, folder_id: int | None = None, k: int = 10, mode: str = "hybrid"
) -> SearchResult:
    """Search what `user` may read (optionally one folder and its subfolders)."""
    validate(k=k, mode=mode)
    started = time.perf_counter()
    folder_ids = readable_folder_ids(user, folder_id)
    result = retrieve(query=query, folder_ids=folder_ids, k=k, mode=mode)
    result.timings_ms["folders"] = round((time.perf_counter() - started) * 1000 - result.timings_ms["total"], 3)
    result.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 3)
    return result


def validate(*, k: int, mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k must be between 1 and {MAX_K}, not {k}")


def retrieve(
    *, query: str, folder_ids: list[int], k: int = 10, mode: str = "hybrid", apply_gate: bool = True
) -> SearchResult:
    """Rank chunks of `folder_ids` for `query`; the caller vouches that those folders are readable."""
    validate(k=k, mode=mode)
    clock = _Clock()
    text = clean_query(query)
    threshold = float(settings.ANSWER_MAX_DISTANCE)
    if not folder_ids or not text:
        # Nothing to search: answer before touching the chunk tables (or the model).
        return SearchResult(query=text, refused=True, threshold=threshold, best_distance=None, timings_ms=clock.done())
    vector, _cached = embed_query(text)
    literal = vector_literal(vector)
    clock.lap("embed")
    per_leg = max(int(settings.SEARCH_CANDIDATES_PER_LEG), k)
    # mode="bm25" still asks the dense leg for its nearest chunk: the gate needs it.
    dense = dense_candidates(literal, folder_ids, per_leg if mode != "bm25" else 1)
    clock.lap("dense")
    bm25 = bm25_candidates(text, folder_ids, per_leg) if mode != "dense" else []
    clock.lap("bm25")
    best_distance = dense[0][1] if dense else None
    unknown = unknown_names(text, folder_ids) if settings.ANSWER_REFUSE_UNKNOWN_NAMES else []
    clock.lap("names")
    refused = best_distance is None or best_distance > threshold or bool(unknown)
    result = SearchResult(
        query=text, refused=refused, threshold=threshold, best_distance=best_distance, unknown_names=unknown
    )
    if not (refused and apply_gate):
        ranked = _rank(dense if mode != "bm25" else [], bm25, mode)[:k]
        clock.lap("fuse")
        result.hits = _hydrate(ranked, literal)
        clock.lap("hydrate")
    result.timings_ms = clock.done()
    return result


@dataclass
class _Ranked:
    chunk_id: int
    score: float
    dense_rank: int | None
    bm25_rank: int | None
    bm25_score: float | None


def _rank(dense: list[tuple[int, float]], bm25: list[tuple[int, float]], mode: str) -> list[_Ranked]:
    bm25_scores = dict(bm25)
    if mode == "dense":
        return [_Ranked(pk, 1.0 - dist, rank, None, None) for rank, (pk, dist) in enumerate(dense, start=1)]
    if mode == "bm25":
        return [_Ranked(pk, score, None, rank, score) for rank, (pk, score) in enumerate(bm25, start=1)]
    fused = reciprocal_rank_fusion(
        [[pk for pk, _ in dense], [pk for pk, _ in bm25]],
        k=int(settings.SEARCH_RRF_K),
        weights=[1.0, float(settings.SEARCH_BM25_WEIGHT)],
    )
    return [_Ranked(f.chunk_id, f.score, f.ranks[0], f.ranks[1], bm25_scores.get(f.chunk_id)) for f in fused]


# One round trip for every displayed field, and the cosine distance for BM25-only hits too.
# A stale-model document's vector lives in another space: its distance is NULL, not a number.
_HYDRATE_SQL = """
SELECT c.id, c.document_id, d.title, d.folder_id, f.name, c.section, c.content,
       c.char_start, c.char_end, c.page_start, c.page_end,
       CASE WHEN d.embedding_model = %(model)s AND d.embedding_dims = %(dims)s
            THEN c.embedding <=> %(vector)s::vector END AS distance
  FROM documents_chunk AS c
  JOIN documents_document AS d ON d.id = c.document_id
  JOIN documents_folder AS f ON f.id = d.folder_id
 WHERE c.id = ANY(%(ids)s)
"""


def _hydrate(ranked: list[_Ranked], vector: str) -> list[SearchHit]:
    if not ranked:
        return []
    params: dict[str, Any] = {
        "ids": [r.chunk_id for r in ranked],
        "vector": vector,
        "model": settings.EMBEDDING_MODEL,
        "dims": settings.EMBEDDING_DIMS,
    }
    with connection.cursor() as cursor:
        cursor.execute(_HYDRATE_SQL, params)
        rows = {row[0]: row for row in cursor.fetchall()}
    hits = []
    for r in ranked:
        row = rows.get(r.chunk_id)
        if row is None:  # deleted between ranking and hydration
            continue
        hits.append(_hit(row, r))
    return hits


def _hit(row: tuple[Any, ...], ranked: _Ranked) -> SearchHit:
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
    )
