"""Putting documents on the ingest queue, always after the surrounding transaction commits."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from documents.models import Document, DocumentStatus


def document_enqueue(document: Document) -> None:
    """Queue ingestion once the row is committed, so a worker never sees a missing document."""
    from documents.tasks import document_ingest

    document_id = document.pk
    transaction.on_commit(lambda: document_ingest.delay(document_id))


def documents_requeue(documents: QuerySet[Document], *, reset_attempts: bool = True) -> int:
    """Mark documents queued (clearing the failure) and queue each one; returns how many."""
    ids = list(documents.values_list("pk", flat=True))
    with transaction.atomic():
        fields: dict[str, object] = {
            "status": DocumentStatus.QUEUED,
            "failure_reason": "",
            "status_changed_at": timezone.now(),
        }
        if reset_attempts:
            fields["attempts"] = 0
        Document.objects.filter(pk__in=ids).update(**fields)
        for document_id in ids:
            document_enqueue(Document(pk=document_id))
    return len(ids)
