"""The content-gaps report groups repeated questions with a count and shows the readers' comments
beside the question that drew them (to staff who may read question texts)."""

from __future__ import annotations

import re

import pytest

from citations.models import Endpoint, Feedback, QuestionLog
from search.services.gate import AnswerState
from tests.citations.test_question_log import log_reader, signed_in

pytestmark = pytest.mark.django_db

KAFKA = "How do I set Kafka retention?"


def ask(question: str, *, comment: str = "") -> None:
    QuestionLog.objects.create(
        endpoint=Endpoint.PAGE, question=question, state=AnswerState.REFUSED, unknown_names=["Kafka"],
        feedback=Feedback.NOT_HELPFUL if comment else "", feedback_comment=comment,
    )  # fmt: skip


def test_a_repeated_question_is_listed_once_with_its_count_and_its_comments() -> None:
    ask(KAFKA, comment="We need Kafka docs")
    ask("how do i set  KAFKA retention?")  # the same question, case and spacing aside
    ask(KAFKA, comment="Still nothing on Kafka")
    ask("Is Kafka faster than RabbitMQ?")
    html = signed_in(log_reader("librarian", texts=True)).get("/admin/citations/questionlog/gaps/").content.decode()
    by_term = html[html.index('id="gaps-by-term"') : html.index('id="gaps-by-folder"')]
    assert re.findall(r'class="gap-term">([^<]+)</th><td class="gap-count">(\d+)</td>', by_term) == [("Kafka", "4")]
    examples = re.findall(r"<li><a href=[^>]+>([^<]+)</a>", by_term)
    assert sorted(examples) == sorted([KAFKA, "Is Kafka faster than RabbitMQ?"])  # each question once
    assert '<span class="gap-asked">× 3</span>' in by_term
    comments = re.findall(r'class="gap-comment">“([^”]+)”', by_term)
    assert comments == ["Still nothing on Kafka", "We need Kafka docs"]  # beside the question, newest first
    # Comments are question texts: staff without that permission see counts only.
    hidden = signed_in(log_reader("counter", texts=False)).get("/admin/citations/questionlog/gaps/").content.decode()
    assert "× 3" in hidden
    assert "We need Kafka docs" not in hidden


def test_the_report_is_english_for_a_portuguese_browser_as_the_rest_of_the_admin() -> None:
    """The gate's reason stands in for a missing word as an English label, and the admin's own
    chrome and the log's state labels are English too, whatever Accept-Language asks."""
    QuestionLog.objects.create(endpoint=Endpoint.PAGE, question=KAFKA, state=AnswerState.REFUSED, reasons=["too_far"])
    staff = signed_in(log_reader("leitora", texts=True))
    response = staff.get("/admin/citations/questionlog/gaps/", HTTP_ACCEPT_LANGUAGE="pt-BR,pt;q=0.9")
    html = response.content.decode()
    by_term = html[html.index('id="gaps-by-term"') : html.index('id="gaps-by-folder"')]
    assert re.findall(r'class="gap-term">([^<]+)</th>', by_term) == ["(no passage is close enough)"]
    assert "(refused, " in by_term  # the example's state
    assert '<html lang="en"' in html
    assert response["Content-Language"] == "en"
    assert "Log out" in html
    for portuguese in ("nenhuma passagem", "recusada", "Sair", "Bem-vindo"):
        assert portuguese not in html
    log = staff.get("/admin/citations/questionlog/", HTTP_ACCEPT_LANGUAGE="pt").content.decode()
    assert "Refused" in log
    assert "Recusada" not in log
