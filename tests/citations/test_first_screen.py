"""The search page over the dev corpus: keyword searches list documents first and are never a
refusal banner over them, a misspelling gets "Did you mean", each passage is shown once, page 2
lists the documents alone, the filters fold away, and an over-long question is cut and said."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from citations.forms import MAX_QUESTION_CHARS
from citations.result_order import names_a_heading, question_shaped, results_first
from tests.conftest import dev_reader

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUESTION = "How does Raft elect a leader?"


def reader_client() -> Client:
    client = Client()
    client.force_login(dev_reader())
    return client


def chunks_shown(content: str) -> list[str]:
    return re.findall(r'data-chunk="(\d+)"', content)


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("hinted handoff", True),  # a few words, no question's shape
        ("MD5", True),
        ("How does Raft elect a leader?", False),
        ("which hash function does dynamo use", False),
        ("4.6 Handling Failures: Hinted Handoff", True),  # more than a few words: a heading's
    ],
)
def test_keywords_and_headings_put_the_documents_first(query: str, first: bool) -> None:
    headings = ["dynamo-amazon-2007", "4.6 Handling Failures: Hinted Handoff", "5.2 Leader election"]
    assert results_first(query, headings) is first


def test_a_question_has_a_question_shape() -> None:
    assert question_shaped("what is a quorum")
    assert question_shaped("quorum reads?")
    assert not question_shaped("quorum reads")
    assert names_a_heading("leader election", ["5.2 Leader election"])
    assert not names_a_heading("leader", [])


def test_a_keyword_search_lists_documents_first_under_a_line_never_a_refusal_banner(
    dev_corpus: dict[str, Any],
) -> None:
    content = reader_client().get("/", {"q": "hinted handoff"}).content.decode()
    assert 'id="search-status"' in content
    assert ">No answer<" not in content
    assert "The library holds no passage close enough" not in content
    assert content.index('id="search-status"') < content.index('id="results"')
    assert "Hinted Handoff" in content[content.index('id="results"') :]
    if 'id="answer"' in content:  # answered: after the documents
        assert content.index('id="results"') < content.index('id="answer"')


def test_a_question_keeps_its_answer_first_and_shows_each_passage_once(dev_corpus: dict[str, Any]) -> None:
    content = reader_client().get("/", {"q": QUESTION}).content.decode()
    assert content.index('id="answer"') < content.index('id="results"')
    assert 'id="ranked-passages"' not in content
    shown = Counter(chunks_shown(content))
    assert shown
    assert max(shown.values()) == 1, shown
    assert 'class="snippet-link source-link"' in content  # a source in the list points at the answer's


def test_a_one_letter_misspelling_gets_did_you_mean_as_a_link(dev_corpus: dict[str, Any]) -> None:
    content = reader_client().get("/", {"q": "How does Raft elect a leeder?", "type": "pdf"}).content.decode()
    link = re.search(r'Did you mean <a href="([^"]+)" id="suggestion-link">([^<]+)</a>\?', content)
    assert link is not None
    assert link.group(2) == "How does Raft elect a leader?"
    params = parse_qs(urlsplit(link.group(1).replace("&amp;", "&")).query)
    assert params == {"q": ["How does Raft elect a leader?"], "type": ["pdf"]}  # the same filters


def test_another_language_is_told_which_languages_the_library_holds(dev_corpus: dict[str, Any]) -> None:
    content = reader_client().get("/", {"q": "¿Cómo elige Raft a un líder?"}).content.decode()
    assert "This library holds documents in English; the question reads as Spanish." in content
    assert "Check the spelling" not in content
    assert "Did you mean" not in content


def test_page_two_lists_the_documents_alone(dev_corpus: dict[str, Any]) -> None:
    content = reader_client().get("/", {"q": "how is data used by the system", "page": "2"}).content.decode()
    assert 'id="results"' in content
    assert 'class="result"' in content
    assert 'id="answer"' not in content
    assert 'id="sources-heading"' not in content


def test_the_filters_fold_away_unless_one_is_active(dev_corpus: dict[str, Any]) -> None:
    client = reader_client()
    plain = client.get("/", {"q": QUESTION}).content.decode()
    assert re.search(r'<details class="filters-fold" id="filters-fold">', plain)
    filtered = client.get("/", {"q": QUESTION, "type": "pdf"}).content.decode()
    assert re.search(r'<details class="filters-fold" id="filters-fold" open>', filtered)
    assert "Filters (1 active)" in filtered


def test_an_over_long_question_is_cut_at_a_word_and_the_page_says_so(dev_corpus: dict[str, Any]) -> None:
    question = ("How does Raft elect a leader when the election timeout expires " * 80).strip()  # 5,000+
    assert len(question) > MAX_QUESTION_CHARS
    response = reader_client().get("/", {"q": question})
    assert response.status_code == 200
    content = response.content.decode()
    said = re.search(
        r'id="question-cut">Your question is (\d+) characters long; the library read its first (\d+)\.', content
    )
    assert said is not None
    assert int(said.group(1)) == len(question)
    assert int(said.group(2)) <= MAX_QUESTION_CHARS
    assert 'maxlength="' not in content[content.index('id="id_q"') - 200 : content.index('id="id_q"') + 50]


def test_a_posted_question_is_searched_under_the_csrf_check(dev_corpus: dict[str, Any]) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(dev_reader())
    token = re.search(r'data-csrf="([^"]+)"', client.get("/").content.decode())
    assert token is not None
    assert client.post("/", {"q": QUESTION}).status_code == 403
    content = client.post("/", {"q": QUESTION, "csrfmiddlewaretoken": token.group(1)}).content.decode()
    assert 'id="answer"' in content
    assert 'id="results"' in content
