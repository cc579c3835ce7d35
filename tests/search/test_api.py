"""GET /api/search over the indexed dev corpus: shape, permissions, validation, rate limits."""

from __future__ import annotations

from typing import Any

import pytest

from documents.models import Chunk, Folder
from tests.conftest import DEV_FOLDER_NAME, bearer, dev_reader
from tests.factories import FolderFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUESTION = "Which hash function does Dynamo apply to a key to produce the 128-bit identifier used for placement?"
HIT_FIELDS = {
    "chunk_id", "document_id", "document_title", "folder", "section", "content", "char_start", "char_end",
    "page_start", "page_end", "distance", "dense_rank", "bm25_rank", "bm25_score", "score", "rerank_score", "url",
    "also_in", "document_authors", "document_published", "document",
}  # fmt: skip


def dev_folder() -> Folder:
    return Folder.objects.get(name=DEV_FOLDER_NAME, parent=None)


def test_search_returns_cited_passages(client: Any, dev_corpus: dict[str, Any]) -> None:
    response = client.get("/api/search", {"q": QUESTION, "k": 5}, **bearer(dev_reader()))
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {
        "query", "state", "refused", "threshold", "best_distance", "message", "unknown_names", "missing_terms",
        "unseen_terms", "answer_type", "unmet_answer_type", "reranker", "notice", "filter_matches", "facets", "results",
        "items", "count", "next", "suggestion", "language",
    }  # fmt: skip
    assert body["items"] == body["items"]  # deprecated alias, one release
    assert (body["count"], body["next"]) == (len(body["items"]), None)  # one ranked page of k
    assert body["unknown_names"] == []
    assert (body["state"], body["missing_terms"], body["unseen_terms"], body["reranker"]) == ("answered", [], [], None)
    assert (body["answer_type"], body["unmet_answer_type"]) == (None, None)  # "which hash function": no kind
    assert body["query"] == QUESTION
    assert body["refused"] is False
    assert body["message"] is None
    assert 1 <= len(body["items"]) <= 5
    assert any("MD5" in hit["content"] for hit in body["items"])
    for hit in body["items"]:
        assert set(hit) == HIT_FIELDS
        chunk = Chunk.objects.select_related("document").get(pk=hit["chunk_id"])
        assert hit["content"] == chunk.content  # the chunk's own words, never the context prefix
        assert chunk.document.canonical_text[hit["char_start"] : hit["char_end"]] == hit["content"]
        assert hit["url"] == (
            f"http://testserver/documents/{hit['document_id']}/view#char={hit['char_start']},{hit['char_end']}"
        )
        folder = {"id": dev_folder().pk, "name": DEV_FOLDER_NAME, "path": DEV_FOLDER_NAME}
        assert hit["document"] == {"id": hit["document_id"], "title": hit["document_title"], "folder": folder,
                                   "type": "pdf" if chunk.document.is_pdf else hit["document"]["type"]}  # fmt: skip
        assert hit["folder"] == folder
        assert hit["dense_rank"] is None or hit["dense_rank"] >= 1
        assert hit["bm25_rank"] is None or hit["bm25_rank"] >= 1


def test_refused_search_says_why(client: Any, dev_corpus: dict[str, Any], settings: Any) -> None:
    settings.ANSWER_MAX_DISTANCE = 0.0
    body = client.get("/api/search", {"q": QUESTION}, **bearer(dev_reader())).json()
    assert body["refused"] is True
    assert body["items"]  # what it found is listed; `state` says it does not answer
    assert body["threshold"] == 0.0
    assert "threshold" in body["message"]


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_a_single_word_the_library_holds_lists_hits_in_every_mode(
    client: Any, dev_corpus: dict[str, Any], mode: str
) -> None:
    """README's example: whatever the gate says of "MD5" as a question, the passages holding it are listed."""
    body = client.get("/api/search", {"q": "MD5", "mode": mode}, **bearer(dev_reader())).json()
    assert body["items"], (mode, body["state"], body["message"])
    assert body["count"] == len(body["items"])
    if mode != "dense":  # the words' leg ranks a passage holding the word first
        assert "MD5" in body["items"][0]["content"]


