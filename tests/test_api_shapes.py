"""One shape per thing across the API (docs/api.md "API changes"): a folder and a document are the
same object in /api/folders, /api/documents, /api/search and /api/answer; every URL answered
is absolute (from the request's host, or SITE_URL); every time carries its offset; every list
pages with `items`, `count` and `next`, and walking `next` gives every item once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.conftest import bearer, ingest_file_inline, ingest_text
from tests.factories import FolderFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db

NOTES = [
    "Dynamo hashes every key with MD5 to place it on a ring of storage nodes.",
    "Dynamo replicates each key on the next three nodes clockwise, its preference list.",
    "Dynamo reconciles divergent versions of a key with vector clocks at read time.",
    "Dynamo uses sloppy quorums and hinted handoff when a storage node of the ring is down.",
    "Dynamo detects diverging replicas of a key range with Merkle trees and anti-entropy.",
]
QUESTION = "How does Dynamo place keys on the ring of storage nodes?"
DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


@pytest.fixture
def library(tmp_path: Path, memoised_pipeline: None) -> dict[str, Any]:
    """Five notes in Team and Team / Notes, whose parent Hidden the reader may not read, and one
    note copied into both folders (same bytes: `also_in`)."""
    reader = UserFactory(username="shape-reader")
    hidden = FolderFactory(name="Hidden")
    team = FolderFactory(name="Team", parent=hidden, readers=[reader])
    notes = FolderFactory(name="Notes", parent=team, readers=[reader])
    documents = [
        ingest_text(tmp_path, notes if n % 2 else team, f"Dynamo note {n}", text) for n, text in enumerate(NOTES)
    ]
    copy = tmp_path / "ring.txt"
    copy.write_text(NOTES[0] + "\n\nThe ring is the key space, hashed and wrapped around.")
    documents += [ingest_file_inline(copy, folder, title=f"Ring ({folder.name})") for folder in (team, notes)]
    return {"reader": reader, "team": team, "notes": notes, "documents": documents}


def _get(client: Client, url: str, headers: dict[str, str], **params: Any) -> dict[str, Any]:
    response = client.get(url, params, **headers)
    assert response.status_code == 200, response.content
    return dict(response.json())


def _answer(client: Client, headers: dict[str, str]) -> dict[str, Any]:
    response = client.post("/api/answer", {"question": QUESTION}, content_type="application/json", **headers)
    assert response.status_code == 200, response.content
    body = dict(response.json())
    assert body["citations"], body["message"]
    return body


def _responses(client: Client, library: dict[str, Any]) -> Iterator[Any]:
    """A response of every endpoint that answers objects (and the upload's Location header)."""
    headers = bearer(library["reader"])
    yield _get(client, "/api/folders", headers)
    yield _get(client, f"/api/folders/{library['notes'].pk}", headers)
    yield _get(client, "/api/documents", headers)
    yield _get(client, f"/api/documents/{library['documents'][0].pk}", headers)
    yield _get(client, "/api/search", headers, q=QUESTION)
    yield _get(client, "/api/search", headers, q=QUESTION, group="document", page_size=2)
    yield _answer(client, headers)
    staff = bearer(StaffFactory(username="shape-staff"))
    new = SimpleUploadedFile("new.md", b"# New\n\nA new note about Dynamo.", content_type="text/markdown")
    upload = client.post("/api/documents", {"file": new, "folder": library["team"].pk}, **staff)
    upload_body = upload.json()
    assert upload.status_code == 202, upload_body
    yield {"location": upload["Location"], **upload_body}


def _walk(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """Every (key, leaf value) of a JSON document."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v, key)
    else:
        yield key, value


def _urls(body: Any) -> list[str]:
    return [v for k, v in _walk(body) if (k in ("url", "next", "location") or k.endswith("_url")) and v is not None]


def test_a_folder_and_a_document_are_the_same_object_everywhere(client: Client, library: dict[str, Any]) -> None:
    headers = bearer(library["reader"])
    folders = {
        f["id"]: {k: f[k] for k in ("id", "name", "path")} for f in _get(client, "/api/folders", headers)["items"]
    }
    team, notes = library["team"].pk, library["notes"].pk
    assert folders == {
        team: {"id": team, "name": "Team", "path": "Team"},  # Hidden is not named: the reader may not read it
        notes: {"id": notes, "name": "Notes", "path": "Team / Notes"},
    }
    listed = _get(client, "/api/documents", headers)["items"]
    documents = {d["id"]: {k: d[k] for k in ("id", "title", "folder", "type")} for d in listed}
    assert {d["id"] for d in listed} == {d.pk for d in library["documents"]}
    for document in documents.values():
        assert document["folder"] == folders[document["folder"]["id"]]
        assert document["type"] == "plaintext"

    seen: list[dict[str, Any]] = []
    search = _get(client, "/api/search", headers, q=QUESTION)
    for hit in search["items"]:
        seen += [hit["document"], *[copy["document"] for copy in hit["also_in"]]]
        assert hit["folder"] == hit["document"]["folder"]  # the deprecated field, one release
    assert any(hit["also_in"] for hit in search["items"])
    grouped = _get(client, "/api/search", headers, q=QUESTION, group="document", page_size=10)
    seen += [match["document"] for match in grouped["items"]]
    answer = _answer(client, headers)
    for citation in answer["citations"]:
        seen += [citation["document"], *[copy["document"] for copy in citation["also_in"]]]
        assert citation["folder"] == citation["document"]["folder"]
    assert len(seen) > len(documents)
    for reference in seen:
        assert reference == documents[reference["id"]]


def test_every_url_is_absolute_from_the_host(client: Client, library: dict[str, Any], settings: Any) -> None:
    urls = [url for body in _responses(client, library) for url in _urls(body)]
    assert len(urls) > 20
    assert all(url.startswith("http://testserver/") for url in urls), urls
    # Under another name, the request's own host.
    settings.ALLOWED_HOSTS = ["testserver", "docs.internal"]
    response = client.get("/api/search", {"q": QUESTION}, HTTP_HOST="docs.internal:8000", **bearer(library["reader"]))
    body = response.json()
    assert _urls(body)
    assert all(url.startswith("http://docs.internal:8000/") for url in _urls(body))


def test_every_url_is_under_site_url_when_set(client: Client, library: dict[str, Any], settings: Any) -> None:
    settings.SITE_URL = "https://library.example.org"
    urls = [url for body in _responses(client, library) for url in _urls(body)]
    assert len(urls) > 20
    assert all(url.startswith("https://library.example.org/") for url in urls), urls
    document = library["documents"][0]
    detail = _get(client, f"/api/documents/{document.pk}", bearer(library["reader"]))
    assert detail["url"] == f"https://library.example.org/api/documents/{document.pk}"
    assert client.get(detail["url"], **bearer(library["reader"])).json()["id"] == document.pk


def test_no_value_is_a_site_relative_path(client: Client, library: dict[str, Any]) -> None:
    for body in _responses(client, library):
        relative = [(k, v) for k, v in _walk(body) if isinstance(v, str) and v.startswith("/")]
        assert relative == []


def test_every_time_carries_its_offset(client: Client, library: dict[str, Any]) -> None:
    times = [
        v for body in _responses(client, library) for _, v in _walk(body) if isinstance(v, str) and DATETIME.match(v)
    ]
    assert len(times) > 10
    for value in times:
        assert datetime.fromisoformat(value).utcoffset() is not None, value


def _pages(client: Client, url: str, headers: dict[str, str]) -> tuple[list[dict[str, Any]], int, int]:
    """Every item got by following `next` from `url`, the `count` each page gave, and the page count."""
    items: list[dict[str, Any]] = []
    counts: set[int] = set()
    pages = 0
    next_url: str | None = url
    while next_url is not None:
        pages += 1
        body = client.get(next_url, **headers).json()
        assert {"items", "count", "next"} <= set(body), body
        items += body["items"]
        counts.add(body["count"])
        next_url = body["next"]
        assert next_url is None or next_url.startswith("http://testserver/api/")
        assert pages < 50
    assert len(counts) == 1
    return items, counts.pop(), pages


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("/api/folders?limit=1", "id"),
        ("/api/documents?limit=2", "id"),
        (f"/api/search?q={quote_plus(QUESTION)}&group=document&page_size=2", "document"),
        (f"/api/search?q={quote_plus(QUESTION)}&k=3", "chunk_id"),
    ],
)
def test_every_list_pages_with_items_count_next(client: Client, library: dict[str, Any], url: str, key: str) -> None:
    items, count, pages = _pages(client, url, bearer(library["reader"]))
    ids = [str(item[key]["id"] if key == "document" else item[key]) for item in items]
    assert len(ids) == len(set(ids)) == count > 0  # every item once
    if "k=3" in url:
        assert (count, pages) == (3, 1)  # a passage search is one ranked page of k
    else:
        assert pages > 1


def test_old_field_names_are_marked_deprecated(client: Client) -> None:
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    kept = [
        ("SearchOut", "results"), ("SearchHitOut", "document_id"), ("SearchHitOut", "document_title"),
        ("SearchHitOut", "folder"), ("CopyOut", "document_id"), ("CopyOut", "folder"), ("DocumentSearchOut", "total"),
        ("DocumentSearchOut", "documents"), ("DocumentMatchOut", "title"), ("CitationOut", "document_id"),
        ("CitationOut", "document_title"),
    ]  # fmt: skip
    for schema, field in kept:
        assert schemas[schema]["properties"][field]["deprecated"] is True, (schema, field)
    assert "deprecated" not in schemas["CitationOut"]["properties"]["document"]
