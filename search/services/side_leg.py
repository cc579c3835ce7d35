"""Run a step of a search on a second database connection while the caller runs another.

The dense and BM25 legs are independent statements, and so are the coverage check and the
hydration of the hits: run one after the other, a search waits for their sum; run side by side,
for the slower of each pair (bench_search times both ways in one run: `hybrid_sequential`).
A step started here runs on one of a few long-lived threads, each holding its own Django
connection (kept like any other: CONN_MAX_AGE, health checks), so a search opens no connection
of its own.

It runs on the caller's thread instead, when asked for its result, when
- the caller is inside a transaction: another connection would not see its uncommitted rows
  (the tests' `db` fixture, an admin action in an atomic block);
- SEARCH_CONCURRENT_LEGS is off.
This buys latency, not throughput: on two cores, many concurrent searches gain little from it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper

T = TypeVar("T")

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_side_connections: set[BaseDatabaseWrapper] = set()  # the pool threads' connections, to close them


class Leg(Generic[T]):
    """A leg's result and how long it took on its own (milliseconds), wherever it ran."""

    def __init__(self, function: Callable[..., T], args: tuple[Any, ...], future: Future[tuple[T, float]] | None):
        self._function, self._args, self._future = function, args, future
        self.beside = future is not None  # runs on a pool thread's connection

    def result(self) -> tuple[T, float]:
        if self._future is not None:
            return self._future.result()
        return timed(self._function, self._args)


def leg_beside(function: Callable[..., T], *args: Any) -> Leg[T]:
    """Start `function(*args)` on a pool thread's own connection, or defer it to the caller's."""
    if connection.in_atomic_block or not settings.SEARCH_CONCURRENT_LEGS:
        return Leg(function, args, None)
    return Leg(function, args, _executor().submit(_on_own_connection, function, args))


def timed(function: Callable[..., T], args: tuple[Any, ...]) -> tuple[T, float]:
    """`function(*args)` and its own time in milliseconds."""
    started = time.perf_counter()
    value = function(*args)
    return value, round((time.perf_counter() - started) * 1000, 3)


def _on_own_connection(function: Callable[..., T], args: tuple[Any, ...]) -> tuple[T, float]:
    # `connection` is this pool thread's own. Django closes a request thread's connection when it
    # is too old or broken at the request's end; a pool thread has no requests, so do it here.
    connection.close_if_unusable_or_obsolete()
    with _lock:
        _side_connections.add(connections[DEFAULT_DB_ALIAS])
    return timed(function, args)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=settings.SEARCH_LEG_THREADS, thread_name_prefix="search-leg")
        return _pool


def _forget_the_parents_pool() -> None:
    # A forked child (a Celery prefork worker, say) has none of the parent's threads, and the
    # parent's connections are not its own to use or close: it starts a pool of its own.
    global _pool
    _pool = None
    _side_connections.clear()


os.register_at_fork(after_in_child=_forget_the_parents_pool)


def close_side_connections() -> None:
    """Stop the pool and close its threads' connections (before dropping a test database)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
        wrappers = list(_side_connections)
        _side_connections.clear()
    if pool is not None:
        pool.shutdown(wait=True)
    for wrapper in wrappers:
        # Safe once the pool has stopped: no thread uses the connection any more.
        wrapper.inc_thread_sharing()
        try:
            wrapper.close()
        finally:
            wrapper.dec_thread_sharing()
