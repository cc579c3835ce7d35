"""Work stops when its document goes: a real worker embedding a long document whose row is deleted
stops at its next embedding batch and takes the next upload, instead of embedding the rest for
nobody while every other upload waits behind it (documents/services/progress.py,
`progress_recorder`)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from documents.models import Document, DocumentStatus
from documents.services.library import document_delete
from tests.conftest import wait_for
from tests.factories import FolderFactory, StaffFactory

pytestmark = [pytest.mark.worker, pytest.mark.slow]

# Far more than the worker embeds in the test's 30 s on any machine we run on (a few hundred
# chunks a minute on the shared 2-core one): a run that went on to the end would hold the
# worker for minutes.
LONG_DOCUMENT_PARAGRAPHS = 1500
NEXT_STARTS_WITHIN_SECONDS = 30


def long_text() -> bytes:
    """Distinct paragraphs of a few hundred characters each: one chunk apiece, no vector shared."""
    rng = random.Random(7)
    words = ["harbour", "keeper", "lamp", "tide", "signal", "beacon", "rock", "storm", "wick", "gallery"]
    paragraphs = [
        f"Log entry {n}. " + " ".join(rng.choice(words) for _ in range(70)) + "."
        for n in range(LONG_DOCUMENT_PARAGRAPHS)
    ]
    return ("# Keeper's log\n\n" + "\n\n".join(paragraphs) + "\n").encode()


def upload(client: Any, folder: Any, name: str, data: bytes) -> Document:
    response = client.post(
        reverse("admin:documents_document_upload"), {"folder": folder.pk, "files": [SimpleUploadedFile(name, data)]}
    )
    assert response.status_code == 302, response.content[:500]
    return Document.objects.get(folder=folder, original_name=name)


def test_deleting_a_document_mid_embedding_frees_the_worker(celery_worker_process: Any, client: Any) -> None:
    folder = FolderFactory(name="Log books")
    client.force_login(StaffFactory(username="librarian"))
    long_document = upload(client, folder, "keepers-log.md", long_text())

    def embedding_started() -> bool:
        row = Document.objects.filter(pk=long_document.pk).values("status", "progress_done").first()
        return bool(row and row["status"] == DocumentStatus.EMBEDDING and row["progress_done"] > 0)

    wait_for(embedding_started, timeout=180, interval=0.2, what=lambda: f"embedding\n{celery_worker_process.log()}")
    document_delete(document=long_document)
    deleted_at = time.monotonic()
    following = upload(client, folder, "next.md", b"# Next\n\nThe lamp is lit at dusk and trimmed at midnight.\n")

    wait_for(
        lambda: Document.objects.filter(pk=following.pk).exclude(status=DocumentStatus.QUEUED).exists(),
        timeout=NEXT_STARTS_WITHIN_SECONDS,
        interval=0.2,
        what=lambda: f"the next upload to start\n{celery_worker_process.log()[-3000:]}",
    )
    started_after = time.monotonic() - deleted_at
    done = Document.objects.filter(pk=following.pk, status__in=[DocumentStatus.INDEXED, DocumentStatus.FAILED])
    log_tail = lambda: celery_worker_process.log()[-3000:]  # noqa: E731
    finished = wait_for(done.first, timeout=120, what=lambda: f"the next upload to finish\n{log_tail()}")
    assert finished.status == DocumentStatus.INDEXED, finished.failure_reason
    assert f"document {long_document.pk}: it is gone" in celery_worker_process.log()
    print(f"the next upload started {started_after:.1f}s after the deletion")
