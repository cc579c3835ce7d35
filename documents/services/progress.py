"""Recording a processing run's progress on its document: one guarded UPDATE per report.

The run reports through `documents/progress.py`'s throttle, so this writes a few times a second
at most. The UPDATE holds only while the document is still in the status the stage belongs to:
a run whose document was re-queued, failed, finished or deleted meanwhile writes nothing (its
next status move finds out and stops it). Status moves clear these fields (services/status.py).
"""

from __future__ import annotations

from django.utils import timezone

from documents import progress, time_limit
from documents.models import Document, DocumentStatus

# Each stage is reported while the document is in this status (the moves of services/ingest.py).
STAGE_STATUS: dict[str, DocumentStatus] = {
    progress.READING: DocumentStatus.EXTRACTING,
    progress.LAYOUT: DocumentStatus.EXTRACTING,
    progress.CHUNKING: DocumentStatus.CHUNKING,
    progress.CONTEXTS: DocumentStatus.CHUNKING,
    progress.EMBEDDING: DocumentStatus.EMBEDDING,
    progress.STORING: DocumentStatus.EMBEDDING,
}

# What a status move writes: no stage, no count (the next stage, if any, reports its own).
PROGRESS_CLEARED: dict[str, object] = {
    "progress_stage": "",
    "progress_done": 0,
    "progress_total": None,
    "progress_started_at": None,
    "progress_updated_at": None,
}


def document_progress_write(document_id: int, stage: str, done: int, total: int | None, *, started: bool) -> bool:
    """Record `done` of `total` in `stage` (`started`: the stage begins now); False if the
    document is gone or no longer in the stage's status."""
    now = timezone.now()
    fields: dict[str, object] = {
        "progress_stage": stage,
        "progress_done": max(0, done),
        "progress_total": total,
        "progress_updated_at": now,
    }
    if started:
        fields["progress_started_at"] = now
    # Reports come from inside stages the time limit's alarm may interrupt: never inside this write.
    with time_limit.uninterruptible():
        changed = Document.objects.filter(pk=document_id, status=STAGE_STATUS[stage]).update(**fields)
    return bool(changed)


def progress_recorder(document_id: int) -> progress.ProgressThrottle:
    """The throttled `report(stage, done, total)` of one run of one document."""

    def write(stage: str, done: int, total: int | None, *, started: bool) -> None:
        document_progress_write(document_id, stage, done, total, started=started)

    return progress.ProgressThrottle(write)
