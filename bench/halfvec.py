"""bench_search --halfvec: the HNSW index over half-precision vectors, side by side with the default.

pgvector's `halfvec` stores 2 bytes per dimension instead of 4. The table keeps its `vector`
column; only the index changes, as an expression index over `embedding::halfvec(N)` with the
same HNSW parameters as `chunk_embedding_hnsw`, and the query casts the same way so the planner
can use it. Both indexes are measured in one run on the same queries: recall@20 against an
exact scan of the full-precision vectors, the leg's latency per ef_search, build time and size.
The half-precision index is dropped afterwards, so the other figures describe the default.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from bench.searches import exact_neighbours, percentiles
from search.services.dense import DENSE_SQL, dense_candidates, dense_params
from search.services.query_embedding import embed_query, vector_literal

INDEX = "chunk_embedding_hnsw_halfvec"


def halfvec_type() -> str:
    return f"halfvec({settings.EMBEDDING_DIMS})"


def halfvec_sql() -> str:
    """The dense leg's query, ordered by the half-precision expression the index holds."""
    half = halfvec_type()
    distance = f"c.embedding::{half} <=> %(vector)s::{half}"
    return DENSE_SQL.replace("c.embedding <=> %(vector)s::vector", distance)


def build_index() -> dict[str, float]:
    """Create the halfvec HNSW index (m, ef_construction as the default's); seconds and MB."""
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '2GB'")
        cursor.execute(
            f"CREATE INDEX {INDEX} ON documents_chunk USING hnsw ((embedding::{halfvec_type()}) halfvec_cosine_ops) "
            "WITH (m = 16, ef_construction = 64)"
        )
        seconds = time.perf_counter() - started
        cursor.execute("ANALYZE documents_chunk")
        cursor.execute("SELECT pg_relation_size(%s::regclass), pg_relation_size('chunk_embedding_hnsw')", [INDEX])
        half, full = cursor.fetchone() or (0, 0)
    return {
        "build_seconds": round(seconds, 1),
        "halfvec_mb": round(half / 2**20, 1),
        "vector_mb": round(full / 2**20, 1),
    }


def halfvec_candidates(vector: str, folder_ids: list[int], limit: int, ef_search: int) -> list[tuple[int, float]]:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)",
            [str(ef_search)],
        )
        cursor.execute(halfvec_sql(), dense_params(vector, folder_ids, limit))
        return [(int(pk), float(distance)) for pk, distance in cursor.fetchall()]


def uses_index(vector: str, folder_ids: list[int]) -> bool:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + halfvec_sql(), dense_params(vector, folder_ids, 20))
        return any(INDEX in row[0] for row in cursor.fetchall())


def compare(queries: list[str], folder_ids: list[int], efs: tuple[int, ...] = (40, 100, 200)) -> dict[str, Any]:
    """Recall@20 (vs exact full-precision scan) and latency of both indexes per ef_search."""
    from django.test import override_settings

    k = 20
    vectors = [vector_literal(embed_query(text)[0]) for text in queries]
    truth = [{pk for pk, _ in exact_neighbours(v, folder_ids, k)} for v in vectors]
    figures: dict[str, Any] = build_index()
    figures["plan_uses_index"] = uses_index(vectors[0], folder_ids)
    legs = {
        "vector": lambda v, ef: dense_candidates(v, folder_ids, k),
        "halfvec": lambda v, ef: halfvec_candidates(v, folder_ids, k, ef),
    }
    try:
        for ef in efs:
            with override_settings(HNSW_EF_SEARCH=ef):
                for name, leg in legs.items():
                    recalls, times = [], []
                    for _ in range(2):  # two passes: 2 × len(queries) latency samples
                        for vector, want in zip(vectors, truth, strict=True):
                            started = time.perf_counter()
                            rows = leg(vector, ef)
                            times.append((time.perf_counter() - started) * 1000)
                            if want:
                                recalls.append(len({pk for pk, _ in rows} & want) / len(want))
                    figures.setdefault(name, {})[str(ef)] = {
                        "recall@20": statistics.fmean(recalls),
                        "ms": percentiles(times),
                    }
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {INDEX}")
    return figures
