"""The evaluation harness behind `manage.py evaluate` (and `compare_evaluations`, which pairs
two runs; `scan_corpus`, which makes a scanned copy of a corpus to evaluate OCR'd documents).
Nothing of the product imports this package (tests/test_import_floors.py).

It indexes a corpus once per chunking strategy in throw-away folders, runs every question
phrasing through the production `retrieve`, and reports recall@k, MRR, destroyed answers,
Wilson intervals, paired sign tests and a sweep of the answer gate's distance threshold.

  textnorm     the normal form in which needles and chunk texts are compared
  metrics      pure functions: Wilson interval, R@k, MRR, needle matching, sign test
  dataset      reading the question and out-of-domain files
  index        extraction once, per-strategy index folders, the embedding cache, cleanup
  gate         the threshold sweep and the recommended threshold
  comparisons  the paired sign tests between strategies and legs
  runs         two saved runs paired question by question (`compare_evaluations`)
  runner       the whole run: build, query, tear down, per strategy
  report       JSON payload, Markdown report and the sweep plot
"""
