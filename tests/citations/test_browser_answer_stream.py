"""In Chromium, with the language-model writer behind a real local server that streams slowly:
the search page shows the answer's text while the model is still writing it, ends with the
whole answer and its sources (whose "Open" link leads to the cited passage), and breaks no rule
of the Content-Security-Policy; keyboard focus inside the sources stays where it was when the
finished answer replaces them."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.citations.fakes import StreamingLLM, fake_streaming_server
from tests.citations.test_browser import ARTIFACTS, browser, login  # noqa: F401  (the fixture is used by name)
from tests.citations.test_browser_csp import RECORD_VIOLATIONS, Watch
from tests.conftest import dev_reader, ingest_text
from tests.corpus import dev_questions, normalise
from tests.factories import FolderFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DYNAMO = next(q for q in dev_questions() if q["doc"] == "dynamo-amazon-2007.pdf")["queries"][0]
TOKENS = [
    "Dynamo",
    " hashes",
    " each",
    " key",
    " with",
    " MD5",
    " [1]",
    " and",
    " places",
    " it",
    " on",
    " a",
    " ring.",
]


def test_the_search_page_shows_the_answer_as_it_is_written(
    live_server: Any, dev_corpus: dict[str, Any], browser: Any, settings: Any
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    dev_reader("browser-stream-reader")
    with fake_streaming_server(StreamingLLM(TOKENS, delay=0.4)) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(RECORD_VIOLATIONS)
        page = login(context, live_server.url, "/login/?next=/", "browser-stream-reader")
        watch = Watch(page)
        page.fill("#id_q", DYNAMO)
        page.press("#id_q", "Enter")
        page.wait_for_function(
            "() => document.getElementById('answer')?.getAttribute('aria-busy') === 'true'"
            " && document.getElementById('answer-text').textContent.length > 0"
        )
        written_while_streaming = len(llm.sent)
        partial = page.inner_text("#answer-text")
        assert "stream=1" in page.url
        page.wait_for_function("() => document.getElementById('answer').getAttribute('aria-busy') === 'false'")
    assert written_while_streaming < len(TOKENS), "the text appeared only after the model had finished"
    assert partial.startswith("Dynamo")
    assert page.inner_text("#answer-text") == "Dynamo hashes each key with MD5 [1] and places it on a ring."
    assert page.get_attribute("#answer", "data-state") == "answered"
    assert page.get_attribute('#answer-text a.marker[href="#cite-1"]', "aria-label") == "Source 1"
    assert page.locator("#citation-list .citation").count() == 4  # ANSWER_TOP_SOURCES
    assert "openai writer" in page.inner_text("#answer-status")
    assert page.locator("#results .result").count() > 0  # the page lists the documents as before
    streamed = listed_and_counted(page)
    assert len(streamed[0]) == 10  # the documents, as on an answer page
    assert sum("Source [" in d for d in streamed[0]) >= 1  # a source is pointed at, not shown again
    assert streamed[1][0].endswith("found")  # the facet counts
    page.click("#feedback-helpful")  # the streamed answer was kept as the page's: its asker may judge it
    page.wait_for_function("() => document.getElementById('feedback-status').textContent.startsWith('Thank you')")
    page.screenshot(path=str(ARTIFACTS / "answer-streamed.png"), full_page=True)
    assert watch.violations() == []
    # The streamed source is the answered page's: its "Open" link opens the viewer at the passage.
    streamed_url = page.url
    quote = normalise(page.inner_text("#cite-1 .quote"))
    assert page.locator("#cite-1 .match").count() == 1
    page.click("#cite-1 a.open-link")
    page.wait_for_selector("mark#highlight")
    assert "/view#char=" in page.url
    assert normalise(page.inner_text("mark#highlight")) == quote
    # The same question answered at once (the extractive writer): the same passages and counts.
    settings.ANSWER_WRITER = "extractive"
    page.goto(streamed_url.replace("stream=1", "stream=0"))
    assert page.locator("#answer").get_attribute("aria-busy") is None
    assert listed_and_counted(page) == streamed
    context.close()


def listed_and_counted(page: Any) -> tuple[list[str], list[str]]:
    """The listed documents (title, facts, snippets or source pointers) and the facet counts the page shows."""
    documents = page.locator("#results .result").all_inner_texts()
    # The facets are in the folded filters: their text, as the page holds it.
    facets = [" ".join(t.split()) for t in page.locator("#facets li").all_text_contents()]
    return documents, [page.text_content("#facets-count") or "", *facets]


def test_a_model_that_declines_leaves_the_document_list_as_the_page_without_the_script(
    live_server: Any, dev_corpus: dict[str, Any], browser: Any, settings: Any
) -> None:
    dev_reader("browser-stream-decliner")
    declined = ["The", " sources", " do not", " contain", " the answer."]
    with fake_streaming_server(StreamingLLM(declined)) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        context = browser.new_context()
        page = login(context, live_server.url, "/login/?next=/", "browser-stream-decliner")
        page.fill("#id_q", DYNAMO)
        page.press("#id_q", "Enter")
        page.wait_for_function("() => document.getElementById('answer')?.getAttribute('aria-busy') === 'false'")
    assert "stream=1" in page.url
    assert page.get_attribute("#answer", "data-state") == "refused"
    assert page.locator("#ranked-passages").count() == 0  # the page repeats no passage of the sources
    assert page.locator("#results .result").count() > 0  # the documents stay listed
    assert (page.text_content("#facets-count") or "").endswith("found")  # the counts stay, as on the page without it
    context.close()


LEASE_TOKENS = ["The", " coordinator", " renews", " its", " lease", " every", " ten", " seconds", " [1]", "."]


def _answered_after(
    move_focus: Callable[[Any], None], live_server: Any, browser: Any, settings: Any, tmp_path: Any
) -> tuple[Any, Any]:
    """A streamed answer from one public document, with `move_focus(page)` done while the sources
    are in place and the answer is still being written; the context and page once it is done."""
    shelf = FolderFactory(name="Lease shelf", is_public=True)
    text = (
        "The quartermaster coordinator renews its lease every ten seconds. A lease that is not renewed "
        "lapses after thirty seconds, and another node becomes the coordinator."
    )
    ingest_text(tmp_path, shelf, "Coordinator leases", text)
    with fake_streaming_server(StreamingLLM(LEASE_TOKENS, delay=0.5)) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        context = browser.new_context()
        context.set_default_timeout(180_000)
        page = context.new_page()
        page.goto(f"{live_server.url}/")
        page.fill("#id_q", "How often does the quartermaster coordinator renew its lease?")
        page.press("#id_q", "Enter")
        page.wait_for_function(
            "() => document.getElementById('sources') && !document.getElementById('sources').hidden"
            " && document.getElementById('answer').getAttribute('aria-busy') === 'true'"
        )
        move_focus(page)
        page.wait_for_function("() => document.getElementById('answer').getAttribute('aria-busy') === 'false'")
    return context, page


@pytest.mark.parametrize(
    ("focused", "kept"),
    [
        ("#cite-1 a.open-link", "#cite-1 a.open-link"),  # a source's link: the same link of the new block
        ("#cite-1", "#cite-1"),  # the source itself (as its marker leaves it): the same source
    ],
)
def test_focus_inside_the_sources_stays_when_the_finished_answer_replaces_them(
    live_server: Any, browser: Any, settings: Any, tmp_path: Any, focused: str, kept: str
) -> None:
    context, page = _answered_after(lambda page: page.focus(focused), live_server, browser, settings, tmp_path)
    assert page.get_attribute("#answer", "data-state") == "answered"
    # The block was replaced (the finished answer says which sources it cites) and focus went along.
    assert page.evaluate("(selector) => document.activeElement === document.querySelector(selector)", kept)
    assert page.evaluate("() => document.activeElement.isConnected && document.activeElement !== document.body")
    context.close()


def test_focus_on_a_source_the_new_block_lacks_goes_to_the_sources_heading(
    live_server: Any, browser: Any, settings: Any, tmp_path: Any
) -> None:
    # A source the server's next block will not hold: its id is changed in this page only.
    rename = "() => { const item = document.getElementById('cite-1'); item.id = 'cite-99'; item.focus(); }"
    context, page = _answered_after(lambda page: page.evaluate(rename), live_server, browser, settings, tmp_path)
    assert page.evaluate("() => document.activeElement.id") == "sources-heading"
    context.close()
