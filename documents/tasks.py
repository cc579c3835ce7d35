"""Celery tasks: thin, idempotent wrappers that take ids and call services."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from documents.services import ingest, reconcile

logger = logging.getLogger(__name__)

MAX_TRANSIENT_RETRIES = 4


@shared_task(bind=True, acks_late=True, max_retries=MAX_TRANSIENT_RETRIES)
def document_ingest(self: Any, document_id: int) -> str | None:
    try:
        document = ingest.document_ingest(document_id, skip_finished=True)
    except ingest.TRANSIENT_ERRORS as exc:
        if self.request.retries >= MAX_TRANSIENT_RETRIES:
            ingest.document_fail(
                document_id,
                f"Gave up after {MAX_TRANSIENT_RETRIES + 1} tries because a service was unavailable ({exc}). "
                "Retry it once the database and storage are reachable.",
            )
            return None
        raise self.retry(exc=exc, countdown=min(300, 5 * 2**self.request.retries)) from exc
    return document.status if document else None


@shared_task
def documents_reconcile() -> dict[str, int]:
    """Periodic (beat): re-queue documents stuck in a processing status, or fail them for good."""
    return reconcile.documents_reconcile()
