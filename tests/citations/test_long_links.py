"""A GET search link longer than the site reads gets the site's own page (414), in the reader's
language, with the question in a form that POSTs it; the web server's request line is set above
that length, so the reader meets this page before gunicorn's bare 414."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from django.test import Client

from citations.forms import MAX_QUESTION_CHARS
from citations.views import LONGEST_SEARCH_QUERY
from ragsite.launcher import REQUEST_LINE_LIMIT

pytestmark = pytest.mark.django_db

ACCENTED = "ç"  # 6 bytes percent-encoded: %C3%A7


def _link(characters: int) -> str:
    return "/?q=" + quote(ACCENTED * characters)


def test_a_link_longer_than_the_site_reads_gets_its_page_in_portuguese_and_in_english() -> None:
    characters = LONGEST_SEARCH_QUERY // 6 + 10
    link = _link(characters)
    assert len(f"GET {link} HTTP/1.1") <= REQUEST_LINE_LIMIT  # gunicorn would pass it on to the site
    portuguese = Client().get(link, HTTP_ACCEPT_LANGUAGE="pt-BR,pt;q=0.9")
    assert portuguese.status_code == 414
    html = portuguese.content.decode()
    assert '<html lang="pt"' in html
    assert '<h1 id="error-heading">Este endereço é longo demais</h1>' in html
    assert re.search(r'<link rel="stylesheet" href="[^"]*css/app[^"]*"', html)  # the site's own styled page
    # The question comes back whole in a form that POSTs it (with its CSRF token), so one click asks it.
    form = re.search(r'<form method="post" action="/"[^>]*id="long-question-form">(.*?)</form>', html, re.S)
    assert form, html
    assert "csrfmiddlewaretoken" in form.group(1)
    assert f">{ACCENTED * characters}</textarea>" in form.group(1)
    english = Client().get(link)
    assert english.status_code == 414
    assert '<h1 id="error-heading">This link is too long</h1>' in english.content.decode()


def test_a_link_the_site_reads_is_searched_as_before() -> None:
    link = _link(LONGEST_SEARCH_QUERY // 6 - 10)
    response = Client().get(link)
    # No readable folder for an anonymous reader: the search page sends them to sign in.
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_a_question_as_long_as_the_site_reads_fits_in_a_link_in_english_or_portuguese() -> None:
    """MAX_QUESTION_CHARS of prose, Portuguese with more accented letters than running text has,
    fit the site's limit with the filters a link carries."""
    portuguese = ("A configuração da replicação lógica não é trivial; ações de manutenção são necessárias. " * 40)[
        :MAX_QUESTION_CHARS
    ]
    query = f"q={quote(portuguese)}&folder=12&type=pdf&tag=operations&from=2020-01-01&to=2024-12-31&page=2"
    assert len(query) <= LONGEST_SEARCH_QUERY
    assert LONGEST_SEARCH_QUERY + len("GET /? HTTP/1.1") <= REQUEST_LINE_LIMIT
