"""In Chromium, at 1280×900 and at 390×844: the answer's first line is on the first screen, no
passage is rendered twice, the filters are folded, and a 3,000-character question gets the site's
own page, saying that it was cut (the form POSTs a question too long for a URL).

Screenshots land in test-artifacts/ (git-ignored)."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from citations.forms import MAX_QUESTION_CHARS
from tests.citations.test_browser import ARTIFACTS, ask, browser, login  # noqa: F401  (the fixture is used by name)
from tests.conftest import dev_reader

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.corpus]

QUESTION = "Which hash function does Dynamo use?"
SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
# A question a reader might paste: 3,000 characters of words.
LONG_QUESTION = ("How does Dynamo place keys on its ring and hand off writes when a node fails? " * 40)[:3000]

FIRST_LINE = """() => {
  const text = document.getElementById('answer-text');
  const range = document.createRange();
  range.selectNodeContents(text);
  const first = range.getClientRects()[0] || text.getBoundingClientRect();
  return {bottom: first.bottom, fold: window.innerHeight};
}"""


@pytest.mark.parametrize("size", list(SIZES))
def test_the_answer_starts_on_the_first_screen_and_each_passage_is_shown_once(
    live_server: Any, dev_corpus: dict[str, Any], browser: Any, size: str
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    username = f"browser-first-{size}"
    dev_reader(username)
    context = browser.new_context(viewport=SIZES[size])
    page = login(context, live_server.url, "/login/?next=/", username)
    ask(page, live_server.url, QUESTION)
    page.screenshot(path=str(ARTIFACTS / f"first-screen-{size}.png"))
    line = page.evaluate(FIRST_LINE)
    assert 0 < line["bottom"] <= line["fold"], line
    assert page.get_attribute("#answer", "data-state") in {"answered", "caveat"}
    assert not page.is_visible("#filters")  # folded under the question
    chunks = Counter(page.locator("[data-chunk]").evaluate_all("els => els.map(e => e.dataset.chunk)"))
    assert chunks
    assert max(chunks.values()) == 1, chunks
    assert page.locator("#ranked-passages").count() == 0
    assert page.locator("#results .result").count() > 0  # the documents follow the sources directly
    context.close()


def test_a_3000_character_question_gets_the_sites_page_saying_it_was_cut(
    live_server: Any, dev_corpus: dict[str, Any], browser: Any
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    dev_reader("browser-long-question")
    context = browser.new_context(viewport=SIZES["desktop"])
    page = login(context, live_server.url, "/login/?next=/", "browser-long-question")
    page.goto(f"{live_server.url}/")
    page.fill("#id_q", LONG_QUESTION)
    assert len(page.input_value("#id_q")) == 3000  # no maxlength cuts it silently
    with page.expect_navigation() as navigation:
        page.press("#id_q", "Enter")
    response = navigation.value
    assert response is not None
    assert response.status == 200
    assert response.request.method == "POST"  # too long for a URL: sent in the body
    page.wait_for_selector("#question-cut")
    said = page.inner_text("#question-cut")
    assert said.startswith("Your question is 3000 characters long; the library read its first ")
    assert int(said.rsplit(" ", 1)[1].rstrip(".")) <= MAX_QUESTION_CHARS
    assert page.locator(".site-header").count() == 1  # the site's own page, styled
    assert "system-ui" in page.evaluate("() => getComputedStyle(document.body).fontFamily")  # app.css applies
    assert page.locator("#results, #answer").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "long-question.png"))
    context.close()
