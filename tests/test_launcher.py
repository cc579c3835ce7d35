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


@pytest.mark.django_db(transaction=True)  # the launcher commits an admin account: flushed afterwards
def test_launcher_serves_then_stops_everything_on_ctrl_c(tmp_path: Path) -> None:
    port = _free_port()
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
