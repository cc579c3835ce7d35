"""Celery tasks: thin, idempotent wrappers that take ids and call services.

The tasks are named `*_task` so that they are never confused with the services they call;
their Celery names stay the module paths they had (messages already queued, and the beat
schedule in settings, name them so).
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from celery import shared_task
from celery.signals import worker_process_init
from django.conf import settings
from django.db import transaction

from documents.file_storage.local import orphaned_copies_sweep
from documents.services import ingest, reconcile
from documents.webhooks.tasks import webhook_deliver_task, webhook_deliveries_sweep_task

# Celery discovers an app's tasks in its tasks.py: the webhook ones are defined beside their service.
__all__ = [
    "document_ingest_task",
    "documents_reconcile_task",
    "retry_countdown",
    "webhook_deliver_task",
    "webhook_deliveries_sweep_task",
]

logger = logging.getLogger(__name__)

MAX_TRANSIENT_RETRIES = 4


@worker_process_init.connect
def _sweep_orphaned_copies(**_: Any) -> None:
    """A worker process killed while it read an original left its local copy behind."""
    removed = orphaned_copies_sweep()
    if removed:
        logger.info("removed %d temporary copies of originals left by stopped processes", len(removed))


# acks_on_timeout=False: a run killed by Celery's hard time limit goes back to the queue like
# one killed by the kernel (reject_on_worker_lost), and comes back redelivered, to be retried or
# given up on at once, rather than waiting for reconcile. (celery-types predates that option.)
@shared_task(  # type: ignore[call-overload]
    name="documents.tasks.document_ingest",
    bind=True,
    acks_late=True,
    acks_on_timeout=False,
    max_retries=MAX_TRANSIENT_RETRIES,
)
def document_ingest_task(self: Any, document_id: int) -> str | None:
    redelivered = bool((self.request.delivery_info or {}).get("redelivered"))
    try:
        document = ingest.document_ingest(
            document_id, skip_finished=True, redelivered=redelivered, message_id=self.request.id or ""
        )
    except ingest.TRANSIENT_ERRORS as exc:
        if self.request.retries >= MAX_TRANSIENT_RETRIES:
            ingest.document_fail(
                document_id,
                f"Gave up after {MAX_TRANSIENT_RETRIES + 1} tries because a service was unavailable ({exc}). "
                "Retry it once the database and storage are reachable.",
            )
            return None
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
    return document.status if document else None


def retry_countdown(retries: int) -> int:
    """Seconds before the next try after a transient error: 5, 10, 20 … at most 300, and at most
    half the broker's visibility timeout. A message waiting out its countdown is held by its
    worker unacknowledged, so a longer wait would have Redis hand it to a second worker."""
    return min(300, 5 * 2**retries, settings.BROKER_VISIBILITY_TIMEOUT_SECONDS // 2)


@shared_task(name="documents.tasks.documents_reconcile")
def documents_reconcile_task(timeout_seconds: int | None = None) -> dict[str, int]:
    """Periodic (beat): re-queue documents stuck in a processing status, or fail them for good."""
    outcome = reconcile.documents_reconcile(timeout_seconds, queue_empty=broker_queue_empty())
    for document_id in outcome.requeue:
        transaction.on_commit(partial(document_ingest_task.delay, document_id))
    return {"requeued": len(outcome.requeue), "failed": len(outcome.failed)}


def broker_queue_empty() -> bool:
    """Whether the broker's task queue holds no message now (False when it cannot be asked).

    Redis drops an emptied list, so a queue that does not exist is empty too."""
    from celery import current_app

    try:
        with current_app.connection_for_write() as connection:
            channel: Any = connection.default_channel  # kombu types it as a base without queue_declare
            name = current_app.conf.task_default_queue
            try:
                return int(channel.queue_declare(queue=name, passive=True).message_count) == 0
            except connection.channel_errors:
                return True
    except Exception:
        logger.warning("reconcile: could not read the broker's queue length", exc_info=True)
        return False
