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
from django.db.models import Q
from django.utils import timezone

from documents.models import PROCESSING_STATUSES, Document, DocumentStatus
from documents.services.status import UNFINISHED_STATUSES, document_transition
from documents.services.worker_failures import attempts_spent, killed_reason

logger = logging.getLogger(__name__)


@dataclass
class Reconciled:
    requeue: list[int] = field(default_factory=list)  # marked queued: the caller queues them
    failed: list[int] = field(default_factory=list)  # given up on, with a reason


def processing_timeout_seconds() -> int:
    """How long a document may stay in one processing status before it counts as stuck.

    A live run can stay that long in one status: a 300-page scan spends ~25 minutes in
    `extracting` (OCR). Re-queueing it then would start a second run beside the live one (which
    the status guard then stops) and count an attempt it did not lose; so a processing document
    is stuck only once no run can still be alive, past Celery's hard limit
    (CELERY_TASK_TIME_LIMIT: INGEST_TIME_LIMIT_SECONDS + INGEST_HARD_LIMIT_GRACE_SECONDS) plus a minute's grace.
    A `queued` document (a lost message) needs no such wait.
    """
    return max(settings.INGEST_STUCK_TIMEOUT_SECONDS, settings.CELERY_TASK_TIME_LIMIT + 60)


# A document queued this long while the broker's queue holds no message has lost its message (its
# upload was stored while the broker was down, or a broker restarted without its data): a message
# a worker takes starts its document, the move to `extracting`, within seconds.
MESSAGE_LOST_AFTER_SECONDS = 30


def _stuck_filter(timeout_seconds: int | None, *, queue_empty: bool = False) -> Q:
    """Unfinished documents whose status has not changed for too long. An explicit
    `timeout_seconds` (an operator who knows no worker is running) applies to every status.
    `queue_empty` (the broker holds no message now) shortens a queued document's wait to
    `MESSAGE_LOST_AFTER_SECONDS`: no message is on its way to it."""
    now = timezone.now()
    if timeout_seconds is not None:
        return Q(status__in=sorted(UNFINISHED_STATUSES), status_changed_at__lt=now - timedelta(seconds=timeout_seconds))
    queued_wait = MESSAGE_LOST_AFTER_SECONDS if queue_empty else settings.INGEST_STUCK_TIMEOUT_SECONDS
    queued_cutoff = now - timedelta(seconds=queued_wait)
    processing_cutoff = now - timedelta(seconds=processing_timeout_seconds())
    return Q(status=DocumentStatus.QUEUED, status_changed_at__lt=queued_cutoff) | Q(
        status__in=PROCESSING_STATUSES, status_changed_at__lt=processing_cutoff
    )


def documents_reconcile(timeout_seconds: int | None = None, *, queue_empty: bool = False) -> Reconciled:
    """Mark stuck documents queued again, up to INGEST_MAX_ATTEMPTS, then fail them with a reason.

    `queue_empty`: the caller found no message waiting in the broker, so a document queued for
    more than `MESSAGE_LOST_AFTER_SECONDS` is sent again."""
    outcome = Reconciled()
    stuck = _stuck_filter(timeout_seconds, queue_empty=queue_empty)
    for document_id in list(Document.objects.filter(stuck).values_list("pk", flat=True)):
        with transaction.atomic():
            # Re-read under a lock: a worker may have finished (or moved) it since the list was made.
            document = Document.objects.select_for_update().filter(stuck, pk=document_id).first()
            if document is None:
                continue
            if attempts_spent(document.attempts):
                # The same reason as a redelivered message's (documents/services/worker_failures.py).
                if document_transition(
                    document.pk, to=DocumentStatus.FAILED, failure_reason=killed_reason(document.attempts)
                ):
                    outcome.failed.append(document.pk)
            elif document_transition(document.pk, to=DocumentStatus.QUEUED, from_=UNFINISHED_STATUSES):
                outcome.requeue.append(document.pk)
    if outcome.requeue or outcome.failed:
        logger.warning("reconcile: re-queued %d stuck documents, failed %d", len(outcome.requeue), len(outcome.failed))
    return outcome
