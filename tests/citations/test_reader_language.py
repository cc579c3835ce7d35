"""The reader pages in the browser's language (Accept-Language, LocaleMiddleware): Portuguese for a
reader who asks for it, English for everyone else, with `<html lang>` saying which. The API's
human sentences follow the same header; its machine fields (`state`, `reasons`) never change."""

# The search fixture is imported from the search page's tests, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import translation

from search.services.gate import GateInputs, decide
from tests.citations.fakes import hit
from tests.citations.test_search_page import fake_search  # noqa: F401  (the fixture is used by name)
from tests.conftest import bearer
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

PORTUGUESE = {"HTTP_ACCEPT_LANGUAGE": "pt-PT,pt;q=0.9"}
QUESTION = "Which protocol elects a coordinator per shard?"


def _lang(content: str) -> str:
    found = re.search(r'<html lang="([^"]*)"', content)
    assert found, content[:300]
    return found.group(1)


def _get(path: str, headers: dict[str, str], **params: Any) -> tuple[int, str, Any]:
    response = Client().get(path, params, **headers)
    return response.status_code, response.content.decode(), response


@pytest.fixture
def shelf(folder_factory: Any) -> Any:
    return folder_factory(name="Open shelf", is_public=True)


def test_the_search_page_speaks_portuguese_to_a_portuguese_browser(shelf: Any) -> None:
    status, content, response = _get("/", PORTUGUESE)
    assert status == 200
    assert _lang(content) == "pt"
    assert response["Content-Language"] == "pt"
    assert "Accept-Language" in response["Vary"]  # a cache keeps one copy per language
    assert '<h1 id="search-heading">Pergunte à biblioteca</h1>' in content
    assert "A pesquisa abrange apenas as pastas públicas." in content
    assert 'placeholder="Faça uma pergunta sobre a biblioteca…"' in content
    assert "Ask the library" not in content
    assert 'src="/jsi18n/"' in content  # the scripts' words come from the same catalog


@pytest.mark.parametrize("header", [{}, {"HTTP_ACCEPT_LANGUAGE": "en"}, {"HTTP_ACCEPT_LANGUAGE": "de-DE,de;q=0.9"}])
def test_english_for_english_no_header_and_an_unsupported_language(shelf: Any, header: dict[str, str]) -> None:
    status, content, _ = _get("/", header)
    assert status == 200
    assert _lang(content).startswith("en")
    assert '<h1 id="search-heading">Ask the library</h1>' in content
    assert "Pergunte" not in content


def test_a_result_page_and_its_refusal_in_portuguese(shelf: Any, fake_search: list[Any]) -> None:
    status, content, _ = _get("/", PORTUGUESE, q="What does the library say about tides?")
    assert status == 200
    assert _lang(content) == "pt"
    assert '<h2 id="answer-heading">Sem resposta</h2>' in content
    assert (
        "Sem resposta: A biblioteca não tem nenhuma passagem suficientemente próxima desta pergunta para lhe "
        "responder." in content
    )
    # The gate's own message, in the details, is said in Portuguese too; its reason stays a code.
    assert "Nenhuma passagem está suficientemente próxima da pergunta" in content
    assert '<dd id="detail-reasons">too_far</dd>' in content
    assert "No answer" not in content


def test_an_answer_with_its_sources_in_portuguese(shelf: Any, fake_search: list[Any]) -> None:
    fake_search.append(hit(1, "The quartermaster protocol elects one coordinator per shard.", document_id=10**9))
    status, content, _ = _get("/", PORTUGUESE, q=QUESTION)
    assert status == 200
    assert '<h2 id="answer-heading">Resposta</h2>' in content
    assert '<h2 id="sources-heading">Fontes</h2>' in content
    assert "Escrita pelo redator <strong>extractive</strong>" in content
    assert "Esta resposta ajudou?" in content
    assert "Sources" not in content


