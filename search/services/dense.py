"""Dense leg: pgvector cosine distance through the HNSW index, inside the caller's folders.

The folder filter sits in the WHERE clause of the index scan. pgvector 0.8's iterative scan
keeps walking the graph until enough rows pass the filter (otherwise a selective filter
could return fewer than `limit` rows); `relaxed_order` may return them slightly out of order,
so rows are re-sorted by distance here.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.db import connection, transaction

# pgvector refuses ef_search above this value.
MAX_EF_SEARCH = 1000

# Only vectors of the current model are comparable with the query vector: a document embedded
# by another model (or dimension count) stays out of this leg until it is re-indexed.
_READABLE_CHUNKS = """
  FROM documents_chunk AS c
  JOIN documents_document AS d ON d.id = c.document_id
 WHERE d.folder_id = ANY(%(folders)s)
   AND d.embedding_model = %(model)s
   AND d.embedding_dims = %(dims)s
   AND c.embedding IS NOT NULL"""

DENSE_SQL = f"""
SELECT c.id, c.embedding <=> %(vector)s::vector AS distance{_READABLE_CHUNKS}
 ORDER BY c.embedding <=> %(vector)s::vector
 LIMIT %(limit)s
"""

# Exact distances of given chunks (the lexical leg's candidates), under the same filters.
DISTANCES_SQL = f"""
SELECT c.id, c.embedding <=> %(vector)s::vector AS distance{_READABLE_CHUNKS}
   AND c.id = ANY(%(ids)s::bigint[])
"""

# A second way into the graph: the HNSW neighbours of one chunk's own vector (an InitPlan, so
# the index scan still applies), measured against the query vector.
PROBE_SQL = f"""
SELECT probe.id, probe.embedding <=> %(vector)s::vector AS distance
  FROM (SELECT c.id, c.embedding{_READABLE_CHUNKS}
         ORDER BY c.embedding <=> (SELECT e.embedding FROM documents_chunk AS e WHERE e.id = %(seed)s)
         LIMIT %(limit)s) AS probe
"""

_SET_SCAN = "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)"


def dense_params(vector: str, folder_ids: list[int], limit: int) -> dict[str, Any]:
    return {
        "vector": vector,
        "folders": folder_ids,
        "model": settings.EMBEDDING_MODEL,
        "dims": settings.EMBEDDING_DIMS,
        "limit": limit,
    }


def ef_search_for(limit: int) -> int:
    """HNSW returns at most ef_search rows per pass: raise it to at least the candidates asked."""
    return min(MAX_EF_SEARCH, max(int(settings.HNSW_EF_SEARCH), limit))


def dense_candidates(vector: str, folder_ids: list[int], limit: int) -> list[tuple[int, float]]:
    """(chunk id, cosine distance) of the `limit` nearest chunks, nearest first."""
    if not folder_ids or limit <= 0:
        return []
    rows = _hnsw_scan(DENSE_SQL, dense_params(vector, folder_ids, limit), limit)
    return sorted(rows, key=lambda row: (row[1], row[0]))


def _hnsw_scan(sql: str, params: dict[str, Any], limit: int) -> list[tuple[int, float]]:
    """(chunk id, distance) rows of an HNSW statement, under the dense leg's scan settings."""
    # SET LOCAL semantics (set_config(..., true)): the scan settings end with this transaction
    # and never leak to the next user of a pooled connection.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_SET_SCAN, [str(ef_search_for(limit))])
        cursor.execute(sql, params)
        return _id_distances(cursor.fetchall())


def _id_distances(rows: list[Any]) -> list[tuple[int, float]]:
    return [(int(pk), float(distance)) for pk, distance in rows]


def candidate_distances(vector: str, folder_ids: list[int], chunk_ids: list[int]) -> list[tuple[int, float]]:
    """(chunk id, exact cosine distance) of those of `chunk_ids` this leg would consider (one query)."""
    if not chunk_ids or not folder_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(DISTANCES_SQL, {**dense_params(vector, folder_ids, len(chunk_ids)), "ids": chunk_ids})
        return _id_distances(cursor.fetchall())


def dense_mended(
    dense: list[tuple[int, float]],
    candidates: list[tuple[int, float]],
    vector: str,
    folder_ids: list[int],
    limit: int,
) -> list[tuple[int, float]]:
    """The dense ranking mended with other candidates and their exact distances: nearest `limit`.

    HNSW's greedy descent can end beside a tight clump of near-identical passages and miss all of
    them, however wide ef_search (BENCHMARKS.md, issue 11 fifth round). The lexical leg often
    holds one. Its candidates (`candidate_distances`) join the ranking; one that is nearer than
    the farthest HNSW returned proves the graph missed a region, so the graph is searched again
    from that chunk's own vector (found from inside, the clump is reachable). Every distance is
    exact, so the ranking only gains true neighbours.
    """
    known = {pk for pk, _ in dense}
    found = [row for row in candidates if row[0] not in known]
    if not found:
        return dense
    farthest = dense[-1][1] if dense else math.inf
    nearer = [row for row in found if row[1] < farthest]
    if nearer:
        seed = min(nearer, key=lambda row: (row[1], row[0]))[0]
        found += _hnsw_scan(PROBE_SQL, {**dense_params(vector, folder_ids, limit), "seed": seed}, limit)
    merged = dict(dense)
    merged.update(found)
    return sorted(merged.items(), key=lambda row: (row[1], row[0]))[:limit]
