from __future__ import annotations

import time

from search.services.retrieval import retrieve


def test_smoke(dev_corpus) -> None:
    folder_id = next(iter(dev_corpus.values())).folder_id
    for mode in ("dense", "bm25", "hybrid"):
        t = time.perf_counter()
        r = retrieve(
            query="Which hash function does Dynamo apply to a key? MD5 TS-999 '\\:*&|!()",
            folder_ids=[folder_id],
            mode=mode,
            k=5,
        )
        print(mode, r.refused, r.best_distance, r.timings_ms, time.perf_counter() - t)
        for h in r.hits:
            print(
                "  ",
                h.chunk_id,
                h.document_title,
                h.dense_rank,
                h.bm25_rank,
                h.bm25_score,
                h.distance,
                h.score,
                h.content[:80].replace("\n", " "),
            )
