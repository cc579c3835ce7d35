"""The 404, 403, 500 and 503 pages: the site's own, rendered by Django's handlers with DEBUG off (the
503 by the search page when it cannot search), under the Content-Security-Policy (no inline
script, no style="" attribute), and the 500 page without the request, the user or the database
(Django renders it with an empty context)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.test import Client, override_settings
from django.urls import include, path

from citations.unavailable import READER_MESSAGE
from search.services import query_embedding

pytestmark = pytest.mark.django_db


def _forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("staff only")


def _broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


# This module is its own URLconf in the tests below: the site's URLs plus two views that fail.
urlpatterns = [
    path("test-forbidden/", _forbidden),
    path("test-broken/", _broken),
    path("", include("ragsite.urls")),
]


def _no_inline_code(content: str) -> None:
    assert "style=" not in content
    assert "<script" not in content


def test_a_missing_page_is_the_sites_404(user_factory: Any) -> None:
    response = Client().get("/documents/999999/view")
    assert response.status_code == 404
    content = response.content.decode()
    assert [t.name for t in response.templates][:2] == ["404.html", "base.html"]
    assert '<h1 id="error-heading">Page not found</h1>' in content
    assert "/static/css/app.css" in content
    assert "log in</a> and try again" in content  # anonymous: may log in
    assert "999999" not in content  # nothing of the request: the same page for missing and forbidden
    assert "script-src 'self'" in response["Content-Security-Policy"]
    _no_inline_code(content)
    client = Client()
    client.force_login(user_factory(username="lost-reader"))
    signed_in = client.get("/no/such/page").content.decode()
    assert "Signed in as <strong>lost-reader</strong>" in signed_in
    assert "log in</a> and try again" not in signed_in
    assert "csrfmiddlewaretoken" not in signed_in


@override_settings(ROOT_URLCONF=__name__)
def test_a_permission_denied_is_the_sites_403(user_factory: Any) -> None:
    client = Client()
    client.force_login(user_factory(username="curious-reader"))
    response = client.get("/test-forbidden/")
    assert response.status_code == 403
    content = response.content.decode()
    assert [t.name for t in response.templates][:2] == ["403.html", "base.html"]
    assert "You may not open this page" in content
    assert "ask an administrator for access" in content
    assert "staff only" not in content  # the exception's own words are for the log
    assert "script-src 'self'" in response["Content-Security-Policy"]
    _no_inline_code(content)


@override_settings(ROOT_URLCONF=__name__)
def test_a_server_error_is_the_sites_500() -> None:
    response = Client(raise_request_exception=False).get("/test-broken/")
    assert response.status_code == 500
    content = response.content.decode()
    assert [t.name for t in response.templates] == ["500.html", "bare_error.html"]
    assert "Something went wrong" in content
    assert "/static/css/app.css" in content
    assert "a bug in a view" not in content
    assert "script-src 'self'" in response["Content-Security-Policy"]
    _no_inline_code(content)


def test_the_500_page_renders_with_no_request_and_no_context_processors() -> None:
    # As Django's server_error does it: Template.render() with an empty context, so nothing of the
    # request, the session or the database is needed (a 500 may come from any of them failing).
    content = loader.get_template("500.html").render()
    assert "Something went wrong" in content
    assert 'href="/"' in content


@pytest.fixture
def embedding_server_down(settings: Any) -> str:
    """EMBEDDER=http at the discard port, where nothing listens: every query vector fails."""
    settings.EMBEDDER = "http"
    settings.EMBEDDING_URL = "http://127.0.0.1:9/v1"
    settings.EMBEDDING_RETRIES = 0
    query_embedding.clear_query_cache()
    return "the embedding server at http://127.0.0.1:9/v1/embeddings could not be reached"


def test_a_search_the_embedder_cannot_serve_is_the_sites_503(
    folder_factory: Any, user_factory: Any, embedding_server_down: str
) -> None:
    folder_factory(name="Open shelf", is_public=True)
    response = Client().get("/", {"q": "when did the schooner arrive?"})
    assert response.status_code == 503
    content = response.content.decode()
    assert [t.name for t in response.templates][:2] == ["503.html", "base.html"]
    assert '<h1 id="error-heading">Search is unavailable</h1>' in content
    assert READER_MESSAGE in content
    assert "/static/css/app.css" in content
    assert "embedding server" not in content  # the cause is for staff and the log
    assert 'href="/?q=when+did+the+schooner+arrive%3F">Try again</a>' in content
    assert "script-src 'self'" in response["Content-Security-Policy"]
    _no_inline_code(content)
    staff = Client()
    staff.force_login(user_factory(username="keeper", is_staff=True))
    seen = staff.get("/", {"q": "when did the schooner arrive?"})
    assert seen.status_code == 503
    assert READER_MESSAGE in seen.content.decode()
    assert embedding_server_down in seen.content.decode()  # staff can act on the cause


def test_the_streamed_answer_the_embedder_cannot_serve_is_a_503(
    folder_factory: Any, user_factory: Any, embedding_server_down: str
) -> None:
    reader, keeper = user_factory(username="reader"), user_factory(username="keeper", is_staff=True)
    folder_factory(name="Shelf", readers=[reader, keeper])
    for user, shown in ((reader, False), (keeper, True)):
        client = Client()
        client.force_login(user)
        response = client.post("/answers/stream", {"q": "when did the schooner arrive?"})
        assert response.status_code == 503
        detail = response.json()["detail"]
        assert detail.startswith(READER_MESSAGE)  # static/js/answer_stream.js shows it
        assert (embedding_server_down in detail) is shown
