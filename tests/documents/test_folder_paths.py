"""No page names a folder its reader may not read (documents/selectors.py: visible_folder_paths).

The library: "Holding" (public) / "Project Zephyr" (private) / "Press kit" / "Photos", with a
reader of "Press kit" and "Photos" only, who is also a writer of "Press kit". The API already
shows "Press kit" without a parent; every page (the search page's menu and results, the text
viewer, the PDF page view) and the duplicate-upload message must not name "Project Zephyr" to
them either, while staff see the whole path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from documents.models import Folder
from documents.selectors import visible_folder_paths
from tests.conftest import bearer, ingest_file_inline
from tests.documents.pdf_builders import LETTER, to_bytes, write_lines
from tests.factories import FolderFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db

SECRET = "Project Zephyr"
PDF_LINES = [
    "Launch plan",
    "",
    "The lighthouse camera records the harbour every morning at dawn.",
    "Its photographs are archived in the press kit for the spring launch.",
]


@pytest.fixture
def library(tmp_path: Path) -> dict[str, Any]:
    reader = UserFactory(username="press-reader")
    holding = FolderFactory(name="Holding", is_public=True)
    secret = FolderFactory(name=SECRET, parent=holding)
    press = FolderFactory(name="Press kit", parent=secret, readers=[reader])
    press.writer_users.add(reader)
    photos = FolderFactory(name="Photos", parent=press, readers=[reader])
    doc = pymupdf.open()
    write_lines(doc.new_page(width=LETTER[0], height=LETTER[1]), 72, 90, PDF_LINES, size=11)
    pdf_path = tmp_path / "launch.pdf"
    pdf_path.write_bytes(to_bytes(doc))
    pdf = ingest_file_inline(pdf_path, press, title="Launch plan")
    note_path = tmp_path / "note.txt"
    note_path.write_text("Camera notes\n\nThe lighthouse camera lens is cleaned every Friday.\n")
    note = ingest_file_inline(note_path, photos, title="Camera notes")
    assert pdf.status == note.status == "indexed", (pdf.failure_reason, note.failure_reason)
    return {
        "reader": reader,
        "folders": {"holding": holding, "secret": secret, "press": press, "photos": photos},
        "pdf": pdf,
        "note": note,
        "pdf_bytes": pdf_path.read_bytes(),
    }


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def test_the_selector_stops_each_path_below_the_first_unreadable_ancestor(library: dict[str, Any]) -> None:
    folders: dict[str, Folder] = library["folders"]
    ids = [f.pk for f in folders.values()]

    as_reader = visible_folder_paths(user=library["reader"], folder_ids=ids)
    as_staff = visible_folder_paths(user=StaffFactory(username="boss"), folder_ids=ids)

    assert as_reader[folders["press"].pk] == "Press kit"
    assert as_reader[folders["photos"].pk] == "Press kit / Photos"
    assert as_reader[folders["holding"].pk] == "Holding"
    assert as_staff[folders["photos"].pk] == f"Holding / {SECRET} / Press kit / Photos"
    assert as_staff == {f.pk: f.path for f in folders.values()}


def test_no_page_shows_the_private_parent_to_a_reader_of_the_child(library: dict[str, Any]) -> None:
    client = client_for(library["reader"])
    pdf, note, photos = library["pdf"], library["note"], library["folders"]["photos"]

    pages = {
        "search menu": page(client, "/"),
        "search results": page(client, "/?q=lighthouse+camera"),
        "search results in one folder": page(client, f"/?q=lighthouse+camera&folder={photos.pk}"),
        "text viewer (PDF)": page(client, f"/documents/{pdf.pk}/view"),
        "text viewer (note)": page(client, f"/documents/{note.pk}/view"),
        "PDF page view": page(client, f"/documents/{pdf.pk}/pages/1"),
    }

    for name, content in pages.items():
        assert SECRET not in content, name
    assert '<p class="meta">Press kit ·' in pages["PDF page view"]
    assert '<p class="meta">Press kit / Photos ·' in pages["text viewer (note)"]
    assert ">Press kit / Photos</option>" in pages["search menu"]
    assert "Camera notes" in pages["search results"]  # the search did find the passages


def test_staff_still_see_the_whole_path(library: dict[str, Any]) -> None:
    client = client_for(StaffFactory(username="boss"))
    note = library["note"]

    assert f"Holding / {SECRET} / Press kit / Photos ·" in page(client, f"/documents/{note.pk}/view")
    assert f">Holding / {SECRET} / Press kit / Photos</option>" in page(client, "/")


def test_duplicate_upload_message_names_only_what_the_writer_may_read(
    client: Any, library: dict[str, Any], settings: Any, tmp_path: Path
) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")  # the duplicate is refused before anything is stored
    press = library["folders"]["press"]
    file = SimpleUploadedFile("launch-again.pdf", library["pdf_bytes"], content_type="application/pdf")

    response = client.post("/api/documents", {"file": file, "folder": press.pk}, **bearer(library["reader"]))

    assert response.status_code == 409, response.content
    detail = response.json()["detail"]
    assert detail.startswith("The same file is already in folder 'Press kit' as document ")
    assert SECRET not in detail
    assert response.json()["existing_document_id"] == library["pdf"].pk
