"""Importing the settings reads the environment and does nothing else: no embedded PostgreSQL or
Redis is started, nothing is written under VAR_DIR (mypy's Django plugin, ruff and pytest's
collection import them); the entry points start the services (ragsite/embedded.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ("DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "NUMBA_CACHE_DIR")


def run_python(var_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`python *args` in a fresh process whose VAR_DIR is `var_dir` and which names no server."""
    env = {k: v for k, v in os.environ.items() if k not in SERVICES}
    env |= {"VAR_DIR": str(var_dir), "DJANGO_SETTINGS_MODULE": "ragsite.settings", **extra}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def postgres_serving(data_dir: Path) -> list[int]:
    """Ids of the PostgreSQL processes whose command line names `data_dir`."""
    found = []
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if "postgres" in (proc.info["name"] or "") and str(data_dir) in cmdline:
            found.append(proc.info["pid"])
    return found


def test_importing_the_settings_with_an_empty_var_dir_creates_nothing_and_starts_no_database(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    code = (
        "import os, django, ragsite.settings as s; django.setup(); "
        "assert 'NUMBA_CACHE_DIR' not in os.environ, 'the environment was changed'; "
        "print(s.DATABASES['default']['HOST'], s.CELERY_BROKER_URL)"
    )
    result = run_python(var_dir, "-c", code)
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted(var_dir.iterdir()) == []
    assert postgres_serving(var_dir) == []
    # The embedded services are named under VAR_DIR all the same: the entry points start them there.
    host, broker = result.stdout.split()
    assert host == str(var_dir / "pg")
    assert broker == f"redis+socket://{var_dir / 'redis' / 'redis.sock'}"


def test_an_entry_point_writes_the_local_secret_key_once_and_the_settings_read_it(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    unused = {"DATABASE_URL": "postgresql://unused@127.0.0.1:1/unused"}  # `check` connects to nothing
    assert run_python(var_dir, "manage.py", "check", **unused).returncode == 0
    key = (var_dir / "secret_key").read_text()
    assert len(key) > 40
    assert oct((var_dir / "secret_key").stat().st_mode & 0o777) == "0o600"
    read = run_python(var_dir, "-c", "from django.conf import settings; print(settings.SECRET_KEY)", **unused)
    assert read.stdout.strip() == key
    assert run_python(var_dir, "manage.py", "check", **unused).returncode == 0
    assert (var_dir / "secret_key").read_text() == key  # kept, not replaced
