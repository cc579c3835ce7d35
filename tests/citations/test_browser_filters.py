"""In Chromium: each filter of the search page (type, tag, author, date range, folder, within
one document), the facet links that set them, a filter matching nothing, and a bad filter value.
Every state is a URL: the test reaches several of them by link or by form, others by address."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from documents.models import Document, Tag
from tests.citations.test_browser import browser  # noqa: F401  (the fixture is used by name)
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEXTS = {
    "raft.txt": "Raft elects a leader with randomized election timeouts. The leader replicates its log to followers.",
    "dynamo.md": "# Dynamo\n\nDynamo replicas order versions with vector clocks and reconcile divergent versions.",
    "json.txt": "A JSON number is a sequence of decimal digits with an optional fraction and exponent.",
}
QUESTION = "How do replicas agree on a leader and order versions?"


@pytest.fixture
def shelf(tmp_path: Path, settings: Any, memoised_pipeline: None) -> dict[str, Document]:
    settings.ANSWER_MAX_DISTANCE = 2.0  # every passage is shown: the test is about which ones
    folder = FolderFactory(name="Papers", is_public=True)
    documents = {}
    for name, text in TEXTS.items():
        path = tmp_path / name
        path.write_text(text + "\n")
        documents[path.stem] = ingest_file_inline(path, folder, title=path.stem.capitalize())
    consensus = Tag.objects.create(name="Consensus")
    documents["raft"].tags.add(consensus)
    Document.objects.filter(pk=documents["raft"].pk).update(authors=["Diego Ongaro"], published=dt.date(2014, 6, 1))
    Document.objects.filter(pk=documents["dynamo"].pk).update(authors=["Werner Vogels"], published=dt.date(2007, 10, 1))
    return documents


def _titles(page: Any) -> set[str]:
    return set(page.locator("#results .result-title").all_inner_texts())


def _params(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_each_filter_on_the_search_page(live_server: Any, browser: Any, shelf: dict[str, Document]) -> None:
    context = browser.new_context()
    context.set_default_timeout(180_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/")
    page.fill("#id_q", QUESTION)
    page.click("#ask-button")
    page.wait_for_selector("#facets", state="attached")
    assert page.get_attribute("#filters-fold", "open") is None  # folded: no filter is active
    unfold(page)
    assert _titles(page) == {"Raft", "Dynamo", "Json"}
    assert page.inner_text("#facets-count") == "3 documents found"
    assert "Consensus 1" in page.inner_text("#facet-tag")
    assert {"2014", "2007"} <= set(page.locator("#facet-year a").all_inner_texts())

    # Type, by its facet link: the URL says it, the passages keep to it, the chip can remove it.
    page.click("#facet-type >> text=Markdown")
    page.wait_for_selector("#active-filters")
    assert _params(page)["type"] == ["markdown"]
    assert _titles(page) == {"Dynamo"}
    assert "Type: Markdown" in page.inner_text("#active-filters")
    page.click("#active-filters .remove-filter")
    page.wait_for_load_state()
    assert "type" not in _params(page)
    assert _titles(page) == {"Raft", "Dynamo", "Json"}

    # Tag, by its checkbox in the form.
    unfold(page)
    page.check("#filters input[name=tag][value=Consensus]")
    page.click("#ask-button")
    page.wait_for_selector("#active-filters")
    assert _params(page)["tag"] == ["Consensus"]
    assert _titles(page) == {"Raft"}
    page.click("#clear-filters")
    page.wait_for_load_state()

    # Author, typed in any case.
    unfold(page)
    page.fill("#id_author", "diego ONGARO")
    page.click("#ask-button")
    page.wait_for_selector("#active-filters")
    assert _titles(page) == {"Raft"}
    page.fill("#id_author", "")

    # A date range, in the date fields.
    page.fill("#id_from", "2006-01-01")
    page.fill("#id_to", "2008-12-31")
    page.click("#ask-button")
    page.wait_for_selector("#active-filters")
    assert (_params(page)["from"], _params(page)["to"]) == (["2006-01-01"], ["2008-12-31"])
    assert _titles(page) == {"Dynamo"}
    assert "Published: 2006-01-01 – 2008-12-31" in page.inner_text("#active-filters")

    # A year, by its facet link (from the unfiltered page).
    page.click("#clear-filters")
    page.wait_for_selector("#facet-year", state="attached")
    unfold(page)
    page.click("#facet-year >> text=2014")
    page.wait_for_selector("#active-filters")
    assert _titles(page) == {"Raft"}

    # Within one document, by address (the document page's search box links here).
    json = shelf["json"]
    page.goto(f"{live_server.url}/?q=replicas&document={json.pk}")
    assert _titles(page) == {"Json"}
    assert "Within: Json" in page.inner_text("#active-filters")
    # The hidden field keeps it when the question changes.
    page.fill("#id_q", "leader election")
    page.click("#ask-button")
    page.wait_for_load_state()
    assert _params(page)["document"] == [str(json.pk)]
    assert _titles(page) == {"Json"}

    # Folder, by its facet link.
    page.goto(f"{live_server.url}/?q=replicas")
    unfold(page)
    page.click("#facet-folder >> text=Papers")
    page.wait_for_load_state()
    assert _params(page)["folder"] == [str(json.folder_id)]
    assert len(_titles(page)) == 3
    context.close()


def unfold(page: Any) -> None:
    """Open the filters, folded under the question while none is active."""
    if page.get_attribute("#filters-fold", "open") is None:
        page.click("#filters-summary")


def test_a_filter_matching_nothing_says_so(live_server: Any, browser: Any, shelf: dict[str, Document]) -> None:
    context = browser.new_context()
    context.set_default_timeout(180_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/?q=replicas&author=Nobody&type=pdf")
    notice = page.inner_text("#filter-nothing")
    assert "No document you may read matches these filters" in notice
    assert _titles(page) == set()  # never all documents instead
    assert "No document you may read matches these filters" in page.inner_text("#answer-text")
    assert page.locator("#facets").count() == 0
    # A malformed value is said on the page, next to the filters, and nothing is searched.
    page.goto(f"{live_server.url}/?q=replicas&type=exe&from=someday")
    assert "Unknown type 'exe'" in page.inner_text("#filter-error")
    assert page.locator("#answer").count() == 0
    context.close()
