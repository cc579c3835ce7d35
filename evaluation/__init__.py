"""The evaluation harness behind `manage.py evaluate`.

It indexes a corpus once per chunking strategy in throw-away folders, runs every question
phrasing through the production `retrieve`, and reports recall@k, MRR, destroyed answers,
Wilson intervals, paired sign tests and a sweep of the answer gate's distance threshold.

  metrics      pure functions: Wilson interval, R@k, MRR, needle matching, sign test
  dataset      reading the question and out-of-domain files
  index        extraction once, per-strategy index folders, the embedding cache, cleanup
  gate         the threshold sweep and the recommended threshold
  comparisons  the paired sign tests between strategies and legs
  runner       the whole run: build, query, tear down, per strategy
  report       JSON payload, Markdown report and the sweep plot
"""
