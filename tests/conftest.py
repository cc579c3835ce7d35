"""Shared fixtures: real PostgreSQL (pytest-django), factories, and an indexed dev corpus."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from documents.extraction.formats import CONTENT_TYPES_BY_SUFFIX
from ragsite.celery import use_broker
from tests.corpus import DEV_DIR, HOLDOUT_DIR, require_corpus
from tests.factories import DocumentFactory, FolderFactory, GroupFactory, StaffFactory, UserFactory

DEV_FOLDER_NAME = "Dev corpus (tests)"
HOLDOUT_FOLDER_NAME = "Holdout corpus (tests)"


def pytest_configure(config: pytest.Config) -> None:
    """The local secret key, made as every entry point makes it (the settings only read it): on a
    fresh clone the settings were imported before the key file existed."""
    from ragsite.embedded import secret_key_ensure, secret_key_read

    secret_key_ensure()
    if not settings.ENV.SECRET_KEY:
        settings.SECRET_KEY = secret_key_read(settings.VAR_DIR)


# A test that indexes documents through the real pipeline (extraction, the encoder, storing) is
# marked `ingest`, which `make test-fast` leaves out and `make test` runs: one that uses a corpus
# fixture, or whose own code or fixtures call one of the pipeline's entry points.
INGEST_FIXTURES = frozenset({"dev_corpus", "holdout_corpus", "_dev_corpus_committed", "memoised_pipeline"})
INGEST_CALLS = re.compile(r"\b(ingest_text|ingest_file_inline|document_ingest|_build_corpus)\(")


IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


@functools.cache
def _calls_the_pipeline(function: Any, seen: frozenset[Any] = frozenset()) -> bool:
    """Whether `function`'s source, or that of a test helper it names, calls the pipeline."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):  # no source: a builtin or generated fixture
        return False
    if INGEST_CALLS.search(source):
        return True
    names = getattr(function, "__globals__", {})
    helpers = [names.get(name) for name in set(IDENTIFIER.findall(source))]
    return any(
        _calls_the_pipeline(h, seen | {function})
        for h in helpers
        if inspect.isfunction(h) and h.__module__.startswith("tests") and h is not function and h not in seen
    )


