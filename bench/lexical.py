"""bench_search's lexical figures: the BM25 leg vs ts_rank_cd, its exactness, HNSW recall per ef.

Each lexical leg is timed as its own call on the same queries (k = candidates per leg), so
they compare within one run. The BM25 leg's answer is checked on every query (first round)
against a reference computed from the chunks' own lexemes (REFERENCE_SQL: the formula of
search/services/bm25_packed.py over documents_chunk and documents_document, nothing of the
packed rows): ids and scores within 1e-6. `bm25_exact` is that check.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from django.conf import settings
from django.db import connection
from django.test import override_settings

from bench.peer_lexical import OR_QUERY, ts_rank_cd_candidates
from bench.searches import exact_neighbours, percentiles
from documents.lexical.index import K1, B
from search.services.bm25_packed import bm25_packed
from search.services.dense import candidate_distances, dense_candidates, dense_mended
from search.services.query_embedding import clean_query, embed_query, vector_literal
from search.services.question_reading import question_reading
from search.services.terms import lexical_query

Rows = list[tuple[int, float]]

# BM25 from the chunks' search_vector: only chunks holding a query lexeme (found through the GIN
# index) are unnested; n(t) counts them, N and avgdl are the searched documents' sums.
REFERENCE_SQL = f"""
WITH q AS (
    SELECT array_agg(DISTINCT u.lexeme) AS lexemes, ({OR_QUERY}) AS query
      FROM unnest(%(configs)s::regconfig[]) AS r(config)
     CROSS JOIN LATERAL unnest(to_tsvector(r.config, %(query)s::text)) AS u
),
docs AS (
    SELECT d.id, d.chunk_count, d.lexeme_total FROM documents_document AS d WHERE d.folder_id = ANY(%(folders)s)
),
stats AS (
    SELECT sum(docs.chunk_count)::float8 AS n_chunks,
           sum(docs.lexeme_total)::float8 / nullif(sum(docs.chunk_count), 0) AS avgdl
      FROM docs
),
postings AS MATERIALIZED (
    SELECT c.id AS chunk_id, u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf,
           c.lexeme_count::float8 AS dl
      FROM documents_chunk AS c
      JOIN docs ON docs.id = c.document_id
     CROSS JOIN q
     CROSS JOIN LATERAL unnest(c.search_vector) AS u
     WHERE c.search_vector @@ q.query AND u.lexeme = ANY(q.lexemes)
),
idf AS MATERIALIZED (
    SELECT f.lexeme, ln(1 + (st.n_chunks - f.n + 0.5) / (f.n + 0.5)) AS idf
      FROM (SELECT lexeme, count(*)::float8 AS n FROM postings GROUP BY lexeme) AS f
     CROSS JOIN stats AS st
)
SELECT p.chunk_id,
       sum(i.idf * (p.tf * ({K1} + 1)) / (p.tf + {K1} * (1 - {B} + {B} * p.dl / st.avgdl))) AS score
  FROM postings AS p
  JOIN idf AS i ON i.lexeme = p.lexeme
 CROSS JOIN stats AS st
 GROUP BY p.chunk_id
 ORDER BY score DESC, p.chunk_id
 LIMIT %(limit)s
