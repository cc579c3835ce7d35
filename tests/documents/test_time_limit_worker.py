"""A document past INGEST_TIME_LIMIT_SECONDS in a real worker: stopped, failed, and the worker goes on.

The worker runs with a 2-second limit (this module's `worker_env`); a 40-page scan needs
about 18 s of OCR, so it is stopped mid-OCR, and the next document is processed.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from documents.models import Document, DocumentStatus
from tests.conftest import wait_for
from tests.documents import bad_inputs as bad
from tests.factories import FolderFactory, StaffFactory

pytestmark = [pytest.mark.worker, pytest.mark.slow]


@pytest.fixture
def worker_env() -> dict[str, str]:
    return {"INGEST_TIME_LIMIT_SECONDS": "2"}


def test_worker_stops_a_document_past_the_time_limit_and_goes_on(celery_worker_process: Any) -> None:
    folder = FolderFactory(name="Slow")
    client = Client()
    client.force_login(StaffFactory(username="slow-librarian"))
    files = [("slow-scan.pdf", bad.slow_scan_pdf()), ("report.pdf", bad.small_pdf(3))]
    response = client.post(
        reverse("admin:documents_document_upload"),
        {"folder": folder.pk, "files": [SimpleUploadedFile(name, data) for name, data in files]},
    )
    assert response.status_code == 302, response.content[:500]

    def finished() -> bool:
        return (
            not Document.objects.filter(folder=folder)
            .exclude(status__in=(DocumentStatus.INDEXED, DocumentStatus.FAILED))
            .exists()
        )

    wait_for(finished, timeout=300, what=lambda: f"both documents\n{celery_worker_process.log()[-4000:]}")
    slow = Document.objects.get(folder=folder, original_name="slow-scan.pdf")
    report = Document.objects.get(folder=folder, original_name="report.pdf")
    assert slow.status == DocumentStatus.FAILED
    assert slow.failure_reason.startswith("Processing took longer than the time limit (2 s, INGEST_TIME_LIMIT_SECONDS)")
    assert not slow.chunks.exists()
    assert report.status == DocumentStatus.INDEXED, report.failure_reason
    assert celery_worker_process.proc.poll() is None, "the worker process is still running"
