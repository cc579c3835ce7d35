"""Documents that outgrow their worker: out of memory, or killed with it time after time.

A run that runs out of memory and lives to tell it (a MemoryError, or torch's allocation error,
under INGEST_MEMORY_LIMIT_MB: ragsite/memory_limit.py) fails its document with
`out_of_memory_reason()`, and the process takes the next document. A run whose process is
killed outright (the kernel's OOM killer, Celery's hard time limit) ends in no status at all:
the document stays in its processing status with the attempt counted (documents.services.ingest
counts it before the work). It comes back two ways: the broker redelivers the message
(acks_late, reject_on_worker_lost and, for the ingest task, no ack on a time-out: to the end of
the queue), or reconcile re-queues it (documents/services/reconcile.py). Either way, once
INGEST_MAX_ATTEMPTS attempts are spent, it is failed with `killed_reason`, instead of holding a
worker for yet another attempt.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from documents.models import PROCESSING_STATUSES, Document, DocumentStatus, OcrPage
from documents.services.status import document_transition
from ragsite.memory_limit import current_limit_mb


def out_of_memory_reason() -> str:
    limit_mb = current_limit_mb()
    if limit_mb is None:
        cause = "the server had no memory left for it"
        remedy = "retry it when the server is less busy"
    else:
        cause = f"it needs more than a worker may use ({limit_mb:,} MB, INGEST_MEMORY_LIMIT_MB)"
        remedy = "raise the limit and retry it"
    return f"Processing ran out of memory: {cause}. Split the file into smaller ones and upload those, or {remedy}."


def model_out_of_memory_reason() -> str:
    """When the worker cannot load the embedding model within its limit: the setting is the cause."""
    limit_mb = current_limit_mb()
    if limit_mb is None:
        cause = "the server had no memory left for it. Retry it when the server is less busy."
    else:
        cause = (
            f"its limit ({limit_mb:,} MB, INGEST_MEMORY_LIMIT_MB) is too low for the model, which needs "
            "~0.75 GB. Raise the limit, restart the workers and retry it."
        )
    return f"The worker ran out of memory loading the embedding model, before reading this document: {cause}"


def attempts_spent(attempts: int) -> bool:
    return attempts >= settings.INGEST_MAX_ATTEMPTS


def killed_reason(attempts: int) -> str:
    """Why a document whose runs kept dying is given up on (the task and reconcile alike)."""
    times = "once" if attempts == 1 else f"{attempts} times"
    tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
    return (
        f"Processing was stopped {times} because its worker was killed while working on it, "
        "most likely for running out of memory (or for running past the time limit), so it was given up "
        f"after {tries} (INGEST_MAX_ATTEMPTS is {settings.INGEST_MAX_ATTEMPTS}). "
        "Split the file into smaller ones and upload those, or retry it once the workers have more memory."
    )


def not_held_by_another_run(message_id: str) -> Q:
    """Documents that no run of another queue message is processing (documents.services.ingest)."""
    return ~Q(status__in=PROCESSING_STATUSES) | Q(run_id__in=["", message_id])


def document_give_up_if_killed(document_id: int, *, message_id: str = "") -> bool:
    """Fail a document a dead run left in a processing status once its attempts are spent.

    For a redelivered queue message: its document still processing under this message's run
    (`message_id`; any run when not given) means that run died with its process. True when the
    document was failed (the caller stops); False when it has attempts left, or is not
    mid-processing by this message (finished, deleted, re-queued meanwhile, another message's run).
    """
    with transaction.atomic():
        attempts = (
            Document.objects.select_for_update()
            .filter(not_held_by_another_run(message_id) if message_id else Q(), pk=document_id)
            .filter(status__in=PROCESSING_STATUSES)
            .values_list("attempts", flat=True)
            .first()
        )
        if attempts is None or not attempts_spent(attempts):
            return False
        failed = document_transition(
            document_id,
            to=DocumentStatus.FAILED,
            from_=PROCESSING_STATUSES,
            failure_reason=killed_reason(attempts),
            warnings=[],
        )
        # As documents.services.ingest.document_fail does: a failed document lists no OCR'd pages.
        OcrPage.objects.filter(document_id=document_id).delete()
        return failed
