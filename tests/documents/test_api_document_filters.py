"""GET /api/documents with the reader's filters, and its paging (`items`, `count`, `next`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from documents.models import Tag
from tests.conftest import bearer
from tests.factories import DocumentFactory, FolderFactory, GroupFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def shelf() -> dict[str, Any]:
    """12 indexed documents a reader may read, one queued, and one in a folder the reader may not read."""
    reader = UserFactory(username="shelf-reader")
    reader.groups.add(GroupFactory(name="shelf"))
    folder = FolderFactory(name="Shelf", readers=[GroupFactory(name="shelf")])
    hidden = FolderFactory(name="Hidden")
    tag = Tag.objects.create(name="Raft")
    documents = []
    for n in range(12):
        document = DocumentFactory(
            folder=folder,
            title=f"Paper {n:02d}",
            text=f"Paper number {n}.",
            indexed=True,
            content_type="application/pdf" if n % 2 else "text/markdown",
            authors=["Diego Ongaro"] if n < 3 else ["Someone Else"],
            published=dt.date(2010 + n, 6, 1),
        )
        if n % 3 == 0:
            document.tags.add(tag)
        documents.append(document)
    DocumentFactory(
        folder=folder, title="Queued", text="queued", content_type="application/pdf"
    )  # not indexed: never listed
    secret = DocumentFactory(folder=hidden, title="Secret", text="secret", indexed=True, content_type="application/pdf")
    secret.tags.add(tag)
    return {"reader": reader, "folder": folder, "documents": documents, "tag": tag}


def titles(body: dict[str, Any]) -> set[str]:
    return {item["title"] for item in body["items"]}


def test_filters_narrow_the_list(client: Any, shelf: dict[str, Any]) -> None:
    headers = bearer(shelf["reader"])
    get = lambda query: client.get(f"/api/documents?{query}", **headers)  # noqa: E731
    assert get("").json()["count"] == 12
    assert titles(get("type=pdf&limit=200").json()) == {f"Paper {n:02d}" for n in range(1, 12, 2)}
    assert titles(get("tag=raft").json()) == {"Paper 00", "Paper 03", "Paper 06", "Paper 09"}
    assert titles(get("author=DIEGO%20ONGARO").json()) == {"Paper 00", "Paper 01", "Paper 02"}
    assert titles(get("from=2019&to=2020-12").json()) == {"Paper 09", "Paper 10"}
    assert titles(get("type=pdf&type=markdown&tag=raft&from=2015").json()) == {"Paper 06", "Paper 09"}
    nothing = get("author=Nobody").json()
    assert nothing == {"items": [], "count": 0, "next": None}  # nothing matches: nothing listed, never everything


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ("type=exe", "Unknown type 'exe'"),
        ("from=2020-02-30", "'from' must be a date"),
        ("from=2021&to=2020", "is after 'to'"),
    ],
)
def test_invalid_filter_values_are_400_with_the_reason(
    client: Any, shelf: dict[str, Any], query: str, fragment: str
) -> None:
    response = client.get(f"/api/documents?{query}", **bearer(shelf["reader"]))
    assert response.status_code == 400, response.content
    assert fragment in response.json()["detail"]


def test_paging_follows_next_to_the_end_with_the_filters_kept(client: Any, shelf: dict[str, Any]) -> None:
    headers = bearer(shelf["reader"])
    url: str | None = "/api/documents?type=pdf&type=markdown&limit=5"
    seen: list[str] = []
    pages = 0
    while url:
        body = client.get(url, **headers).json()
        assert body["count"] == 12
        seen += [item["title"] for item in body["items"]]
        url = body["next"]
        pages += 1
        if url:
            assert url.startswith("http://testserver/api/documents?")
            assert "type=pdf" in url
            assert "limit=5" in url
    assert pages == 3
    assert len(seen) == len(set(seen)) == 12
    last = client.get("/api/documents?limit=5&offset=10", **headers).json()
    assert len(last["items"]) == 2
    assert last["next"] is None


def test_a_tag_count_never_reveals_an_unreadable_document(client: Any, shelf: dict[str, Any]) -> None:
    body = client.get("/api/documents?tag=Raft&type=pdf", **bearer(shelf["reader"])).json()
    assert titles(body) == {"Paper 03", "Paper 09"}
    assert body["count"] == 2
    outsider = client.get("/api/documents?tag=Raft", **bearer(UserFactory())).json()
    assert outsider == {"items": [], "count": 0, "next": None}


@pytest.mark.parametrize(
    ("path", "name"),
    [("/api/documents?author=Diego%00Ongaro", "author"), ("/api/documents?tag=Ra%00ft", "tag"),
     ("/api/search?q=raft&author=a%00", "author"), ("/api/search?q=raft&tag=%00", "tag")],
)  # fmt: skip
def test_a_nul_in_a_filter_value_is_400(client: Any, shelf: dict[str, Any], path: str, name: str) -> None:
    # Found by schemathesis (tests/test_api_contract.py): the query failed in PostgreSQL (500).
    response = client.get(path, **bearer(shelf["reader"]))
    assert response.status_code == 400
    assert response.json()["detail"] == f"A value of '{name}' holds a NUL character."
