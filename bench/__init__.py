"""Benchmarks: the `bench_*` management commands, `make bench-load`, and what they share.

Nothing of the product imports this package; it sits above every product floor
(tests/test_import_floors.py) and may import any of them.

  searches      corpus copies for `bench_search`, timing of the search legs, exact neighbours
  synthetic     the synthetic passages of the large `bench_search` sizes
  lexical       the BM25 paths and the ts_rank_cd peer side by side, HNSW recall by ef_search
  halfvec       the half-precision HNSW index beside the full-precision one
  peer_lexical  the ts_rank_cd baseline (also a leg of `manage.py evaluate`)
  scans         image-only copies of PDF pages: OCR's workload, and OCR's word accuracy
  load          `make bench-load`: the whole application under concurrent searches and ingestion
"""
