"""The Celery settings that let several workers, on several hosts, share one queue safely
(ragsite/settings.py, docs/operations.md "Running on several machines")."""

from __future__ import annotations

from typing import Any

from tests.test_security_headers import settings_error, settings_with

NAMES = (
    "CELERY_TASK_ACKS_LATE",
    "CELERY_TASK_REJECT_ON_WORKER_LOST",
    "CELERY_WORKER_PREFETCH_MULTIPLIER",
    "CELERY_TASK_TIME_LIMIT",
    "CELERY_BROKER_TRANSPORT_OPTIONS",
)


def test_defaults_ack_late_prefetch_one_and_outlast_the_hard_limit() -> None:
    values = settings_with({}, *NAMES)
    assert values["CELERY_TASK_ACKS_LATE"] is True
    assert values["CELERY_TASK_REJECT_ON_WORKER_LOST"] is True
    assert values["CELERY_WORKER_PREFETCH_MULTIPLIER"] == 1
    assert values["CELERY_TASK_TIME_LIMIT"] == 30 * 60 + 60
    assert values["CELERY_BROKER_TRANSPORT_OPTIONS"] == {
        "visibility_timeout": 30 * 60 + 60 + 300,
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
        "socket_timeout": 2.0,  # a paused broker fails a publish in seconds (tests/test_broker_faults.py)
    }


def test_short_limits_for_a_quick_redelivery() -> None:
    env = {
        "INGEST_TIME_LIMIT_SECONDS": "30",
        "INGEST_HARD_LIMIT_GRACE_SECONDS": "5",
        "BROKER_VISIBILITY_TIMEOUT_SECONDS": "40",
        "BROKER_RESTORE_EVERY_SECONDS": "1",
    }
    values = settings_with(env, "CELERY_TASK_TIME_LIMIT", "CELERY_BROKER_TRANSPORT_OPTIONS")
    assert values["CELERY_TASK_TIME_LIMIT"] == 35
    assert values["CELERY_BROKER_TRANSPORT_OPTIONS"]["visibility_timeout"] == 40
    assert values["CELERY_BROKER_TRANSPORT_OPTIONS"]["unacked_restore_interval"] == 1


def test_a_visibility_timeout_within_the_hard_limit_is_refused() -> None:
    error = settings_error({"INGEST_TIME_LIMIT_SECONDS": "600", "BROKER_VISIBILITY_TIMEOUT_SECONDS": "660"})
    assert "BROKER_VISIBILITY_TIMEOUT_SECONDS (660) must be longer than" in error
    assert "INGEST_HARD_LIMIT_GRACE_SECONDS (660)" in error
    assert "handed to a second worker" in error


def test_a_retry_waits_less_than_the_visibility_timeout(settings: Any) -> None:
    from documents.tasks import retry_countdown

    settings.BROKER_VISIBILITY_TIMEOUT_SECONDS = 2160
    assert [retry_countdown(n) for n in range(8)] == [5, 10, 20, 40, 80, 160, 300, 300]
    settings.BROKER_VISIBILITY_TIMEOUT_SECONDS = 40
    assert [retry_countdown(n) for n in range(4)] == [5, 10, 20, 20]
