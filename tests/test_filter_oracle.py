"""A filter naming a tag, author or folder the reader may not see answers exactly as one naming
nothing: on the search page, on /api/search and on /api/documents, for a reader of the public folder only."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from django.test import Client

from documents.models import Tag
from tests.conftest import bearer
from tests.factories import DocumentFactory, FolderFactory, UserFactory

pytestmark = pytest.mark.django_db

PRIVATE_TAG = "Merger plans"
PRIVATE_AUTHOR = "Jane Insider"


@pytest.fixture
def library() -> dict[str, Any]:
    """A public folder with one indexed document; a private folder whose document alone holds the
    private tag and author."""
    public = FolderFactory(name="Open shelf", is_public=True)
    private = FolderFactory(name="Board room")
    DocumentFactory(folder=public, title="Open paper", text="Consensus protocols.", indexed=True)
    secret = DocumentFactory(
        folder=private, title="Secret", text="Consensus protocols.", indexed=True, authors=[PRIVATE_AUTHOR]
    )
    secret.tags.add(Tag.objects.create(name=PRIVATE_TAG))
    return {"private": private}


def _same_apart_from(a: str, b: str, value_a: str, value_b: str) -> tuple[str, str]:
    """Both bodies with the value each named (as given and URL-encoded, once or twice) and each
    response's own numbers (nonces, CSRF tokens, the logged answer's id) blanked."""

    def blank(body: str, value: str) -> str:
        for form in sorted({value, quote_plus(value), quote(quote_plus(value), safe="")}, key=len, reverse=True):
            body = body.replace(form, "NAMED")
        body = re.sub(r"/answers/\d+/", "/answers/N/", body)
        return re.sub(r'(nonce|value|data-csrf)="[^"]{20,}"', r'\1=""', body)

    return blank(a, value_a), blank(b, value_b)


@pytest.mark.parametrize(
    ("name", "private", "unknown"), [("tag", PRIVATE_TAG, "Nonesuch"), ("author", PRIVATE_AUTHOR, "Nobody Known")]
)
def test_the_page_answers_a_private_name_as_an_unknown_one(
    client: Client, library: dict[str, Any], name: str, private: str, unknown: str
) -> None:
    hidden = client.get("/", {"q": "consensus", name: private})
    absent = client.get("/", {"q": "consensus", name: unknown})
    assert hidden.status_code == absent.status_code == 200
    for response in (hidden, absent):
        content = response.content.decode()
        assert "No document you may read matches these filters" in content
        assert "No tag is named" not in content
    assert _same_apart_from(hidden.content.decode(), absent.content.decode(), private, unknown) == _same_apart_from(
        absent.content.decode(), absent.content.decode(), unknown, unknown
    )


def test_the_page_answers_a_private_folder_as_a_missing_one(client: Client, library: dict[str, Any]) -> None:
    hidden = client.get("/", {"q": "consensus", "folder": library["private"].pk})
    absent = client.get("/", {"q": "consensus", "folder": 987654321})
    assert hidden.status_code == absent.status_code
    named, missing = f"folder%3D{library['private'].pk}", "folder%3D987654321"  # as the login link holds them
    assert _same_apart_from(hidden.content.decode(), absent.content.decode(), named, missing) == _same_apart_from(
        absent.content.decode(), absent.content.decode(), missing, missing
    )


@pytest.mark.parametrize(
    ("name", "private", "unknown"), [("tag", PRIVATE_TAG, "Nonesuch"), ("author", PRIVATE_AUTHOR, "Nobody Known")]
)
@pytest.mark.parametrize("path", ["/api/search", "/api/documents"])
def test_the_api_answers_a_private_name_as_an_unknown_one(
    client: Client, library: dict[str, Any], path: str, name: str, private: str, unknown: str
) -> None:
    params = {"q": "consensus"} if path == "/api/search" else {}
    headers = bearer(UserFactory(username="outsider"))  # reads the public folder only
    hidden = client.get(path, params | {name: private}, **headers)
    absent = client.get(path, params | {name: unknown}, **headers)
    assert hidden.status_code == absent.status_code == 200, hidden.content
    hidden_body, absent_body = hidden.json(), absent.json()
    for body in (hidden_body, absent_body):
        body.pop("timings_ms", None)
        body.pop("next", None)
    assert hidden_body == absent_body
    if path == "/api/search":
        assert hidden_body["filter_matches"] == 0
        assert "No document you may read matches these filters" in hidden_body["message"]
    else:
        assert hidden_body["items"] == []


@pytest.mark.parametrize("path", ["/api/search", "/api/documents"])
def test_the_api_answers_a_private_folder_as_a_missing_one(client: Client, library: dict[str, Any], path: str) -> None:
    params = {"q": "consensus"} if path == "/api/search" else {}
    headers = bearer(UserFactory(username="outsider"))
    hidden = client.get(path, params | {"folder": library["private"].pk}, **headers)
    absent = client.get(path, params | {"folder": 987654321}, **headers)
    assert hidden.status_code == absent.status_code == 404
    named = hidden.json()["detail"].replace(str(library["private"].pk), "N")
    assert named == absent.json()["detail"].replace("987654321", "N")
