"""GET /api/search with filters: the same parameters as the search page, facets, and errors."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from documents.models import Chunk, Document, Tag
from tests.conftest import bearer, dev_reader
from tests.factories import FolderFactory

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUESTION = "How does Dynamo use vector clocks to reconcile divergent versions?"
MARKDOWN_QUESTION = "How does Prometheus compact blocks of samples on disk?"


def _document(dev_corpus: dict[str, Any], stem: str) -> Document:
    return next(d for name, d in dev_corpus.items() if name.startswith(stem))


@pytest.fixture
def tagged(dev_corpus: dict[str, Any]) -> dict[str, Document]:
    tag = Tag.objects.create(name="Consensus")
    raft = _document(dev_corpus, "raft-consensus-2014")
    raft.tags.add(tag)
    Document.objects.filter(pk=raft.pk).update(published=dt.date(2014, 6, 19), authors=["Diego Ongaro"])
    return {"raft": raft, "spec": _document(dev_corpus, "ecma-404-json-spec-2013")}


def _search(client: Any, **params: Any) -> Any:
    return client.get("/api/search", {"q": QUESTION} | params, **bearer(dev_reader()))


def _documents_of(body: dict[str, Any]) -> set[int]:
    return {hit["document"]["id"] for hit in body["items"]}


def test_each_filter_narrows_the_results(client: Any, tagged: dict[str, Document]) -> None:
    raft = tagged["raft"].pk
    for params in ({"tag": "consensus"}, {"author": "diego ongaro"}, {"from": "2014", "to": "2014"}):
        body = _search(client, **params, mode="bm25").json()
        assert body["filter_matches"] == 1, params
        assert _documents_of(body) <= {raft}, params
    # Asked of Markdown alone, a question about a PDF's subject is refused (the filtered library
    # does not hold "Dynamo"); one the Markdown files answer comes back from them only.
    assert _search(client, type="markdown", k=20).json()["state"] == "refused"
    markdown = _search(client, q=MARKDOWN_QUESTION, type="markdown", k=20).json()
    types = set(Document.objects.filter(pk__in=_documents_of(markdown)).values_list("content_type", flat=True))
    assert markdown["items"]
    assert types == {"text/markdown"}
    assert [f["value"] for f in markdown["facets"]["type"]] == ["markdown"]


def test_within_one_document_returns_its_passages(client: Any, tagged: dict[str, Document]) -> None:
    spec = tagged["spec"]
    body = _search(client, document=spec.pk, mode="dense", k=5).json()
    assert body["filter_matches"] == 1
    assert len(body["items"]) == min(5, Chunk.objects.filter(document=spec).count()) or body["refused"]
    assert _documents_of(body) <= {spec.pk}
    assert body["facets"]["documents"] == 1


def test_facets_beside_an_unfiltered_search(client: Any, tagged: dict[str, Document]) -> None:
    body = _search(client, k=10).json()
    facets = body["facets"]
    assert body["filter_matches"] is None
    assert facets["documents"] >= len(_documents_of(body))
    assert sum(f["count"] for f in facets["type"]) == facets["documents"]
    assert {f["label"] for f in facets["type"]} <= {"PDF", "Markdown"}
    (folder,) = facets["folder"]
    assert folder["count"] == facets["documents"]


def test_a_filter_matching_nothing_is_said_plainly(client: Any, tagged: dict[str, Document]) -> None:
    body = _search(client, author="Nobody", type="pdf").json()
    assert body["filter_matches"] == 0
    assert body["refused"]
    assert body["items"] == []
    assert "No document you may read matches these filters" in body["message"]
    assert body["facets"]["documents"] == 0


@pytest.mark.parametrize(
    ("params", "status", "fragment"),
    [
        ({"type": "exe"}, 400, "Unknown type"),
        ({"from": "soon"}, 400, "'from' must be a date"),
        ({"from": "2014", "to": "2013"}, 400, "is after"),
        ({"document": 987654321}, 404, "does not exist or you may not read it"),
        ({"folder": 987654321}, 404, "does not exist or you may not read it"),
    ],
)
def test_invalid_filters_answer_with_the_reason(
    client: Any, tagged: dict[str, Document], params: dict[str, Any], status: int, fragment: str
) -> None:
    response = _search(client, **params)
    assert response.status_code == status, response.content
    assert fragment in response.json()["detail"]


def test_filters_never_reach_an_unreadable_document(client: Any, tagged: dict[str, Document]) -> None:
    hidden = FolderFactory(name="Not for readers")
    spec = tagged["spec"]
    hidden_doc = Document.objects.create(
        folder=hidden, title="Hidden copy", original_name="x.txt", content_type="text/plain", size=1, sha256="0" * 64
    )
    Tag.objects.get(name="Consensus").documents.add(hidden_doc)
    body = client.get("/api/search", {"q": QUESTION, "tag": "Consensus"}, **bearer(dev_reader())).json()
    assert body["filter_matches"] == 1  # the hidden, tagged document is not counted
    missing = client.get("/api/search", {"q": QUESTION, "document": hidden_doc.pk}, **bearer(dev_reader()))
    absent = client.get("/api/search", {"q": QUESTION, "document": 987654321}, **bearer(dev_reader()))
    assert missing.status_code == absent.status_code == 404
    assert spec.pk  # the readable one stays searchable
