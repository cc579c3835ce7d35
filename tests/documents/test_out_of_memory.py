"""A document that outgrows its worker fails with the cause, and nothing else is lost.

In this process, with the real database: a document that runs out of memory under a real data
limit (RLIMIT_DATA, as ragsite/memory_limit.py sets in the worker) fails with "Processing ran
out of memory ..." and the next document is indexed under the same limit; a redelivered message
whose document a dead run left mid-processing gives it up once INGEST_MAX_ATTEMPTS are spent,
with the reason reconcile gives too. A real worker: test_out_of_memory_worker.py.
"""

from __future__ import annotations

import errno
import gc
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from documents.embedding import warm_up
from documents.models import Chunk, Document, DocumentStatus
from documents.services.ingest import document_ingest
from documents.services.reconcile import documents_reconcile
from documents.services.worker_failures import killed_reason, out_of_memory_reason
from ragsite.memory_limit import apply_memory_limit, current_limit_mb, is_out_of_memory
from tests.factories import DocumentFactory

MB = 1024 * 1024
NORMAL_TEXT = "The survey team filed its spring report.\n\nEvery reading was checked again the next morning."


def data_mb() -> int:
    """This process's data memory now (what RLIMIT_DATA limits), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no VmData in /proc/self/status")


@contextmanager
def data_limit(limit_mb: int) -> Iterator[None]:
    """The worker's limit, applied to this process for the block and given back after it."""
    before = resource.getrlimit(resource.RLIMIT_DATA)
    apply_memory_limit(limit_mb)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, before)


def test_a_document_that_runs_out_of_memory_fails_with_the_cause_and_the_next_one_is_indexed(
    db: None, caplog: pytest.LogCaptureFixture
) -> None:
    import documents.extraction.pdf  # noqa: F401  (what the pipeline's warm-up loads, loaded before the limit)

    warm_up()  # as a worker process at rest: the model loaded and run once
    # Nine million emoji: a 36 MB file whose text Python holds at four bytes a character, within
    # INGEST_MAX_TEXT_CHARS; decoding it needs far more than the 64 MB the limit leaves free.
    huge = DocumentFactory(title="Emoji wall", text="\U0001f600" * 9_000_000)
    normal = DocumentFactory(title="Spring report", text=NORMAL_TEXT)
    gc.collect()
    limit_mb = data_mb() + 64
    with data_limit(limit_mb):
        assert current_limit_mb() == limit_mb
        document_ingest(huge.pk, skip_finished=True)
        document_ingest(normal.pk, skip_finished=True)

    failed, indexed = Document.objects.get(pk=huge.pk), Document.objects.get(pk=normal.pk)
    assert failed.status == DocumentStatus.FAILED
    (logged,) = [r for r in caplog.records if r.getMessage() == f"document {huge.pk} ran out of memory"]
    assert logged.exc_info
    assert issubclass(logged.exc_info[0], MemoryError)  # Python's own, from decoding
    assert failed.failure_reason == (
        f"Processing ran out of memory: it needs more than a worker may use ({limit_mb:,} MB, "
        "INGEST_MEMORY_LIMIT_MB). Split the file into smaller ones and upload those, or raise the limit and retry it."
    )
    assert failed.attempts == 1
    assert not Chunk.objects.filter(document=failed).exists()
    assert indexed.status == DocumentStatus.INDEXED, indexed.failure_reason
    assert indexed.chunk_count == Chunk.objects.filter(document=indexed).count() > 0


def test_a_limit_too_low_for_the_model_fails_the_document_with_the_setting_as_the_cause(db: None) -> None:
    import documents.extraction.pdf  # noqa: F401  (MuPDF, which the warm-up loads too, loaded before the limit)
    from documents import embedding

    warm_up()  # its libraries imported before the limit: an import refused is no part of this
    document = DocumentFactory(title="Spring report", text=NORMAL_TEXT)
    embedding._load_model.cache_clear()  # this process loads the model's weights again, under the limit
    gc.collect()
    limit_mb = data_mb() + 16  # far less than the model's weights
    try:
        with data_limit(limit_mb):
            document_ingest(document.pk, skip_finished=True)
    finally:
        embedding._load_model.cache_clear()  # whatever half-loaded state, the next use starts afresh

    document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED
    assert document.failure_reason == (
        "The worker ran out of memory loading the embedding model, before reading this document: its limit "
        f"({limit_mb:,} MB, INGEST_MEMORY_LIMIT_MB) is too low for the model, which needs ~0.75 GB. Raise the "
        "limit, restart the workers and retry it."
    )


def test_without_a_limit_the_reason_says_the_server_ran_out(db: None) -> None:
    before = resource.getrlimit(resource.RLIMIT_DATA)
    if before[1] != resource.RLIM_INFINITY:
        pytest.skip("this process runs under a hard data limit")
    resource.setrlimit(resource.RLIMIT_DATA, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    try:
        assert out_of_memory_reason() == (
            "Processing ran out of memory: the server had no memory left for it. "
            "Split the file into smaller ones and upload those, or retry it when the server is less busy."
        )
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, before)


