"""Issue 28.1 in the admin: the progress bar of the list, the document page and the upload page,
and the staff-only JSON the page script refreshes them from (static/js/admin_progress.js)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from documents.models import Document, DocumentStatus
from tests.factories import DocumentFactory, FolderFactory, StaffFactory

pytestmark = pytest.mark.django_db
PROGRESS_URL = "/admin/documents/document/progress.json"


@pytest.fixture
def staff_client(client: Client) -> Client:
    client.force_login(StaffFactory(username="progress-librarian"))
    return client


def reading(document: Document, done: int, total: int, seconds: float) -> None:
    now = timezone.now()
    Document.objects.filter(pk=document.pk).update(
        status=DocumentStatus.EXTRACTING,
        progress_stage="reading",
        progress_done=done,
        progress_total=total,
        progress_started_at=now - timedelta(seconds=seconds),
        progress_updated_at=now,
    )


def test_the_json_gives_each_document_status_and_progress(staff_client: Client) -> None:
    scan = DocumentFactory(text="A scan.")
    reading(scan, 30, 120, seconds=60)
    done = DocumentFactory(text="Done.", indexed=True)
    response = staff_client.get(PROGRESS_URL, {"id": [scan.pk, done.pk, 987654, "junk"]})
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]
    body = response.json()
    assert body["unfinished"] is True
    states = {d["id"]: d for d in body["documents"]}
    assert set(states) == {scan.pk, done.pk}  # a missing id is left out
    shown = states[scan.pk]
    assert (shown["status"], shown["status_label"], shown["unfinished"]) == ("extracting", "Extracting", True)
    progress = shown["progress"]
    counted = (progress["label"], progress["done"], progress["total"], progress["percent"])
    assert counted == ("Reading pages", 30, 120, 25)
    assert progress["eta"] == "about 3 min left"  # 90 pages at 2 s
    assert states[done.pk]["progress"] is None
    assert states[done.pk]["unfinished"] is False
    finished = staff_client.get(PROGRESS_URL, {"id": [done.pk]}).json()
    assert finished["unfinished"] is False


def test_the_list_and_the_page_show_the_bar_and_load_the_script(staff_client: Client) -> None:
    scan = DocumentFactory(text="A scan.")
    reading(scan, 3, 12, seconds=1)
    listing = staff_client.get(reverse("admin:documents_document_changelist")).content.decode()
    assert f'data-document="{scan.pk}"' in listing
    assert 'data-unfinished="true"' in listing
    assert '<progress class="doc-progress-bar" max="100" value="25">' in listing
    assert "Reading pages 3 of 12" in listing
    assert "left" not in listing.split(f'data-document="{scan.pk}"')[1].split("</div>")[0]  # too early to tell
    assert "js/admin_progress.js" in listing
    page = staff_client.get(reverse("admin:documents_document_change", args=[scan.pk])).content.decode()
    assert "Reading pages 3 of 12" in page
    assert "js/admin_progress.js" in page


def test_an_upload_returns_to_the_upload_page_following_its_batch(staff_client: Client) -> None:
    folder = FolderFactory(name="Inbox")
    files = [SimpleUploadedFile("a.md", b"# A\n\nFirst."), SimpleUploadedFile("b.md", b"# B\n\nSecond.")]
    response = staff_client.post(reverse("admin:documents_document_upload"), {"folder": folder.pk, "files": files})
    assert response.status_code == 302
    ids = sorted(Document.objects.filter(folder=folder).values_list("pk", flat=True))
    assert response["Location"] == f"/admin/documents/document/upload/?batch={ids[0]},{ids[1]}&folder={folder.pk}"
    page = staff_client.get(response["Location"])
    text = page.content.decode()
    assert "Queued 2 document(s)" in text
    assert "This upload" in text
    for pk in ids:
        assert f'data-document="{pk}"' in text
    assert "Waiting for a worker" in text
    assert "data-batch-summary" in text
    assert "js/admin_progress.js" in text
    assert f"?folder__id__exact={folder.pk}" in text


def test_the_upload_page_ignores_a_malformed_batch(staff_client: Any) -> None:
    page = staff_client.get(reverse("admin:documents_document_upload"), {"batch": "x,,-3,99999999"})
    assert page.status_code == 200
    assert "This upload" not in page.content.decode()
