"""End to end: admin upload → real Celery worker on the embedded Redis → indexed / failed."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from documents.models import Chunk, Document, DocumentStatus
from tests.conftest import wait_for
from tests.corpus import DEV_DIR, require_corpus
from tests.factories import FolderFactory, StaffFactory

pytestmark = [pytest.mark.worker, pytest.mark.slow]


def _finished(original_name: str) -> Document | None:
    # By file name: an indexed document's title is the one its file states (issue 26).
    document = Document.objects.filter(original_name=original_name).first()
    if document and document.status in (DocumentStatus.INDEXED, DocumentStatus.FAILED):
        return document
    return None


def test_admin_upload_is_processed_by_a_real_worker(celery_worker_process: Any, client: Any) -> None:
    require_corpus()
    folder = FolderFactory(name="Papers")
    client.force_login(StaffFactory(username="librarian"))
    pdf = DEV_DIR / "bitcoin-nakamoto-2008.pdf"
    corrupt = b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not really a pdf\n%%EOF"
    response = client.post(
        reverse("admin:documents_document_upload"),
        {
            "folder": folder.pk,
            "files": [
                SimpleUploadedFile(pdf.name, pdf.read_bytes(), content_type="application/pdf"),
                SimpleUploadedFile("broken.pdf", corrupt, content_type="application/pdf"),
            ],
        },
    )
    assert response.status_code == 302, response.content[:500]
    assert Document.objects.filter(folder=folder).count() == 2

    good = wait_for(
        lambda: _finished("bitcoin-nakamoto-2008.pdf"), what=lambda: f"the PDF\n{celery_worker_process.log()}"
    )
    bad = wait_for(lambda: _finished("broken.pdf"), what=lambda: f"the corrupt file\n{celery_worker_process.log()}")

    assert good.status == DocumentStatus.INDEXED, good.failure_reason
    assert good.title == "Bitcoin: A Peer-to-Peer Electronic Cash System"
    assert good.chunk_count == Chunk.objects.filter(document=good).count() > 0
    assert good.page_count == 9
    assert good.extractor
    assert good.pipeline
    assert good.indexed_at
    assert good.embedding_model == "all-MiniLM-L6-v2"
    assert good.embedding_dims == 384
    assert good.attempts == 1
    for chunk in Chunk.objects.filter(document=good):
        assert good.canonical_text[chunk.char_start : chunk.char_end] == chunk.content

    assert bad.status == DocumentStatus.FAILED
    assert "PDF" in bad.failure_reason
    assert "Traceback" not in bad.failure_reason
    assert not Chunk.objects.filter(document=bad).exists()


def test_duplicate_upload_is_reported_not_stored(client: Any, db: None) -> None:
    folder = FolderFactory(name="Dupes")
    client.force_login(StaffFactory(username="librarian2"))
    data = b"# Notes\n\nSome text that appears once."
    url = reverse("admin:documents_document_upload")
    client.post(url, {"folder": folder.pk, "files": [SimpleUploadedFile("notes.md", data)]})
    response = client.post(url, {"folder": folder.pk, "files": [SimpleUploadedFile("again.md", data)]}, follow=True)
    assert Document.objects.filter(folder=folder).count() == 1
    messages = [str(m) for m in response.context["messages"]]
    assert any("already in folder" in m for m in messages), messages
