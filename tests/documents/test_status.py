"""The one guarded status writer: its table of moves, counters as expressions, rows changed checked."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F

from documents.models import Chunk, Document, DocumentStatus
from documents.services import ingest
from documents.services.status import ALLOWED_TRANSITIONS, document_transition, documents_transition
from tests.factories import DocumentFactory

S = DocumentStatus


@pytest.mark.parametrize(
    ("start", "to"),
    [
        (S.QUEUED, S.EXTRACTING),
        (S.EXTRACTING, S.CHUNKING),
        (S.CHUNKING, S.EMBEDDING),
        (S.EMBEDDING, S.INDEXED),
        (S.EMBEDDING, S.FAILED),
        (S.QUEUED, S.FAILED),
        (S.INDEXED, S.QUEUED),
        (S.FAILED, S.QUEUED),
        (S.INDEXED, S.EXTRACTING),  # the `reindex` command runs an indexed document in place
    ],
)
def test_allowed_moves_happen(db: Any, start: DocumentStatus, to: DocumentStatus) -> None:
    document = DocumentFactory(status=start)
    assert document_transition(document.pk, to=to) is True
    document.refresh_from_db()
    assert document.status == to


@pytest.mark.parametrize(
    ("start", "to"),
    [
        (S.INDEXED, S.FAILED),  # a late failure never overwrites a finished run
        (S.FAILED, S.INDEXED),
        (S.QUEUED, S.INDEXED),
        (S.QUEUED, S.CHUNKING),
        (S.EXTRACTING, S.EMBEDDING),
        (S.INDEXED, S.CHUNKING),
    ],
)
def test_refused_moves_change_nothing(db: Any, start: DocumentStatus, to: DocumentStatus) -> None:
    document = DocumentFactory(status=start, failure_reason="before")
    changed_at = Document.objects.get(pk=document.pk).status_changed_at
    assert document_transition(document.pk, to=to, failure_reason="after") is False
    after = Document.objects.get(pk=document.pk)
    assert (after.status, after.failure_reason, after.status_changed_at) == (start, "before", changed_at)


def test_the_table_names_every_status_and_only_statuses() -> None:
    assert set(ALLOWED_TRANSITIONS) == set(S)
    assert all(sources <= set(S) for sources in ALLOWED_TRANSITIONS.values())


def test_asking_for_a_move_the_table_forbids_is_a_programming_error(db: Any) -> None:
    document = DocumentFactory(status=S.INDEXED)
    with pytest.raises(ValueError, match="may not move"):
        document_transition(document.pk, to=S.FAILED, from_={S.INDEXED})
    assert Document.objects.get(pk=document.pk).status == S.INDEXED


def test_a_narrower_from_set_is_the_callers_expectation(db: Any) -> None:
    document = DocumentFactory(status=S.INDEXED)
    # Allowed by the table (EXTRACTING from anything), but not what a queue message expects.
    assert document_transition(document.pk, to=S.EXTRACTING, from_={S.QUEUED}) is False
    assert Document.objects.get(pk=document.pk).status == S.INDEXED


def test_a_deleted_document_is_reported_not_written(db: Any) -> None:
    document = DocumentFactory(status=S.EXTRACTING)
    Document.objects.filter(pk=document.pk).delete()
    assert document_transition(document.pk, to=S.CHUNKING) is False


def test_counters_are_computed_by_the_database_not_from_a_stale_read(db: Any) -> None:
    document = DocumentFactory(status=S.QUEUED, attempts=1)
    stale = Document.objects.get(pk=document.pk)
    Document.objects.filter(pk=document.pk).update(attempts=4)  # another run counted meanwhile
    ingest_attempt = {"attempts": F("attempts") + 1}
    assert document_transition(stale.pk, to=S.EXTRACTING, **ingest_attempt) is True
    assert Document.objects.get(pk=document.pk).attempts == 5


def test_many_at_once_returns_only_the_ids_that_moved(db: Any) -> None:
    failed = DocumentFactory(status=S.FAILED)
    indexed = DocumentFactory(status=S.INDEXED)
    gone = DocumentFactory(status=S.FAILED)
    Document.objects.filter(pk=gone.pk).delete()
    moved = documents_transition([failed.pk, indexed.pk, gone.pk], to=S.QUEUED, from_={S.FAILED})
    assert moved == [failed.pk]
    assert Document.objects.get(pk=indexed.pk).status == S.INDEXED


def test_a_run_whose_document_was_requeued_meanwhile_stops_without_storing(
    db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = DocumentFactory(text="A note about reconcile re-queueing a slow document.")
    extract = ingest._extract

    def requeued_during_extraction(path: Any, doc: Document, report: Any) -> Any:
        # Reconcile (or an admin's re-index) moves it while this run is still extracting.
        document_transition(doc.pk, to=S.QUEUED)
        return extract(path, doc, report)

    monkeypatch.setattr(ingest, "_extract", requeued_during_extraction)
    finished = ingest.document_ingest(document.pk, skip_finished=True)
    assert finished is not None
    assert (finished.status, finished.attempts, finished.failure_reason) == (S.QUEUED, 1, "")
    assert not Chunk.objects.filter(document_id=document.pk).exists()
