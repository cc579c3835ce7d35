"""The question log (issue 28, items 3-5): what is kept for the page, /api/answer and
/api/search; QUESTION_LOG off; retention; a failed write that costs the answer nothing; feedback
by the asker only; the content-gaps report, the "Not helpful" documents and the CSV for staff."""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from citations.models import QuestionLog
from citations.tasks import question_log_prune_task
from tests.conftest import bearer, ingest_text
from tests.conftest import test_database_url as database_url_of_this_run
from tests.factories import FolderFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db

RING_TEXT = "Consistent hashing places each key on a ring of nodes; a key is stored on the next nodes clockwise."
ANSWERED = "how are keys placed on the consistent hashing ring"
REFUSED = "How does Zorblax place keys on the consistent hashing ring?"  # a name no document mentions
CAVEAT = "how are emoji and spreadsheets placed on the consistent hashing ring"  # words no document holds


@pytest.fixture
def ring(tmp_path: Path, memoised_pipeline: None) -> dict[str, Any]:
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    folder = FolderFactory(name="Ring notes", readers=[alice, bob], is_public=True)
    document = ingest_text(tmp_path, folder, "Hashing ring", RING_TEXT)
    assert document.status == "indexed", document.failure_reason
    return {"folder": folder, "document": document, "alice": alice, "bob": bob}


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ask_api(user: Any, question: str, **extra: Any) -> dict[str, Any]:
    payload = json.dumps({"question": question, **extra})
    response = Client().post("/api/answer", payload, content_type="application/json", **bearer(user))
    assert response.status_code == 200, response.content
    return dict(response.json())


def feedback_action(page: bytes) -> str:
    found = re.search(rb'action="(/answers/\d+/feedback)"', page)
    assert found, "the answer carries no feedback form"
    return found.group(1).decode()


# --- what is kept ------------------------------------------------------------------------------


def test_a_page_question_is_kept_with_its_verdict_and_top_documents(ring: dict[str, Any]) -> None:
    page = signed_in(ring["alice"]).get("/", {"q": ANSWERED, "folder": ring["folder"].pk})
    assert page.status_code == 200
    row = QuestionLog.objects.get()
    assert feedback_action(page.content) == f"/answers/{row.pk}/feedback"
    assert (row.endpoint, row.user, row.question, row.state) == ("page", ring["alice"], ANSWERED, "answered")
    assert (row.folder, row.folder_name, row.filters) == (
        ring["folder"],
        "Ring notes",
        {"filters": [["folder", str(ring["folder"].pk)]]},
    )
    assert row.top_documents == [{"id": ring["document"].pk, "title": "Hashing ring"}]
    assert row.writer == "extractive"
    assert row.latency_ms > 0
    assert row.asker_session == ""  # signed in: the user is the proof of authorship


def test_api_answer_and_api_search_are_kept(ring: dict[str, Any]) -> None:
    body = ask_api(ring["alice"], CAVEAT)
    row = QuestionLog.objects.get(pk=body["id"])
    assert (row.endpoint, row.state, row.missing_terms, row.reasons) == (
        "api_answer", "caveat", ["emoji", "spreadsheets"], ["missing_terms"],
    )  # fmt: skip
    searched = Client().get("/api/search", {"q": REFUSED, "k": 3})  # anonymous, public folders
    assert searched.status_code == 200
    assert searched.json()["state"] == "refused"
    row = QuestionLog.objects.get(endpoint="api_search")
    assert (row.user, row.state, row.unknown_names) == (None, "refused", ["Zorblax"])
    listed = {item["document"]["id"] for item in searched.json()["items"]}
    assert {d["id"] for d in row.top_documents} == listed  # what the search listed, though it does not answer
    assert row.filters == {"filters": [], "k": 3, "mode": "hybrid"}


def test_question_log_off_keeps_nothing(ring: dict[str, Any], settings: Any) -> None:
    settings.QUESTION_LOG = False
    anonymous = Client()
    page = anonymous.get("/", {"q": ANSWERED})
    assert page.status_code == 200
    assert b"feedback-form" not in page.content
    assert "sessionid" not in page.cookies  # not even a session to prove authorship with
    assert ask_api(ring["alice"], REFUSED)["id"] is None
    assert Client().get("/api/search", {"q": ANSWERED}).status_code == 200
    assert not QuestionLog.objects.exists()


