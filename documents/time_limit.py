"""A processing deadline (INGEST_TIME_LIMIT_SECONDS) that holds in the worker and in `--inline` alike.

Celery's soft and hard time limits need the prefork pool: the solo pool (tests) and
`manage.py ingest --inline` have none, and the hard limit kills the process with the document
left half-way. So the pipeline runs under a deadline of its own, enforced three ways:

- SIGALRM (main thread only) interrupts the compute stages (extraction, OCR, chunking, embedding)
  wherever they are; it never fires inside a database call, which would break the connection;
- long loops (PDF pages) call `check()`, so the limit also holds off the main thread;
- subprocesses (Tesseract) get `remaining()` as their timeout and are killed when it runs out.

A C call that never returns (MuPDF stuck inside one page) is beyond all three; for the prefork
pool Celery's hard limit (`CELERY_TASK_TIME_LIMIT`, `INGEST_HARD_LIMIT_GRACE_SECONDS` later) is
the backstop, after which reconcile re-queues or fails the document.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any


class TimeLimitExceeded(BaseException):
    """Raised when the deadline passes. A BaseException, so that no `except Exception` swallows it."""


@dataclass
class _Deadline:
    seconds: float
    ends_at: float
    interruptible: bool = False
    expired: bool = False


_local = threading.local()


def _current() -> _Deadline | None:
    return getattr(_local, "deadline", None)


def remaining() -> float | None:
    """Seconds left before the deadline (never below 0.01), or None outside a deadline."""
    current = _current()
    return None if current is None else max(current.ends_at - time.monotonic(), 0.01)


def check() -> None:
    """Raise TimeLimitExceeded when the deadline has passed (a no-op outside a deadline)."""
    current = _current()
    if current is not None and (current.expired or time.monotonic() >= current.ends_at):
        current.expired = True
        raise TimeLimitExceeded(message(current.seconds))


def message(seconds: float) -> str:
    return (
        f"Processing took longer than the time limit ({seconds:g} s, INGEST_TIME_LIMIT_SECONDS) and was stopped. "
        "The file may be built to exhaust the server (or simply very long); split it or raise the limit."
    )


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Run the block under a deadline `seconds` from now (nested deadlines keep the outer one)."""
    if _current() is not None or seconds <= 0:
        yield
        return
    current = _Deadline(seconds=seconds, ends_at=time.monotonic() + seconds)
    _local.deadline = current
    borrowed = _arm_alarm(seconds)
    try:
        yield
    finally:
        if borrowed is not None:
            _give_back_alarm(*borrowed)
        _local.deadline = None


@contextmanager
def interruptible() -> Iterator[None]:
    """A stage the alarm may interrupt (no database work inside); checks the deadline on entry."""
    current = _current()
    if current is None:
        yield
        return
    check()
    current.interruptible = True
    try:
        yield
    finally:
        current.interruptible = False


@contextmanager
def uninterruptible() -> Iterator[None]:
    """A database write inside an interruptible stage (a progress report): the alarm must not
    break the connection, so it waits; the deadline is checked once the write is done."""
    current = _current()
    was = current.interruptible if current else False
    if current:
        current.interruptible = False
    try:
        yield
    finally:
        if current:
            current.interruptible = was
    check()


@contextmanager
def subprocess_wait() -> Iterator[float]:
    """Around a subprocess given `remaining()` as its timeout: the alarm must not interrupt the
    wait (the child would be left running); the subprocess's own timeout kills it instead."""
    current = _current()
    was = current.interruptible if current else False
    if current:
        current.interruptible = False
    try:
        yield remaining() or 0.0
    finally:
        if current:
            current.interruptible = was
    check()


def _arm_alarm(seconds: float) -> tuple[Any, float, float] | None:
    """Take SIGALRM for `seconds`; returns what to give back (the previous handler, its timer's
    remaining seconds, when we took it), or None when the alarm was left alone."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGALRM)
    theirs, _interval = signal.getitimer(signal.ITIMER_REAL)
    if previous is None or (theirs and theirs <= seconds):
        return None  # a handler we cannot restore, or an earlier alarm (say pytest-timeout's) comes first
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return previous, theirs, time.monotonic()


def _give_back_alarm(previous: Any, theirs: float, taken_at: float) -> None:
    """Stop our timer, reinstall the previous handler and re-arm its timer for what is left of it."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
    if theirs:
        signal.setitimer(signal.ITIMER_REAL, max(theirs - (time.monotonic() - taken_at), 0.001))


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    current = _current()
    if current is None:
        return
    current.expired = True
    if current.interruptible and not _importing(frame):
        raise TimeLimitExceeded(message(current.seconds))
    # Inside a database call or an import (raising there leaves a half-initialised module behind
    # for the rest of the process): the next check() or interruptible stage raises instead.


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False