def _indexes_documents(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    if names & INGEST_FIXTURES:
        return True
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    functions = [d.func for name in names for d in definitions.get(name, ())]
    return any(map(_calls_the_pipeline, [getattr(item, "function", None), *functions]))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _indexes_documents(item):
            item.add_marker(pytest.mark.ingest)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """The embedded PostgreSQL started (or reused) before pytest-django creates the test database,
    as the entry points start it: only a run with a database test pays for it, never collection."""
    from ragsite.embedded import local_services_start

    local_services_start()


@pytest.fixture(autouse=True)
def _media_root(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    # Uploaded files of a test run never land in the developer's var/media.
    settings.MEDIA_ROOT = str(tmp_path_factory.getbasetemp() / "media")
    # Password hashing at production strength costs ~1 s per user; tests need no such cost.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Rate-limit counters live in the cache: every test starts with fresh ones.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test database, and before it is dropped, no session left on it.

    A worker process just stopped, or a thread's connection not yet collected, can keep a
    session for a moment, and DROP DATABASE then fails ("being accessed by other users").
    """
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        for _ in range(50):
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)
        # Still there after 5 s: nothing of the test run needs them any more.
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(autouse=True)
def _side_leg_connections() -> Iterator[None]:
    yield
    # A search outside a transaction ran its BM25 leg on pooled threads' own connections
    # (search/services/side_leg.py): close them, or the test database could not be dropped.
    from search.services.side_leg import close_side_connections

    close_side_connections()


def bearer(user: Any) -> dict[str, str]:
    """Headers for the test client carrying a fresh API token of `user`."""
    from documents.services.tokens import token_create

    _, raw = token_create(user=user, name="tests")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


@pytest.fixture(autouse=True, scope="session")
def _in_memory_broker() -> None:
    # Tests without a worker queue into memory (nothing consumes it); tests that need real
    # processing start a worker on a real Redis with `celery_worker_process`.
    use_broker("memory://")


@pytest.fixture
def user_factory() -> type[UserFactory]:
    return UserFactory


@pytest.fixture
def staff_user(db: None) -> Any:
    return StaffFactory(username="staff")


@pytest.fixture
def folder_factory() -> type[FolderFactory]:
    return FolderFactory


@pytest.fixture
def document_factory() -> type[DocumentFactory]:
    return DocumentFactory


@pytest.fixture
def group_factory() -> type[GroupFactory]:
    return GroupFactory


_EXTRACTION_CACHE: dict[tuple[str, str], Any] = {}
_VECTOR_CACHE: dict[tuple[tuple[str, int], str], Any] = {}


@pytest.fixture(scope="session")
def memoised_pipeline() -> Iterator[None]:
    """Extraction and embeddings memoised for the session: the real code runs once per input.

    Transactional tests flush the database, so indexed fixtures may be rebuilt; this keeps a
    rebuild to database writes only.
    """
    from documents.services import ingest

    real_extract, real_embed = ingest.extract_document, ingest.embed_texts

    def extract(path: Path, content_type: str, report: Any = None) -> Any:
        # A remembered extraction reports no pages: tests of progress run the real pipeline.
        key = (hashlib.sha256(Path(path).read_bytes()).hexdigest(), content_type)
        if key not in _EXTRACTION_CACHE:
            _EXTRACTION_CACHE[key] = real_extract(path, content_type)
        return _EXTRACTION_CACHE[key]

    def embed(texts: list[str], batch_size: int | None = None) -> Any:
        return embed_memoised(real_embed, texts)

    ingest.extract_document, ingest.embed_texts = extract, embed  # type: ignore[assignment]
    yield
    ingest.extract_document, ingest.embed_texts = real_extract, real_embed  # type: ignore[assignment]


def embed_memoised(real_embed: Any, texts: list[str], batch_size: int | None = None) -> Any:
    """The vectors of `texts`, each text sent to `real_embed` (the real encoder) once per session."""
    import numpy as np

    from documents.embedding import embedding_stamp

    stamp = (embedding_stamp(), settings.EMBEDDING_DIMS)  # another embedder's vectors are others
    missing = [t for t in dict.fromkeys(texts) if (stamp, t) not in _VECTOR_CACHE]
    if missing:
        vectors = real_embed(missing, batch_size) if batch_size else real_embed(missing)
        for text, vector in zip(missing, vectors, strict=True):
            _VECTOR_CACHE[stamp, text] = vector
    if not texts:
        return real_embed([])
    return np.stack([_VECTOR_CACHE[stamp, t] for t in texts])


def ingest_file_inline(path: Path, folder: Any, *, title: str | None = None) -> Any:
    """Upload a file through the upload service and run the real pipeline in this process."""
    from documents.models import Document
    from documents.services.ingest import document_ingest
    from documents.services.upload import IncomingFile, document_upload

    with path.open("rb") as stream:
        incoming = IncomingFile(name=f"corpus-{path.name}", size=path.stat().st_size, stream=stream)
        document = document_upload(
            folder=folder, incoming=incoming, uploaded_by=None, title=title or path.stem, enqueue=False
        )
    document_ingest(document.pk)
    return Document.objects.get(pk=document.pk)


def ingest_text(tmp_path: Path, folder: Any, title: str, text: str) -> Any:
    """`text` ingested inline as a .txt file titled `title`."""
    path = tmp_path / f"{title.replace(' ', '-').lower()}.txt"
    path.write_text(text)
    return ingest_file_inline(path, folder, title=title)


def _build_dev_corpus() -> dict[str, Any]:
    return _build_corpus(DEV_DIR, DEV_FOLDER_NAME, "dev-readers")


def _build_corpus(directory: Path, folder_name: str, group: str) -> dict[str, Any]:
    """The files of `directory` indexed in a top-level folder readable by `group` (reused when complete)."""
    from documents.models import Document, DocumentStatus, Folder

    folder = Folder.objects.filter(name=folder_name, parent=None).first()
    files = sorted(p for p in directory.iterdir() if p.suffix in CONTENT_TYPES_BY_SUFFIX)
    indexed = Document.objects.filter(folder=folder, status=DocumentStatus.INDEXED) if folder else None
    if folder is None or indexed is None or indexed.count() != len(files):
        if folder is not None:
            folder.delete()
        folder = FolderFactory(name=folder_name, readers=[GroupFactory(name=group)])
        for path in files:
            ingest_file_inline(path, folder, title=path.stem)
    return {d.original_name.removeprefix("corpus-"): d for d in Document.objects.filter(folder=folder)}


@pytest.fixture(scope="session")
def _dev_corpus_committed(django_db_setup: None, django_db_blocker: Any, memoised_pipeline: None) -> None:
    # Session scope: no test transaction is open, so the index is committed once and reused.
    if not DEV_DIR.is_dir():
        return
    with django_db_blocker.unblock():
        _build_dev_corpus()


@pytest.fixture
def dev_corpus(_dev_corpus_committed: None, db: None) -> dict[str, Any]:
    """The dev corpus indexed in a folder readable by group 'dev-readers'; {file name: Document}.

    pytest-django runs transactional tests (which flush the database) last; one that needs
    the corpus again gets it rebuilt here from memoised extraction and vectors.
    """
    require_corpus()
    return _build_dev_corpus()


@pytest.fixture
def holdout_corpus(memoised_pipeline: None, db: None) -> dict[str, Any]:
    """The holdout corpus indexed in a folder readable by group 'holdout-readers' (in the test's
    transaction: built per test, so only the tests that need it pay for it)."""
    require_corpus()
    return _build_corpus(HOLDOUT_DIR, HOLDOUT_FOLDER_NAME, "holdout-readers")


def dev_reader(name: str = "dev-reader") -> Any:
    """A user in the group that may read the dev corpus folder."""
    user = UserFactory(username=name)
    user.groups.add(GroupFactory(name="dev-readers"))
    return user


__all__ = ["DEV_FOLDER_NAME", "dev_reader", "ingest_file_inline", "ingest_text", "settings"]


@dataclasses.dataclass
class WorkerProcess:
    proc: subprocess.Popen[bytes]
    broker_url: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def test_database_url() -> str:
    """A DATABASE_URL for the database this test run uses (the test database, not the dev one)."""
    from urllib.parse import quote

    from django.db import connection

    s = connection.settings_dict
    host = s.get("HOST") or ""
    auth = quote(s.get("USER") or "postgres") + (":" + quote(s["PASSWORD"]) if s.get("PASSWORD") else "")
    if host.startswith("/"):
        return f"postgresql://{auth}@/{s['NAME']}?host={host}"
    return f"postgresql://{auth}@{host}:{s.get('PORT') or 5432}/{s['NAME']}"


def start_worker(
    tmp_dir: Path,
    *,
    extra_env: dict[str, str] | None = None,
    pool: str = "solo",
    concurrency: int = 1,
    broker_url: str | None = None,
    name: str | None = None,
) -> WorkerProcess:
    """A real Celery worker process on its own embedded Redis (or on `broker_url`'s), using this
    run's test database.

    `pool="prefork"` runs tasks in `concurrency` pool processes under the worker's main process,
    as in production (each starts under INGEST_MEMORY_LIMIT_MB, and a lost one is replaced).
    `name` is the worker's node name (`-n`), which several workers on one broker need distinct."""
    import sys

    from ragsite.embedded import start_redis

    redis_proc = None
    if broker_url is None:
        socket = tmp_dir / "redis.sock"
        redis_proc = start_redis(socket)
        broker_url = f"redis+socket://{socket}"
    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "CELERY_BROKER_URL": broker_url,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        **(extra_env or {}),
    }
    log_path = tmp_dir / "worker.log"
    args = [str(Path(sys.executable).parent / "celery"), "-A", "ragsite", "worker", "--pool", pool,
            "--concurrency", str(concurrency), "--without-gossip", "--without-mingle", "-l", "info",
            *(["-n", name] if name else [])]  # fmt: skip
    with log_path.open("wb") as log:
        proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    worker = WorkerProcess(proc=proc, broker_url=broker_url, log_path=log_path)
    worker.redis = redis_proc  # type: ignore[attr-defined]
    return worker


def stop_worker(worker: WorkerProcess) -> None:
    # The worker's whole process group is killed outright: no test checks anything after this, and
    # Celery's warm shutdown took about 2 s of every worker test's teardown.
    for proc in (worker.proc, worker.redis):  # type: ignore[attr-defined]
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL) if proc is worker.proc else proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture
def worker_env() -> dict[str, str]:
    """Extra environment for `celery_worker_process`; a test module overrides it to change settings."""
    return {}


@pytest.fixture
def worker_pool() -> str:
    """The pool of `celery_worker_process`: "solo" (tasks in the worker's own process), or
    "prefork" (one pool process, as in production); a test module overrides it."""
    return "solo"


@pytest.fixture
def own_worker() -> bool:
    """Whether `celery_worker_process` starts a worker for this test alone; a test module that kills
    or restarts its worker overrides it to True. Otherwise a default worker (no `worker_env`, solo
    pool) is the session's shared one (`_shared_worker`)."""
    return False


@dataclasses.dataclass
class SharedWorker:
    """The session's default worker, started on first use: its Celery start-up and model load (about
    ten seconds on the shared 2-core machine) are paid once instead of by every worker test."""

    tmp_dir: Path
    worker: WorkerProcess | None = None

    def media_root(self) -> Path:
        return self.tmp_dir / "media"

    def running(self) -> WorkerProcess:
        if self.worker is not None and self.worker.proc.poll() is not None:
            self.stop()  # it died: a fresh one, never a dead one, serves the next test
        if self.worker is None:
            self.media_root().mkdir(parents=True, exist_ok=True)
            self.worker = start_worker(self.tmp_dir, extra_env={"MEDIA_ROOT": str(self.media_root())})
        return self.worker

    def stop(self) -> None:
        if self.worker is not None:
            stop_worker(self.worker)
            self.worker = None


def worker_idle(timeout: float = 60.0) -> bool:
    """Whether the worker on this process's broker holds no task (running or reserved) and none is
    queued for it, waiting up to `timeout` seconds for the ones it has to finish."""
    from ragsite.celery import app

    app.control.purge()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        inspect = app.control.inspect(timeout=1.0, limit=1)
        # None: no reply within the second (a solo worker answers only between tasks).
        active, reserved = inspect.active(), inspect.reserved()
        if active is not None and reserved is not None and not any((*active.values(), *reserved.values())):
            return True
        time.sleep(0.2)
    return False


@pytest.fixture(scope="session")
def _shared_worker(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedWorker]:
    shared = SharedWorker(tmp_path_factory.mktemp("shared-worker"))
    try:
        yield shared
    finally:
        shared.stop()


@pytest.fixture
def celery_worker_process(
    transactional_db: None,
    settings: Any,
    tmp_path_factory: pytest.TempPathFactory,
    worker_env: dict[str, str],
    worker_pool: str,
    own_worker: bool,
    request: pytest.FixtureRequest,
) -> Iterator[WorkerProcess]:
    """A real worker; the test process queues to the same broker (settings.CELERY_BROKER_URL).

    With the default settings it is the session's shared worker: nothing of a test outlives it
    there, as the database is flushed after each test, MEDIA_ROOT is emptied, and the worker is
    left with no task (or replaced when it would not finish one)."""
    shared = None if (worker_env or worker_pool != "solo" or own_worker) else request.getfixturevalue("_shared_worker")
    if shared is not None:
        worker = shared.running()
        settings.MEDIA_ROOT = str(shared.media_root())
    else:
        settings.MEDIA_ROOT = str(tmp_path_factory.mktemp("worker-media"))
        worker = start_worker(tmp_path_factory.mktemp("worker"), extra_env=worker_env, pool=worker_pool)
    settings.CELERY_BROKER_URL = worker.broker_url
    use_broker(worker.broker_url)
    try:
        yield worker
    finally:
        if shared is None:
            stop_worker(worker)
        else:
            if not worker_idle():
                shared.stop()
            _empty_directory(shared.media_root())
        use_broker("memory://")


def _empty_directory(directory: Path) -> None:
    import shutil

    for child in directory.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()


def wait_for(predicate: Any, *, timeout: float = 180.0, interval: float = 0.5, what: Any = "condition") -> Any:
    """Poll until predicate() is truthy; fail with `what` (a string, or a callable giving one) on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout:.0f}s waiting for {what() if callable(what) else what}")
