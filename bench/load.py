"""`make bench-load`: the application as `make run` starts it, under concurrent searches while ingesting.

Starts `python -m ragsite.launcher run` on its own port with its own var/ (so developer data
is untouched), indexes part of the corpus, then times the search page alone (one client, each
dev question once: the answer, ten grouped documents and the facets, as a reader's browser asks
for them), then 8 client threads send 250 searches each over loopback while more documents are
uploaded and ingested. Every loop is bounded; it stops by itself and reports errors,
p50/p95/p99 latency and throughput.

`python -m bench.load --page-only` stops after the search page's timing: no load phase and no
further uploads, so a kept `var/bench-load/` (whose documents are already indexed) re-times the
page in about a minute.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
HOST, PORT = "127.0.0.1", int(os.environ.get("BENCH_PORT", "8765"))
CLIENTS, REQUESTS_PER_CLIENT = 8, 250


def server_env(var_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    env.update(VAR_DIR=str(var_dir), BIND=f"{HOST}:{PORT}", API_RATE_LIMIT_PER_MINUTE="1000000",
               MEDIA_ROOT=str(var_dir / "media"), WEB_WORKERS="2", STATIC_ROOT=str(var_dir / "static"))  # fmt: skip
    return env


def request(
    method: str, path: str, token: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, PORT, timeout=60)
    try:
        conn.request(method, path, body=body, headers={"Authorization": f"Bearer {token}", **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def wait_until_up(proc: subprocess.Popen[bytes], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the application exited with code {proc.returncode}")
        try:
            if request("GET", "/api/openapi.json", "")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(1)
    raise SystemExit("the application did not come up in time")


def make_token(env: dict[str, str]) -> tuple[str, int]:
    code = (
        "from django.contrib.auth import get_user_model as g; from documents.models import Folder;"
        "from documents.services.tokens import token_create as t;"
        "u,_=g().objects.get_or_create(username='bench',defaults={'is_staff':True,'is_superuser':True});"
        "f,_=Folder.objects.update_or_create(name='bench-load',parent=None,defaults={'is_public':True});"
        "print(t(user=u,name='bench')[1], f.pk)"
    )
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], env=env, cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout.split()  # fmt: skip
    return out[-2], int(out[-1])


def upload(token: str, folder: int, path: Path) -> int:
    boundary = "benchboundary7d93"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\n{folder}\r\n'.encode(),
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + path.read_bytes()
        + b"\r\n",
        f"--{boundary}--\r\n".encode(),
    ]
    status, body = request("POST", "/api/documents", token, b"".join(parts),
                           {"Content-Type": f"multipart/form-data; boundary={boundary}"})  # fmt: skip
    if status not in (202, 409):
        raise SystemExit(f"upload of {path.name} answered {status}: {body[:300]!r}")
    return status


def indexed_count(token: str, folder: int) -> tuple[int, int]:
    _, indexed = request("GET", f"/api/documents?folder={folder}&status=indexed&limit=1", token)
    _, failed = request("GET", f"/api/documents?folder={folder}&status=failed&limit=1", token)
    return int(json.loads(indexed).get("count", 0)), int(json.loads(failed).get("count", 0))


def search_client(token: str, queries: list[str], out: list[tuple[float, int]]) -> None:
    for query in itertools.islice(itertools.cycle(queries), REQUESTS_PER_CLIENT):
        started = time.perf_counter()
        try:
            status, _ = request("GET", "/api/search?" + urllib.parse.urlencode({"q": query, "k": 10}), token)
        except OSError:
            status = 0
        out.append((time.perf_counter() - started, status))


def time_page(queries: list[str]) -> list[tuple[float, int]]:
    """The search page (GET /?q=, anonymous: the benchmark's folder is public), one question at a time."""
    request("GET", "/?" + urllib.parse.urlencode({"q": queries[0]}), "")  # the first page renders templates
    samples = []
    for query in queries:
        started = time.perf_counter()
        status, body = request("GET", "/?" + urllib.parse.urlencode({"q": query}), "")
        if status == 200 and b'id="results"' not in body:
            status = -1  # a page without its result list is not the page being timed
        samples.append((time.perf_counter() - started, status))
    return samples


def page_report(samples: list[tuple[float, int]]) -> str:
    latencies = [s * 1000 for s, status in samples if status == 200]
    errors = sum(1 for _, status in samples if status != 200)
    return (
        f"search page alone (answer + grouped documents + facets, 1 client, {len(samples)} questions, "
        f"errors {errors}): p50 {percentile(latencies, 50):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, "
        f"max {max(latencies):.0f} ms"
    )


def run_load(token: str, queries: list[str]) -> tuple[list[tuple[float, int]], float]:
    results: list[list[tuple[float, int]]] = [[] for _ in range(CLIENTS)]
    threads = [threading.Thread(target=search_client, args=(token, queries[i:] + queries[:i], results[i]))
               for i in range(CLIENTS)]  # fmt: skip
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [r for rs in results for r in rs], time.perf_counter() - started


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def stamp() -> str:
    """When and where a run happened, and how busy the machine was as it ended."""
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, {os.cpu_count()} cores; "
        f"load average (1/5/15 min): {load}"
    )


