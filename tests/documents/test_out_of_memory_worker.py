"""A document that outgrows its worker, in a real prefork worker: it fails with its cause, and the
worker goes on with the next document.

The worker runs one pool process, as `make run` does. In the first test it is limited to
INGEST_MEMORY_LIMIT_MB = 1024 and embeds EMBEDDING_BATCH_SIZE = 512 chunks at a time (this
module's `worker_env`): the process holds ~0.75 GB of data once the model is loaded, and one
batch of 512 full chunks needs ~0.8 GB for each of the encoder's feed-forward activations, so a
one-line text of a megabyte (~1,000 chunks) runs out of memory whatever the chunker's own needs,
while a three-page PDF (a batch of a few chunks) fits. In the second, a pool process killed
outright (SIGKILL, as by the kernel's OOM killer) gives its document up after
INGEST_MAX_ATTEMPTS = 1, and its message waits behind the documents queued meanwhile.
"""

from __future__ import annotations

import os
import re
import signal
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest

from documents.models import PROCESSING_STATUSES, Chunk, Document, DocumentStatus
from documents.services.upload import IncomingFile, document_upload
from tests.conftest import WorkerProcess, wait_for
from tests.documents import bad_inputs as bad
from tests.factories import FolderFactory

pytestmark = [pytest.mark.worker, pytest.mark.slow]

WORKER_LIMIT_MB = 1024


@pytest.fixture
def worker_pool() -> str:
    return "prefork"


@pytest.fixture
def worker_env() -> dict[str, str]:
    return {"INGEST_MEMORY_LIMIT_MB": str(WORKER_LIMIT_MB), "EMBEDDING_BATCH_SIZE": "512"}


def upload(folder: Any, name: str, data: bytes) -> Document:
    """Stored and queued at once (the test runs in autocommit: the message is sent on commit)."""
    incoming = IncomingFile(name=name, size=len(data), stream=BytesIO(data))
    return document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=True)


def finished(*documents: Document) -> list[Document] | None:
    found = list(Document.objects.filter(pk__in=[d.pk for d in documents]).order_by("pk"))
    done = all(d.status in (DocumentStatus.INDEXED, DocumentStatus.FAILED) for d in found)
    return found if done and len(found) == len(documents) else None


def pool_processes(worker: WorkerProcess) -> list[int]:
    """The pids of the worker's pool processes (its main process's children)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == worker.proc.pid:
            pids.append(int(stat.parent.name))
    return pids


def task_results(log: str) -> list[tuple[str, str]]:
    """(pool process name, returned status) of each ingest task the worker's log reports."""
    pattern = r"/(ForkPoolWorker-\d+)\] Task documents\.tasks\.document_ingest\[[^\]]+\] succeeded in [\d.]+s: '(\w+)'"
    return re.findall(pattern, log)


def test_a_document_past_the_memory_limit_fails_and_the_worker_goes_on(celery_worker_process: WorkerProcess) -> None:
    worker = celery_worker_process
    folder = FolderFactory(name="Memory")
    huge = upload(folder, "one-line.txt", bad.huge_paragraph_text(1.0))
    normal = upload(folder, "report.pdf", bad.small_pdf(3))

    done = wait_for(lambda: finished(huge, normal), timeout=180, what=lambda: f"both documents\n{worker.log()[-5000:]}")
    huge, normal = done
    assert huge.status == DocumentStatus.FAILED, worker.log()[-3000:]
    assert huge.failure_reason == (
        f"Processing ran out of memory: it needs more than a worker may use ({WORKER_LIMIT_MB:,} MB, "
        "INGEST_MEMORY_LIMIT_MB). Split the file into smaller ones and upload those, or raise the limit and retry it."
    )
    assert huge.attempts == 1
    assert not Chunk.objects.filter(document=huge).exists()
    assert normal.status == DocumentStatus.INDEXED, normal.failure_reason
    assert normal.chunk_count > 0
    # The same pool process ran both: it was never killed nor replaced.
    assert task_results(worker.log()) == [("ForkPoolWorker-1", "failed"), ("ForkPoolWorker-1", "indexed")], worker.log()
    assert "WorkerLostError" not in worker.log()
    assert worker.proc.poll() is None


@pytest.mark.parametrize("worker_env", [{"INGEST_MAX_ATTEMPTS": "1"}])
def test_a_document_whose_worker_is_killed_is_given_up_after_its_attempts(
    celery_worker_process: WorkerProcess,
) -> None:
    worker = celery_worker_process
    folder = FolderFactory(name="Killed")
    doomed = upload(folder, "long.txt", bad.huge_paragraph_text(0.3))
    queued_behind = upload(folder, "report.pdf", bad.small_pdf(3))

    def processing() -> bool:
        return Document.objects.filter(pk=doomed.pk, status__in=PROCESSING_STATUSES).exists()

    wait_for(processing, timeout=60, interval=0.05, what=lambda: f"processing to start\n{worker.log()[-3000:]}")
    (pool_process,) = pool_processes(worker)
    os.kill(pool_process, signal.SIGKILL)  # what the kernel's OOM killer sends

    doomed, queued_behind = wait_for(
        lambda: finished(doomed, queued_behind), timeout=120, what=lambda: f"both documents\n{worker.log()[-5000:]}"
    )
    assert doomed.status == DocumentStatus.FAILED
    assert doomed.failure_reason.startswith(
        "Processing was stopped once because its worker was killed while working on it, most likely for running "
        "out of memory (or for running past the time limit), so it was given up after 1 attempt "
        "(INGEST_MAX_ATTEMPTS is 1)."
    ), doomed.failure_reason
    assert doomed.attempts == 1  # given up on redelivery, without another attempt
    assert not Chunk.objects.filter(document=doomed).exists()
    # The killed document's message went back behind the one queued after it.
    assert queued_behind.status == DocumentStatus.INDEXED, queued_behind.failure_reason
    assert queued_behind.indexed_at is not None
    assert queued_behind.indexed_at < doomed.status_changed_at
    assert worker.proc.poll() is None, "the worker's main process goes on, with a new pool process"
    assert pool_processes(worker) not in ([], [pool_process])
