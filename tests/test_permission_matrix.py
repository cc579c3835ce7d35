"""Issue 6.4: a user without access to a folder reaches nothing of it, anywhere.

For each surface, a forbidden document answers exactly like a document that does not exist
(same status, same body once the id is blanked), and no response carries its words.

Every check runs for two outsiders: one who reads no folder at all (retrieval answers before
any SQL runs) and one who reads another folder holding a document about the same words, so
the search's SQL runs and its folder filter is what keeps the secret out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from django.test import Client

from documents.models import Chunk, Document, DocumentStatus
from documents.services.tokens import token_create
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory, GroupFactory, UserFactory

SECRET = "Zanzibar quartz protocol requires seventeen amber keys"
TITLE = "Classified handbook"
QUERY = "which protocol requires seventeen amber keys"  # finds SECRET without containing its rarest word
NEIGHBOUR_TEXT = "The harbour protocol requires seven amber keys and one brass lantern for every gate."


@pytest.fixture
def secret_document(db: None, memoised_pipeline: None, tmp_path: Path) -> Document:
    path = tmp_path / "handbook.pdf"
    doc = pymupdf.open()
    for page_no in range(2):
        page = doc.new_page()
        page.insert_text((72, 100), f"Section {page_no + 1}", fontsize=16)
        page.insert_textbox(pymupdf.Rect(72, 130, 520, 700), f"{SECRET}. Page {page_no + 1} explains the rest.")
    doc.save(path)
    folder = FolderFactory(name="Secret", readers=[GroupFactory(name="insiders")])
    document = ingest_file_inline(path, folder, title=TITLE)
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    return document


@pytest.fixture(params=["reads_no_folder", "reads_another_folder"])
def outsider(request: pytest.FixtureRequest, db: None, memoised_pipeline: None, tmp_path: Path) -> Any:
    user = UserFactory(username="outsider")
    if request.param == "reads_another_folder":
        path = tmp_path / "harbour.md"
        path.write_text(f"# Harbour rules\n\n{NEIGHBOUR_TEXT}\n")
        document = ingest_file_inline(path, FolderFactory(name="Harbour", readers=[user]), title="Harbour rules")
        assert document.status == DocumentStatus.INDEXED, document.failure_reason
    return user


def _own_document_ids(user: Any) -> set[int]:
    """The documents this outsider may read (none for the one who reads no folder)."""
    return set(Document.objects.filter(folder__reader_users=user).values_list("pk", flat=True))


def _bearer(user: Any) -> dict[str, str]:
    _, raw = token_create(user=user, name="test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def _blank_ids(body: bytes, *ids: int) -> str:
    text = body.decode(errors="replace")
    for value in ids:
        text = re.sub(rf"\b{value}\b", "<id>", text)
    return text


def _assert_no_leak(response: Any) -> None:
    body = response.content.decode(errors="replace")
    header_text = " ".join(f"{k}: {v}" for k, v in response.headers.items())
    for secret in ("Zanzibar", "zanzibar", TITLE, "Classified", "Secret"):
        assert secret not in body, f"{secret!r} leaked in {response.request['PATH_INFO']}"
        assert secret not in header_text


def _same_as_missing(client: Client, method: str, template: str, doc_id: int, **extra: Any) -> None:
    missing_id = doc_id + 10_000
    forbidden = getattr(client, method)(template.format(id=doc_id), **extra)
    missing = getattr(client, method)(template.format(id=missing_id), **extra)
    assert forbidden.status_code == missing.status_code == 404, (forbidden.status_code, missing.status_code)
    assert _blank_ids(forbidden.content, doc_id) == _blank_ids(missing.content, missing_id)
    _assert_no_leak(forbidden)


VIEWER_PATHS = [
    "/documents/{id}/view",
    "/documents/{id}/pages/1",
    "/documents/{id}/pages/1.png",
    "/documents/{id}/file",
]


@pytest.mark.parametrize("template", VIEWER_PATHS)
def test_viewer_pages_answer_404_like_missing_documents(
    client: Client, secret_document: Document, outsider: Any, template: str
) -> None:
    client.force_login(outsider)
    _same_as_missing(client, "get", template, secret_document.pk)
    client.logout()
    _same_as_missing(client, "get", template, secret_document.pk)


@pytest.mark.parametrize(
    ("method", "template"),
    [
        ("get", "/api/documents/{id}"),
        ("post", "/api/documents/{id}/retry"),
        ("delete", "/api/documents/{id}"),
    ],
)
def test_document_api_answers_404_like_missing(
    client: Client, secret_document: Document, outsider: Any, method: str, template: str
) -> None:
    _same_as_missing(client, method, template, secret_document.pk, **_bearer(outsider))
    assert Document.objects.filter(pk=secret_document.pk, status=DocumentStatus.INDEXED).exists()
    assert Chunk.objects.filter(document=secret_document).exists()


def test_document_list_and_folder_list_show_nothing(client: Client, secret_document: Document, outsider: Any) -> None:
    headers = _bearer(outsider)
    listing = client.get("/api/documents", **headers)
    assert listing.status_code == 200
    assert {item["id"] for item in listing.json()["items"]} == _own_document_ids(outsider)
    _assert_no_leak(listing)
    filtered = client.get(f"/api/documents?folder={secret_document.folder_id}", **headers)
    assert filtered.status_code == 404
    _assert_no_leak(filtered)
    folders = client.get("/api/folders", **headers)
    assert folders.status_code == 200
    _assert_no_leak(folders)


def test_search_api_and_answer_api_reveal_nothing(client: Client, secret_document: Document, outsider: Any) -> None:
    headers = _bearer(outsider)
    own = _own_document_ids(outsider)
    search = client.get("/api/search", {"q": QUERY}, **headers)
    assert search.status_code == 200
    found = {hit["document_id"] for hit in search.json()["results"]}
    assert found <= own
    if own:  # the query ran over the neighbour's folder and found its document, and only that
        assert found == own
        assert search.json()["best_distance"] is not None
    _assert_no_leak(search)

    in_folder = client.get("/api/search", {"q": QUERY, "folder": secret_document.folder_id}, **headers)
    missing_folder = client.get("/api/search", {"q": QUERY, "folder": secret_document.folder_id + 999}, **headers)
    assert in_folder.status_code == missing_folder.status_code == 404
    assert _blank_ids(in_folder.content, secret_document.folder_id) == _blank_ids(
        missing_folder.content, secret_document.folder_id + 999
    )

    answer = client.post("/api/answer", json.dumps({"question": QUERY}), content_type="application/json", **headers)
    assert answer.status_code == 200
    assert {c["document_id"] for c in answer.json()["citations"]} <= own
    _assert_no_leak(answer)


def test_search_page_reveals_nothing(client: Client, secret_document: Document, outsider: Any) -> None:
    client.force_login(outsider)
    page = client.get("/", {"q": QUERY})
    assert page.status_code == 200
    _assert_no_leak(page)
    client.logout()
    anonymous = client.get("/", {"q": QUERY})
    assert anonymous.status_code == 302  # no public folder: sent to sign in
    assert anonymous["Location"].startswith("/login/")
    _assert_no_leak(anonymous)


def test_admin_is_closed_to_non_staff(client: Client, secret_document: Document, outsider: Any) -> None:
    client.force_login(outsider)
    for path in (
        f"/admin/documents/document/{secret_document.pk}/change/",
        "/admin/documents/document/",
        "/admin/documents/document/upload/",
    ):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")
        _assert_no_leak(response)


def test_insider_sees_what_outsider_cannot(client: Client, secret_document: Document) -> None:
    insider = UserFactory(username="insider")
    insider.groups.add(GroupFactory(name="insiders"))
    headers = _bearer(insider)
    search = client.get("/api/search", {"q": QUERY}, **headers)
    assert search.status_code == 200
    assert any("Zanzibar" in hit["content"] for hit in search.json()["results"])
    client.force_login(insider)
    assert client.get(f"/documents/{secret_document.pk}/view").status_code == 200
    assert client.get(f"/documents/{secret_document.pk}/file").status_code == 200
