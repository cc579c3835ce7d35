"""In Chromium: the result list under the answer and its paging, a snippet opening the viewer at
its passage, and browsing: library → folder → document page → search in this document."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.citations.test_browser import ARTIFACTS, ask, browser, login  # noqa: F401  (the fixture is used by name)
from tests.conftest import dev_reader

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.corpus]

BROAD = "how is data used by the system"


def test_result_list_pages_and_opens_a_passage(live_server: Any, dev_corpus: dict[str, Any], browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    dev_reader("browser-list-reader")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(context, live_server.url, "/login/?next=/", "browser-list-reader")
    ask(page, live_server.url, BROAD)
    page.wait_for_selector("#results")
    count = page.inner_text("#results-count")
    total = int(count.split()[0])
    assert total > 10, count
    first = page.locator(".result").evaluate_all("els => els.map(e => e.dataset.document)")
    assert len(first) == 10
    page.screenshot(path=str(ARTIFACTS / "result-list.png"), full_page=True)
    with page.expect_navigation():
        page.click("#results-next")
    assert parse_qs(urlsplit(page.url).query)["page"] == ["2"]
    second = page.locator(".result").evaluate_all("els => els.map(e => e.dataset.document)")
    assert len(second) == total - 10
    assert not set(first) & set(second)
    assert page.locator(".result mark").count() >= 1
    with page.expect_navigation():
        page.click("#results-prev")
    assert page.locator(".result").evaluate_all("els => els.map(e => e.dataset.document)") == first
    # A snippet opens the viewer with its passage highlighted.
    snippet = page.locator(".result .snippet-link[data-chunk]").first  # a passage, not a pointer to a source
    href = snippet.get_attribute("href")
    assert href is not None
    assert "/view#char=" in href
    snippet.click()
    page.wait_for_selector("mark#highlight")
    start, end = (int(x) for x in href.rsplit("=", 1)[1].split(","))
    document_id = int(href.split("/")[2])
    text = next(d for d in dev_corpus.values() if d.pk == document_id).canonical_text
    assert " ".join(page.inner_text("mark#highlight").split()) == " ".join(text[start:end].split())
    context.close()


def test_browse_to_a_document_and_search_in_it(live_server: Any, dev_corpus: dict[str, Any], browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    dev_reader("browser-browse-reader")
    raft = dev_corpus["raft-consensus-2014.pdf"]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(context, live_server.url, "/login/?next=/", "browser-browse-reader")
    with page.expect_navigation():
        page.click("#library-link")
    assert page.url.endswith("/library/")
    with page.expect_navigation():
        page.click(f'#library-folders a[href="/library/folders/{raft.folder_id}/"]')
    assert page.locator("#folder-documents tbody tr").count() == len(dev_corpus)
    with page.expect_navigation():
        page.click("#sort-title")  # already by title: the link reverses it
    assert page.locator(".document-link").first.inner_text() == max(d.title for d in dev_corpus.values())
    with page.expect_navigation():
        page.click("text=raft-consensus-2014")
    assert page.inner_text("#document-heading") == "raft-consensus-2014"
    assert page.locator("#outline li").count() >= 5
    page.screenshot(path=str(ARTIFACTS / "library-document.png"), full_page=True)
    page.fill("#document-q", "leader election timeout")
    with page.expect_navigation():
        page.press("#document-q", "Enter")
    query = parse_qs(urlsplit(page.url).query)
    assert query["q"] == ["leader election timeout"]
    assert query["document"] == [str(raft.pk)]
    page.wait_for_selector("#answer-text")
    # Back on the document page, its links open the viewer and the page images.
    page.go_back()
    with page.expect_navigation():
        page.click("#open-pages")
    page.wait_for_function("() => document.querySelector('.page-image')?.naturalWidth > 0")
    context.close()
