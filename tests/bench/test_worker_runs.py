"""`bench_ingest --workers`: ingestion through real worker processes, timed (bench/worker_runs.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.worker_runs import WorkerRun, worker_runs, worker_runs_lines
from documents.models import Document, Folder
from ragsite.celery import use_broker
from tests import conftest
from tests.corpus import DEV_DIR, require_corpus


@pytest.mark.worker
@pytest.mark.slow
def test_one_worker_process_indexes_the_files_and_is_timed(
    transactional_db: None, settings: Any, tmp_path: Path
) -> None:
    require_corpus()
    settings.DATABASE_URL = conftest.test_database_url()  # the workers' database: this run's test database
    try:
        (run,) = worker_runs([DEV_DIR / "prometheus-storage.md"], [1], tmp_path)
    finally:
        use_broker("memory://")
    assert (run.workers, run.documents, run.indexed, run.warmed) == (1, 1, 1, 1)
    assert run.chunks > 10
    assert run.seconds > 0  # measured: how fast is the benchmark's report to state, never a test's to judge
    # The run's folder and files are gone; nothing of it stays in the library (which may hold
    # the session's dev corpus).
    assert not Folder.objects.filter(name__startswith="__bench_workers__").exists()
    assert not Document.objects.filter(original_name__in=["prometheus-storage.md", "warm-up-0.txt"]).exists()


def test_lines_report_each_count_and_the_ratio() -> None:
    runs = [WorkerRun(1, 10.0, 3, 3, 200, 1), WorkerRun(2, 8.0, 3, 3, 200, 1)]
    assert worker_runs_lines(runs) == [
        "1 worker process: 3 files (3 indexed), 200 chunks in 10.0 s = 20.0 chunks/s",
        "2 worker processes: 3 files (3 indexed), 200 chunks in 8.0 s = 25.0 chunks/s (only 1 of 2 warmed up first)",
        "throughput against 1 worker process: 2: 1.25x",
    ]


@pytest.mark.parametrize("value", ["0", "a", "1,-2", ""])
def test_worker_counts_must_be_positive(value: str) -> None:
    with pytest.raises(CommandError, match="positive counts"):
        call_command("bench_ingest", "/nonexistent", "--workers", value)