"""


def bm25_reference(query: str, folder_ids: list[int], limit: int, configs: list[str]) -> Rows:
    """What the BM25 leg must return for the keyword query text `query`, from the chunks' lexemes
    (ties by chunk id)."""
    if not folder_ids or limit <= 0 or not query:
        return []
    with connection.cursor() as cursor:
        params: dict[str, Any] = {
            "query": query,
            "folders": folder_ids,
            "limit": limit,
            "configs": configs,
        }
        cursor.execute(REFERENCE_SQL, params)
        return [(int(pk), float(score)) for pk, score in cursor.fetchall()]


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def same_top(got: Rows, want: Rows) -> bool:
    """Same ids in order and scores within 1e-6 (tied scores may swap ids)."""
    if len(got) != len(want):
        return False
    return all(
        abs(gs - ws) <= 1e-6 and (gi == wi or abs(gs - ws) < 1e-9) for (gi, gs), (wi, ws) in zip(got, want, strict=True)
    )


def lexical_legs(queries: list[str], folder_ids: list[int], rounds: int) -> dict[str, Any]:
    """Milliseconds per leg (percentiles), and whether the BM25 leg equals the reference on every query."""
    limit = settings.SEARCH_CANDIDATES_PER_LEG
    samples: dict[str, list[float]] = {"bm25_packed": [], "ts_rank_cd": []}
    exact, reference_ms = [], []
    for round_ in range(rounds):
        for text in queries:
            reading = question_reading(text, folder_ids)  # as retrieval reads it, once per search
            configs, keywords = reading.configs, lexical_query(text, reading.variants)
            ms, packed = _timed(partial(bm25_packed, keywords, folder_ids, limit, configs=configs))
            samples["bm25_packed"].append(ms)
            ms, _ = _timed(partial(ts_rank_cd_candidates, text, folder_ids, limit, configs))
            samples["ts_rank_cd"].append(ms)
            if round_ == 0:
                ms, want = _timed(partial(bm25_reference, keywords, folder_ids, limit, configs))
                reference_ms.append(ms)
                exact.append(same_top(packed, want))
    return {
        "legs": {name: percentiles(values) for name, values in samples.items()},
        "bm25_exact": all(exact),
        "bm25_checked": len(exact),
        "reference_ms": percentiles(reference_ms),
    }


def hnsw_recall_by_ef(
    queries: list[str], folder_ids: list[int], efs: tuple[int, ...] = (40, 100, 200, 400, 800)
) -> dict[str, Any]:
    """Mean recall@20 of the HNSW leg against an exact scan, and its p50/p95, per ef_search.

    `recall` counts the exact top 20's ids found (recall@20). `within_distance` counts
    returned rows no farther than the exact 20th distance (+1e-6): it tells a miss among
    near-ties (a passage as near as the one it displaced) from a real miss. `mended` is the
    same count for the dense ranking hybrid search fuses: HNSW's candidates mended with the
    lexical leg's (search.services.dense.dense_mended), as `retrieve` asks for them.
    """
    k, per_leg = 20, settings.SEARCH_CANDIDATES_PER_LEG
    vectors = [vector_literal(embed_query(text)[0]) for text in queries]
    exact = [exact_neighbours(v, folder_ids, k) for v in vectors]
    lexical = [
        candidate_distances(vector, folder_ids, [pk for pk, _ in _bm25_leg(clean_query(text), folder_ids, per_leg)])
        for text, vector in zip(queries, vectors, strict=True)
    ]
    figures: dict[str, Any] = {}
    for ef in efs:
        with override_settings(HNSW_EF_SEARCH=ef):
            recalls, near, mended, times = [], [], [], []
            for vector, truth, candidates in zip(vectors, exact, lexical, strict=True):
                ms, rows = _timed(partial(dense_candidates, vector, folder_ids, k))
                times.append(ms)
                if truth:
                    wanted = {pk for pk, _ in truth}
                    recalls.append(len({pk for pk, _ in rows} & wanted) / len(truth))
                    near.append(sum(d <= truth[-1][1] + 1e-6 for _, d in rows[: len(truth)]) / len(truth))
                    fused = dense_mended(
                        dense_candidates(vector, folder_ids, per_leg), candidates, vector, folder_ids, per_leg
                    )
                    mended.append(len({pk for pk, _ in fused[:k]} & wanted) / len(truth))
        figures[str(ef)] = {"recall": statistics.fmean(recalls), "within_distance": statistics.fmean(near),
                            "mended": statistics.fmean(mended), "ms": percentiles(times)}  # fmt: skip
    return figures


def _bm25_leg(text: str, folder_ids: list[int], limit: int) -> Rows:
    """The BM25 leg as retrieval runs it: the query read as `question_reading` reads it."""
    reading = question_reading(text, folder_ids)
    return bm25_packed(lexical_query(text, reading.variants), folder_ids, limit, configs=reading.configs).hits
