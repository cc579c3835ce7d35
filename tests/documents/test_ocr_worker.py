"""End to end for scans and damaged files: admin upload -> real Celery worker -> search -> viewer.

A scanned page (a Raft page rendered to an image) is read by OCR in the worker, found by search,
and highlighted on the page image from the OCR word boxes; the truncated Raft paper fails naming
the damage; a file that lost one page is indexed with a warning, shown in the admin and the API.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from citations.rendering import render_page
from documents import locators
from documents.filters import Filters
from documents.models import Document, DocumentStatus, OcrPage
from search.services.retrieval import search_chunks
from tests.conftest import bearer, wait_for
from tests.corpus import normalise, require_corpus
from tests.documents import bad_inputs as bad
from tests.documents.scan_builders import scanned_pdf
from tests.documents.test_ocr import NEEDLE, RAFT
from tests.factories import FolderFactory, StaffFactory, UserFactory

pytestmark = [pytest.mark.worker, pytest.mark.slow]
FINISHED = (DocumentStatus.INDEXED, DocumentStatus.FAILED)


def upload_through_the_worker(worker: Any, files: dict[str, bytes]) -> dict[str, Any]:
    """`files` uploaded through the admin and processed by the worker; the documents and the people."""
    require_corpus()
    reader = UserFactory(username="scan-reader")
    folder = FolderFactory(name="Scans", readers=[reader])
    staff = StaffFactory(username="scan-librarian")
    client = Client()
    client.force_login(staff)
    response = client.post(
        reverse("admin:documents_document_upload"),
        {
            "folder": folder.pk,
            "files": [SimpleUploadedFile(n, d, content_type="application/pdf") for n, d in files.items()],
        },
    )
    assert response.status_code == 302, response.content[:500]

    def done() -> bool:
        return not Document.objects.filter(folder=folder).exclude(status__in=FINISHED).exists()

    wait_for(done, timeout=600, what=lambda: f"the uploads to finish\n{worker.log()[-4000:]}")
    documents = {d.original_name: d for d in Document.objects.filter(folder=folder)}
    return {"documents": documents, "reader": reader, "staff": staff, "folder": folder}


@pytest.fixture
def scanned(celery_worker_process: Any) -> dict[str, Any]:
    require_corpus()
    return upload_through_the_worker(celery_worker_process, {"raft-scan.pdf": scanned_pdf(RAFT, [1])})


@pytest.fixture
def damaged(celery_worker_process: Any) -> dict[str, Any]:
    require_corpus()
    files = {"raft-cut.pdf": bad.raft_truncated(RAFT), "lost-page.pdf": bad.pdf_with_a_lost_page(pages=6, lost=4)}
    return upload_through_the_worker(celery_worker_process, files)


def test_scan_through_the_worker_is_searchable_and_highlighted(scanned: dict[str, Any]) -> None:
    processed = scanned
    scan = processed["documents"]["raft-scan.pdf"]
    assert scan.status == DocumentStatus.INDEXED, scan.failure_reason
    assert "+tesseract-" in scan.extractor
    (page,) = OcrPage.objects.filter(document=scan)
    assert page.number == 1
    assert page.mean_confidence
    assert page.mean_confidence > 80
    assert page.word_count > 500

    result = search_chunks(user=processed["reader"], query=NEEDLE, filters=Filters(folder=processed["folder"].pk), k=3)
    assert not result.refused
    top = result.hits[0]
    assert top.document_id == scan.pk
    assert normalise(NEEDLE) in normalise(top.content)

    start = scan.canonical_text.index("Keeping the replicated log")
    end = scan.canonical_text.index("consensus algorithm.", start) + len("consensus algorithm.")
    rendered = render_page(scan, 1, (start, end))
    assert rendered.boxes, "the OCR'd passage is highlighted on the page image"
    needle_words = [w for w in page.words if w[4] in ("Keeping", "replicated")]
    assert any(_inside(w, box) for w in needle_words for box in rendered.boxes)

    client = Client()
    client.force_login(processed["reader"])
    view = client.get(locators.page_url(scan.pk, 1, start, end))
    assert view.status_code == 200
    assert view.context["located"] is True
    image = client.get(locators.page_image_url(scan.pk, 1, start, end))
    assert image.status_code == 200
    assert image["Content-Type"] == "image/png"

    admin = Client()
    admin.force_login(processed["staff"])
    detail = admin.get(reverse("admin:documents_document_change", args=[scan.pk])).content.decode()
    assert "pages read by ocr" in detail.lower()
    assert f"{page.mean_confidence}" in detail

    api = client.get(f"/api/documents/{scan.pk}", **bearer(processed["reader"]))
    assert api.status_code == 200
    body = api.json()
    assert body["ocr_pages"] == [{"number": 1, "mean_confidence": page.mean_confidence, "word_count": page.word_count}]
    assert body["warnings"] == []
    assert "+tesseract-" in body["extractor"]


def test_damaged_files_fail_or_carry_warnings_in_admin_and_api(damaged: dict[str, Any], client: Client) -> None:
    processed = damaged
    cut = processed["documents"]["raft-cut.pdf"]

    assert cut.status == DocumentStatus.FAILED
    assert cut.failure_reason == (
        "The file looks truncated: 16 of 17 pages are unreadable (pages 2–17); upload the complete file."
    )
    assert cut.chunk_count == 0
    assert not cut.chunks.exists()

    lost = processed["documents"]["lost-page.pdf"]
    assert lost.status == DocumentStatus.INDEXED, lost.failure_reason
    expected = (
        "Page 4 of 6 could not be read (the file is truncated or damaged): missing from search; "
        "upload a complete copy to index them."
    )
    assert lost.warnings == [expected]

    admin = Client()
    admin.force_login(processed["staff"])
    listing = admin.get(reverse("admin:documents_document_changelist"))
    assert "Page 4 of 6 could not be read" in listing.content.decode()
    detail = admin.get(reverse("admin:documents_document_change", args=[lost.pk])).content.decode()
    assert expected in detail

    api = client.get(f"/api/documents/{lost.pk}", **bearer(processed["staff"]))
    assert api.status_code == 200
    assert api.json()["warnings"] == [expected]
    assert api.json()["ocr_pages"] == []


def _inside(word: list[Any], box: tuple[float, float, float, float]) -> bool:
    x0, y0, x1, y1 = word[:4]
    return box[0] - 1 <= x0 and box[1] - 1 <= y0 and x1 <= box[2] + 1 and y1 <= box[3] + 1
