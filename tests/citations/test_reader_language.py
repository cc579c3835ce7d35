"""The reader pages in the browser's language (Accept-Language, LocaleMiddleware): Portuguese for a
reader who asks for it, English for everyone else, with `<html lang>` saying which. The API's
human sentences follow the same header; its machine fields (`state`, `reasons`) never change."""

# The search fixture is imported from the search page's tests, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import QueryDict
from django.template import loader
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import translation

from citations.filter_panel import _groups
from citations.services import answer as answer_service
from documents.extraction.formats import format_column_label
from documents.filters import TYPE_LABELS, Filters
from ragsite import page_language
from search.services.answer_type import AnswerType, unmet_message
from search.services.facets import Facets, FacetValue, document_facets
from search.services.gate import GateInputs, decide
from search.services.retrieval import SearchResult, search_chunks
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
    assert _lang(content) == "en"
    assert '<h1 id="search-heading">Ask the library</h1>' in content
    assert "Pergunte" not in content


def test_the_admin_path_is_resolved_once_and_the_admin_stays_english(
    shelf: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolved: list[str] = []

    def counted_reverse(name: str) -> str:
        resolved.append(name)
        return reverse(name)

    monkeypatch.setattr(page_language, "reverse", counted_reverse)
    client = Client()
    languages = [client.get(path, **PORTUGUESE)["Content-Language"] for path in ("/", "/admin/login/", "/", "/admin/")]
    assert languages == ["pt", "en", "pt", "en"]
    assert resolved == ["admin:index"]


def test_a_result_page_and_its_refusal_in_portuguese(shelf: Any, fake_search: list[Any]) -> None:
    status, content, _ = _get("/", PORTUGUESE, q="What does the library say about tides?")
    assert status == 200
    assert _lang(content) == "pt"
    assert '<h2 id="answer-heading">Sem resposta</h2>' in content
    assert (
        "Sem resposta: A biblioteca não tem nenhuma passagem suficientemente próxima desta pergunta para lhe "
        "responder." in content
    )
    # The gate's own message, in the details, is said in Portuguese too; its reason by its label, with its code.
    assert "Nenhuma passagem está suficientemente próxima da pergunta" in content
    assert (
        '<dd id="detail-reasons">Nenhuma passagem está suficientemente próxima (<code>too_far</code>)</dd>' in content
    )
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


def test_html_lang_is_a_language_of_the_site_when_none_is_active() -> None:
    """Rendered with no language active (outside LocaleMiddleware, as a task would), a page says
    the default language as LANGUAGES names it: "en", not "en-us"."""
    active = translation.get_language()
    translation.deactivate()
    try:
        assert _lang(loader.get_template("500.html").render()) == "en"
        assert _lang(loader.get_template("400.html").render()) == "en"
    finally:
        translation.activate(active)


@pytest.fixture
def caveat_search(fake_search: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A search whose passages state no amount of money where they mention 'tides': a caveat,
    judged by the real gate in the request's language."""

    def search(**kwargs: Any) -> SearchResult:
        hits = [hit(1, "The harbour tides rise twice a day.", document_id=10**9)]
        found = SearchResult(query=kwargs["query"], threshold=0.6, best_distance=0.3, hits=hits)
        found.answer_type = found.unmet_answer_type = "money"
        found.judge(decide(GateInputs(0.3, 0.6, unmet_answer_type="money", answer_type_words=("tides",))))
        return found

    monkeypatch.setattr(answer_service, "search_chunks", search)


def test_a_caveat_its_reasons_and_the_kind_of_fact_in_portuguese(shelf: Any, caveat_search: None) -> None:
    status, content, _ = _get("/", PORTUGUESE, q="How much did the harbour spend on tides?")
    assert status == 200
    assert (
        '<p class="caveat" id="caveat" role="status">A pergunta pede um preço ou uma quantia em dinheiro; nenhuma '
        "das passagens mais próximas indica esse dado onde menciona &#x27;tides&#x27;; as passagens abaixo são as "
        "mais próximas que a biblioteca tem.</p>" in content
    )
    assert (
        '<dd id="detail-reasons">Nenhuma das primeiras passagens indica o tipo de facto que a pergunta pede '
        "(<code>unmet_answer_type</code>)</dd>" in content
    )
    assert '<dd id="detail-unmet-type">um preço ou uma quantia em dinheiro (<code>money</code>)</dd>' in content
    assert "The question asks for" not in content
    _, english, _ = _get("/", {}, q="How much did the harbour spend on tides?")
    assert "The question asks for a price or an amount of money; none of the closest passages states one" in english
    assert (
        "None of the top passages states the kind of fact the question asks for (<code>unmet_answer_type</code>)"
        in (english)
    )


@pytest.mark.parametrize(
    ("kind", "portuguese"),
    [
        (AnswerType.YEAR, "A pergunta pede um ano ou uma data; nenhuma das passagens mais próximas indica esse dado"),
        (
            AnswerType.PERSON,
            "A pergunta pede o nome de uma pessoa; nenhuma das passagens mais próximas indica esse dado",
        ),
    ],
)
def test_the_unmet_kind_of_fact_is_said_in_the_active_language(kind: AnswerType, portuguese: str) -> None:
    with translation.override("pt"):
        assert unmet_message(kind) == portuguese
        assert unmet_message(kind, ("nakamoto", "satoshi")) == f"{portuguese} onde menciona 'nakamoto' ou 'satoshi'"
    assert unmet_message(kind).startswith("The question asks for ")


def test_every_reason_and_state_label_is_portuguese_and_every_code_stays() -> None:
    from search.services.gate import AnswerState, Reason

    with translation.override("pt"):
        portuguese = {str(label) for _, label in [*Reason.choices, *AnswerState.choices]}
    english = {str(label) for _, label in [*Reason.choices, *AnswerState.choices]}
    assert not portuguese & english, portuguese & english  # every label has its translation
    assert "too_far" in Reason.values
    assert "caveat" in AnswerState.values


@pytest.mark.parametrize(
    ("query", "portuguese", "english"),
    [
        (
            "type=bogus",
            "Tipo desconhecido &#x27;bogus&#x27;: use um destes:",
            "Unknown type &#x27;bogus&#x27;: use one of",
        ),
        (
            "from=2020-13-45",
            "&#x27;from&#x27; deve ser uma data no formato AAAA-MM-DD",
            "&#x27;from&#x27; must be a date as YYYY-MM-DD",
        ),
        ("language=portuguese", "&#x27;language&#x27; deve ser um código ISO 639-1", "must be a two-letter ISO 639-1"),
        ("from=2021&to=2020", "O intervalo de datas está vazio", "The date range is empty"),
    ],
)
def test_a_bad_filter_value_is_said_in_portuguese_on_the_page(
    shelf: Any, fake_search: list[Any], query: str, portuguese: str, english: str
) -> None:
    content = Client().get(f"/?q=tides&{query}", **PORTUGUESE).content.decode()
    assert portuguese in content
    assert english not in content
    assert english in Client().get(f"/?q=tides&{query}").content.decode()


def test_a_bad_filter_value_is_said_in_portuguese_by_the_api_with_its_status(user_factory: Any) -> None:
    token = bearer(user_factory(username="api-filter-reader"))
    portuguese = Client().get("/api/search", {"q": "tides", "type": "bogus"}, **token, **PORTUGUESE)
    english = Client().get("/api/search", {"q": "tides", "type": "bogus"}, **token)
    assert portuguese.status_code == english.status_code == 400
    assert portuguese.json()["detail"].startswith("Tipo desconhecido 'bogus': use um destes: pdf, docx")
    assert english.json()["detail"].startswith("Unknown type 'bogus': use one of pdf, docx")


def test_format_and_facet_labels_in_portuguese(shelf: Any) -> None:
    page = DocumentFactory(folder=shelf, indexed=True, title="Harbour page", content_type="text/html")
    with translation.override("pt"):
        assert format_column_label("text/html") == "Página web"
        assert format_column_label("text/plain") == "Texto"
        assert str(TYPE_LABELS["pdf"]) == "PDF"
        counted = document_facets(user=None, document_ids=[page.pk], folder_ids=[shelf.pk])
        assert [(f.value, f.label) for f in counted.type] == [("html", "Página web")]
        facets = Facets(documents=1, type=counted.type, language=[FacetValue("pt", "Português", 1)])
        titles = [group.title for group in _groups(QueryDict(), Filters(), facets)]
    assert titles == ["Tipo", "Língua"]
    assert format_column_label("text/html") == "Web page"  # and English again outside


def test_the_filter_panel_and_its_type_choices_in_portuguese(shelf: Any, fake_search: list[Any]) -> None:
    content = Client().get("/?q=tides&language=pt&type=html", **PORTUGUESE).content.decode()
    assert "<span>Língua: Português</span>" in content
    assert "<span>Tipo: Página web</span>" in content
    assert "Página web</label>" in content
    assert "Texto</label>" in content
    assert "Language:" not in content
    assert "Web page" not in content


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=200)
def test_a_request_too_large_to_read_gets_the_bad_request_page_in_portuguese(shelf: Any) -> None:
    response = Client().post("/", {"q": "tides " * 100}, **PORTUGUESE)
    content = response.content.decode()
    assert response.status_code == 400
    assert _lang(content) == "pt"
    assert '<h1 id="error-heading">A biblioteca não conseguiu ler este pedido</h1>' in content
    english = Client().post("/", {"q": "tides " * 100}).content.decode()
    assert '<h1 id="error-heading">The library could not read this request</h1>' in english


def test_filters_that_match_nothing_are_said_in_portuguese(shelf: Any) -> None:
    DocumentFactory(folder=shelf, indexed=True, title="Harbour notes", canonical_text="Tides rise twice a day.")
    nobody = Filters(authors=("Nobody At All",))
    with translation.override("pt"):
        said = search_chunks(user=AnonymousUser(), query="tides", filters=nobody).message
    assert said == ("Nenhum documento que pode ler corresponde a estes filtros: altere-os ou limpe-os para pesquisar.")
    assert search_chunks(user=AnonymousUser(), query="tides", filters=nobody).message.startswith("No document")