def report(samples: list[tuple[float, int]], elapsed: float, ingested: tuple[int, int], during: int) -> str:
    latencies = [s * 1000 for s, status in samples if status == 200]
    errors = sum(1 for _, status in samples if status != 200)
    return "\n".join([
        stamp(),
        f"clients: {CLIENTS} x {REQUESTS_PER_CLIENT} searches (GET /api/search, k=10), gunicorn 2 workers x 4 threads",
        f"documents uploaded during the load: {during}; indexed/failed at the end: {ingested[0]}/{ingested[1]}",
        f"requests: {len(samples)}, errors: {errors}",
        f"latency ms: p50 {percentile(latencies, 50):.0f}, p95 {percentile(latencies, 95):.0f}, "
        f"p99 {percentile(latencies, 99):.0f}, max {max(latencies):.0f}",
        f"throughput: {len(samples) / elapsed:.1f} searches/s over {elapsed:.1f} s",
    ])  # fmt: skip


def bench(var_dir: Path, *, page_only: bool = False) -> str:
    env = server_env(var_dir)
    proc = subprocess.Popen([sys.executable, "-m", "ragsite.launcher", "run"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        wait_until_up(proc)
        token, folder = make_token(env)
        first = sorted((CORPUS / "dev").glob("*"))
        later = sorted((CORPUS / "holdout").glob("*.pdf"))[:6]
        for path in first:
            upload(token, folder, path)
        deadline = time.monotonic() + 900
        while sum(indexed_count(token, folder)) < len(first) and time.monotonic() < deadline:
            time.sleep(2)
        queries = [q for line in (CORPUS / "dev-questions.jsonl").read_text().splitlines() if line.strip()
                   for q in json.loads(line)["queries"]]  # fmt: skip
        page = page_report(time_page(queries))
        if page_only:
            indexed, failed = indexed_count(token, folder)
            return "\n".join([stamp(), page, f"documents indexed/failed: {indexed}/{failed}"])
        uploader = threading.Thread(target=lambda: [upload(token, folder, p) for p in later])
        uploader.start()
        samples, elapsed = run_load(token, queries)
        uploader.join()
        return page + "\n" + report(samples, elapsed, indexed_count(token, folder), len(later))
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description="The application under concurrent searches while ingesting."
    )
    parser.add_argument("--page-only", action="store_true", help="time the search page alone, then stop")
    args = parser.parse_args(argv)
    if not (CORPUS / "dev").is_dir():
        print(f"the shared corpus is not at {CORPUS} (set CORPUS_DIR)", file=sys.stderr)
        return 2
    var_dir = ROOT / "var" / "bench-load"
    print(bench(var_dir, page_only=args.page_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
