"""The search indexes a bulk load drops first and builds once at the end, as pg_restore does.

Inserting row by row updates the HNSW graph (and the GIN index) for every chunk; building
each index once after the load is several times faster. Used by a backup import into an empty
library and by the search benchmarks' throw-away databases.
"""

from __future__ import annotations

import time

from django.db import connection

from documents.lexical.blocks import lexeme_blocks_vacuum
from documents.lexical.index import lexical_index_complete

# The chunk vectors' HNSW graph and the chunks' full-text GIN index.
REBUILT_INDEXES = ("chunk_embedding_hnsw", "chunk_search_vector_gin")


def drop_search_indexes() -> dict[str, str]:
    """Drop the vector and full-text indexes (bulk loads are faster without); returns their DDL."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY(%s)", [list(REBUILT_INDEXES)])
        ddl = dict(cursor.fetchall())
        for name in ddl:
            cursor.execute(f'DROP INDEX "{name}"')
    return ddl


def create_search_indexes(ddl: dict[str, str]) -> dict[str, float]:
    """Rebuild the dropped indexes with enough memory for the HNSW graph, then every block of packed
    postings (loads pass blocks=False to lexical_index_replace) and the folder lengths; seconds per step."""
    seconds = {}
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '2GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
        for name, statement in ddl.items():
            started = time.perf_counter()
            cursor.execute(statement)
            seconds[name] = time.perf_counter() - started
        started = time.perf_counter()
        lexical_index_complete()  # the packed postings, deferred by the load like the indexes
        seconds["packed postings"] = time.perf_counter() - started
        cursor.execute("VACUUM ANALYZE documents_chunk")
        cursor.execute("VACUUM ANALYZE documents_document")
    lexeme_blocks_vacuum()
    return seconds
