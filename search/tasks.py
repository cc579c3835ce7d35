"""Celery tasks of the search app: thin wrappers around services."""

from __future__ import annotations

from celery import shared_task

from documents.lexical.folder_lengths import folder_lengths_compact


@shared_task(name="search.tasks.folder_lengths_compact")
def folder_lengths_compact_task() -> int:
    """Periodic (beat): fold the per-folder BM25 length rows, so the packed leg reads few."""
    return folder_lengths_compact()
