"""Two worker hosts on one queue, one of them lost mid-ingest (docs/operations.md "Running on several machines").

Beside this test process (the web host: it takes the upload), two Celery workers start that share
only DATABASE_URL and CELERY_BROKER_URL with it; each has its own empty VAR_DIR and MEDIA_ROOT, as
two machines would, and reads the originals from the database (FILE_STORAGE=database). One is
killed with SIGKILL (its whole process group: a host lost) while it embeds a document. The broker
hands that document's unacknowledged message to the other worker once the visibility timeout has
passed, and every document ends indexed exactly once: the chunks a one-worker run makes, no
duplicate chunk or posting, no file lost, none on any host's disk.

The workers run with short limits so the test is quick: processing stops after TIME_LIMIT seconds
(a document of the batch takes a few), Celery's hard limit GRACE seconds later, and the visibility
timeout is longer than both, as ragsite/settings.py requires.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import Sum
from django.urls import reverse

from documents.extraction.dispatch import extract_document
from documents.lexical.models import FolderLength, LexemeBlock
from documents.models import PROCESSING_STATUSES, Chunk, Document, DocumentStatus
from documents.services.ingest import chunk_extracted
from documents.services.metadata import chunk_title
from ragsite.celery import use_broker
from ragsite.file_storages import file_storage_backend
from tests.conftest import WorkerProcess, start_worker, stop_worker, wait_for
from tests.corpus import DEV_DIR, HOLDOUT_DIR, require_corpus
from tests.documents.test_crash_safety import assert_indexed_once
from tests.factories import FolderFactory, StaffFactory
from tests.search.bm25_oracle import packed_postings, vector_postings

pytestmark = [pytest.mark.worker, pytest.mark.slow]

# Small real documents (20 to 80 chunks each, a few seconds of embedding on a busy 2-core machine).
BATCH = [
    DEV_DIR / "prometheus-3-migration-guide.md",
    DEV_DIR / "prometheus-storage.md",
    DEV_DIR / "promql-operators.md",
    HOLDOUT_DIR / "promql-querying-basics.md",
    HOLDOUT_DIR / "prometheus-feature-flags.md",
    HOLDOUT_DIR / "note-on-distributed-computing-sun-1994.pdf",
]
TIME_LIMIT, GRACE, VISIBILITY, RESTORE_EVERY = 30, 5, 40, 1
# Originals reach the workers through the database, not a shared disk.
FILE_STORAGE = "database"


@dataclasses.dataclass
class Host:
    name: str  # the worker's node name (-n)
    worker: WorkerProcess
    media_root: Path
    var_dir: Path


def host_env(home: Path) -> dict[str, str]:
    """A worker host's own settings: empty VAR_DIR and MEDIA_ROOT, and the test's short limits."""
    media_root, var_dir = home / "media", home / "var"
    media_root.mkdir()
    var_dir.mkdir()
    return {
        "VAR_DIR": str(var_dir),
        "MEDIA_ROOT": str(media_root),
        "FILE_STORAGE": FILE_STORAGE,
        "INGEST_TIME_LIMIT_SECONDS": str(TIME_LIMIT),
        "INGEST_HARD_LIMIT_GRACE_SECONDS": str(GRACE),
        "BROKER_VISIBILITY_TIMEOUT_SECONDS": str(VISIBILITY),
        "BROKER_RESTORE_EVERY_SECONDS": str(RESTORE_EVERY),
    }


@pytest.fixture
def two_hosts(transactional_db: None, settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Host]]:
    from ragsite.embedded import start_redis

    broker_dir = tmp_path_factory.mktemp("broker")
    redis = start_redis(broker_dir / "redis.sock")
    broker_url = f"redis+socket://{broker_dir / 'redis.sock'}"
    settings.FILE_STORAGE = FILE_STORAGE  # the web host stores uploads there too
    settings.STORAGES = {**settings.STORAGES, "default": file_storage_backend(FILE_STORAGE)}
    hosts: list[Host] = []
    try:
        for label in ("a", "b"):
            home = tmp_path_factory.mktemp(f"host-{label}")
            env = host_env(home)
            name = f"ingest-{label}@{socket.gethostname()}"
            worker = start_worker(home, extra_env=env, pool="prefork", broker_url=broker_url, name=name)
            hosts.append(Host(name, worker, Path(env["MEDIA_ROOT"]), Path(env["VAR_DIR"])))
        settings.CELERY_BROKER_URL = broker_url
        use_broker(broker_url)
        yield hosts
    finally:
        for host in hosts:
            stop_worker(host.worker)
        redis.terminate()
        redis.wait(timeout=20)
        use_broker("memory://")


def active_tasks(host: Host) -> list[dict[str, Any]]:
    """The tasks `host`'s worker is running now (Celery's remote control, over the broker)."""
    from ragsite.celery import app

    replies = app.control.inspect(destination=[host.name], timeout=1.0, limit=1).active() or {}
    return list(replies.get(host.name, []))


def kill_while_embedding(host: Host, timeout: float) -> tuple[int, str, float]:
    """SIGKILL `host`'s worker (its whole process group) while it embeds a document; returns the
    document's id, its task's id and when the task was first seen running there."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for task in active_tasks(host):
            seen = time.monotonic()
            document_id = int(task["args"][0])
            # Until this run embeds (after extraction and chunking wrote their statuses) or is done.
            while time.monotonic() < deadline:
                status = Document.objects.values_list("status", flat=True).get(pk=document_id)
                if status == DocumentStatus.EMBEDDING:
                    os.killpg(host.worker.proc.pid, signal.SIGKILL)
                    host.worker.proc.wait(timeout=30)
                    return document_id, task["id"], seen
                if status not in (DocumentStatus.QUEUED, *PROCESSING_STATUSES):
                    break  # finished before we caught it: wait for its next document
                time.sleep(0.05)
        time.sleep(0.2)
    pytest.fail(f"{host.name} embedded no document within {timeout:.0f}s\n{host.worker.log()[-3000:]}")


