"""Dense leg: pgvector cosine distance through the HNSW index, inside the caller's folders.

The folder filter sits in the WHERE clause of the index scan. pgvector 0.8's iterative scan
keeps walking the graph until enough rows pass the filter (otherwise a selective filter
could return fewer than `limit` rows); `relaxed_order` may return them slightly out of order,
so rows are re-sorted by distance here.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection, transaction

# pgvector refuses ef_search above this value.
MAX_EF_SEARCH = 1000

# Only vectors of the current model are comparable with the query vector: a document embedded
# by another model (or dimension count) stays out of this leg until it is re-indexed.
DENSE_SQL = """
SELECT c.id, c.embedding <=> %(vector)s::vector AS distance
  FROM documents_chunk AS c
  JOIN documents_document AS d ON d.id = c.document_id
 WHERE d.folder_id = ANY(%(folders)s)
   AND d.embedding_model = %(model)s
   AND d.embedding_dims = %(dims)s
   AND c.embedding IS NOT NULL
 ORDER BY c.embedding <=> %(vector)s::vector
 LIMIT %(limit)s
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
    # SET LOCAL semantics (set_config(..., true)): the scan settings end with this transaction
    # and never leak to the next user of a pooled connection.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_SET_SCAN, [str(ef_search_for(limit))])
        cursor.execute(DENSE_SQL, dense_params(vector, folder_ids, limit))
        rows = cursor.fetchall()
    return sorted(((int(pk), float(distance)) for pk, distance in rows), key=lambda row: (row[1], row[0]))