def test_retention_deletes_rows_older_than_question_log_days(ring: dict[str, Any], settings: Any) -> None:
    settings.QUESTION_LOG_DAYS = 30
    for question in (ANSWERED, REFUSED, CAVEAT):
        ask_api(ring["alice"], question)
    old, older, recent = QuestionLog.objects.order_by("pk")
    now = timezone.now()
    QuestionLog.objects.filter(pk=old.pk).update(asked_at=now - timedelta(days=31))
    QuestionLog.objects.filter(pk=older.pk).update(asked_at=now - timedelta(days=400))
    QuestionLog.objects.filter(pk=recent.pk).update(asked_at=now - timedelta(days=29))
    schedule = {entry["task"] for entry in django_settings.CELERY_BEAT_SCHEDULE.values()}
    assert question_log_prune_task.name in schedule  # beat runs it
    assert question_log_prune_task() == 2
    assert list(QuestionLog.objects.values_list("pk", flat=True)) == [recent.pk]


def test_deleting_a_user_keeps_their_questions_anonymised(ring: dict[str, Any]) -> None:
    ask_api(ring["bob"], ANSWERED)
    ring["bob"].delete()
    row = QuestionLog.objects.get()
    assert (row.user, row.question) == (None, ANSWERED)


def test_a_failed_write_is_logged_and_the_answer_still_returns(
    ring: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """Another session holds the log's table locked: the write gives up after its short lock
    timeout, the reader gets the answer (without a feedback form), and the loss is logged."""
    with psycopg.connect(database_url_of_this_run()) as locker:
        locker.execute("LOCK TABLE citations_questionlog IN ACCESS EXCLUSIVE MODE")
        with caplog.at_level(logging.ERROR, logger="citations.services.question_log"):
            page = signed_in(ring["alice"]).get("/", {"q": ANSWERED})
            answer = ask_api(ring["alice"], ANSWERED)
        locker.rollback()
    assert page.status_code == 200
    assert b'id="answer-text"' in page.content
    assert b"feedback-form" not in page.content
    assert answer["state"] == "answered"
    assert answer["citations"]
    assert answer["id"] is None
    failures = [r for r in caplog.records if "could not keep a question" in r.getMessage()]
    assert len(failures) == 2
    assert "lock timeout" in str(failures[0].exc_info[1])
    assert not QuestionLog.objects.exists()
    ask_api(ring["alice"], ANSWERED)  # the lock gone, questions are kept again
    assert QuestionLog.objects.count() == 1


# --- feedback ----------------------------------------------------------------------------------


def test_feedback_on_the_page_without_javascript(ring: dict[str, Any]) -> None:
    alice = signed_in(ring["alice"])
    action = feedback_action(alice.get("/", {"q": ANSWERED}).content)
    thanks = alice.post(action, {"helpful": "no", "comment": "  It does not say how many nodes.  "})
    assert thanks.status_code == 200
    assert b"Your feedback was recorded" in thanks.content
    row = QuestionLog.objects.get()
    assert (row.feedback, row.feedback_comment) == ("not_helpful", "It does not say how many nodes.")
    assert row.feedback_at is not None
    changed = alice.post(action, {"helpful": "yes"}, HTTP_ACCEPT="application/json")  # as feedback.js sends it
    assert changed.json() == {"id": row.pk, "feedback": "helpful"}
    unclear = alice.post(action, {"comment": "no verdict"})
    assert unclear.status_code == 400
    assert "Choose" in unclear.content.decode()
    row.refresh_from_db()
    assert (row.feedback, row.feedback_comment) == ("helpful", "")


def test_only_the_asker_may_give_feedback(ring: dict[str, Any]) -> None:
    answer_id = ask_api(ring["alice"], ANSWERED)["id"]
    action, missing = f"/answers/{answer_id}/feedback", f"/answers/{answer_id + 1000}/feedback"
    for client in (signed_in(ring["bob"]), Client(), signed_in(StaffFactory(username="boss"))):
        refused, absent = client.post(action, {"helpful": "no"}), client.post(missing, {"helpful": "no"})
        assert refused.status_code == absent.status_code == 404
        assert refused.content == absent.content
        assert ANSWERED.encode() not in refused.content
    api = f"/api/answers/{answer_id}/feedback"
    bob = Client().post(api, json.dumps({"helpful": False}), content_type="application/json", **bearer(ring["bob"]))
    assert bob.status_code == 404
    assert bob.json()["detail"] == f"Answer {answer_id} does not exist or is not yours."
    assert QuestionLog.objects.get().feedback == ""
    payload = json.dumps({"helpful": False, "comment": "Wrong ring."})
    alice = Client().post(api, payload, content_type="application/json", **bearer(ring["alice"]))
    assert alice.status_code == 200
    assert alice.json() == {"id": answer_id, "feedback": "not_helpful", "comment": "Wrong ring."}
    too_long = json.dumps({"helpful": True, "comment": "x" * 2001})
    rejected = Client().post(api, too_long, content_type="application/json", **bearer(ring["alice"]))
    assert rejected.status_code == 422
    assert QuestionLog.objects.get().feedback_comment == "Wrong ring."


def test_an_anonymous_asker_judges_answers_from_the_same_session_only(ring: dict[str, Any]) -> None:
    reader = Client()
    action = feedback_action(reader.get("/", {"q": ANSWERED}).content)
    row = QuestionLog.objects.get()
    assert row.user is None
    assert len(row.asker_session) == 64
    assert Client().post(action, {"helpful": "yes"}).status_code == 404  # another browser
    assert reader.post(action, {"helpful": "yes"}).status_code == 200
    row.refresh_from_db()
    assert row.feedback == "helpful"


# --- staff views -------------------------------------------------------------------------------


def log_reader(username: str, *, texts: bool) -> Any:
    """Staff holding the log's view permission (and the texts' permission if `texts`), not superuser."""
    user = UserFactory(username=username, is_staff=True)
    codenames = ["view_questionlog", *(["view_question_text"] if texts else [])]
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="citations", codename__in=codenames))
    return user


