"""Celery tasks of the citations app: thin wrappers around services."""

from __future__ import annotations

from celery import shared_task

from citations.page_cache import page_cache_prune


@shared_task(name="citations.tasks.page_cache_prune")
def page_cache_prune_task() -> int:
    """Periodic (beat): keep the page-image cache within PAGE_CACHE_MAX_MB; renders removed."""
    return page_cache_prune().removed_renders


@shared_task(name="citations.tasks.question_log_prune")
def question_log_prune_task() -> int:
    """Periodic (beat): delete question-log rows older than QUESTION_LOG_DAYS; rows deleted."""
    from citations.services.question_log import question_log_prune

    return question_log_prune()