@pytest.mark.parametrize("status", [DocumentStatus.EXTRACTING, DocumentStatus.CHUNKING, DocumentStatus.EMBEDDING])
def test_a_redelivered_document_whose_attempts_are_spent_is_given_up_with_the_likely_cause(
    db: None, settings: Any, status: DocumentStatus
) -> None:
    settings.INGEST_MAX_ATTEMPTS = 3
    document = DocumentFactory(status=status, attempts=3, text=NORMAL_TEXT)

    document_ingest(document.pk, skip_finished=True, redelivered=True)

    returned = Document.objects.get(pk=document.pk)
    assert returned.status == DocumentStatus.FAILED
    assert returned.attempts == 3  # no further attempt was started
    assert returned.failure_reason == (
        "Processing was stopped 3 times because its worker was killed while working on it, most likely for "
        "running out of memory (or for running past the time limit), so it was given up after 3 attempts "
        "(INGEST_MAX_ATTEMPTS is 3). Split the file into smaller ones and upload those, or retry it once the "
        "workers have more memory."
    )


@pytest.mark.parametrize(
    ("status", "attempts", "redelivered"),
    [
        # Its run died, but it has attempts left: one more, at the end of the queue.
        (DocumentStatus.EXTRACTING, 1, True),
        # Reconcile (or a retry) queued it again since: the message is no sign of a dead run.
        (DocumentStatus.QUEUED, 3, True),
        # A duplicate message meeting a live run is not a redelivery either.
        (DocumentStatus.EMBEDDING, 3, False),
    ],
    ids=["attempts-left", "queued-again", "not-redelivered"],
)
def test_other_messages_run_the_document(
    db: None, settings: Any, status: DocumentStatus, attempts: int, redelivered: bool
) -> None:
    settings.INGEST_MAX_ATTEMPTS = 3
    document = DocumentFactory(status=status, attempts=attempts, text=NORMAL_TEXT)

    document_ingest(document.pk, skip_finished=True, redelivered=redelivered)

    returned = Document.objects.get(pk=document.pk)
    assert returned.status == DocumentStatus.INDEXED, returned.failure_reason
    assert returned.attempts == attempts + 1


def test_reconcile_gives_a_stuck_document_up_with_the_same_reason(db: None, settings: Any) -> None:
    settings.INGEST_MAX_ATTEMPTS = 2
    stuck = DocumentFactory(status=DocumentStatus.CHUNKING, attempts=2)

    outcome = documents_reconcile(timeout_seconds=0)

    assert outcome.failed == [stuck.pk]
    stuck.refresh_from_db()
    assert stuck.status == DocumentStatus.FAILED
    assert stuck.failure_reason == killed_reason(2)
    assert stuck.failure_reason.startswith(
        "Processing was stopped 2 times because its worker was killed while working on it, most likely for "
        "running out of memory (or for running past the time limit), so it was given up after 2 attempts "
        "(INGEST_MAX_ATTEMPTS is 2)."
    )


def test_allocation_failures_are_recognised_from_every_source() -> None:
    failures: list[BaseException] = []
    for allocate in (
        lambda: torch.empty(1 << 50, dtype=torch.uint8),  # torch: a RuntimeError
        lambda: np.empty(1 << 50, dtype=np.uint8),  # NumPy: a MemoryError
    ):
        with pytest.raises((RuntimeError, MemoryError)) as raised:
            allocate()
        failures.append(raised.value)
    failures.append(OSError(errno.ENOMEM, "Cannot allocate memory"))  # fork of a subprocess
    assert all(is_out_of_memory(exc) for exc in failures), failures
    for other in (RuntimeError("shape mismatch"), OSError(errno.ENOENT, "missing"), ValueError("bad")):
        assert not is_out_of_memory(other)


def test_the_limit_is_the_setting_and_zero_means_none(settings: Any) -> None:
    before = resource.getrlimit(resource.RLIMIT_DATA)
    if before[1] != resource.RLIM_INFINITY:
        pytest.skip("this process runs under a hard data limit")
    try:
        settings.INGEST_MEMORY_LIMIT_MB = 0
        assert apply_memory_limit() is None
        assert resource.getrlimit(resource.RLIMIT_DATA) == before

        settings.INGEST_MEMORY_LIMIT_MB = 16_384
        assert apply_memory_limit() == 16_384 * MB
        assert current_limit_mb() == 16_384
        # Only the soft limit: the hard one (an operator's `ulimit -d`) stays the ceiling.
        assert resource.getrlimit(resource.RLIMIT_DATA) == (16_384 * MB, resource.RLIM_INFINITY)
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, before)
