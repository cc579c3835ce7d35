"""`manage.py bench_backup`: time library_export and library_import of this library; report sizes.

Both commands run as separate processes, as an operator runs them: the export of this
library into a temporary directory, then the import of that export into a scratch database
created on the same PostgreSQL server (dropped afterwards) with its own media directory.
Process start-up (Django, settings, no model) is timed alone so it can be told apart.

`--copies N` measures a library N times larger: this library is exported once and imported N
times with --merge into another scratch database (its top-level folders renamed after each
round so the next round adds a full copy); that library is then exported and imported.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from argparse import ArgumentParser
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

SCRATCH_DB = "bench_backup_scratch"
SOURCE_DB = "bench_backup_source"


def _server_url(database: str) -> str:
    s = connection.settings_dict
    host = s.get("HOST") or ""
    user, password = s.get("USER") or "postgres", s.get("PASSWORD") or ""
    auth = user + (f":{password}" if password else "")
    if host.startswith("/"):
        return f"postgresql://{auth}@/{database}?host={host}"
    return f"postgresql://{auth}@{host}:{s.get('PORT') or 5432}/{database}"


def _run(args: list[str], env: dict[str, str], log: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one manage.py process."""
    started = time.perf_counter()
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", *args], cwd=settings.BASE_DIR, env=env, stdout=out, stderr=out
        )
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed; see {log}")
    return time.perf_counter() - started, usage.ru_maxrss // 1024


@contextmanager
def _scratch_database(name: str) -> Iterator[str]:
    with psycopg.connect(_server_url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _server_url(name)
    finally:
        with psycopg.connect(_server_url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class Command(BaseCommand):
    help = "Benchmark library_export and library_import (time, peak memory, export size) on this library."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--copies", type=int, default=1, help="Measure a library this many times larger.")
        parser.add_argument("--keep", action="store_true", help="Keep the export directory and print its path.")

    def handle(self, *args: Any, **options: Any) -> None:
        work = Path(tempfile.mkdtemp(prefix="bench-backup-"))
        export, log = work / "export", work / "log.txt"
        env = {
            **os.environ,
            "DATABASE_URL": _server_url(connection.settings_dict["NAME"]),
            "CELERY_BROKER_URL": "memory://",
        }
        startup, _ = _run(["check"], env, log)
        copies = options["copies"]
        with _scratch_database(SOURCE_DB) if copies > 1 else nullcontext("") as source_url:
            if copies > 1:
                seed = work / "seed"
                _run(["library_export", str(seed), "-v", "0"], env, log)
                env = {**env, "DATABASE_URL": source_url, "MEDIA_ROOT": str(work / "source-media")}
                self._copies(seed, env, copies, log)
            exported = _run(["library_export", str(export), "-v", "0"], env, log)
        with _scratch_database(SCRATCH_DB) as scratch_url:
            scratch = {**env, "DATABASE_URL": scratch_url, "MEDIA_ROOT": str(work / "media")}
            _run(["migrate", "-v", "0"], scratch, log)
            imported = _run(["library_import", str(export), "-v", "0"], scratch, log)
        self._report(export, startup, exported, imported)
        if options["keep"]:
            self.stdout.write(f"export kept in {export}")
        else:
            shutil.rmtree(work)

    def _copies(self, seed: Path, env: dict[str, str], copies: int, log: Path) -> None:
        """Fill the source scratch database with `copies` imports of the seed export."""
        _run(["migrate", "-v", "0"], env, log)
        for copy in range(1, copies + 1):
            _run(["library_import", str(seed), "--merge", "-v", "0"], env, log)
            with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
                conn.execute(
                    "UPDATE documents_folder SET name = name || ' #' || %s"
                    " WHERE parent_id IS NULL AND name NOT LIKE %s",
                    [str(copy), "% #%"],
                )
            self.stderr.write(f"copy {copy}/{copies} loaded")

    def _report(self, export: Path, startup: float, exported: tuple[float, int], imported: tuple[float, int]) -> None:
        import json

        manifest = json.loads((export / "manifest.json").read_text())
        counts, tables = manifest["counts"], manifest["tables"]
        rows = [
            ("date", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
            ("machine", f"{platform.machine()}, {os.cpu_count()} cores"),
            (
                "library",
                f"{counts['folders']} folders, {counts['documents']} documents, {counts.get('chunks', 0)} chunks",
            ),
            ("process start-up alone (manage.py check)", f"{startup:.1f} s"),
            ("library_export", f"{exported[0]:.1f} s, peak RSS {exported[1]} MB"),
            ("library_import (verify + restore + BM25 rebuild)", f"{imported[0]:.1f} s, peak RSS {imported[1]} MB"),
            ("export size", f"{_size(export) / 1_048_576:.2f} MB"),
            ("  original files", f"{counts['files']} files, {counts['file_bytes'] / 1_048_576:.2f} MB"),
        ]
        rows += [
            (f"  {name}.jsonl", f"{stats['bytes'] / 1_048_576:.2f} MB, {stats['lines']} lines")
            for name, stats in tables.items()
        ]
        self.stdout.write("| measure | value |\n|---|---|")
        for name, value in rows:
            self.stdout.write(f"| {name} | {value} |")