def test_browse_and_the_viewer_in_portuguese(shelf: Any) -> None:
    document = DocumentFactory(folder=shelf, indexed=True, title="Engine notes", canonical_text="Lease renewal.")
    _, index, _ = _get("/library/", PORTUGUESE)
    assert '<h1 id="library-heading">Biblioteca</h1>' in index
    assert '<th scope="col">Pasta</th><th scope="col">Documentos</th>' in index
    _, folder, _ = _get(f"/library/folders/{shelf.pk}/", PORTUGUESE)
    assert "Pesquisar nesta pasta" in folder
    assert 'id="folder-count">1 documento.' in folder
    _, page, _ = _get(f"/library/documents/{document.pk}/", PORTUGUESE)
    assert 'id="open-text">Ler o texto</a>' in page
    status, viewer, _ = _get(f"/documents/{document.pk}/view", PORTUGUESE)
    assert status == 200
    assert _lang(viewer) == "pt"
    assert 'id="file-link" href="/documents/' in viewer
    assert "Documento original</a>" in viewer
    assert "Ir para a passagem" in viewer


def test_a_missing_page_in_portuguese_and_in_english(shelf: Any) -> None:
    status, content, _ = _get("/documents/999999/view", PORTUGUESE)
    assert status == 404
    assert _lang(content) == "pt"
    assert '<h1 id="error-heading">Página não encontrada</h1>' in content
    assert "entre</a> e tente de novo" in content
    status, content, _ = _get("/documents/999999/view", {"HTTP_ACCEPT_LANGUAGE": "de"})
    assert status == 404
    assert '<h1 id="error-heading">Page not found</h1>' in content


@override_settings(ROOT_URLCONF="tests.citations.test_error_pages")
def test_a_server_error_in_portuguese() -> None:
    response = Client(raise_request_exception=False).get("/test-broken/", **PORTUGUESE)
    content = response.content.decode()
    assert response.status_code == 500
    assert _lang(content) == "pt"
    assert '<h1 id="error-heading">Ocorreu um erro</h1>' in content


def test_the_scripts_catalog_follows_the_page_language() -> None:
    portuguese = Client().get("/jsi18n/", **PORTUGUESE).content.decode()
    assert (
        '"This document has no page %(page)s.": "Este documento n\\u00e3o tem a p\\u00e1gina %(page)s."' in portuguese
    )
    english = Client().get("/jsi18n/").content.decode()
    assert "This document has no page" not in english  # English needs no catalog: the scripts' own words


def test_the_gate_says_its_messages_in_the_active_language_and_keeps_its_reasons() -> None:
    inputs = GateInputs(best_distance=0.3, threshold=0.6, unknown_names=("Zorblax", "Quux"))
    with translation.override("pt"):
        decision = decide(inputs)
    assert decision.reasons == ["unknown_names"]
    assert decision.message.startswith(
        "Nenhum documento que pode ler menciona 'Zorblax' ou 'Quux', por isso a biblioteca não pode responder"
    )
    assert decide(inputs).message.startswith("No document you may read mentions 'Zorblax' or 'Quux'")


def test_the_api_message_follows_accept_language_and_its_codes_do_not(
    shelf: Any, fake_search: list[Any], user_factory: Any
) -> None:
    token = bearer(user_factory(username="api-reader"))

    def ask(**headers: str) -> dict[str, Any]:
        response = Client().post(
            "/api/answer", {"question": QUESTION}, content_type="application/json", **token, **headers
        )
        assert response.status_code == 200, response.content
        return dict(response.json())

    portuguese, english = ask(**PORTUGUESE), ask()
    assert portuguese["state"] == english["state"] == "refused"
    assert portuguese["reasons"] == english["reasons"] == ["too_far"]
    assert portuguese["message"].startswith("Nenhuma passagem está suficientemente próxima da pergunta")
    assert english["message"].startswith("No passage is close enough to the question")
