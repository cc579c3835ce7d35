"""Crash safety: a worker killed mid-ingest leaves the document recoverable, reconcile brings
it back (or gives up on it with a reason), and re-ingesting never duplicates anything."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import transaction

from documents.lexical.index import lexical_index_replace
from documents.models import PROCESSING_STATUSES, Chunk, Document, DocumentStatus
from documents.services.ingest import document_ingest
from documents.services.reconcile import Reconciled, documents_reconcile
from documents.services.upload import IncomingFile, document_upload
from documents.tasks import documents_reconcile_task
from tests import conftest
from tests.conftest import WorkerProcess, wait_for
from tests.documents import bad_inputs as bad
from tests.factories import DocumentFactory, FolderFactory
from tests.search.bm25_oracle import packed_postings_of_chunks


def index_snapshot(document_id: int) -> dict[str, Any]:
    """Everything ingestion writes for one document's chunks and BM25 statistics."""
    document = Document.objects.get(pk=document_id)
    chunks = Chunk.objects.filter(document_id=document_id).order_by("ordinal")
    ordinals = dict(chunks.values_list("pk", "ordinal"))
    return {
        "chunk_count": document.chunk_count,
        "lexeme_total": document.lexeme_total,
        "chunks": list(chunks.values_list("ordinal", "char_start", "char_end", "lexeme_count")),
        # The packed postings of its chunks, by ordinal (chunk ids change with every store).
        "postings": sorted(
            (ordinals[chunk], lexeme, tf, dl) for _, chunk, lexeme, tf, dl in packed_postings_of_chunks(list(ordinals))
        ),
    }


def assert_indexed_once(document_id: int) -> dict[str, Any]:
    document = Document.objects.get(pk=document_id)
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    ordinals = list(Chunk.objects.filter(document=document).values_list("ordinal", flat=True))
    assert document.chunk_count == len(ordinals) > 0
    assert sorted(ordinals) == list(range(len(ordinals)))  # unique and gap-free
    snapshot = index_snapshot(document_id)
    with transaction.atomic():  # recompute the statistics from the stored chunks: nothing may change
        lexical_index_replace(document_id)
    assert index_snapshot(document_id) == snapshot
    assert snapshot["postings"]
    assert snapshot["lexeme_total"] == sum(c[3] for c in snapshot["chunks"])
    return snapshot


def upload_pdf(folder: Any, path: Path, *, enqueue: bool) -> Document:
    data = path.read_bytes()
    incoming = IncomingFile(name=path.name, size=len(data), stream=BytesIO(data))
    return document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=enqueue)


@pytest.fixture
def own_worker() -> bool:
    # The test kills its worker and starts another in its place: never the session's shared one.
    return True


