"""`make run`'s launcher, started for real: web, worker and broker come up, and a terminal's Ctrl-C
(SIGINT to the whole foreground process group) stops them in order, without tracebacks."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from tests.conftest import test_database_url as database_url_of_this_run
from tests.conftest import wait_for

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _status(url: str) -> int | None:
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def _launch(tmp_path: Path, port: int) -> tuple[subprocess.Popen[bytes], Path]:
    env = {key: value for key, value in os.environ.items() if key not in {"CELERY_BROKER_URL", "CACHE_URL"}}
    env |= {
        "DATABASE_URL": database_url_of_this_run(),  # migrated already: prepare's migrate has nothing to do
        "VAR_DIR": str(tmp_path / "var"),  # broker socket, admin password, beat schedule
        "STATIC_ROOT": str(tmp_path / "static"),
        "BIND": f"127.0.0.1:{port}",
        "WEB_WORKERS": "1",
    }
    log_path = tmp_path / "launcher.log"
    with log_path.open("wb") as log:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "ragsite.launcher", "run"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    return launcher, log_path


def _redis_pid(socket_path: Path) -> int | None:
    """The process id of the redis-server answering on `socket_path` (the launcher's embedded
    broker; it renames its process title, so it is asked), or None when none answers."""
    import redis

    try:
        return int(redis.Redis(unix_socket_path=str(socket_path), socket_timeout=2).info()["process_id"])
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
        return None


@pytest.mark.slow
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_launcher_starts_the_embedded_broker_again_when_it_dies(tmp_path: Path) -> None:
    port = _free_port()
    launcher, log_path = _launch(tmp_path, port)
    socket_path = tmp_path / "var" / "redis" / "redis.sock"
    try:
        log_tail = lambda: log_path.read_text(errors="replace")[-3000:]  # noqa: E731
        wait_for(lambda: _status(f"http://127.0.0.1:{port}/login/") == 200, timeout=120, what=log_tail)
        wait_for(lambda: " ready." in log_tail(), timeout=120, what=log_tail)
        broker = _redis_pid(socket_path)
        assert broker is not None
        os.kill(broker, signal.SIGKILL)
        wait_for(lambda: "redis exited with code -9; starting it again." in log_tail(), timeout=30, what=log_tail)
        # The web server and the worker stay; the worker connects to the new broker.
        assert _status(f"http://127.0.0.1:{port}/login/") == 200
        log = lambda: log_path.read_text(errors="replace")  # noqa: E731
        wait_for(lambda: log().count("Connected to redis+socket://") >= 2, timeout=60, what=log_tail)
        assert _redis_pid(socket_path) not in (None, broker)
        assert launcher.poll() is None
        os.killpg(launcher.pid, signal.SIGINT)
        assert launcher.wait(timeout=90) == 0
    finally:
        if launcher.poll() is None:  # a failed check: Ctrl-C stops the children it started, too
            os.killpg(launcher.pid, signal.SIGINT)
            try:
                launcher.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(launcher.pid, signal.SIGKILL)
    assert "stopped the web server, worker and broker." in log_path.read_text(errors="replace")
    assert _redis_pid(socket_path) is None


@pytest.mark.slow  # starts the embedded services, a worker and the web server (~10 s)
@pytest.mark.django_db(transaction=True)  # the launcher commits an admin account: flushed afterwards
def test_launcher_serves_then_stops_everything_on_ctrl_c(tmp_path: Path) -> None:
    port = _free_port()
    launcher, log_path = _launch(tmp_path, port)
    try:
        log_tail = lambda: log_path.read_text(errors="replace")[-3000:]  # noqa: E731
        wait_for(lambda: _status(f"http://127.0.0.1:{port}/login/") == 200, timeout=120, what=log_tail)
        wait_for(lambda: " ready." in log_tail(), timeout=120, what=log_tail)
        assert get_user_model().objects.filter(username="admin", is_superuser=True).exists()
        assert (tmp_path / "var" / "admin-password.txt").read_text().strip()

        os.killpg(launcher.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        assert launcher.wait(timeout=90) == 0
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
    output = log_path.read_text(errors="replace")
    assert "stopped the web server, worker and broker." in output
    assert "Connection to broker lost" not in output, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert _status(f"http://127.0.0.1:{port}/login/") is None
    assert not (tmp_path / "var" / "redis" / "redis.sock").exists()


def test_the_worker_shares_the_cores_out_among_its_pool_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragsite.launcher import encoder_threads, worker_environment

    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert [encoder_threads(n) for n in (1, 2, 3, 8, 16)] == [8, 4, 2, 1, 1]
    assert worker_environment({}, 1)["OMP_NUM_THREADS"] == "8"
    assert worker_environment({}, 4)["OMP_NUM_THREADS"] == "2"
    # An operator's own setting stands.
    assert worker_environment({"OMP_NUM_THREADS": "3"}, 4)["OMP_NUM_THREADS"] == "3"


@pytest.mark.parametrize("value", ["two", "0", "-1", "1.5"])
def test_a_worker_concurrency_that_is_no_count_stops_the_launcher_plainly(value: str) -> None:
    from ragsite.launcher import launch_settings

    with pytest.raises(SystemExit, match=f"^WORKER_CONCURRENCY: Input should be .*got '{value}'"):
        launch_settings({"WORKER_CONCURRENCY": value})
    assert launch_settings({}).WORKER_CONCURRENCY == 1
    assert launch_settings({"WORKER_CONCURRENCY": " 3 "}).WORKER_CONCURRENCY == 3
