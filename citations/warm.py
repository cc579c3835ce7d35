"""Everything a first question would load, loaded before a web worker serves its first request.

A fresh process pays once for the encoder (torch and sentence-transformers imported, the weights
read, torch's CPU kernels set up on a first run: ~6 s of the first question's ~6.6 s), the BM25
kernel's compiled loop (~0.5 s from numba's disk cache), wordfreq's word lists (the gate's jargon
check) and, when one is configured, the cross-encoder reader. `warm_for_serving` pays all of it at
start, so the first question costs what the others do.

Only the web server's entry point calls it (ragsite/wsgi.py, imported by gunicorn in each worker
and by `runserver`): management commands, Celery workers and the test suite's live server never
import that module, so they load nothing they do not use. The Celery worker warms its own encoder before
its first document (documents/services/ingest.py).
"""

from __future__ import annotations

import logging
import time

from django.conf import settings

from documents.embedding import embed_queries, warm_up
from search.services.bm25_packed import kernel_warm
from search.services.rerank import CrossEncoderReranker, get_reranker
from search.services.terms import zipf

log = logging.getLogger(__name__)


def warm_for_serving() -> dict[str, float]:
    """Load and run once each model a question uses; returns the seconds each step took."""
    took: dict[str, float] = {}
    steps = [
        ("encoder", _encoder),
        ("bm25 kernel", kernel_warm),
        ("word frequencies", lambda: zipf("library")),
        ("reader", _reader),
    ]
    for name, step in steps:
        started = time.perf_counter()
        step()
        took[name] = round(time.perf_counter() - started, 3)
    log.info("web worker warmed up: %s", ", ".join(f"{name} {s:.2f} s" for name, s in took.items()))
    return took


def _encoder() -> None:
    if settings.EMBEDDER != "local":
        return  # an embedding server is another process's business (and may start after this one)
    warm_up()  # the weights, and a first run on full windows (torch's kernels)
    embed_queries(["How does the library answer a short question?"])  # and the shape a question has


def _reader() -> None:
    reader = get_reranker()
    if isinstance(reader, CrossEncoderReranker):  # an http reader is another process's business
        reader.score("warm", ["warm"])
