"""Dense leg: pgvector cosine distance through the HNSW index, inside the caller's folders.

The folder filter sits in the WHERE clause of the index scan. pgvector 0.8's iterative scan
keeps walking the graph until enough rows pass the filter (otherwise a selective filter
could return fewer than `limit` rows); `relaxed_order` may return them slightly out of order,
so rows are re-sorted by distance here.

Document filters (documents/filters.py) reach this leg as the ids of the allowed documents:
one more condition in the same WHERE, under the folder filter. With a filter, the scan is
chosen by how many chunks it allows: up to SEARCH_FILTER_EXACT_MAX_CHUNKS, every allowed
chunk's distance is computed (exact, and cheap for a few thousand chunks: no graph walk that
would mostly meet chunks the filter drops); above it, the HNSW iterative scan walks on until
enough rows pass the filter. Either way the leg returns the nearest chunks under the filter,
never the nearest overall cut down afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from psycopg import sql

from documents.embedding import embedding_stamp

# pgvector refuses ef_search above this value.
MAX_EF_SEARCH = 1000

# Only vectors of the current model are comparable with the query vector: a document embedded
# by another model (or dimension count) stays out of this leg until it is re-indexed.
_READABLE_CHUNKS = sql.SQL("""
  FROM documents_chunk AS c
  JOIN documents_document AS d ON d.id = c.document_id
 WHERE d.folder_id = ANY(%(folders)s)
   AND d.embedding_model = %(model)s
   AND d.embedding_dims = %(dims)s
   AND c.embedding IS NOT NULL""")

# With a document filter: the same chunks, of the allowed documents only.
_FILTERED_CHUNKS = sql.Composed([_READABLE_CHUNKS, sql.SQL("\n   AND c.document_id = ANY(%(documents)s::bigint[])")])

_DENSE = """
SELECT c.id, c.embedding <=> %(vector)s::vector AS distance{chunks}
 ORDER BY c.embedding <=> %(vector)s::vector
 LIMIT %(limit)s
"""

# Every allowed chunk's distance (OFFSET 0 keeps the ORDER BY off the HNSW index): exact.
_DENSE_EXACT = """
SELECT s.id, s.distance
  FROM (SELECT c.id, c.embedding <=> %(vector)s::vector AS distance{chunks}
        OFFSET 0) AS s
 ORDER BY s.distance, s.id
 LIMIT %(limit)s
"""

# Exact distances of given chunks (the lexical leg's candidates), under the same filters.
_DISTANCES = """
SELECT c.id, c.embedding <=> %(vector)s::vector AS distance{chunks}
   AND c.id = ANY(%(ids)s::bigint[])
"""

# A second way into the graph: the HNSW neighbours of one chunk's own vector (an InitPlan, so
# the index scan still applies), measured against the query vector.
_PROBE = """
SELECT probe.id, probe.embedding <=> %(vector)s::vector AS distance
  FROM (SELECT c.id, c.embedding{chunks}
         ORDER BY c.embedding <=> (SELECT e.embedding FROM documents_chunk AS e WHERE e.id = %(seed)s)
         LIMIT %(limit)s) AS probe
"""


def _statement(template: str, chunks: sql.Composable) -> str:
    """`template` over `chunks` (the readable chunks, or those of the allowed documents)."""
    return sql.SQL(template).format(chunks=chunks).as_string()


DENSE_SQL = _statement(_DENSE, _READABLE_CHUNKS)
DENSE_FILTERED_SQL = _statement(_DENSE, _FILTERED_CHUNKS)
DENSE_EXACT_SQL = _statement(_DENSE_EXACT, _FILTERED_CHUNKS)
DISTANCES_SQL = _statement(_DISTANCES, _READABLE_CHUNKS)
DISTANCES_FILTERED_SQL = _statement(_DISTANCES, _FILTERED_CHUNKS)
PROBE_SQL = _statement(_PROBE, _READABLE_CHUNKS)
PROBE_FILTERED_SQL = _statement(_PROBE, _FILTERED_CHUNKS)

_SET_SCAN = "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)"


def dense_params(vector: str, folder_ids: list[int], limit: int, documents: list[int] | None = None) -> dict[str, Any]:
    params = {
        "vector": vector,
        "folders": folder_ids,
        "model": embedding_stamp(),
        "dims": settings.EMBEDDING_DIMS,
        "limit": limit,
    }
    if documents is not None:
        params["documents"] = documents
    return params


def ef_search_for(limit: int) -> int:
    """HNSW returns at most ef_search rows per pass: raise it to at least the candidates asked."""
    return min(MAX_EF_SEARCH, max(settings.HNSW_EF_SEARCH, limit))


def dense_candidates(
    vector: str, folder_ids: list[int], limit: int, documents: list[int] | None = None, chunk_count: int = 0
) -> list[tuple[int, float]]:
    """(chunk id, cosine distance) of the `limit` nearest chunks, nearest first.

    `documents`: only chunks of these documents (None: no filter); `chunk_count`: how many
    chunks they hold, which picks the exact scan or the filtered HNSW scan.
    """
    if not folder_ids or limit <= 0 or documents == []:
        return []
    params = dense_params(vector, folder_ids, limit, documents)
    if documents is None:
        rows = _hnsw_scan(DENSE_SQL, params, limit)
    elif exact_scan_for(chunk_count):
        with connection.cursor() as cursor:
            cursor.execute(DENSE_EXACT_SQL, params)
            rows = _id_distances(cursor.fetchall())
    else:
        rows = _hnsw_scan(DENSE_FILTERED_SQL, params, limit)
    return sorted(rows, key=_by_distance)


def _by_distance(pair: tuple[int, float]) -> tuple[float, int]:
    """Nearest first, ties by chunk id."""
    pk, distance = pair
    return distance, pk


def exact_scan_for(chunk_count: int) -> bool:
    """Whether a filter allowing `chunk_count` chunks is scanned exactly rather than through HNSW."""
    return chunk_count <= settings.SEARCH_FILTER_EXACT_MAX_CHUNKS


def _hnsw_scan(statement: str, params: dict[str, Any], limit: int) -> list[tuple[int, float]]:
    """(chunk id, distance) rows of an HNSW statement, under the dense leg's scan settings."""
    # SET LOCAL semantics (set_config(..., true)): the scan settings end with this transaction
    # and never leak to the next user of a pooled connection.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_SET_SCAN, [str(ef_search_for(limit))])
        cursor.execute(statement, params)
        return _id_distances(cursor.fetchall())


