"""End to end in Debian's Chromium: a staff upload through the admin is processed by a real
Celery worker; a reader asks a dev question, follows [n] to the viewer, and sees the needle
highlighted on screen; a reader without access gets no answer and no leak. An answer quoting a
paper's own bracketed references shows them as text, and only its own markers as links.

Screenshots land in test-artifacts/ (git-ignored).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import dev_reader, wait_for
from tests.corpus import DEV_DIR, dev_questions, normalise, require_corpus
from tests.factories import FolderFactory, GroupFactory, StaffFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "pw-for-tests-1"
CORPUS_FILE = "dynamo-amazon-2007.pdf"


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: apt-get install chromium"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls here are synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            yield launched
        finally:
            launched.close()


def login(context: Any, base: str, path: str, username: str) -> Any:
    # A first answer loads the encoder in the live server: allow for a slow, busy machine.
    context.set_default_timeout(180_000)
    page = context.new_page()
    page.goto(f"{base}{path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    page.wait_for_load_state()
    return page


def upload_through_admin(browser: Any, base: str, folder: Any) -> None:
    context = browser.new_context()
    page = login(context, base, "/admin/login/?next=/admin/documents/document/upload/", "staff-browser")
    assert page.url.endswith("/admin/documents/document/upload/"), page.url
    page.select_option("#id_folder", str(folder.pk))
    page.set_input_files("#id_files", str(DEV_DIR / CORPUS_FILE))
    page.click("#upload-form [type=submit]")
    page.wait_for_load_state()
    assert "Queued 1 document" in page.content()
    context.close()


def ask(page: Any, base: str, question: str) -> None:
    page.goto(f"{base}/")
    page.fill("#id_q", question)
    page.press("#id_q", "Enter")
    # An answer, or (a refusal over documents holding the words) the line above the result list.
    page.wait_for_selector("#answer-text, #search-status")


@pytest.mark.worker
def test_upload_ask_and_open_the_cited_passage(
    live_server: Any, celery_worker_process: Any, browser: Any, settings: Any
) -> None:
    from documents.models import Document, DocumentStatus

    require_corpus()
    ARTIFACTS.mkdir(exist_ok=True)
    StaffFactory(username="staff-browser")
    group = GroupFactory(name="browser-readers")
    folder = FolderFactory(name="Browser shelf", readers=[group])
    UserFactory(username="browser-reader").groups.add(group)
    UserFactory(username="browser-outsider")
    base = live_server.url

    upload_through_admin(browser, base, folder)

    def settled() -> Any:
        return Document.objects.filter(
            folder=folder, status__in=[DocumentStatus.INDEXED, DocumentStatus.FAILED]
        ).first()

    document = wait_for(settled, timeout=900, interval=1.0, what="the worker to index the upload")
    assert document.status == DocumentStatus.INDEXED, (
        f"{document.failure_reason}\n{celery_worker_process.log()[-3000:]}"
    )

    question = next(q for q in dev_questions() if q["doc"] == CORPUS_FILE)
    needle = normalise(question["needle"])
    reader = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(reader, base, "/login/?next=/", "browser-reader")
    ask(page, base, question["queries"][0])
    assert page.locator("#answer-text").count(), page.inner_text("main")[:2000]
    answer_text = page.inner_text("#answer-text")
    assert "[1]" in answer_text
    page.screenshot(path=str(ARTIFACTS / "answer.png"), full_page=True)

    # The citation that quotes the needle; follow its marker, then its "open" link.
    quotes = [normalise(q) for q in page.locator(".citation .quote").all_inner_texts()]
    n = next(i + 1 for i, quote in enumerate(quotes) if needle in quote)
    marker = page.locator(f'#answer-text a.marker[href="#cite-{n}"]')
    (marker if marker.count() else page.locator("#answer-text a.marker")).first.click()
    page.click(f"#cite-{n} a.open-link")
    page.wait_for_selector("mark#highlight")
    assert "/view#char=" in page.url
    assert needle in normalise(page.inner_text("mark#highlight"))
    box = page.evaluate(
        "() => { const r = document.getElementById('highlight').getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, height: window.innerHeight}; }"
    )
    assert 0 <= box["top"] < box["height"], box
    assert box["bottom"] <= box["height"] or box["bottom"] - box["top"] > box["height"], box
    page.screenshot(path=str(ARTIFACTS / "viewer.png"))

    # A fragment typed by hand moves the highlight without a reload.
    page.evaluate("() => { window.__sameDocument = true; }")
    start = document.canonical_text.index("Dynamo")
    page.evaluate(f"() => {{ window.location.hash = '#char={start},{start + 6}'; }}")
    page.wait_for_function("() => document.getElementById('highlight')?.textContent === 'Dynamo'")
    assert page.evaluate("() => window.__sameDocument") is True
    assert page.locator("mark").count() == 1

    # The rendered PDF page with the passage highlighted.
    page.go_back()
    page.wait_for_function("() => document.getElementById('highlight') !== null")
    with page.expect_navigation():
        page.click("#page-link")
    page.wait_for_function("() => document.querySelector('.page-image')?.naturalWidth > 0")
    assert "could not be located" not in page.content()
    assert page.url.endswith("#passage")
    anchor = page.evaluate("() => document.getElementById('passage').getBoundingClientRect().top")
    assert 0 <= anchor < page.evaluate("() => window.innerHeight")
    page.screenshot(path=str(ARTIFACTS / "page.png"))

    # A question naming something no readable document mentions, over a document holding its other
    # words: refused, and the line above the result list says what, with no answer card over the
    # documents (citations/result_order.py).
    ask(page, base, "How does Zorblax place keys on the ring of servers?")
    assert page.locator("#answer").count() == 0
    assert page.inner_text("#search-status").startswith(
        "No passage answers this as a question. No document you may read mentions 'Zorblax'"
    )
    assert page.locator("#results .result").count() == 1  # the uploaded document, listed
    assert page.locator(".citation").count() == 0
    page.screenshot(path=str(ARTIFACTS / "refused-unknown-name.png"))
    reader.close()

    # A reader without access to the folder: refused, nothing about the document shown or served.
    outsider = browser.new_context()
    page = login(outsider, base, "/login/?next=/", "browser-outsider")
    ask(page, base, question["queries"][0])
    assert page.inner_text("#answer-text").startswith("No answer:")
    assert page.locator(".citation").count() == 0
    assert document.title not in page.content()
    response = page.goto(f"{base}/documents/{document.pk}/view")
    assert response is not None
    assert response.status == 404
    outsider.close()


BIGTABLE_QUESTION = "In Bigtable, why can reads of rows or columns that do not exist usually avoid disk seeks?"
# The text nodes of the answer holding one of these, and the links of the answer, as (text, href, target found).
ANSWER_NODES = """() => {
  const answer = document.getElementById('answer-text');
  const marker = answer.querySelector('a.marker');
  const markerColour = marker ? getComputedStyle(marker).color : null;
  // The source's own numbers: outside any link, and not in our markers' colour.
  const own = [...answer.querySelectorAll('.source-ref')].map((span) => [span.textContent,
    span.closest('a') === null && getComputedStyle(span).color !== markerColour]);
  const links = [...answer.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href'),
    document.getElementById(a.getAttribute('href').slice(1)) !== null]);
  return {own, links};
}"""


def test_a_papers_own_references_in_the_answer_are_text_not_links(
    live_server: Any, dev_corpus: dict[str, Any], browser: Any, settings: Any
) -> None:
    # With 8 sources the extractive answer quotes Bigtable's related-work sentence, which holds
    # "C-Store [1, 34]" and "KDB+ [22]" (see test_answer_service.py).
    settings.ANSWER_TOP_SOURCES = 8
    ARTIFACTS.mkdir(exist_ok=True)
    dev_reader("browser-dev-reader")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(context, live_server.url, "/login/?next=/", "browser-dev-reader")
    ask(page, live_server.url, BIGTABLE_QUESTION)
    text = page.inner_text("#answer-text")
    own = ["C-Store [1, 34]", "Sybase IQ [15, 36]", "KDB+ [22]"]
    assert all(reference in text for reference in own), text
    found = page.evaluate(ANSWER_NODES)
    set_apart = dict(found["own"])
    assert all(set_apart.get(number) for number in ("[1, 34]", "[15, 36]", "[22]")), found
    links = found["links"]
    assert len(links) >= 2, links
    for label, href, target in links:
        n = int(href.removeprefix("#cite-"))
        assert (label, target) == (f"[{n}]", True), links
    # The related-work source is one the answer links to, and its quote shows the same text.
    n = next(i + 1 for i, q in enumerate(page.locator(".citation .quote").all_inner_texts()) if "KDB+ [22]" in q)
    assert [f"#cite-{n}", True] in [[href, target] for _label, href, target in links]
    assert page.locator(f"#cite-{n} .quote a").count() == 0
    page.click(f'#answer-text a.marker[href="#cite-{n}"]')
    page.wait_for_function(f"() => document.activeElement?.id === 'cite-{n}'")
    page.screenshot(path=str(ARTIFACTS / "answer-own-references.png"), full_page=True)
    context.close()


def test_a_near_miss_question_shows_its_caveat_above_the_answer(
    live_server: Any, dev_corpus: dict[str, Any], browser: Any
) -> None:
    # eval/dev-nearmiss.jsonl m51: the dev corpus covers Tor's design, never the Tor Project's history.
    ARTIFACTS.mkdir(exist_ok=True)
    dev_reader("browser-caveat-reader")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(context, live_server.url, "/login/?next=/", "browser-caveat-reader")
    ask(page, live_server.url, "when was the tor project set up as a nonprofit")
    assert page.get_attribute("#answer", "data-state") == "caveat"
    caveat = page.inner_text("#caveat")
    assert caveat == (
        "No document you may read mentions 'nonprofit'; the question asks for a year or date; none of the closest"
        " passages states one where it mentions 'tor' or 'nonprofit'; the passages below are the closest the"
        " library holds."
    )
    above = page.evaluate(
        "() => document.getElementById('caveat').getBoundingClientRect().bottom"
        " <= document.getElementById('answer-text').getBoundingClientRect().top"
    )
    assert above
    assert page.inner_text("#answer-heading") == "Closest passages, with a caveat"
    assert page.locator(".citation").count() >= 1  # the sources are shown, under the caveat
    page.screenshot(path=str(ARTIFACTS / "caveat-near-miss.png"), full_page=True)
    context.close()
