"""The processing deadline itself: when SIGALRM may interrupt, and that it gives the alarm back."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest

from documents import time_limit


@pytest.fixture
def outer_alarm() -> Iterator[list[int]]:
    """Someone else's SIGALRM handler and timer (as pytest-timeout sets one), restored afterwards."""
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    previous_timer = signal.getitimer(signal.ITIMER_REAL)
    yield fired
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
    if previous_timer[0]:
        signal.setitimer(signal.ITIMER_REAL, *previous_timer)


def test_alarm_interrupts_an_interruptible_stage() -> None:
    started = time.monotonic()
    with pytest.raises(time_limit.TimeLimitExceeded, match=r"time limit \(0.2 s"):
        _spin_under_a_deadline(0.2)
    assert time.monotonic() - started < 2


def test_alarm_waits_outside_interruptible_stages_and_the_next_check_raises() -> None:
    with time_limit.deadline(0.1):
        time.sleep(0.3)  # a database call, say: not interrupted
        with pytest.raises(time_limit.TimeLimitExceeded):
            time_limit.check()


def test_deadline_borrows_a_later_alarm_and_gives_it_back(outer_alarm: list[int]) -> None:
    handler: Any = signal.getsignal(signal.SIGALRM)
    signal.setitimer(signal.ITIMER_REAL, 100)

    with time_limit.deadline(5):
        assert signal.getsignal(signal.SIGALRM) is not handler
    remaining, _ = signal.getitimer(signal.ITIMER_REAL)

    assert signal.getsignal(signal.SIGALRM) is handler
    assert 95 < remaining <= 100
    assert outer_alarm == []


def test_an_earlier_alarm_is_left_alone(outer_alarm: list[int]) -> None:
    handler: Any = signal.getsignal(signal.SIGALRM)
    signal.setitimer(signal.ITIMER_REAL, 0.2)

    with time_limit.deadline(5):
        assert signal.getsignal(signal.SIGALRM) is handler
        time.sleep(0.4)

    assert outer_alarm == [signal.SIGALRM]


def test_no_deadline_means_no_limit() -> None:
    assert time_limit.remaining() is None
    time_limit.check()
    with time_limit.interruptible():
        pass


def _spin_under_a_deadline(seconds: float) -> None:
    with time_limit.deadline(seconds), time_limit.interruptible():
        while True:
            time.sleep(0.01)
