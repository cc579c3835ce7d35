"""Every change of a document's status goes through here: one table of allowed moves, one guarded write.

A status is written with a conditional UPDATE (`WHERE status IN from_`), so a writer whose
view of the document is out of date changes nothing instead of overwriting a newer state:
a worker still busy with a document that reconcile re-queued, or that was deleted, or that
another worker finished. The caller learns it from the return value (0 rows changed).
Counters are passed as expressions (`attempts=F("attempts") + 1`), never as a value read earlier.
Every move clears the progress a run recorded within its stage (services/progress.py): a new
stage reports its own, and an indexed, failed or re-queued document shows none.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from documents.models import PROCESSING_STATUSES, Document, DocumentStatus
from documents.services.progress import PROGRESS_CLEARED
from documents.webhooks.events import EVENT_FOR_STATUS, document_status_event

logger = logging.getLogger(__name__)

S = DocumentStatus
ALL_STATUSES = frozenset(S)

# to -> the statuses a document may be in for the move to happen.
ALLOWED_TRANSITIONS: dict[DocumentStatus, frozenset[DocumentStatus]] = {
    # Re-indexing, retrying and reconcile's re-queue start over from any state.
    S.QUEUED: ALL_STATUSES,
    # A queued document starts; a crashed run restarts (redelivered message); the `ingest` and
    # `reindex` commands run an indexed or failed document again in place, without queueing it.
    S.EXTRACTING: ALL_STATUSES,
    S.CHUNKING: frozenset({S.EXTRACTING}),
    S.EMBEDDING: frozenset({S.CHUNKING}),
    S.INDEXED: frozenset({S.EMBEDDING}),
    # A run fails from any stage (or before its first, on the queue); a finished document never
    # becomes failed behind the back of the run that finished it.
    S.FAILED: frozenset({S.QUEUED, *PROCESSING_STATUSES}),
}

UNFINISHED_STATUSES = frozenset({S.QUEUED, *PROCESSING_STATUSES})


def _allowed_from(to: DocumentStatus, from_: Collection[DocumentStatus] | None) -> frozenset[DocumentStatus]:
    allowed = ALLOWED_TRANSITIONS[to]
    if from_ is None:
        return allowed
    refused = set(from_) - allowed
    if refused:
        # A programming error, not a race: the caller asked for a move the table forbids.
        raise ValueError(f"a document may not move from {sorted(refused)} to {to!r}")
    return frozenset(from_)


def document_transition(
    document_id: int,
    *,
    to: DocumentStatus,
    from_: Collection[DocumentStatus] | None = None,
    where: Q | None = None,
    **fields: object,
) -> bool:
    """Move one document to `to` (writing `fields` with it) if its status is in `from_`.

    `from_` defaults to every status the table allows; a narrower set says what this caller
    expects, and `where` adds a condition on the row, checked in the same UPDATE. Returns False,
    changing nothing, when the document is gone or elsewhere.
    """
    allowed = _allowed_from(to, from_)
    # A move that has a webhook event (indexed, failed) records its deliveries in the same
    # transaction: both happen, or neither.
    with transaction.atomic():
        changed = Document.objects.filter(where or Q(), pk=document_id, status__in=allowed).update(
            status=to, status_changed_at=timezone.now(), **{**PROGRESS_CLEARED, **fields}
        )
        if changed and to in EVENT_FOR_STATUS:
            document_status_event(document_id, to)
    if not changed:
        logger.info("document %s was not moved to %s: deleted, or no longer %s", document_id, to, sorted(allowed))
    return bool(changed)


def documents_transition(
    document_ids: Iterable[int],
    *,
    to: DocumentStatus,
    from_: Collection[DocumentStatus] | None = None,
    **fields: object,
) -> list[int]:
    """Move many documents at once; returns the ids that moved (the others are gone or elsewhere)."""
    allowed = _allowed_from(to, from_)
    with transaction.atomic():
        moved = list(
            Document.objects.select_for_update()
            .filter(pk__in=list(document_ids), status__in=allowed)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        Document.objects.filter(pk__in=moved).update(
            status=to, status_changed_at=timezone.now(), **{**PROGRESS_CLEARED, **fields}
        )
        if to in EVENT_FOR_STATUS:
            for document_id in moved:
                document_status_event(document_id, to)
    return moved
