"""Putting documents on the ingest queue, always after the surrounding transaction commits."""

from __future__ import annotations

import logging
from collections.abc import Collection
from functools import partial

from django.db import transaction
from django.db.models import QuerySet
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from documents.models import Document, DocumentStatus
from documents.services.status import documents_transition
from documents.tasks import document_ingest_task

logger = logging.getLogger(__name__)

# What a publish raises when the broker is down or paused: kombu's OperationalError once its
# retries are spent, or the client's own errors and timeouts.
BROKER_DOWN_ERRORS: tuple[type[BaseException], ...] = (KombuOperationalError, RedisError, OSError)


def document_enqueue(document: Document) -> None:
    """Queue ingestion once the row is committed, so a worker never sees a missing document.

    A broker that is down or paused does not fail the upload that is already stored: the
    document stays `queued` and reconcile sends it once the broker is back
    (documents/services/reconcile.py, messages lost)."""
    document_id = document.pk
    transaction.on_commit(partial(_send_ingest, document_id))


def _send_ingest(document_id: int) -> None:
    try:
        document_ingest_task.delay(document_id)
    except BROKER_DOWN_ERRORS as exc:
        logger.warning(
            "document %s stays queued: the broker is unreachable (%s: %s)", document_id, type(exc).__name__, exc
        )


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
