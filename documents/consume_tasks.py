"""The consume folder's periodic task (beat runs it every CONSUME_EVERY_SECONDS when CONSUME_DIR is set).

Not in documents/tasks.py: the upload service it calls queues ingestion through that module, so
it cannot be imported from there; ragsite/celery.py names this module for the worker to load.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from documents.services.consume import consume_folder


@shared_task(name="documents.consume_tasks.consume_folder")
def consume_folder_task() -> dict[str, int]:
    """Take in the consume folder's ready files; thin, and safe to run twice at once (a file is
    claimed by an atomic rename)."""
    if not settings.CONSUME_DIR:
        return {"stored": 0, "refused": 0, "waiting": 0}
    report = consume_folder()
    return {"stored": len(report.stored), "refused": len(report.refused), "waiting": report.waiting}
