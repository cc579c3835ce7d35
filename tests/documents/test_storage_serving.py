"""The original served from each FILE_STORAGE, with HTTP Range (PDF viewers seek), and an upload
indexed by a real worker that shares no disk with the web process (database, s3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from documents.models import Document, DocumentStatus
from documents.services.upload import IncomingFile, document_upload
from tests.conftest import wait_for
from tests.corpus import DEV_DIR, require_corpus
from tests.factories import FolderFactory, StaffFactory

PDF = "bitcoin-nakamoto-2008.pdf"


def body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def uploaded(path: Path) -> Document:
    folder = FolderFactory(name="Public papers", is_public=True)
    with path.open("rb") as stream:
        incoming = IncomingFile(name=path.name, size=path.stat().st_size, stream=stream)
        return document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=False)


def assert_ranges_served(client: Any, document: Document, data: bytes) -> None:
    url = reverse("citations:document_file", args=[document.pk])
    size = len(data)
    whole = client.get(url)
    assert whole.status_code == 200
    assert whole["Accept-Ranges"] == "bytes"
    assert whole["Content-Length"] == str(size)
    assert whole["ETag"] == f'"{document.sha256}"'
    assert body(whole) == data

    for header, start, stop in [
        ("bytes=0-99", 0, 100),
        ("bytes=1048570-1048600", 1048570, 1048601),  # across a database block's edge
        (f"bytes={size - 10}-", size - 10, size),
        ("bytes=-500", size - 500, size),
        (f"bytes=100-{size * 2}", 100, size),  # an end past the file is clipped to it
        (f"bytes={size - 1}-{size - 1}", size - 1, size),
    ]:
        if start >= size:
            continue
        part = client.get(url, HTTP_RANGE=header)
        assert part.status_code == 206, header
        assert part["Content-Range"] == f"bytes {start}-{stop - 1}/{size}", header
        assert part["Content-Length"] == str(stop - start), header
        assert body(part) == data[start:stop], header

    for bad in [f"bytes={size}-", f"bytes={size + 10}-{size + 20}", "bytes=abc", "bytes=5-2", "bytes=-0"]:
        refused = client.get(url, HTTP_RANGE=bad)
        assert refused.status_code == 416, bad
        assert refused["Content-Range"] == f"bytes */{size}", bad

    # Ranges not honoured get the whole file: several at once, another unit, a stale If-Range.
    for headers in [
        {"HTTP_RANGE": "bytes=0-1,5-6"},
        {"HTTP_RANGE": "items=0-1"},
        {"HTTP_RANGE": "bytes=0-1", "HTTP_IF_RANGE": '"another-version"'},
    ]:
        full = client.get(url, **headers)
        assert full.status_code == 200, headers
        assert body(full) == data, headers
    same = client.get(url, HTTP_RANGE="bytes=0-1", HTTP_IF_RANGE=f'"{document.sha256}"')
    assert same.status_code == 206
    assert body(same) == data[:2]


@pytest.mark.django_db
def test_each_storage_serves_the_original_with_ranges(file_storage: dict[str, str], client: Any) -> None:
    require_corpus()
    client.force_login(StaffFactory(username="librarian"))  # staff read documents not yet indexed
    data = (DEV_DIR / PDF).read_bytes()
    document = uploaded(DEV_DIR / PDF)
    assert default_storage.exists(document.file.name)
    assert_ranges_served(client, document, data)


@pytest.mark.django_db
def test_a_missing_original_is_a_404_from_each_storage(file_storage: dict[str, str], client: Any) -> None:
    require_corpus()
    client.force_login(StaffFactory(username="librarian"))
    document = uploaded(DEV_DIR / "prometheus-storage.md")
    default_storage.delete(document.file.name)
    response = client.get(reverse("citations:document_file", args=[document.pk]), HTTP_RANGE="bytes=0-9")
    assert response.status_code == 404


@pytest.fixture
def worker_env(file_storage: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    # The worker's own empty disk: it reads originals only through the storage.
    return {**file_storage, "MEDIA_ROOT": str(tmp_path_factory.mktemp("worker-own-media"))}


@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.parametrize("file_storage", ["database", "s3"], indirect=True)
def test_an_upload_is_indexed_by_a_worker_without_the_web_disk_and_served_with_ranges(
    file_storage: dict[str, str], celery_worker_process: Any, worker_env: dict[str, str], client: Any, settings: Any
) -> None:
    require_corpus()
    folder = FolderFactory(name="Papers", is_public=True)
    client.force_login(StaffFactory(username="librarian"))
    pdf = DEV_DIR / PDF
    upload = SimpleUploadedFile(pdf.name, pdf.read_bytes(), content_type="application/pdf")
    response = client.post(reverse("admin:documents_document_upload"), {"folder": folder.pk, "files": [upload]})
    assert response.status_code == 302, response.content[:500]

    def finished() -> Document | None:
        document = Document.objects.filter(original_name=pdf.name).first()
        return document if document and document.status in (DocumentStatus.INDEXED, DocumentStatus.FAILED) else None

    document = wait_for(finished, what=lambda: f"the PDF\n{celery_worker_process.log()}")
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    assert document.page_count == 9
    assert document.chunk_count > 0
    for media in (Path(settings.MEDIA_ROOT), Path(worker_env["MEDIA_ROOT"])):
        assert not list(media.glob("documents/*")), f"an original was written to {media}"
    assert_ranges_served(client, document, pdf.read_bytes())
    # The page image the viewer shows is drawn from the same storage.
    page = client.get(reverse("citations:document_page_image", args=[document.pk, 1]))
    assert page.status_code == 200
    assert body(page).startswith(b"\x89PNG")


@pytest.mark.django_db
def test_the_admin_change_page_links_the_original_through_the_view(file_storage: dict[str, str], client: Any) -> None:
    require_corpus()
    client.force_login(StaffFactory(username="librarian"))
    document = uploaded(DEV_DIR / "prometheus-storage.md")
    page = client.get(reverse("admin:documents_document_change", args=[document.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f'href="{reverse("citations:document_file", args=[document.pk])}"' in html
    assert "/media/" not in html


def test_an_unreachable_s3_server_is_a_connection_error_the_worker_retries() -> None:
    import socket

    from botocore.config import Config
    from django.core.files.storage import storages

    from ragsite.file_storages import file_storage_backend

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"S3_BUCKET": "originals", "S3_ENDPOINT_URL": f"http://127.0.0.1:{port}", "S3_REGION": "us-east-1"}
    env |= {"S3_ACCESS_KEY_ID": "k", "S3_SECRET_ACCESS_KEY": "s"}
    backend = file_storage_backend("s3", env)
    backend["OPTIONS"]["client_config"] = Config(retries={"max_attempts": 1})  # fail at once
    storage = storages.create_storage(backend)
    with pytest.raises(ConnectionError, match="unreachable"):
        storage.open("documents/any.pdf")
