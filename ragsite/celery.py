"""The Celery application; tasks live in each app's tasks.py."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")

app = Celery("ragsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# A task module discovery does not find: documents/tasks.py cannot import it (documents/consume_tasks.py says why).
app.conf.imports = ("documents.consume_tasks",)


@worker_init.connect
def _start_local_services(**_: Any) -> None:
    """A worker's main process starts (or reuses) the embedded PostgreSQL before its pool takes a
    task, as every entry point does (ragsite.embedded.local_services_start): the settings only name it."""
    from ragsite.embedded import local_services_start

    local_services_start()


@worker_process_init.connect
def _limit_memory(**_: Any) -> None:
    """Each prefork pool process starts under INGEST_MEMORY_LIMIT_MB (ragsite/memory_limit.py): a
    document that needs more fails with a reason instead of taking the host's memory. The pool's
    main process, which only hands out messages and replaces lost processes, stays unlimited."""
    from ragsite.memory_limit import apply_memory_limit

    apply_memory_limit()


def use_broker(url: str) -> str:
    """Point this process's Celery app at `url`, dropping pooled connections; returns the old URL.

    For the processes that start their own workers on a broker of their own (the benchmark of
    several workers, the tests): messages published afterwards go to `url`.
    """
    from kombu import pools

    conf: Any = app  # the pools are private attributes, which celery-types does not declare
    previous = str(conf.conf.broker_url)
    conf.conf.broker_url = url
    if conf._pool is not None:
        conf._pool.force_close_all()
        conf._pool = None
    conf.amqp._producer_pool = None
    # kombu keeps its own registry of connection and producer pools; one closed above would be
    # handed out again for an equal connection ("Acquire on closed pool"): start it afresh.
    pools.reset()
    return previous
