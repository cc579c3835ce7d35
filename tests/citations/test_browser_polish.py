"""In Chromium: the site's own 404 page, the viewer's sticky bar on a phone (at most 15 % of a
390×844 screen), and the search page's plain words: a refusal in one sentence with its numbers
in a closed "Details" disclosure, and a match strength where a distance used to be."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.citations.test_browser import ARTIFACTS, browser, login  # noqa: F401  (the fixture is used by name)
from tests.citations.test_browser_csp import RECORD_VIOLATIONS
from tests.citations.test_viewer import build_pdf
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
LONG_TITLE = "Operating the storage engine in production: compaction, recovery and the quartermaster protocol"
BAR = """() => { const r = document.querySelector('.viewer-bar').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, height: r.height, screen: window.innerHeight}; }"""


def _long_markdown(path: Path) -> Path:
    paragraphs = [
        f"Paragraph {i} describes routine maintenance of the storage engine in plain words." for i in range(80)
    ]
    paragraphs[60] = "The quartermaster protocol renews its lease every three seconds while the shard is healthy."
    path.write_text("# Operations guide\n\n" + "\n\n".join(paragraphs) + "\n")
    return path


def test_a_missing_page_is_the_sites_own(live_server: Any, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    response = page.goto(f"{live_server.url}/documents/424242/view")
    assert response is not None
    assert response.status == 404
    assert page.title() == "Page not found · Document library"
    assert page.inner_text("h1") == "Page not found"
    assert page.inner_text(".site-header .brand") == "Document library"
    # The site's stylesheet applies: the page background and the card are the site's.
    looks = page.evaluate(
        "() => ({bg: getComputedStyle(document.body).backgroundColor,"
        " card: getComputedStyle(document.querySelector('.card')).borderRadius})"
    )
    assert looks == {"bg": "rgb(246, 247, 249)", "card": "10px"}, looks
    with page.expect_navigation():
        page.click("text=Back to the search page")
    assert page.evaluate("() => window.__violations") == []
    page.goto(f"{live_server.url}/documents/424242/view")
    page.screenshot(path=str(ARTIFACTS / "404-phone.png"), full_page=True)
    context.close()


def test_the_viewer_bar_on_a_phone_covers_at_most_15_percent(live_server: Any, browser: Any, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    reader = UserFactory(username="phone-reader")
    folder = FolderFactory(name="A folder with a long name for phones", readers=[reader])
    guide = ingest_file_inline(_long_markdown(tmp_path / "guide.md"), folder, title=LONG_TITLE)
    pdf = ingest_file_inline(build_pdf(tmp_path / "engine.pdf"), folder, title=LONG_TITLE + " (PDF)")
    assert guide.status == "indexed", guide.failure_reason
    assert pdf.status == "indexed", pdf.failure_reason
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = login(context, live_server.url, "/login/?next=/", "phone-reader")

    # The text viewer at a passage far down: the bar is stuck to the top, and the passage is below it.
    start = guide.canonical_text.index("The quartermaster protocol")
    page.goto(f"{live_server.url}/documents/{guide.pk}/view#char={start},{start + 60}")
    page.wait_for_selector("mark#highlight")
    page.wait_for_function("() => window.scrollY > 0")
    bar = page.evaluate(BAR)
    assert bar["screen"] == 844, bar
    assert bar["top"] == 0, bar  # sticky: it is the header the reader sees while reading
    assert bar["height"] <= 0.15 * 844, bar
    mark = page.evaluate("() => document.getElementById('highlight').getBoundingClientRect().top")
    assert bar["bottom"] <= mark < 844, (bar, mark)
    assert "page" not in page.inner_text(".viewer-title .meta")  # a Markdown file has no pages
    assert page.inner_text("#highlight-status")  # the status line is shown, within the 15 %
    page.screenshot(path=str(ARTIFACTS / "viewer-phone.png"))

    # A PDF in the text viewer and as a page image: the same bar, the same bound.
    start = pdf.canonical_text.index("quartermaster")
    page.goto(f"{live_server.url}/documents/{pdf.pk}/view#char={start},{start + 13}")
    page.wait_for_selector("mark#highlight")
    assert page.evaluate(BAR)["height"] <= 0.15 * 844
    page.goto(f"{live_server.url}/documents/{pdf.pk}/pages/1?char={start},{start + 40}#passage")
    page.wait_for_function("() => document.querySelector('.page-image')?.naturalWidth > 0")
    bar = page.evaluate(BAR)  # a page image fits a phone's screen: the bar need not stick here
    assert bar["height"] <= 0.15 * 844, bar
    page.screenshot(path=str(ARTIFACTS / "page-phone.png"))
    context.close()


def test_a_refusal_in_plain_words_and_sources_with_a_match_strength(
    live_server: Any, browser: Any, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    reader = UserFactory(username="plain-words-reader")
    folder = FolderFactory(name="Plain shelf", readers=[reader])
    pdf = ingest_file_inline(build_pdf(tmp_path / "engine.pdf"), folder, title="Engine manual")
    assert pdf.status == "indexed", pdf.failure_reason
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = login(context, live_server.url, "/login/?next=/", "plain-words-reader")

    # Far from anything the shelf holds: one plain sentence, no number on the page until asked.
    page.goto(f"{live_server.url}/")
    page.fill("#id_q", "what should i cook for dinner tonight")
    page.press("#id_q", "Enter")
    page.wait_for_selector("#answer-text")
    assert page.inner_text("#answer-text") == (
        "No answer: The library holds no passage close enough to this question to answer it. "
        "Try other words or another folder, or ask someone to add a document that covers it."
    )
    assert page.locator("#answer-details").get_attribute("open") is None
    assert not page.is_visible("#detail-distance")
    assert "distance" not in page.inner_text("#answer")  # closed details show only their summary
    page.click("#answer-details summary")
    distance = page.inner_text("#detail-distance")
    assert distance.startswith("cosine distance "), distance
    assert distance.endswith("; answers need 0.650 or less"), distance
    assert page.inner_text("#detail-reasons") == "No passage is close enough (too_far)"
    page.screenshot(path=str(ARTIFACTS / "refusal-details.png"), full_page=True)

    # A question the manual answers: its source says how well it matches, in a word.
    page.fill("#id_q", "How often does the quartermaster protocol renew its lease?")
    page.press("#id_q", "Enter")
    page.wait_for_selector(".citation")
    label = page.inner_text("#cite-1 .match")
    assert label in {"Strong match", "Good match", "Weak match"}, label
    assert page.get_attribute("#cite-1 .match", "title").startswith("cosine distance 0.")
    assert "Distance" not in page.inner_text("#cite-1")
    assert page.inner_text("#cite-1 .facts").count("Page") == 1  # a PDF keeps its page
    assert page.evaluate("() => window.__violations") == []
    page.screenshot(path=str(ARTIFACTS / "match-strength.png"), full_page=True)
    context.close()
