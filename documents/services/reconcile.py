"""Recovering documents left behind by a crashed worker or a lost queue message."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from documents.models import PROCESSING_STATUSES, Document, DocumentStatus
from documents.services.queueing import document_enqueue

logger = logging.getLogger(__name__)


def _stuck_filter(timeout_seconds: int | None) -> dict[str, object]:
    timeout = timeout_seconds if timeout_seconds is not None else settings.INGEST_STUCK_TIMEOUT_SECONDS
    cutoff = timezone.now() - timedelta(seconds=timeout)
    return {"status__in": [*PROCESSING_STATUSES, DocumentStatus.QUEUED], "status_changed_at__lt": cutoff}


def stuck_documents(timeout_seconds: int | None = None) -> list[Document]:
    return list(Document.objects.filter(**_stuck_filter(timeout_seconds)).only("pk", "attempts"))


def documents_reconcile(timeout_seconds: int | None = None) -> dict[str, int]:
    """Re-queue stuck documents up to INGEST_MAX_ATTEMPTS, then fail them with a reason."""
    requeued = failed = 0
    max_attempts = settings.INGEST_MAX_ATTEMPTS
    stuck = _stuck_filter(timeout_seconds)
    for document_id in list(Document.objects.filter(**stuck).values_list("pk", flat=True)):
        with transaction.atomic():
            # Re-read under a lock: a worker may have finished (or moved) it since the list was made.
            document = Document.objects.select_for_update().filter(pk=document_id, **stuck).first()
            if document is None:
                continue
            if document.attempts >= max_attempts:
                Document.objects.filter(pk=document.pk).update(
                    status=DocumentStatus.FAILED,
                    status_changed_at=timezone.now(),
                    failure_reason=(
                        f"Processing was interrupted {document.attempts} times (a worker stopped or crashed "
                        f"while working on it), so it was given up after {max_attempts} attempts. "
                        "Retry it; if it keeps failing, the file may be too large or malformed."
                    ),
                )
                failed += 1
            else:
                Document.objects.filter(pk=document.pk).update(
                    status=DocumentStatus.QUEUED, status_changed_at=timezone.now()
                )
                document_enqueue(document)
                requeued += 1
    if requeued or failed:
        logger.warning("reconcile: re-queued %d stuck documents, failed %d", requeued, failed)
    return {"requeued": requeued, "failed": failed}
