"""Putting documents on the ingest queue, always after the surrounding transaction commits."""

from __future__ import annotations

from collections.abc import Collection

from django.db import transaction
from django.db.models import QuerySet

from documents.models import Document, DocumentStatus
from documents.services.status import documents_transition
from documents.tasks import document_ingest_task


def document_enqueue(document: Document) -> None:
    """Queue ingestion once the row is committed, so a worker never sees a missing document."""
    document_id = document.pk
    transaction.on_commit(lambda: document_ingest_task.delay(document_id))


def documents_requeue(
    documents: QuerySet[Document],
    *,
    reset_attempts: bool = True,
    from_: Collection[DocumentStatus] | None = None,
) -> int:
    """Mark documents queued (clearing the failure) and queue each one; returns how many moved.

    `from_` narrows the statuses a document may be re-queued from (default: any).
    """
    ids = list(documents.values_list("pk", flat=True))
    fields: dict[str, object] = {"failure_reason": ""}
    if reset_attempts:
        fields["attempts"] = 0
    with transaction.atomic():
        moved = documents_transition(ids, to=DocumentStatus.QUEUED, from_=from_, **fields)
        for document_id in moved:
            document_enqueue(Document(pk=document_id))
    return len(moved)
