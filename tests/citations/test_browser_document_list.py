"""In Chromium at 1280 px (issue 28, "a readable list"): the admin's document list fits the window,
the failure reason keeps a readable width, and staff retag documents in bulk: select several,
"Add a tag", confirm on the page that names them, see the tag in the list; then remove it.

Screenshots land in test-artifacts/ (git-ignored).
"""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from typing import Any

import pytest

from documents.models import Document, DocumentStatus, Tag
from tests.citations.test_browser import ARTIFACTS, browser, login  # noqa: F401  (the fixture is used by name)
from tests.factories import DocumentFactory, FolderFactory, StaffFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REASON = (
    "Text extraction failed on every page: the file is a scanned image without a text layer and OCR "
    "read less than half of its words with any confidence. Rescan it at 300 dpi and upload it again."
)
TAG = "Tide tables"
MIN_REASON_WIDTH = 180  # px: a reason reads as a few lines, not one word a line


def _library() -> dict[str, Any]:
    """A shelf as staff meet it: long titles and paths, a failure, warnings, sizes, tags."""
    parent = FolderFactory(name="Harbour authority")
    charts = FolderFactory(name="Navigation charts and tide tables", parent=parent)
    titles = [
        "Tide tables for the northern approaches, spring edition",
        "Chart corrections issued to pilots after the dredging of the outer channel",
        "Harbour master's standing orders",
    ]
    pdf = {"content_type": "application/pdf", "indexed": True}
    documents = [DocumentFactory(folder=charts, title=t, text=f"{t}\n" * 2000, **pdf) for t in titles]
    Document.objects.filter(pk=documents[0].pk).update(page_count=48, chunk_count=212)
    Document.objects.filter(pk=documents[1].pk).update(
        warnings=["Page 12 could not be read: the page is damaged.", "Page 13 was read by OCR with low confidence."],
        page_count=30,
        chunk_count=95,
    )
    scan = DocumentFactory(folder=parent, title="Scanned berth register 1998", content_type="application/pdf")
    Document.objects.filter(pk=scan.pk).update(status=DocumentStatus.FAILED, failure_reason=REASON, attempts=3)
    documents[2].tags.add(Tag.objects.create(name="Orders"))
    return {"tagged": documents[:2], "untouched": documents[2]}


# How far the table overflows its scrolling box and the window, and each column's width (for the message).
FITS = """() => {
    const box = document.querySelector('#changelist .results');
    const columns = [...document.querySelectorAll('#result_list thead th')];
    return {box: box.scrollWidth - box.clientWidth,
            window: document.documentElement.scrollWidth - window.innerWidth,
            columns: columns.map(th => [th.className, Math.round(th.getBoundingClientRect().width)])};
}"""


def _tag_cell(page: Any, title: str) -> str:
    return page.locator("#result_list tbody tr", has_text=title).locator("td.field-tag_names").inner_text()


def _bulk(page: Any, titles: list[str], action: str, tag: str) -> None:
    """Tick the rows, run the action, read the confirmation, confirm with the tag."""
    for title in titles:
        page.locator("#result_list tbody tr", has_text=title).locator("input.action-select").check()
    page.select_option("select[name=action]", action)
    page.click("button[name=index]")
    page.wait_for_selector("#bulk-action-form")
    listed = page.locator("#bulk-action-documents").inner_text()
    assert all(title in listed for title in titles), listed
    page.fill("#id_tag", tag)
    page.screenshot(path=str(ARTIFACTS / f"admin-document-list-{action}-confirm.png"), full_page=True)
    page.click("#bulk-action-form [type=submit].default")
    page.wait_for_selector("#result_list")


def test_the_list_fits_1280_px_and_staff_retag_in_bulk(live_server: Any, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    StaffFactory(username="list-staff")
    shelf = _library()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(context, live_server.url, "/admin/login/?next=/admin/documents/document/", "list-staff")
    page.wait_for_selector("#result_list")

    # Nothing is crushed: the table fits its box and the window, and the reason keeps its width.
    fits = page.evaluate(FITS)
    page.screenshot(path=str(ARTIFACTS / "admin-document-list-1280.png"), full_page=True)
    assert fits["box"] == 0, fits
    assert fits["window"] == 0, fits
    reason = page.locator("td.field-failure_reason_short", has_text="Text extraction failed")
    assert reason.bounding_box()["width"] >= MIN_REASON_WIDTH, fits
    assert reason.locator("span").get_attribute("title") == REASON
    warnings = page.locator("td.field-warnings_short span", has_text="2 warnings")
    assert warnings.get_attribute("title").startswith("Page 12 could not be read")
    assert "Harbour authority / Navigation charts and tide tables" in page.locator("#result_list").inner_text()

    titles = [d.title for d in shelf["tagged"]]
    _bulk(page, titles, "add_tag", TAG)
    assert f"Added tag “{TAG}” to 2 document(s)." in page.locator("ul.messagelist").inner_text()
    for title in titles:
        assert TAG in _tag_cell(page, title)
    assert _tag_cell(page, shelf["untouched"].title) == "Orders"
    page.screenshot(path=str(ARTIFACTS / "admin-document-list-tagged.png"), full_page=True)

    _bulk(page, titles, "remove_tag", TAG.lower())  # names are one tag whatever their case
    assert f"Removed tag “{TAG}” from 2 document(s)." in page.locator("ul.messagelist").inner_text()
    for title in titles:
        assert TAG not in _tag_cell(page, title)
    assert not Tag.objects.get(name=TAG).documents.exists()
    context.close()
