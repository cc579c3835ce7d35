"""bench_search's lexical figures: packed BM25 vs bounded vs the full scan vs ts_rank_cd, HNSW recall per ef.

Each lexical leg is timed as its own call on the same queries (k = candidates per leg), so
the four compare within one run. The packed and the bounded BM25's answers are checked
against the full scan on every query (ids and scores within 1e-6): `bm25_exact` is that check
(both paths), and `bm25_pruned` the share of queries where MaxScore set a lexeme aside.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from django.conf import settings
from django.test import override_settings

from bench.peer_lexical import ts_rank_cd_candidates
from bench.searches import exact_neighbours, percentiles
from search.services.bm25 import bm25_reference, bm25_topk, maxscore_postings_per_lexeme
from search.services.bm25_packed import bm25_packed
from search.services.dense import candidate_distances, dense_candidates, dense_mended
from search.services.query_embedding import clean_query, embed_query, vector_literal

Rows = list[tuple[int, float]]


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
    """Milliseconds per leg (percentiles) and the exactness check of the packed and bounded BM25."""
    limit = int(settings.SEARCH_CANDIDATES_PER_LEG)
    per_lexeme = maxscore_postings_per_lexeme(limit)
    samples: dict[str, list[float]] = {"bm25_packed": [], "bm25_topk": [], "bm25_full_scan": [], "ts_rank_cd": []}
    exact, pruned = [], []
    for _ in range(rounds):
        for text in queries:
            ms, packed = _timed(partial(bm25_packed, text, folder_ids, limit))
            samples["bm25_packed"].append(ms)
            ms, (got, was_pruned) = _timed(partial(bm25_topk, text, folder_ids, limit, per_lexeme))
            samples["bm25_topk"].append(ms)
            ms, want = _timed(partial(bm25_reference, text, folder_ids, limit))
            samples["bm25_full_scan"].append(ms)
            ms, _ = _timed(partial(ts_rank_cd_candidates, text, folder_ids, limit))
            samples["ts_rank_cd"].append(ms)
            exact.append(same_top(got, want) and same_top(packed, want))
            pruned.append(was_pruned)
    return {
        "legs": {name: percentiles(values) for name, values in samples.items()},
        "bm25_exact": all(exact),
        "bm25_pruned": statistics.fmean(pruned),
        "per_lexeme": per_lexeme,
    }


def hnsw_recall_by_ef(
    queries: list[str], folder_ids: list[int], efs: tuple[int, ...] = (40, 100, 200, 400, 800)
) -> dict[str, Any]:
    """Mean recall@20 of the HNSW leg against an exact scan, and its p50/p95, per ef_search.

    `recall` counts the exact top 20's ids found (the issue's measure). `within_distance` counts
    returned rows no farther than the exact 20th distance (+1e-6): it tells a miss among
    near-ties (a passage as near as the one it displaced) from a real miss. `mended` is the
    same count for the dense ranking hybrid search fuses: HNSW's candidates mended with the
    lexical leg's (search.services.dense.dense_mended), as `retrieve` asks for them.
    """
    k, per_leg = 20, int(settings.SEARCH_CANDIDATES_PER_LEG)
    vectors = [vector_literal(embed_query(text)[0]) for text in queries]
    exact = [exact_neighbours(v, folder_ids, k) for v in vectors]
    lexical = [
        candidate_distances(vector, folder_ids, [pk for pk, _ in bm25_packed(clean_query(text), folder_ids, per_leg)])
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
