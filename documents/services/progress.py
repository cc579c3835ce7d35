"""Recording a processing run's progress on its document: one guarded UPDATE per report.

The run reports through `documents/progress.py`'s throttle, so this writes a few times a second
at most. The UPDATE holds only while the document is still in the status the stage belongs to:
a run whose document was re-queued, failed, finished or deleted meanwhile writes nothing, and its
report raises `progress.RunSuperseded`: the run stops at that report. Status moves clear these
fields (services/status.py).
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


def document_progress_write(
    document_id: int, stage: str, done: int, total: int | None, *, started: bool, run_id: str | None = None
) -> bool:
    """Record `done` of `total` in `stage` (`started`: the stage begins now); False if the
    document is gone, no longer in the stage's status, or (with `run_id`) run by another message."""
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
        run = {"run_id": run_id} if run_id is not None else {}
        changed = Document.objects.filter(pk=document_id, status=STAGE_STATUS[stage], **run).update(**fields)
    return bool(changed)


def progress_recorder(document_id: int, run_id: str | None = None) -> progress.ProgressThrottle:
    """The throttled `report(stage, done, total)` of one run of one document.

    Each write is also the run's check that its document is still its own: one UPDATE by primary
    key at most every `progress.WRITE_INTERVAL_SECONDS`, between pages and embedding batches. When
    it changes nothing (the document was deleted, re-queued, or taken by the run of `run_id`'s
    successor) the report raises `progress.RunSuperseded`, so the run stops within a batch instead
    of computing, up to the time limit, what nobody will store."""

    def write(stage: str, done: int, total: int | None, *, started: bool) -> None:
        if not document_progress_write(document_id, stage, done, total, started=started, run_id=run_id):
            raise progress.RunSuperseded(f"it is gone or no longer {STAGE_STATUS[stage]} under this run")

    return progress.ProgressThrottle(write)