def test_folder_narrowing(client: Any, dev_corpus: dict[str, Any]) -> None:
    headers = bearer(dev_reader())
    body = client.get("/api/search", {"q": QUESTION, "folder": dev_folder().pk}, **headers).json()
    assert body["items"]
    empty = FolderFactory(name="Empty", is_public=True)
    body = client.get("/api/search", {"q": QUESTION, "folder": empty.pk}, **headers).json()
    assert body["items"] == []


def test_user_without_access_gets_nothing(client: Any, dev_corpus: dict[str, Any]) -> None:
    headers = bearer(UserFactory(username="stranger"))
    response = client.get("/api/search", {"q": QUESTION}, **headers)
    assert response.status_code == 200
    body = response.json()
    assert body["items"] == []
    assert body["best_distance"] is None
    assert "MD5" not in response.content.decode()
    hidden = client.get("/api/search", {"q": QUESTION, "folder": dev_folder().pk}, **headers)
    missing = client.get("/api/search", {"q": QUESTION, "folder": 987654}, **headers)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["detail"].replace(str(dev_folder().pk), "N") == missing.json()["detail"].replace("987654", "N")


def test_anonymous_sees_public_folders_only(client: Any, dev_corpus: dict[str, Any]) -> None:
    assert client.get("/api/search", {"q": QUESTION}).json()["items"] == []
    Folder.objects.filter(pk=dev_folder().pk).update(is_public=True)
    assert client.get("/api/search", {"q": QUESTION}).json()["items"]


def test_session_auth(client: Any, dev_corpus: dict[str, Any]) -> None:
    client.force_login(dev_reader())
    assert client.get("/api/search", {"q": QUESTION}).json()["items"]


def test_invalid_token_is_never_treated_as_anonymous(client: Any, dev_corpus: dict[str, Any]) -> None:
    response = client.get("/api/search", {"q": QUESTION}, HTTP_AUTHORIZATION="Bearer rag_wrong")
    assert response.status_code == 401
    assert "Bearer <token>" in response.json()["detail"]


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({}, "query parameter 'q': Field required"),
        ({"q": ""}, "query parameter 'q'"),
        ({"q": "   "}, "blank"),
        ({"q": "x" * 1001}, "at most 1000 characters"),
        ({"q": "ok", "k": 0}, "query parameter 'k'"),
        ({"q": "ok", "k": 51}, "less than or equal to 50"),
        ({"q": "ok", "k": "many"}, "query parameter 'k'"),
        ({"q": "ok", "folder": "first"}, "query parameter 'folder'"),
        ({"q": "ok", "mode": "magic"}, "query parameter 'mode'"),
    ],
)
def test_validation_errors_are_readable(client: Any, db: None, params: dict[str, Any], fragment: str) -> None:
    response = client.get("/api/search", params)
    assert response.status_code == 422
    body = response.json()
    assert fragment in body["detail"]
    assert body["errors"]
    assert isinstance(body["errors"], list)


def test_odd_queries_do_not_error(client: Any, dev_corpus: dict[str, Any]) -> None:
    headers = bearer(dev_reader())
    for q in ["TS-999", "0.00057%", "a & b | !c", "'\"\\", "日本語の質問", "MD5 <-> SHA1"]:
        response = client.get("/api/search", {"q": q, "mode": "bm25"}, **headers)
        assert response.status_code == 200, (q, response.content)


def test_rate_limit_answers_429_with_retry_after(client: Any, db: None, settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 2
    headers = bearer(UserFactory(username="busy"))
    first = client.get("/api/search", {"q": "anything"}, **headers)
    assert first.status_code == 200
    assert first["X-RateLimit-Limit"] == "2"
    assert first["X-RateLimit-Remaining"] == "1"
    assert client.get("/api/search", {"q": "anything"}, **headers).status_code == 200
    limited = client.get("/api/search", {"q": "anything"}, **headers)
    assert limited.status_code == 429
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert "2 requests per minute" in limited.json()["detail"]
    # The limit is per token: another caller is not affected.
    assert client.get("/api/search", {"q": "anything"}, **bearer(UserFactory(username="calm"))).status_code == 200
