"""In Chromium at 1280×900: the question log, its content-gaps report and the webhook deliveries
list fit the window (no horizontal scrolling of the page), with long questions, comments, folder
names, document titles and endpoint names."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from citations.models import Endpoint, Feedback, QuestionLog
from documents.models import WebhookDelivery, WebhookEndpoint
from search.services.gate import AnswerState
from tests.citations.test_browser import ARTIFACTS, browser, login  # noqa: F401  (the fixture is used by name)
from tests.factories import StaffFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LONG = "How does the consensus protocol described in the replicated state machine paper elect a leader " * 2
WORD = "Storage-and-retention-configuration-for-the-long-term-metrics-archive-of-the-cluster"
PAGES = ["/admin/citations/questionlog/", "/admin/citations/questionlog/gaps/", "/admin/documents/webhookdelivery/"]
# What sticks out at the right: the page itself, an element past the window's edge, or a box whose
# content is wider than the box (scrolled or clipped inside it, as Django's `.results` would).
OVERFLOW = """() => {
  const wide = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) wide.push(`page: ${doc.scrollWidth} > ${doc.clientWidth}`);
  for (const el of document.querySelectorAll("#content *")) {
    const name = `${el.tagName.toLowerCase()}#${el.id}.${el.className}`;
    if (el.getBoundingClientRect().right > window.innerWidth + 1) wide.push(`${name} past the edge`);
    if (getComputedStyle(el).overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1)
      wide.push(`${name}: ${el.scrollWidth} > ${el.clientWidth}`);
  }
  return wide;
}"""


def _fill_the_log() -> None:
    top = [{"id": n, "title": f"{WORD} volume {n}"} for n in range(1, 4)]
    for n in range(12):
        QuestionLog.objects.create(
            endpoint=Endpoint.PAGE, question=f"{LONG} {WORD} {n % 4}", state=AnswerState.REFUSED if n % 2 else
            AnswerState.CAVEAT, unknown_names=[WORD], missing_terms=["kubernetes-operator-lifecycle"],
            folder_name=f"Engineering / Platform / {WORD}", top_documents=top, latency_ms=1234, writer="extractive",
            feedback=Feedback.NOT_HELPFUL, feedback_comment=f"We need {WORD} docs, and the Kafka ones too.",
        )  # fmt: skip
    endpoint = WebhookEndpoint.objects.create(
        name=f"Integration for {WORD}", url=f"https://hooks.example/{WORD}/{WORD}", events=["document.indexed"],
        all_folders=True,
    )  # fmt: skip
    for n in range(12):
        WebhookDelivery.objects.create(
            endpoint=endpoint, message_id=f"msg_{n:032d}", event="document.indexed", document_id=n, payload={},
            next_attempt_at=timezone.now(), last_response_code=503,
        )  # fmt: skip


@pytest.mark.timeout(900)
def test_the_librarian_pages_fit_1280_pixels(live_server: Any, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    StaffFactory(username="wide-staff", is_superuser=True)
    _fill_the_log()
    staff = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(staff, live_server.url, "/admin/login/?next=/admin/", "wide-staff")
    for path in PAGES:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state()
        name = path.strip("/").replace("/", "-")
        page.screenshot(path=str(ARTIFACTS / f"width-{name}.png"), full_page=True)
        assert page.locator("#result_list, #gaps-by-term").count() == 1, path
        assert page.evaluate(OVERFLOW) == [], f"{path} is wider than the 1280 px window"
    staff.close()