def restart_worker(worker: WorkerProcess) -> None:
    """A fresh worker process on the same broker (the killed one's embedded Redis)."""
    env = {
        **os.environ,
        "DATABASE_URL": conftest.test_database_url(),
        "CELERY_BROKER_URL": worker.broker_url,
        "MEDIA_ROOT": str(django_settings.MEDIA_ROOT),
    }
    with worker.log_path.open("ab") as log:
        log.write(b"\n--- restarted after SIGKILL ---\n")
        log.flush()
        worker.proc = subprocess.Popen(
            worker.proc.args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


@pytest.mark.worker
@pytest.mark.slow
def test_worker_killed_mid_ingest_is_recovered_by_reconcile(celery_worker_process, tmp_path):
    worker = celery_worker_process
    folder = FolderFactory(name="Crash")
    path = bad.write_many_pages_pdf(tmp_path / "long-report.pdf", pages=300, paragraphs=3)
    document = upload_pdf(folder, path, enqueue=True)  # autocommit: queued at once

    def processing() -> str | None:
        status = Document.objects.get(pk=document.pk).status
        return status if status in PROCESSING_STATUSES else None

    wait_for(processing, timeout=300, interval=0.1, what=lambda: f"processing to start\n{worker.log()}")
    time.sleep(1.0)  # well inside the work: extraction alone takes seconds
    os.killpg(worker.proc.pid, signal.SIGKILL)
    worker.proc.wait(timeout=30)

    time.sleep(1.0)
    killed = Document.objects.get(pk=document.pk)
    assert killed.status in PROCESSING_STATUSES, (killed.status, worker.log()[-3000:])
    assert killed.attempts == 1
    assert not Chunk.objects.filter(document=killed).exists()  # the store transaction never committed

    # The periodic task: reconcile marks it queued, the task sends it to the (restarted) worker.
    assert documents_reconcile_task(timeout_seconds=0) == {"requeued": 1, "failed": 0}
    requeued = Document.objects.get(pk=document.pk)
    assert requeued.status == DocumentStatus.QUEUED
    assert requeued.attempts == 1  # the interrupted attempt stays counted

    restart_worker(worker)  # the fixture stops this one at the end
    finished = wait_for(
        lambda: Document.objects.filter(
            pk=document.pk, status__in=[DocumentStatus.INDEXED, DocumentStatus.FAILED]
        ).first(),
        timeout=900,
        what=lambda: f"the re-queued document to finish\n{worker.log()[-5000:]}",
    )
    assert finished.status == DocumentStatus.INDEXED, finished.failure_reason
    assert finished.attempts == 2
    assert finished.page_count == 300
    assert_indexed_once(document.pk)


def test_reconcile_gives_up_after_the_maximum_attempts(db, settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.INGEST_MAX_ATTEMPTS = 3
    given_up = DocumentFactory(status=DocumentStatus.EMBEDDING, attempts=3)
    retried = DocumentFactory(status=DocumentStatus.EXTRACTING, attempts=1)
    lost = DocumentFactory(status=DocumentStatus.QUEUED, attempts=0)
    fresh = DocumentFactory(status=DocumentStatus.CHUNKING, attempts=1)
    Document.objects.exclude(pk=fresh.pk).update(status_changed_at=django_now_minus(3600))

    sent: list[int] = []
    monkeypatch.setattr("documents.tasks.document_ingest_task.delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        assert documents_reconcile_task(timeout_seconds=600) == {"requeued": 2, "failed": 1}
    # The service said what to re-queue; the task queued exactly that, after the commit.
    assert sorted(sent) == sorted([retried.pk, lost.pk])

    given_up.refresh_from_db()
    assert given_up.status == DocumentStatus.FAILED
    assert "3 times" in given_up.failure_reason
    assert "3 attempts" in given_up.failure_reason
    assert "Traceback" not in given_up.failure_reason
    for document in (retried, lost):
        document.refresh_from_db()
        assert document.status == DocumentStatus.QUEUED
    fresh.refresh_from_db()
    assert fresh.status == DocumentStatus.CHUNKING  # still within the timeout: left alone


def test_reconcile_leaves_finished_documents_alone(db):
    indexed = DocumentFactory(status=DocumentStatus.INDEXED, attempts=5)
    failed = DocumentFactory(status=DocumentStatus.FAILED, attempts=5, failure_reason="bad file")
    Document.objects.update(status_changed_at=django_now_minus(3600))

    assert documents_reconcile(timeout_seconds=0) == Reconciled(requeue=[], failed=[])
    assert Document.objects.get(pk=indexed.pk).status == DocumentStatus.INDEXED
    assert Document.objects.get(pk=failed.pk).failure_reason == "bad file"


def test_reingesting_an_indexed_document_never_duplicates_chunks_or_statistics(db, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    folder = FolderFactory(name="Twice")
    path = bad.write_many_pages_pdf(tmp_path / "short.pdf", pages=4, paragraphs=3)
    document = upload_pdf(folder, path, enqueue=False)

    document_ingest(document.pk)
    first = assert_indexed_once(document.pk)
    document_ingest(document.pk)
    document_ingest(document.pk)
    again = assert_indexed_once(document.pk)

    assert again == first
    assert Document.objects.get(pk=document.pk).attempts == 3


def test_a_late_queue_message_leaves_a_finished_document_alone(db, settings, tmp_path):
    """The queue's task skips indexed/failed documents (a redelivered or duplicate message)."""
    from documents.tasks import document_ingest_task as ingest_task

    settings.MEDIA_ROOT = str(tmp_path / "media")
    document = DocumentFactory(folder=FolderFactory(name="Late"), text="A short note that gets indexed.")
    document_ingest(document.pk)
    before = assert_indexed_once(document.pk)

    assert ingest_task.run(document.pk) == DocumentStatus.INDEXED
    assert index_snapshot(document.pk) == before
    assert Document.objects.get(pk=document.pk).attempts == 1

    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.FAILED, failure_reason="given up")
    assert ingest_task.run(document.pk) == DocumentStatus.FAILED
    assert Document.objects.get(pk=document.pk).failure_reason == "given up"


def django_now_minus(seconds: int) -> Any:
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(seconds=seconds)


def test_reconcile_waits_out_the_time_limit_before_taking_a_processing_document(db, settings):
    # A 300-page scan spends ~25 minutes in `extracting`: past the 15-minute stuck timeout, but its
    # run is alive until the time limit stops it. Only a lost queue message is re-queued that soon.
    settings.INGEST_STUCK_TIMEOUT_SECONDS, settings.CELERY_TASK_TIME_LIMIT = 15 * 60, 30 * 60 + 60
    long_scan = DocumentFactory(status=DocumentStatus.EXTRACTING, attempts=1)
    lost = DocumentFactory(status=DocumentStatus.QUEUED, attempts=0)
    dead = DocumentFactory(status=DocumentStatus.EMBEDDING, attempts=1)
    Document.objects.exclude(pk=dead.pk).update(status_changed_at=django_now_minus(25 * 60))
    Document.objects.filter(pk=dead.pk).update(status_changed_at=django_now_minus(33 * 60))

    outcome = documents_reconcile()
    assert (sorted(outcome.requeue), outcome.failed) == (sorted([lost.pk, dead.pk]), [])
    assert Document.objects.get(pk=long_scan.pk).status == DocumentStatus.EXTRACTING


def test_an_upload_while_the_broker_is_down_stays_queued_until_reconcile_finds_the_queue_empty(
    db, tmp_path, caplog, django_capture_on_commit_callbacks
):
    from ragsite.celery import use_broker

    previous = use_broker(f"redis+socket://{tmp_path / 'no-broker.sock'}")  # a broker that is gone
    try:
        with django_capture_on_commit_callbacks(execute=True):
            stored = document_upload(
                folder=FolderFactory(name="Outage"),
                incoming=IncomingFile(name="notes.md", size=12, stream=BytesIO(b"# Notes\n\nTide.")),
                uploaded_by=None,
            )
    finally:
        use_broker(previous)
    assert Document.objects.get(pk=stored.pk).status == DocumentStatus.QUEUED  # accepted, kept
    assert f"document {stored.pk} stays queued: the broker is unreachable" in caplog.text
    # A queued document waits INGEST_STUCK_TIMEOUT_SECONDS (its message may be behind others) ...
    Document.objects.filter(pk=stored.pk).update(status_changed_at=django_now_minus(60))
    assert documents_reconcile().requeue == []
    # ... but with no message in the broker's queue, none is on its way to it: it is sent again.
    assert documents_reconcile(queue_empty=True).requeue == [stored.pk]