def test_the_gaps_report_groups_refused_and_caveated_questions(ring: dict[str, Any]) -> None:
    for user, question in ((ring["alice"], REFUSED), (ring["bob"], REFUSED), (ring["bob"], CAVEAT)):
        ask_api(user, question)
    ask_api(ring["alice"], ANSWERED)
    ask_api(ring["alice"], REFUSED, folder=ring["folder"].pk)
    report = signed_in(log_reader("librarian", texts=True)).get("/admin/citations/questionlog/gaps/")
    assert report.status_code == 200
    html = report.content.decode()
    by_term = html[html.index('id="gaps-by-term"') : html.index('id="gaps-by-folder"')]
    rows = re.findall(r'class="gap-term">([^<]+)</th><td class="gap-count">(\d+)</td>', by_term)
    assert rows == [("Zorblax", "3"), ("emoji", "1"), ("spreadsheets", "1")]
    assert REFUSED in by_term
    assert CAVEAT in by_term
    assert ANSWERED not in html
    by_folder = html[html.index('id="gaps-by-folder"') :]
    assert re.findall(r'class="gap-folder">([^<]+)</th><td class="gap-count">(\d+)</td>', by_folder) == [
        ("All folders", "3"), ("Ring notes", "1"),
    ]  # fmt: skip
    # Staff without the texts' permission see the same counts, and no question.
    hidden = signed_in(log_reader("counter", texts=False)).get("/admin/citations/questionlog/gaps/").content.decode()
    assert 'class="gap-term">Zorblax</th><td class="gap-count">3</td>' in hidden
    assert REFUSED not in hidden
    assert "Question #" in hidden
    listing = signed_in(log_reader("counter", texts=False)).get("/admin/citations/questionlog/").content.decode()
    assert REFUSED not in listing
    assert "(hidden)" in listing


def test_the_log_filters_and_its_csv(ring: dict[str, Any]) -> None:
    answer_id = ask_api(ring["alice"], ANSWERED)["id"]
    ask_api(ring["bob"], '=HYPERLINK("http://evil") Zorblax ring?')
    Client().post(f"/api/answers/{answer_id}/feedback", json.dumps({"helpful": False, "comment": "Too short."}),
                  content_type="application/json", **bearer(ring["alice"]))  # fmt: skip
    staff = signed_in(log_reader("librarian", texts=True))
    refused = staff.get("/admin/citations/questionlog/", {"state": "refused"}).content.decode()
    assert "HYPERLINK" in refused
    assert ANSWERED not in refused
    judged = staff.get("/admin/citations/questionlog/", {"feedback": "not_helpful"}).content.decode()
    assert ANSWERED in judged
    assert "HYPERLINK" not in judged
    exported = staff.get("/admin/citations/questionlog/export.csv", {"feedback": "not_helpful"})
    assert exported["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(b"".join(exported.streaming_content).decode())))
    assert [(r["question"], r["asker"], r["feedback"], r["feedback_comment"]) for r in rows] == [
        (ANSWERED, "alice", "not_helpful", "Too short."),
    ]  # fmt: skip
    assert rows[0]["top_documents"] == f"{ring['document'].pk}: Hashing ring"
    everything = staff.get("/admin/citations/questionlog/export.csv")
    questions = [r["question"] for r in csv.DictReader(io.StringIO(b"".join(everything.streaming_content).decode()))]
    assert '\'=HYPERLINK("http://evil") Zorblax ring?' in questions  # a spreadsheet shows it, never runs it
    blind = signed_in(log_reader("counter", texts=False)).get("/admin/citations/questionlog/export.csv")
    blind_rows = list(csv.DictReader(io.StringIO(b"".join(blind.streaming_content).decode())))
    assert len(blind_rows) == 2
    assert {r["question"] for r in blind_rows} == {""}
    assert {r["feedback_comment"] for r in blind_rows} == {""}
    per_document = staff.get("/admin/citations/questionlog/not-helpful/").content.decode()
    assert re.search(r"Hashing ring</a>.*?class=\"not-helpful-count\">1<", per_document, re.S)
