"""The search page: who may use it, which folders it offers, and that everything is escaped."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from citations.services import answer as answer_service
from documents.extraction.formats import FORMATS, format_column_label
from tests.citations.fakes import bag_of_words_embed, hit, result
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert('q')</script>"


@pytest.fixture
def fake_search(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """search_chunks answers from this list (empty list: refused) without touching the model."""
    hits: list[Any] = []

    def search(**kwargs: Any) -> Any:
        return result(kwargs["query"], hits, refused=not hits)

    monkeypatch.setattr(answer_service, "search_chunks", search)
    monkeypatch.setattr(
        "citations.writers.extractive.ExtractiveWriter.embed", lambda self, texts: bag_of_words_embed(texts)
    )
    monkeypatch.setattr(
        "citations.writers.extractive.ExtractiveWriter.embed_question", lambda self, q: bag_of_words_embed([q])[0]
    )
    return hits


def test_anonymous_without_public_folders_is_sent_to_login() -> None:
    response = Client().get("/?q=anything")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_anonymous_searches_public_folders_only(folder_factory: Any) -> None:
    folder_factory(name="Open shelf", is_public=True)
    folder_factory(name="Locked shelf")
    content = Client().get("/").content.decode()
    assert "Open shelf" in content
    assert "Locked shelf" not in content
    assert "public folders only" in content
    assert 'href="/login/?next=/"' in content


def test_reader_sees_only_readable_folders_and_labelled_fields(folder_factory: Any, user_factory: Any) -> None:
    reader = user_factory(username="page-reader")
    folder_factory(name="Mine", readers=[reader])
    folder_factory(name="Theirs")
    client = Client()
    client.force_login(reader)
    content = client.get("/").content.decode()
    assert "Mine" in content
    assert "Theirs" not in content
    assert '<label for="id_q">Question</label>' in content
    assert '<label for="id_folder">Folder</label>' in content
    assert 'method="get"' in content
    # The logout form changes state: it is a POST carrying the CSRF token.
    assert 'action="/logout/"' in content
    assert "csrfmiddlewaretoken" in content


def test_the_type_filter_names_formats_as_a_list_does(folder_factory: Any) -> None:
    folder_factory(name="Open shelf", is_public=True)
    content = Client().get("/").content.decode()
    labels = re.findall(r'<input type="checkbox" name="type" value="(\w+)"[^>]*>\s*([^<]+?)\s*</label>', content)
    assert labels == [("pdf", "PDF"), ("docx", "Word"), ("html", "Web page"), ("markdown", "Markdown"),
                      ("plaintext", "Text")]  # fmt: skip
    assert {f.short_label for f in FORMATS} == {label for _, label in labels}
    assert [format_column_label(f.media_type) for f in FORMATS] == [label for _, label in labels]


def test_an_unreadable_folder_is_a_form_error(folder_factory: Any, user_factory: Any, fake_search: list[Any]) -> None:
    reader = user_factory(username="page-reader")
    folder_factory(name="Mine", readers=[reader])
    theirs = folder_factory(name="Theirs")
    client = Client()
    client.force_login(reader)
    content = client.get(f"/?q=hello&folder={theirs.pk}").content.decode()
    assert "Choose one of the folders you can read." in content
    assert 'id="answer"' not in content


def test_query_and_refusal_are_escaped(folder_factory: Any, fake_search: list[Any]) -> None:
    folder_factory(name="Open shelf", is_public=True)
    content = Client().get("/", {"q": HOSTILE}).content.decode()
    assert "<script>alert" not in content
    assert "No answer: The library holds no passage close enough to this question to answer it." in content
    assert "No passage is close enough to the question: the nearest is at cosine distance 0.700" in content
    assert "&lt;script&gt;alert(&#x27;q&#x27;)&lt;/script&gt;" in content


def test_answer_markers_link_to_citations_and_passages_are_escaped(folder_factory: Any, fake_search: list[Any]) -> None:
    folder_factory(name="Open shelf", is_public=True)
    fake_search.extend(
        [
            hit(1, "The quartermaster protocol elects one coordinator per shard.", title="Manual <i>one</i>"),
            hit(2, f"Injected {HOSTILE} text about shards and coordinators in general.", document_id=2),
        ]
    )
    content = Client().get("/", {"q": "Which protocol elects a coordinator per shard?"}).content.decode()
    assert '<a class="marker" href="#cite-1" aria-label="Source 1">[1]</a>' in content
    assert 'id="cite-1"' in content
    assert 'id="cite-2"' in content
    assert 'href="/documents/1/view#char=10,' in content
    assert "Manual &lt;i&gt;one&lt;/i&gt;" in content
    assert "<script>alert" not in content
    assert "Ranked passages" not in content  # the sources are the passages: shown once


def test_a_quoted_sources_own_references_are_plain_text_set_apart(folder_factory: Any, fake_search: list[Any]) -> None:
    folder_factory(name="Open shelf", is_public=True)
    fake_search.append(hit(1, "Column stores include C-Store [1, 34] and KDB+ [22] for <b>analytic</b> scans."))
    content = Client().get("/", {"q": "Which column stores are used for analytic scans?"}).content.decode()
    answer = content[content.index('id="answer-text"') : content.index("</p>", content.index('id="answer-text"'))]
    own = '<span class="source-ref" title="A reference of the source itself">{}</span>'
    assert (
        f"Column stores include C-Store {own.format('[1, 34]')} and KDB+ {own.format('[22]')} for "
        "&lt;b&gt;analytic&lt;/b&gt; scans. "
    ) in answer
    assert answer.count("<a ") == 1  # only our marker is a link
    assert '<a class="marker" href="#cite-1" aria-label="Source 1">[1]</a>' in answer
    quote = _between(content, '<blockquote class="quote"', "</blockquote>")
    assert own.format("[22]") in quote
    assert "&lt;b&gt;analytic" in quote


def _between(content: str, start: str, end: str) -> str:
    at = content.index(start)
    return content[at : content.index(end, at)]


def test_a_refusal_is_one_plain_sentence_with_its_numbers_in_details(
    folder_factory: Any, fake_search: list[Any]
) -> None:
    folder_factory(name="Open shelf", is_public=True)
    content = Client().get("/", {"q": "What does the library say about tides?"}).content.decode()
    said = _between(content, 'id="answer-text"', "</p>")
    assert said.endswith(
        "No answer: The library holds no passage close enough to this question to answer it. "
        "Try other words or another folder, or ask someone to add a document that covers it."
    )
    assert "distance" not in said
    assert "threshold" not in said
    details = _between(content, '<details class="details" id="answer-details">', "</details>")
    assert "cosine distance 0.700; answers need 0.600 or less" in details
    assert "too_far" in details
    # Outside the disclosure the page shows no score at all.
    outside = content.replace(details, "")
    assert "0.700" not in outside
    assert "0.600" not in outside


def test_sources_show_a_match_strength_and_sections_not_pages_for_text(
    folder_factory: Any, fake_search: list[Any]
) -> None:
    # The fake hits name no stored document, so none is a PDF: Markdown, text, Word or HTML.
    folder_factory(name="Open shelf", is_public=True)
    unstored = 10**9
    fake_search.extend(
        [
            hit(
                1, "The quartermaster protocol elects one coordinator per shard.", document_id=unstored, distance=0.339
            ),
            hit(
                2,
                "Coordinators of shards renew their lease every ten seconds.",
                document_id=unstored + 1,
                distance=0.47,
            ),
            hit(3, "Shards and coordinators appear in the glossary as well.", document_id=unstored + 2, distance=0.61),
        ]
    )
    content = Client().get("/", {"q": "Which protocol elects a coordinator per shard?"}).content.decode()
    sources = _between(content, 'id="sources-heading"', "</section>")
    assert "Strong match" in _between(sources, 'id="cite-1"', "</li>")
    assert "Good match" in _between(sources, 'id="cite-2"', "</li>")
    assert "Weak match" in _between(sources, 'id="cite-3"', "</li>")
    assert "Distance" not in content
    assert "0.339" not in sources.replace('title="cosine distance 0.339"', "")
    assert "<dt>Section</dt><dd>1 Intro</dd>" in sources
    assert "<dt>Page</dt>" not in sources
    assert "p. 1" not in content


def test_a_pdf_source_keeps_its_page(folder_factory: Any, fake_search: list[Any]) -> None:
    folder = folder_factory(name="Open shelf", is_public=True)
    pdf = DocumentFactory(folder=folder, content_type="application/pdf", title="Engine manual")
    said = "The quartermaster protocol elects one coordinator per shard."
    fake_search.append(hit(1, said, document_id=pdf.pk, content_type=pdf.content_type))  # as hydration reads it
    content = Client().get("/", {"q": "Which protocol elects a coordinator per shard?"}).content.decode()
    assert "<dt>Page</dt><dd>1</dd>" in _between(content, 'id="cite-1"', "</li>")


def test_login_page_for_readers_carries_csrf(user_factory: Any) -> None:
    user_factory(username="plain-reader")
    client = Client(enforce_csrf_checks=True)
    page = client.get("/login/?next=/")
    assert "csrfmiddlewaretoken" in page.content.decode()
    assert client.post("/login/", {"username": "plain-reader", "password": "pw-for-tests-1"}).status_code == 403
    ok = Client().post("/login/", {"username": "plain-reader", "password": "pw-for-tests-1", "next": "/"})
    assert ok.status_code == 302
    assert ok["Location"] == "/"


@pytest.mark.parametrize(
    ("text", "marked"),
    [
        ("as in [12].", ["[12]"]),
        ("see [3, 4] and [1–5] or [7; 9]", ["[3, 4]", "[1–5]", "[7; 9]"]),
        ("an array a[i] or [note] or [] stays", []),
    ],
)
def test_source_references_are_bracketed_numbers_only(text: str, marked: list[str]) -> None:
    from citations.plain import mark_source_references

    html = mark_source_references(text)
    assert html.count('class="source-ref"') == len(marked)
    for reference in marked:
        assert f">{reference}</span>" in html
