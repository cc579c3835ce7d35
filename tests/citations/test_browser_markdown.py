"""In Chromium: a reader asks about a Markdown document, follows the source's "open" link, and
the viewer shows the document as plain text with exactly the cited passage highlighted."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from typing import Any

import pytest

from tests.citations.test_browser import ARTIFACTS, ask, browser, login  # noqa: F401  (the fixture is used by name)
from tests.citations.test_markdown_viewer import FILE, storage_question
from tests.conftest import ingest_file_inline
from tests.corpus import DEV_DIR, normalise, require_corpus
from tests.factories import FolderFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_markdown_source_opens_in_the_viewer_at_the_passage(live_server: Any, browser: Any) -> None:
    require_corpus()
    ARTIFACTS.mkdir(exist_ok=True)
    reader = UserFactory(username="markdown-browser-reader")
    folder = FolderFactory(name="Markdown browser shelf", readers=[reader])
    document = ingest_file_inline(DEV_DIR / FILE, folder)
    assert document.status == "indexed", document.failure_reason
    question = storage_question()
    needle = normalise(question["needle"])

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(context, live_server.url, "/login/?next=/", "markdown-browser-reader")
    ask(page, live_server.url, question["queries"][0])
    quotes = [normalise(q) for q in page.locator(".citation .quote").all_inner_texts()]
    assert not any("](" in q or q.startswith("#") for q in quotes), quotes  # sources read as text
    n = next(i + 1 for i, quote in enumerate(quotes) if needle in quote)
    page.click(f"#cite-{n} a.open-link")
    page.wait_for_selector("mark#highlight")

    start, end = (int(x) for x in page.url.split("#char=")[1].split(","))
    highlighted = page.evaluate("() => document.getElementById('highlight').textContent")
    assert highlighted == document.canonical_text[start:end]
    assert needle in normalise(highlighted)
    assert page.locator("mark").count() == 1
    shown = page.evaluate("() => document.getElementById('doc-text').textContent")
    assert shown == document.canonical_text
    assert "](http" not in shown
    assert "### " not in shown
    box = page.evaluate("() => document.getElementById('highlight').getBoundingClientRect().top")
    assert 0 <= box < 900, box  # scrolled to the passage
    page.screenshot(path=str(ARTIFACTS / "viewer-markdown.png"))
    context.close()
