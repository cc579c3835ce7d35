"""Fixtures of the backup tests (a real library with several folders and permissions, and its
export) and of FILE_STORAGE (each storage, S3 on a real local server)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from tests.corpus import DEV_DIR, require_corpus
from tests.documents.backup_library import build_library, library_wipe
from tests.documents.webhook_receiver import Receiver, receiver_running


@pytest.fixture
def backup_media(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture
def backup_library(
    transactional_db: None, memoised_pipeline: None, backup_media: Path, tmp_path: Path
) -> dict[str, Any]:
    """The backup library, committed (exports run in their own snapshot transaction)."""
    require_corpus()
    library_wipe(backup_media)  # a dev corpus committed by an earlier test is not part of this library
    return build_library(DEV_DIR, tmp_path)


@pytest.fixture
def backup_exported(backup_library: dict[str, Any], backup_media: Path, tmp_path: Path, settings: Any) -> Path:
    """The library exported, then wiped: an empty library with a fresh media directory."""
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)
    library_wipe(backup_media)
    settings.MEDIA_ROOT = str(backup_media)
    return export


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A real local HTTP receiver of webhooks, in a thread of the test process."""
    with receiver_running() as running:
        yield running


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    """A real S3-compatible server (moto's) on a free local port, for FILE_STORAGE=s3."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3_env(s3_server: str) -> dict[str, str]:
    """The settings of FILE_STORAGE=s3 for a fresh, empty bucket of `s3_server`."""
    import boto3

    env = {
        "S3_ENDPOINT_URL": s3_server,
        "S3_BUCKET": f"originals-{uuid.uuid4().hex[:12]}",
        "S3_ACCESS_KEY_ID": "test-key",
        "S3_SECRET_ACCESS_KEY": "test-secret",
        "S3_REGION": "us-east-1",
    }
    client = boto3.client(
        "s3",
        endpoint_url=s3_server,
        aws_access_key_id=env["S3_ACCESS_KEY_ID"],
        aws_secret_access_key=env["S3_SECRET_ACCESS_KEY"],
        region_name=env["S3_REGION"],
    )
    client.create_bucket(Bucket=env["S3_BUCKET"])
    return env


def use_file_storage(settings: Any, monkeypatch: pytest.MonkeyPatch, kind: str, env: dict[str, str]) -> dict[str, str]:
    """This process on FILE_STORAGE=`kind` (its settings in the environment too, where commands
    and workers started from here read them); returns the environment a worker needs."""
    from ragsite.file_storages import file_storage_backend

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("FILE_STORAGE", kind)
    settings.FILE_STORAGE = kind
    settings.STORAGES = {**settings.STORAGES, "default": file_storage_backend(kind, env)}
    return {"FILE_STORAGE": kind, **env}


@pytest.fixture(params=["filesystem", "database", "s3"])
def file_storage(request: pytest.FixtureRequest, settings: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Each FILE_STORAGE in turn; the value is the environment a worker on it needs."""
    env = request.getfixturevalue("s3_env") if request.param == "s3" else {}
    return use_file_storage(settings, monkeypatch, request.param, env)
