"""The Celery application; tasks live in each app's tasks.py."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")

app = Celery("ragsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _limit_memory(**_: Any) -> None:
    """Each prefork pool process starts under INGEST_MEMORY_LIMIT_MB (ragsite/memory_limit.py): a
    document that needs more fails with a reason instead of taking the host's memory. The pool's
    main process, which only hands out messages and replaces lost processes, stays unlimited."""
    from ragsite.memory_limit import apply_memory_limit

    apply_memory_limit()