def one_worker_chunks(document: Document, path: Path) -> list[tuple[int, str]]:
    """(ordinal, content) of the chunks the pipeline makes of `path` (one run, in this process)."""
    spans = chunk_extracted(extract_document(path, document.content_type), title=chunk_title(document))
    return list(enumerate(s.content for s in spans))


def stored_postings_count(folder_id: int) -> int:
    """Postings the packed rows of a folder hold, duplicates included."""
    return int(LexemeBlock.objects.filter(folder_id=folder_id).aggregate(n=Sum("chunk_count"))["n"] or 0)


def test_two_worker_hosts_index_every_document_once_when_one_is_killed_mid_ingest(
    two_hosts: list[Host], client: Any, settings: Any
) -> None:
    require_corpus()
    survivor, lost = two_hosts
    folder = FolderFactory(name="Two hosts")
    client.force_login(StaffFactory(username="librarian"))
    files = [SimpleUploadedFile(path.name, path.read_bytes()) for path in BATCH]
    response = client.post(reverse("admin:documents_document_upload"), {"folder": folder.pk, "files": files})
    assert response.status_code == 302, response.content[:500]
    documents = {d.original_name: d for d in Document.objects.filter(folder=folder)}
    assert sorted(documents) == sorted(p.name for p in BATCH)

    victim_id, task_id, seen = kill_while_embedding(lost, timeout=120)
    killed_at = time.monotonic()
    assert lost.worker.proc.returncode == -signal.SIGKILL
    # What a one-worker run makes of each file, computed while the survivor works.
    expected = {path.name: one_worker_chunks(documents[path.name], path) for path in BATCH}

    # The broker hands the lost worker's message to the survivor once its visibility timeout has
    # passed (it was delivered before `seen`), at the survivor's next look for such messages, and
    # the survivor starts it at most one document later.
    def restarted() -> bool:
        victim = Document.objects.get(pk=victim_id)
        return victim.attempts == 2 or victim.status not in PROCESSING_STATUSES

    wait_for(
        restarted, timeout=VISIBILITY + 60, interval=0.2, what=lambda: f"redelivery\n{survivor.worker.log()[-4000:]}"
    )
    restarted_after = time.monotonic() - seen
    assert restarted_after <= VISIBILITY + RESTORE_EVERY + TIME_LIMIT, restarted_after
    wait_for(
        lambda: (
            not Document.objects.filter(
                folder=folder, status__in=[DocumentStatus.QUEUED, *PROCESSING_STATUSES]
            ).exists()
        ),
        timeout=TIME_LIMIT * len(BATCH),
        what=lambda: f"the batch to finish\n{survivor.worker.log()[-4000:]}",
    )

    # The redelivery: the task the lost worker received and never finished ran on the survivor,
    # flagged redelivered, as the document's second attempt; every other document ran once.
    assert f"[{task_id}] received" in lost.worker.log()
    assert f"[{task_id}] succeeded" not in lost.worker.log()
    assert f"[{task_id}] received" in survivor.worker.log()
    # Logged when the task returns, a moment after its document's status was committed.
    wait_for(lambda: f"[{task_id}] succeeded" in survivor.worker.log(), timeout=30, what="the survivor's log")
    attempts = dict(Document.objects.filter(folder=folder).values_list("pk", "attempts"))
    assert attempts == {pk: 2 if pk == victim_id else 1 for pk in attempts}
    print(
        f"killed {lost.name} while it embedded document {victim_id}; restarted {restarted_after:.1f}s after it "
        f"was seen running ({killed_at - seen:.1f}s before the kill; visibility timeout {VISIBILITY}s)"
    )

    # Every document indexed exactly once: the chunks of a one-worker run, no duplicate, and a
    # lexical index and BM25 statistics that a recomputation leaves as they are.
    for name, document in documents.items():
        document.refresh_from_db()
        assert document.status == DocumentStatus.INDEXED, (name, document.failure_reason)
        stored = list(Chunk.objects.filter(document=document).order_by("ordinal").values_list("ordinal", "content"))
        assert stored == expected[name], name
        assert_indexed_once(document.pk)
    postings = vector_postings([folder.pk])
    assert packed_postings([folder.pk]) == postings
    assert stored_postings_count(folder.pk) == len(postings)  # no posting stored twice
    sums = Document.objects.filter(folder=folder).aggregate(chunks=Sum("chunk_count"), lexemes=Sum("lexeme_total"))
    lengths = FolderLength.objects.filter(folder_id=folder.pk).aggregate(chunks=Sum("chunks"), lexemes=Sum("lexemes"))
    assert lengths == sums
    assert sums["chunks"] == sum(len(chunks) for chunks in expected.values())

    # No file lost: every original reads back, byte for byte, through the storage, and no host
    # kept one on its disk.
    for path in BATCH:
        document = documents[path.name]
        with document.file.open("rb") as stored_file:
            digest = hashlib.sha256(stored_file.read()).hexdigest()
        assert digest == document.sha256 == hashlib.sha256(path.read_bytes()).hexdigest(), path.name
        # The web host's MEDIA_ROOT is the test session's, where other tests store files.
        assert not (Path(settings.MEDIA_ROOT) / document.file.name).exists(), path.name
    for host in two_hosts:
        assert not [p for p in host.media_root.rglob("*") if p.is_file()], host.media_root
