"""`storage_move`: a library's originals moved filesystem → database → s3 → filesystem, each copy
verified by sha256, interrupted runs resumed, and the library re-indexed from its new storage
(by a real worker reading the s3 bucket with a disk of its own)."""

from __future__ import annotations

import hashlib
from io import StringIO
from pathlib import Path
from typing import Any

import boto3
import pytest
from django.core.files.storage import default_storage, storages
from django.core.management import CommandError, call_command

from documents.models import Document, DocumentStatus
from documents.services.queueing import documents_requeue
from documents.services.storage_move import originals_move
from ragsite.file_storages import file_storage_backend
from tests.conftest import ingest_file_inline, wait_for
from tests.corpus import DEV_DIR, require_corpus
from tests.documents.conftest import use_file_storage
from tests.documents.test_storage_serving import uploaded
from tests.factories import FolderFactory

FILES = ["bitcoin-nakamoto-2008.pdf", "prometheus-storage.md", "promql-operators.md"]


class Interrupted(Exception):
    pass


def move(to: str, folder: Any, *extra: str) -> str:
    # One folder's originals: the session's other documents (the dev corpus) stay where they are.
    out = StringIO()
    call_command("storage_move", "--to", to, "--folder", str(folder.pk), *extra, stdout=out, stderr=StringIO(),
                 verbosity=0)  # fmt: skip
    return out.getvalue()


def digest_in(storage: Any, name: str) -> str:
    with storage.open(name, "rb") as stream:
        return hashlib.sha256(stream.read()).hexdigest()


def s3_client(env: dict[str, str]) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=env["S3_ENDPOINT_URL"],
        aws_access_key_id=env["S3_ACCESS_KEY_ID"],
        aws_secret_access_key=env["S3_SECRET_ACCESS_KEY"],
        region_name=env["S3_REGION"],
    )


@pytest.fixture
def worker_env(s3_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    # A worker on the s3 storage with its own empty disk: it reads the bucket or nothing.
    return {"FILE_STORAGE": "s3", **s3_env, "MEDIA_ROOT": str(tmp_path_factory.mktemp("worker-own-media"))}


@pytest.mark.worker
@pytest.mark.slow
def test_originals_move_through_every_storage_and_the_library_reindexes(
    memoised_pipeline: None,
    celery_worker_process: Any,
    s3_env: dict[str, str],
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_corpus()
    use_file_storage(settings, monkeypatch, "filesystem", s3_env)  # s3's settings in the environment too
    media = Path(settings.MEDIA_ROOT)
    folder = FolderFactory(name="Moving library")
    documents = [ingest_file_inline(DEV_DIR / name, folder) for name in FILES]
    assert all(d.status == DocumentStatus.INDEXED for d in documents)
    chunk_counts = {d.pk: d.chunk_count for d in documents}
    with pytest.raises(CommandError, match="already"):
        move("filesystem", folder)

    # filesystem → database, interrupted after the first document, then resumed.
    database = storages.create_storage(file_storage_backend("database"))
    calls = iter(range(len(FILES)))

    def interrupt_after_first() -> None:
        if next(calls) == 0:
            raise Interrupted

    with pytest.raises(Interrupted):
        originals_move(default_storage, database, folder_ids={folder.pk}, on_document=interrupt_after_first)
    assert move("database", folder, "--delete-source").startswith(
        "2 originals copied to database and verified, 1 verified"
    )
    assert not list(media.glob("documents/*")), "the verified sources are deleted"
    assert move("database", folder).startswith("0 originals copied to database and verified, 3 verified there already")
    use_file_storage(settings, monkeypatch, "database", s3_env)
    assert all(digest_in(default_storage, d.file.name) == d.sha256 for d in documents)

    # database → s3, where an interrupted upload left a truncated object behind.
    bucket = s3_env["S3_BUCKET"]
    s3_client(s3_env).put_object(Bucket=bucket, Key=documents[0].file.name, Body=b"%PDF-1.4 cut short")
    assert move("s3", folder).startswith("3 originals copied to s3 and verified, 0 verified")
    for document in documents:
        stored = s3_client(s3_env).get_object(Bucket=bucket, Key=document.file.name)["Body"].read()
        assert hashlib.sha256(stored).hexdigest() == document.sha256
    use_file_storage(settings, monkeypatch, "s3", s3_env)

    # The worker (s3 storage, empty disk of its own) re-indexes the library from the bucket.
    before = {d.pk: d.indexed_at for d in documents}
    assert documents_requeue(Document.objects.filter(folder=folder)) == len(FILES)

    def reindexed() -> bool:
        rows = Document.objects.filter(folder=folder)
        return all(d.status == DocumentStatus.INDEXED and d.indexed_at != before[d.pk] for d in rows)

    wait_for(reindexed, what=lambda: f"the re-index from s3\n{celery_worker_process.log()}")
    assert {d.pk: d.chunk_count for d in Document.objects.filter(folder=folder)} == chunk_counts

    # s3 → filesystem, over a partial file an interrupted copy left on the disk.
    partial = media / documents[1].file.name
    partial.parent.mkdir(parents=True, exist_ok=True)
    partial.write_bytes(b"# cut short")
    assert move("filesystem", folder, "--delete-source").startswith("3 originals copied to filesystem and verified, 0")
    assert s3_client(s3_env).list_objects_v2(Bucket=bucket).get("KeyCount") == 0
    use_file_storage(settings, monkeypatch, "filesystem", s3_env)
    for document in documents:
        assert hashlib.sha256((media / document.file.name).read_bytes()).hexdigest() == document.sha256


@pytest.mark.django_db
def test_a_damaged_or_missing_source_is_reported_and_not_copied(
    s3_env: dict[str, str], settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_corpus()
    use_file_storage(settings, monkeypatch, "filesystem", s3_env)
    damaged = uploaded(DEV_DIR / "prometheus-storage.md")
    folder = damaged.folder
    missing = uploaded(DEV_DIR / "promql-operators.md")
    Document.objects.filter(pk=missing.pk).update(folder=folder)  # not indexed (uploaded only): a bare move is safe
    Path(default_storage.path(damaged.file.name)).write_bytes(b"not what was uploaded")
    default_storage.delete(missing.file.name)
    err = StringIO()
    with pytest.raises(CommandError, match="2 originals could not be moved"):
        call_command(
            "storage_move", "--to", "database", "--folder", str(folder.pk), "--delete-source", stderr=err, verbosity=0
        )
    assert "do not match the document's sha256" in err.getvalue()
    assert "missing from the source storage" in err.getvalue()
    database = storages.create_storage(file_storage_backend("database"))
    assert not database.exists(damaged.file.name)
    assert default_storage.exists(damaged.file.name), "a source that failed its check is kept"