def _id_distances(rows: list[Any]) -> list[tuple[int, float]]:
    """(chunk id, distance) rows, leaving out a chunk whose distance is not a number.

    pgvector answers NaN for a vector without a direction (all zeros) or whose length overflows
    float32; such a chunk is no one's neighbour, and a NaN would pass for an answer past the gate.
    """
    return [(int(pk), float(distance)) for pk, distance in rows if math.isfinite(distance)]


def candidate_distances(
    vector: str, folder_ids: list[int], chunk_ids: list[int], documents: list[int] | None = None
) -> list[tuple[int, float]]:
    """(chunk id, exact cosine distance) of those of `chunk_ids` this leg would consider (one query)."""
    if not chunk_ids or not folder_ids:
        return []
    statement = DISTANCES_SQL if documents is None else DISTANCES_FILTERED_SQL
    with connection.cursor() as cursor:
        cursor.execute(statement, {**dense_params(vector, folder_ids, len(chunk_ids), documents), "ids": chunk_ids})
        return _id_distances(cursor.fetchall())


def dense_mended(
    dense: list[tuple[int, float]],
    candidates: list[tuple[int, float]],
    vector: str,
    folder_ids: list[int],
    limit: int,
    documents: list[int] | None = None,
) -> list[tuple[int, float]]:
    """The dense ranking mended with other candidates and their exact distances: nearest `limit`.

    HNSW's greedy descent can end beside a tight clump of near-identical passages and miss all of
    them, however wide ef_search (BENCHMARKS.md, dense leg). The lexical leg often
    holds one. Its candidates (`candidate_distances`) join the ranking; one that is nearer than
    the farthest HNSW returned proves the graph missed a region, so the graph is searched again
    from that chunk's own vector (found from inside, the clump is reachable). Every distance is
    exact, so the ranking only gains true neighbours.
    """
    known = {pk for pk, _ in dense}
    found = [(pk, distance) for pk, distance in candidates if pk not in known]
    if not found:
        return dense
    farthest = dense[-1][1] if dense else math.inf
    nearer = [(pk, distance) for pk, distance in found if distance < farthest]
    if nearer:
        seed, _ = min(nearer, key=_by_distance)
        probe = PROBE_SQL if documents is None else PROBE_FILTERED_SQL
        found += _hnsw_scan(probe, {**dense_params(vector, folder_ids, limit, documents), "seed": seed}, limit)
    merged = dict(dense)
    merged.update(found)
    return sorted(merged.items(), key=_by_distance)[:limit]


@dataclass(frozen=True)
class DenseLeg:
    """A search's dense ranking as it ended (mended, `dense_mended`), and what it was asked for.

    The same question in the same scope gets the same ranking again (the legs' SQL and the
    lexical candidates that mend it are deterministic): the search page's grouped result list
    (search/services/grouping.py) takes the one its answer's search has just made instead of
    asking PostgreSQL for it a second time."""

    vector: str  # the query vector's pgvector literal
    folder_ids: frozenset[int]
    documents: frozenset[int] | None  # the filters' allowed documents; None: no filter
    limit: int
    ranking: tuple[tuple[int, float], ...]  # (chunk id, distance), nearest first

    @classmethod
    def of(
        cls, vector: str, folder_ids: Iterable[int], documents: Iterable[int] | None, limit: int,
        ranking: list[tuple[int, float]],
    ) -> DenseLeg:  # fmt: skip
        return cls(vector, frozenset(folder_ids), None if documents is None else frozenset(documents), limit,
                   tuple(ranking))  # fmt: skip

    def serves(self, vector: str, folder_ids: Iterable[int], documents: Iterable[int] | None, limit: int) -> bool:
        """Whether this is the ranking those arguments would get."""
        return self == DenseLeg.of(vector, folder_ids, documents, limit, list(self.ranking))
