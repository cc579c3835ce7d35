"""An original PDF that carries JavaScript is served as a download; a plain PDF opens inline."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from documents.models import Document, DocumentStatus
from documents.services.upload import IncomingFile, document_upload
from tests.documents import pdf_script_builders as build

pytestmark = pytest.mark.django_db


def stored_pdf(folder: Any, name: str, data: bytes) -> Any:
    """An uploaded PDF marked indexed (readers meet only indexed documents); no chunks are needed."""
    incoming = IncomingFile(name=name, size=len(data), stream=io.BytesIO(data))
    document = document_upload(folder=folder, incoming=incoming, uploaded_by=None, title=name, enqueue=False)
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.INDEXED, indexed_at=timezone.now())
    return document


@pytest.fixture
def reader_client(user_factory: Any, folder_factory: Any) -> tuple[Client, Any]:
    reader = user_factory(username="originals-reader")
    client = Client()
    client.force_login(reader)
    return client, folder_factory(name="Originals", readers=[reader])


def test_a_pdf_with_javascript_is_a_download(reader_client: tuple[Client, Any]) -> None:
    client, folder = reader_client
    data = build.open_action_js()
    document = stored_pdf(folder, "alerts.pdf", data)
    response = client.get(f"/documents/{document.pk}/file")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="alerts.pdf"'
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == data


def test_a_plain_pdf_opens_inline(reader_client: tuple[Client, Any]) -> None:
    client, folder = reader_client
    document = stored_pdf(folder, "plain.pdf", build.plain_pdf())
    response = client.get(f"/documents/{document.pk}/file")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'inline; filename="plain.pdf"'
