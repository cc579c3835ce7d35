"""Exports carry webhook endpoints (secrets included, the manifest naming their table as secret-
bearing) and the question log with the readers' feedback; an import into an empty library gives
them back, and an import without --restore-privileges ends by saying how to create an administrator."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from citations.models import Endpoint, Feedback, QuestionLog
from documents.models import Document, WebhookEndpoint
from documents.services.backup_format import MANIFEST_NAME
from search.services.gate import AnswerState
from tests.conftest import ingest_text
from tests.documents.backup_library import library_wipe
from tests.factories import FolderFactory, StaffFactory

pytestmark = pytest.mark.slow

ASKED = dt.datetime(2026, 11, 2, 9, 30, tzinfo=dt.UTC)


@pytest.fixture
def library(transactional_db: None, memoised_pipeline: None, backup_media: Path, tmp_path: Path) -> dict[str, Any]:
    library_wipe(backup_media)
    WebhookEndpoint.objects.all().delete()
    QuestionLog.objects.all().delete()
    folder = FolderFactory(name="Runbooks", is_public=True)
    document = ingest_text(tmp_path, folder, "Queue runbook", "Restart the worker when the queue stalls.")
    asker = StaffFactory(username="librarian")
    endpoint = WebhookEndpoint.objects.create(name="CI", url="https://ci.example/hook", events=["document.indexed"])
    endpoint.folders.set([folder.pk])
    top = [{"id": document.pk, "title": "Queue runbook"}]
    QuestionLog.objects.create(
        user=asker, endpoint=Endpoint.PAGE, question="How do I restart the worker?", folder=folder,
        folder_name="Runbooks", state=AnswerState.ANSWERED, top_documents=top, feedback=Feedback.NOT_HELPFUL,
        feedback_comment="We need Kafka docs", feedback_at=ASKED, asked_at=ASKED,
    )  # fmt: skip
    QuestionLog.objects.create(endpoint=Endpoint.API_SEARCH, question="kafka retention", state=AnswerState.REFUSED)
    return {"endpoint": endpoint, "document": document, "folder": folder}


def test_export_then_import_into_an_empty_library_gives_back_webhooks_and_the_question_log(
    library: dict[str, Any], backup_media: Path, tmp_path: Path
) -> None:
    endpoint = library["endpoint"]
    before = list(QuestionLog.objects.order_by("asked_at", "pk").values("question", "feedback", "feedback_comment"))
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)
    manifest = json.loads((export / MANIFEST_NAME).read_text())
    assert manifest["secret_bearing_tables"] == ["webhook_endpoints"]
    assert (manifest["counts"]["webhook_endpoints"], manifest["counts"]["question_log"]) == (1, 2)
    assert endpoint.secret in (export / "webhook_endpoints.jsonl").read_text()

    library_wipe(backup_media)
    WebhookEndpoint.objects.all().delete()
    QuestionLog.objects.all().delete()
    out = io.StringIO()
    call_command("library_import", str(export), "--inline", verbosity=0, stdout=out)

    restored = WebhookEndpoint.objects.get()
    assert (restored.name, restored.url, restored.events, restored.secret) == (
        "CI", "https://ci.example/hook", ["document.indexed"], endpoint.secret,
    )  # fmt: skip
    assert restored.created_at == endpoint.created_at
    assert [f.name for f in restored.folders.all()] == ["Runbooks"]
    after = list(QuestionLog.objects.order_by("asked_at", "pk").values("question", "feedback", "feedback_comment"))
    assert after == before
    asked = QuestionLog.objects.get(question="How do I restart the worker?")
    assert (asked.user.username, asked.folder.name, asked.asked_at, asked.feedback_at) == (
        "librarian", "Runbooks", ASKED, ASKED,
    )  # fmt: skip
    document = Document.objects.get(title="Queue runbook")
    assert asked.top_documents == [{"id": document.pk, "title": "Queue runbook"}]
    lines = out.getvalue().strip().splitlines()
    assert "1 webhook endpoints" in out.getvalue()
    assert "2 question log" in out.getvalue()
    assert "createsuperuser" in lines[-1]  # the import's last word: how to get an administrator
