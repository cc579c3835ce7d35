"""Ingestion through real Celery worker processes, 1, 2 … at a time (`bench_ingest --workers 1,2`).

Each run starts its own Redis (on a socket in a scratch folder, so no worker of the library takes
the benchmark's messages) and N worker processes with the production flags (prefork, one pool
process each, a node name each), on this process's database and MEDIA_ROOT. The workers first
load the model on a small warm-up document each, as a long-running worker has; then the files
are uploaded and queued at once, and the run lasts until the last one is indexed or failed.
Vector reuse is off in the workers: every run embeds every chunk, as the first ingestion does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from django.conf import settings
from django.db.models import Sum

from documents.models import Document, DocumentStatus, Folder
from documents.services.upload import IncomingFile, document_upload
from ragsite.celery import use_broker
from ragsite.launcher import worker_environment

FINISHED = (DocumentStatus.INDEXED, DocumentStatus.FAILED)


@dataclass
class WorkerRun:
    workers: int
    seconds: float
    documents: int
    indexed: int
    chunks: int
    warmed: int  # workers that had loaded the model before the timed part (all, normally)

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds if self.seconds else 0.0


def worker_runs(files: list[Path], counts: list[int], scratch: Path, timeout: float = 3600) -> list[WorkerRun]:
    return [_worker_run(files, n, scratch / f"workers-{n}", timeout) for n in counts]


def _worker_run(files: list[Path], n: int, scratch: Path, timeout: float) -> WorkerRun:
    from ragsite.embedded import start_redis

    scratch.mkdir(parents=True)
    redis = start_redis(scratch / "redis.sock")
    broker_url = f"redis+socket://{scratch / 'redis.sock'}"
    previous_broker = use_broker(broker_url)
    folder = Folder.objects.create(name=f"__bench_workers__ {n} {time.time():.0f}")
    workers = [_start_worker(broker_url, scratch / f"worker-{i}.log", f"bench{i}-{os.getpid()}", n) for i in range(n)]
    try:
        warm_up = [_upload(folder, f"warm-up-{i}.txt", _warm_up_text(i)) for i in range(n)]
        _wait_finished(warm_up, timeout)
        warmed = _workers_with_tasks_done(n)
        started = time.perf_counter()
        ids = [_upload(folder, path.name, path.read_bytes()) for path in files]
        _wait_finished(ids, timeout)
        seconds = time.perf_counter() - started
        done = Document.objects.filter(pk__in=ids)
        return WorkerRun(
            workers=n,
            seconds=seconds,
            documents=len(ids),
            indexed=done.filter(status=DocumentStatus.INDEXED).count(),
            chunks=done.aggregate(total=Sum("chunk_count"))["total"] or 0,
            warmed=warmed,
        )
    finally:
        for proc, _ in workers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc, _ in workers:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        redis.terminate()
        redis.wait(timeout=30)
        use_broker(previous_broker)
        for document in Document.objects.filter(folder=folder):
            document.file.delete(save=False)
        folder.delete()


def _start_worker(broker_url: str, log_path: Path, name: str, processes: int) -> tuple[subprocess.Popen[bytes], Path]:
    env = {
        **worker_environment(dict(os.environ), processes),  # the cores shared out as the launcher does
        "DATABASE_URL": settings.DATABASE_URL,
        "CELERY_BROKER_URL": broker_url,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "EMBEDDING_REUSE": "false",
    }
    celery = str(Path(sys.executable).parent / "celery")
    args = [celery, "-A", "ragsite", "worker", "--pool", "prefork", "--concurrency", "1",
            "-n", f"{name}@%h", "--without-gossip", "--without-mingle", "-l", "info"]  # fmt: skip
    with log_path.open("wb") as log:
        proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    return proc, log_path


def _workers_with_tasks_done(n: int, timeout: float = 10.0) -> int:
    """How many of the `n` workers have finished a task (Celery's remote control: a worker counts
    a task once it has returned, a moment after its document's status was written)."""
    from ragsite.celery import app

    deadline = time.monotonic() + timeout
    done = 0
    while time.monotonic() < deadline:
        stats = app.control.inspect(timeout=1.0).stats() or {}
        done = sum(1 for s in stats.values() if sum(s.get("total", {}).values()))
        if done >= n:
            break
        time.sleep(0.5)
    return done


def _upload(folder: Folder, name: str, data: bytes) -> int:
    incoming = IncomingFile(name=name, size=len(data), stream=BytesIO(data))
    # Outside a transaction: queued at once (the upload service queues on commit).
    return document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=True).pk


def _warm_up_text(i: int) -> bytes:
    return f"Warm-up document {i}.\n\nThe worker loads its model reading this ({time.time()}).\n".encode()


def _wait_finished(ids: list[int], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while Document.objects.filter(pk__in=ids).exclude(status__in=FINISHED).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the workers did not finish {len(ids)} documents within {timeout:.0f} s")
        time.sleep(0.5)


def worker_runs_lines(runs: list[WorkerRun]) -> list[str]:
    lines = []
    for run in runs:
        warm = "" if run.warmed == run.workers else f" (only {run.warmed} of {run.workers} warmed up first)"
        lines.append(
            f"{run.workers} worker process{'es' if run.workers > 1 else ''}: {run.documents} files "
            f"({run.indexed} indexed), {run.chunks} chunks in {run.seconds:.1f} s = "
            f"{run.chunks_per_second:.1f} chunks/s{warm}"
        )
    if len(runs) > 1 and runs[0].chunks_per_second:
        ratios = ", ".join(f"{r.workers}: {r.chunks_per_second / runs[0].chunks_per_second:.2f}x" for r in runs[1:])
        lines.append(
            f"throughput against {runs[0].workers} worker process{'es' if runs[0].workers > 1 else ''}: {ratios}"
        )
    return lines
