"""Recovering documents left behind by a crashed worker or a lost queue message.

It only decides and writes statuses: the caller (the periodic task) queues what it returns,
so this service never imports the tasks that import it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from documents.models import Document, DocumentStatus
from documents.services.status import UNFINISHED_STATUSES, document_transition

logger = logging.getLogger(__name__)


@dataclass
class Reconciled:
    requeue: list[int] = field(default_factory=list)  # marked queued: the caller queues them
    failed: list[int] = field(default_factory=list)  # given up on, with a reason


def _stuck_filter(timeout_seconds: int | None) -> dict[str, object]:
    timeout = timeout_seconds if timeout_seconds is not None else settings.INGEST_STUCK_TIMEOUT_SECONDS
    cutoff = timezone.now() - timedelta(seconds=timeout)
    return {"status__in": sorted(UNFINISHED_STATUSES), "status_changed_at__lt": cutoff}


def documents_reconcile(timeout_seconds: int | None = None) -> Reconciled:
    """Mark stuck documents queued again, up to INGEST_MAX_ATTEMPTS, then fail them with a reason."""
    outcome = Reconciled()
    stuck = _stuck_filter(timeout_seconds)
    for document_id in list(Document.objects.filter(**stuck).values_list("pk", flat=True)):
        with transaction.atomic():
            # Re-read under a lock: a worker may have finished (or moved) it since the list was made.
            document = Document.objects.select_for_update().filter(pk=document_id, **stuck).first()
            if document is None:
                continue
            if document.attempts >= settings.INGEST_MAX_ATTEMPTS:
                if document_transition(document.pk, to=DocumentStatus.FAILED, failure_reason=_given_up(document)):
                    outcome.failed.append(document.pk)
            elif document_transition(document.pk, to=DocumentStatus.QUEUED, from_=UNFINISHED_STATUSES):
                outcome.requeue.append(document.pk)
    if outcome.requeue or outcome.failed:
        logger.warning("reconcile: re-queued %d stuck documents, failed %d", len(outcome.requeue), len(outcome.failed))
    return outcome


def _given_up(document: Document) -> str:
    return (
        f"Processing was interrupted {document.attempts} times (a worker stopped or crashed "
        f"while working on it), so it was given up after {settings.INGEST_MAX_ATTEMPTS} attempts. "
        "Retry it; if it keeps failing, the file may be too large or malformed."
    )
