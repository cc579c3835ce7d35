"""`python -m ragsite.launcher run|prepare`: start the whole application, or get it ready.

`run` starts the embedded services (unless DATABASE_URL / CELERY_BROKER_URL are set), applies
migrations, collects static files, makes sure an admin account exists, then runs a Celery
worker (with beat) and gunicorn, and stops every process it started on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from ragsite.env import Env, load_env

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# The longest request line gunicorn reads (its maximum; its default is 4,094 bytes), so that a GET
# search link of a long question reaches the site, which answers one longer than it takes with its
# own page (citations/views.py: LONGEST_SEARCH_QUERY) before gunicorn's bare 414 would.
REQUEST_LINE_LIMIT = 8190


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")
    import django

    django.setup()


def prepare() -> None:
    from django.core.management import call_command

    from ragsite.embedded import local_services_start

    local_services_start()  # the secret key, and the embedded PostgreSQL unless DATABASE_URL is set
    django_setup()
    if not load_env().DATABASE_URL:
        from ragsite.embedded import postgres_memory_configure

        print(f"embedded PostgreSQL: shared_buffers {postgres_memory_configure()}")
    call_command("migrate", interactive=False, verbosity=0)
    # call_command skips system checks; the database ones refuse a vector column of another size
    # than EMBEDDING_DIMS (documents/vector_column.py), naming the command that fixes it.
    call_command("check", databases=["default"], verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    from search.services.bm25_packed import kernel_warm

    kernel_warm()


def ensure_admin() -> None:
    from django.contrib.auth import get_user_model

    from ragsite.embedded import var_dir

    user_model = get_user_model()
    password_file = var_dir() / "admin-password.txt"
    if not user_model.objects.filter(is_superuser=True).exists():
        password = secrets.token_urlsafe(12)
        user_model.objects.create_superuser("admin", "admin@localhost", password)
        password_file.write_text(password + "\n")
        password_file.chmod(0o600)
        print(f"Created the admin account: user 'admin', password '{password}' (also in {password_file}).")
    elif password_file.exists():
        print(f"Admin login: user 'admin', password in {password_file}.")
    else:
        print("Admin accounts exist; log in with yours (python manage.py changepassword NAME to reset).")


def start(name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    print(f"starting {name}: {' '.join(args)}")
    return subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True)


def encoder_threads(processes: int) -> int:
    """Threads for the encoder of each of `processes` encoding at once on this host: the cores
    shared out: two worker processes of two threads each on two cores index more slowly than one
    (BENCHMARKS.md, "One and two worker processes")."""
    return max(1, (os.cpu_count() or 1) // max(1, processes))


def launch_settings(env: dict[str, str]) -> Env:
    """The environment the launcher starts from, validated (ragsite/env.py); a bad value stops it
    with a plain message naming the variable before anything starts."""
    try:
        return load_env(env)
    except ImproperlyConfigured as exc:
        raise SystemExit(str(exc)) from None


def worker_environment(env: dict[str, str], processes: int) -> dict[str, str]:
    """The environment of a worker whose torch is one of `processes` encoding on this host: its
    share of the cores (OMP_NUM_THREADS, read when torch starts), unless the operator set it."""
    return {"OMP_NUM_THREADS": str(encoder_threads(processes)), **env}


def run() -> int:
    from ragsite import embedded

    env = dict(os.environ)
    launch = launch_settings(env)  # checked before anything starts
    concurrency = launch.WORKER_CONCURRENCY
    children: list[tuple[str, subprocess.Popen[bytes]]] = []
    started_postgres = not launch.DATABASE_URL and not embedded.postgres_running()
    if not launch.CELERY_BROKER_URL:
        children.append(("redis", embedded.start_redis()))
        env["CELERY_BROKER_URL"] = embedded.redis_url()
        env.setdefault("CACHE_URL", f"unix://{embedded.redis_socket_path()}?db=1")
        print(f"embedded Redis on {embedded.redis_socket_path()}")
    prepare()
    ensure_admin()
    if not launch.DATABASE_URL:
        from django.conf import settings

        env["DATABASE_URL"] = settings.DATABASE_URL  # children reuse the running server
    beat_schedule = str(embedded.var_dir() / "celerybeat-schedule")
    # A node name of its own (-n): workers of other hosts, or a second launcher here, share the broker.
    worker = [str(BIN / "celery"), "-A", "ragsite", "worker", "--beat", "-s", beat_schedule, "-l", "info",
              "--concurrency", str(concurrency), "-n", f"ragsite-{os.getpid()}@%h"]  # fmt: skip
    web = [str(BIN / "gunicorn"), "ragsite.wsgi:application", "--bind", launch.BIND,
           "--workers", str(launch.WEB_WORKERS), "--threads", "4", "--timeout", "120",
           "--limit-request-line", str(REQUEST_LINE_LIMIT)]  # fmt: skip
    children.append(("worker", start("worker", worker, worker_environment(env, concurrency))))
    children.append(("web", start("web", web, env)))
    print(f"\nThe library is at http://{launch.BIND}/ (admin: /admin/). Ctrl-C stops it.\n")
    code = supervise(children, restart={"redis": embedded.start_redis})
    if started_postgres:
        embedded.stop_postgres()
        print("stopped the embedded PostgreSQL. Data stays in var/.")
    return code


def supervise(
    children: list[tuple[str, subprocess.Popen[bytes]]],
    restart: dict[str, Callable[[], subprocess.Popen[bytes]]] | None = None,
) -> int:
    """Watch the children until Ctrl-C (or SIGTERM), then stop them all.

    A child named in `restart` (the embedded broker) is started again when it exits: the web
    server serves without it and the worker reconnects to it, so losing it stops nothing else.
    Any other child that exits stops everything."""
    restart = restart or {}
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        while not stopping:
            for index, (name, proc) in enumerate(children):
                if proc.poll() is None or stopping:
                    continue
                if name in restart:
                    print(f"{name} exited with code {proc.returncode}; starting it again.", flush=True)
                    children[index] = (name, _restarted(name, restart[name]))
                    continue
                print(f"{name} exited with code {proc.returncode}; stopping everything.")
                stopping = True
            time.sleep(0.5)
    finally:
        shutdown(children)
    return 0


def _restarted(name: str, start_again: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """`start_again()`, retried every few seconds until it starts (the socket's directory may be
    busy a moment, or the machine out of memory): the other children keep running meanwhile."""
    while True:
        try:
            return start_again()
        except (OSError, RuntimeError) as exc:
            print(f"{name} did not start again ({exc}); retrying in 5 s.", flush=True)
            time.sleep(5)


def signal_child(proc: subprocess.Popen[bytes], signum: int) -> None:
    """Signal the child's whole process group when it leads one (gunicorn, celery), else itself."""
    try:
        os.killpg(proc.pid, signum)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signum)


def shutdown(children: list[tuple[str, subprocess.Popen[bytes]]]) -> None:
    # Web and worker first, the broker last, so the worker can finish talking to it.
    services = [(n, p) for n, p in children if n != "redis"]
    brokers = [(n, p) for n, p in children if n == "redis"]
    for group in (services, brokers):
        for _name, proc in group:
            if proc.poll() is None:
                signal_child(proc, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for name, proc in group:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(f"{name} did not stop in time; killing it.")
                signal_child(proc, signal.SIGKILL)
    print("stopped the web server, worker and broker.")


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "run"
    if command == "prepare":
        prepare()
        return 0
    if command == "run":
        return run()
    print("usage: python -m ragsite.launcher run|prepare", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
