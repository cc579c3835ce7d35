"""Two queue messages for one document: the run that holds it is left alone.

They meet when the broker hands out a lost worker's message (its visibility timeout passed) while
reconcile had queued the document again, or when a worker died whole on one host and another
took its work. The document records the message whose run started it (Document.run_id); a
message of another run leaves it, a redelivered message of its own run (that run died) takes it
up again or gives it up (documents/services/ingest.py, worker_failures.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from documents.models import Chunk, Document, DocumentStatus
from documents.services.ingest import document_ingest
from documents.tasks import document_ingest_task
from tests.factories import DocumentFactory

TEXT = "Replication keeps copies of the data on several machines, so one lost machine loses nothing."


@pytest.fixture(autouse=True)
def _max_attempts(settings: Any) -> None:
    settings.INGEST_MAX_ATTEMPTS = 3


@pytest.mark.parametrize("redelivered", [True, False], ids=["redelivered", "fresh"])
@pytest.mark.parametrize("attempts", [1, 3], ids=["attempts-left", "attempts-spent"])
def test_a_message_leaves_a_document_another_messages_run_holds(db: None, redelivered: bool, attempts: int) -> None:
    document = DocumentFactory(status=DocumentStatus.EMBEDDING, attempts=attempts, run_id="live-run", text=TEXT)

    document_ingest(document.pk, skip_finished=True, redelivered=redelivered, message_id="other-message")

    held = Document.objects.get(pk=document.pk)
    # Neither restarted under the live run (which its store step would then refuse) nor given up.
    assert (held.status, held.attempts, held.run_id, held.failure_reason) == (
        DocumentStatus.EMBEDDING,
        attempts,
        "live-run",
        "",
    )
    assert not Chunk.objects.filter(document=document).exists()


def test_a_redelivered_message_takes_up_the_document_its_dead_run_left(db: None, memoised_pipeline: None) -> None:
    document = DocumentFactory(status=DocumentStatus.EMBEDDING, attempts=1, run_id="message-1", text=TEXT)

    document_ingest(document.pk, skip_finished=True, redelivered=True, message_id="message-1")

    again = Document.objects.get(pk=document.pk)
    assert (again.status, again.attempts, again.run_id) == (DocumentStatus.INDEXED, 2, "message-1")
    assert again.chunk_count == Chunk.objects.filter(document=document).count() == 1


def test_a_redelivered_message_gives_up_its_own_dead_run_once_attempts_are_spent(db: None) -> None:
    document = DocumentFactory(status=DocumentStatus.CHUNKING, attempts=3, run_id="message-1", text=TEXT)

    document_ingest(document.pk, skip_finished=True, redelivered=True, message_id="message-1")

    given_up = Document.objects.get(pk=document.pk)
    assert (given_up.status, given_up.attempts) == (DocumentStatus.FAILED, 3)
    assert given_up.failure_reason.startswith("Processing was stopped 3 times because its worker was killed")


def test_the_task_records_its_message_and_a_duplicate_leaves_the_run(db: None, memoised_pipeline: None) -> None:
    document = DocumentFactory(status=DocumentStatus.QUEUED, text=TEXT)

    assert document_ingest_task.apply(args=[document.pk], task_id="message-1").get() == DocumentStatus.INDEXED
    assert Document.objects.get(pk=document.pk).run_id == "message-1"

    # Reconcile queued it again and a run of that message holds it: the old message, delivered
    # again, changes nothing.
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.EXTRACTING, run_id="message-2")
    assert document_ingest_task.apply(args=[document.pk], task_id="message-1").get() == DocumentStatus.EXTRACTING
    held = Document.objects.get(pk=document.pk)
    assert (held.run_id, held.attempts) == ("message-2", 1)


def test_an_inline_run_takes_any_document(db: None, memoised_pipeline: None) -> None:
    """The `ingest --inline` and `reindex` commands run a document in place, whoever held it."""
    document = DocumentFactory(status=DocumentStatus.EMBEDDING, attempts=1, run_id="dead-run", text=TEXT)

    document_ingest(document.pk)

    done = Document.objects.get(pk=document.pk)
    assert (done.status, done.attempts, done.run_id) == (DocumentStatus.INDEXED, 2, "")
