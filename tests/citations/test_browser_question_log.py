"""In Chromium: a reader asks three questions and judges one answer "Not helpful" with a comment
(posted in the background, the answer stays on screen); staff then find the three questions
in the log with that feedback, the refused and caveated ones in the content-gaps report under
their missing terms, and the cited document among those drawing "Not helpful"."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citations.models import QuestionLog
from tests.citations.test_browser import ARTIFACTS, ask, browser, login  # noqa: F401  (the fixture is used by name)
from tests.citations.test_browser_csp import RECORD_VIOLATIONS
from tests.citations.test_question_log import ANSWERED, CAVEAT, REFUSED, RING_TEXT
from tests.conftest import ingest_text
from tests.factories import FolderFactory, StaffFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

COMMENT = "It does not say how many nodes hold each key."


# Three answers in the live server, the first loading the encoder: on a busy machine that alone
# has taken 14 minutes, beyond the suite's 900 s default.
@pytest.mark.timeout(1800)
def test_feedback_round_trip_then_the_log_and_the_gaps_report(
    live_server: Any, browser: Any, tmp_path: Path, memoised_pipeline: None
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    StaffFactory(username="ring-staff")
    folder = FolderFactory(name="Ring notes", readers=[UserFactory(username="ring-reader")])
    document = ingest_text(tmp_path, folder, "Hashing ring", RING_TEXT)
    assert document.status == "indexed", document.failure_reason

    reader = browser.new_context()
    reader.add_init_script(RECORD_VIOLATIONS)
    page = login(reader, live_server.url, "/login/?next=/", "ring-reader")
    ask(page, live_server.url, ANSWERED)
    answer_url = page.url
    page.fill("#feedback-comment", COMMENT)
    page.click("#feedback-not-helpful")
    page.wait_for_selector("#feedback-status:has-text('Thank you')")
    assert page.url == answer_url  # no page load: the answer is still on screen
    assert page.get_attribute("#feedback-not-helpful", "aria-pressed") == "true"
    page.screenshot(path=str(ARTIFACTS / "feedback-sent.png"), full_page=True)
    row = QuestionLog.objects.get(question=ANSWERED)
    assert (row.feedback, row.feedback_comment) == ("not_helpful", COMMENT)
    for question in (REFUSED, CAVEAT):
        ask(page, live_server.url, question)
    assert page.evaluate("() => window.__violations") == []
    reader.close()

    staff = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(staff, live_server.url, "/admin/login/?next=/admin/citations/questionlog/", "ring-staff")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 3
    text = page.inner_text("#result_list")
    for question in (ANSWERED, REFUSED, CAVEAT):
        assert question in text
    judged = rows.filter(has_text=ANSWERED)
    assert "Not helpful" in judged.inner_text()
    assert "ring-reader" in judged.inner_text()
    page.click("#changelist-filter a[href*='feedback=not_helpful']")
    page.wait_for_load_state()
    assert page.locator("#result_list tbody tr").count() == 1
    page.screenshot(path=str(ARTIFACTS / "question-log.png"), full_page=True)

    page.click("#gaps-link")
    page.wait_for_selector("#gaps-by-term")
    terms = page.locator("#gaps-by-term tbody tr")
    assert [terms.nth(i).locator("th").inner_text() for i in range(terms.count())] == [
        "emoji",
        "spreadsheets",
        "Zorblax",
    ]
    zorblax = terms.nth(2)  # one question each: alphabetical, whatever the case
    assert zorblax.locator(".gap-count").inner_text() == "1"
    assert REFUSED in zorblax.inner_text()
    assert "Ring notes" not in page.inner_text("#gaps-by-folder")  # asked in all folders
    page.screenshot(path=str(ARTIFACTS / "content-gaps.png"), full_page=True)

    page.goto(f"{live_server.url}/admin/citations/questionlog/")
    page.click("#not-helpful-link")
    page.wait_for_selector("#not-helpful-documents")
    flagged = page.locator("#not-helpful-documents tbody tr")
    assert flagged.count() == 1
    assert "Hashing ring" in flagged.inner_text()
    assert flagged.locator(".not-helpful-count").inner_text() == "1"
    staff.close()
