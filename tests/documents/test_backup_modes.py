"""Issue 15.1–15.2: --merge, exports without an index, another embedding model, and the snapshot.

The export must describe one instant of a library that keeps changing while it runs; the
import must add to a library with --merge without duplicating what is already there, and
re-index (queue, or --inline) what cannot be restored from the export's vectors.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from documents.models import Chunk, Document, DocumentStatus, Folder
from documents.services import backup_export
from documents.services.backup_format import read_jsonl
from documents.services.backup_import import library_import
from documents.services.library import document_delete
from tests.conftest import ingest_file_inline
from tests.corpus import DEV_DIR
from tests.documents.backup_library import library_fingerprint, library_wipe
from tests.factories import FolderFactory, GroupFactory

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def test_merge_adds_what_is_missing_and_skips_the_same_bytes_in_the_same_folder(
    backup_exported: Path, backup_media: Path
) -> None:
    # The target already has "Public notes" (private here) holding the same storage notes, and a folder of its own.
    mine = FolderFactory(name="Public notes", readers=[GroupFactory(name="locals")])
    existing = ingest_file_inline(DEV_DIR / "prometheus-storage.md", mine)
    local = ingest_file_inline(DEV_DIR / "promql-operators.md", FolderFactory(name="Local"))
    summary = library_import(backup_exported, merge=True)

    assert summary.documents_skipped == 1
    assert summary.documents_created == 8
    assert (summary.accounts.folders_created, summary.accounts.folders_reused) == (4, 1)
    mine.refresh_from_db()
    assert not mine.is_public  # an existing folder keeps its own permissions
    assert list(mine.reader_groups.values_list("name", flat=True)) == ["locals"]
    in_mine = Document.objects.filter(folder=mine)
    assert sorted(in_mine.values_list("original_name", flat=True)) == [
        "corpus-layout.pdf",
        "corpus-prometheus-storage.md",
    ]
    assert Chunk.objects.filter(document=existing).count() == existing.chunk_count  # not duplicated
    assert Document.objects.filter(folder__name="Ops", sha256=existing.sha256).exists()  # the copy elsewhere comes
    assert Document.objects.get(pk=local.pk).status == DocumentStatus.INDEXED
    assert Document.objects.count() == 10
    again = library_import(backup_exported, merge=True)  # merging twice adds nothing
    assert (again.documents_created, again.documents_skipped) == (0, 9)


def test_an_export_without_index_is_reindexed_inline_to_the_same_answers(
    backup_library: dict[str, Any], backup_media: Path, tmp_path: Path
) -> None:
    Document.objects.filter(title="Waiting").delete()  # --inline would index it; the source never did
    before = library_fingerprint()
    export = tmp_path / "export"
    call_command("library_export", str(export), "--without-index", verbosity=0)
    assert not (export / "chunks.jsonl").exists()
    library_wipe(backup_media)
    call_command("library_import", str(export), "--inline", "--restore-privileges", verbosity=0)

    after = library_fingerprint()
    assert after["searches"] == before["searches"]
    assert after["permissions"] == before["permissions"]
    assert after["index"] == before["index"]
    assert Document.objects.get(original_name="corpus-scan.pdf").status == DocumentStatus.FAILED


def test_another_embedding_model_queues_every_indexed_document(backup_exported: Path, settings: Any) -> None:
    settings.EMBEDDING_MODEL = "another-model"
    summary = library_import(backup_exported, enqueue=False)
    assert summary.chunks_restored == 0
    assert Chunk.objects.count() == 0
    queued = Document.objects.filter(status=DocumentStatus.QUEUED)
    assert sorted(summary.queued_ids) == sorted(queued.values_list("pk", flat=True))
    assert queued.count() == 8  # seven indexed and the one that was waiting; the failed one stays failed
    assert set(queued.values_list("chunk_count", "lexeme_total")) == {(0, 0)}


def test_the_export_is_one_snapshot_while_the_library_changes(
    backup_library: dict[str, Any], backup_media: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delete and a new folder committed while chunks are being exported are not seen by it."""
    victim = Document.objects.get(original_name="corpus-bitcoin-nakamoto-2008.pdf")
    real_chunk_rows = backup_export._ExportRun.chunk_rows

    def change_library_meanwhile() -> None:
        try:
            document_delete(document=victim)
            Folder.objects.create(name="Created during the export")
        finally:
            connection.close()

    def chunk_rows(self: Any) -> Any:
        worker = threading.Thread(target=change_library_meanwhile)  # its own connection and transaction
        worker.start()
        worker.join()
        yield from real_chunk_rows(self)

    monkeypatch.setattr(backup_export._ExportRun, "chunk_rows", chunk_rows)
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)

    assert not Document.objects.filter(pk=victim.pk).exists()
    chunks = [row for row in read_jsonl(export / "chunks.jsonl") if row["document"] == victim.pk]
    assert len(chunks) == victim.chunk_count > 0
    assert "Created during the export" not in {row["name"] for row in read_jsonl(export / "folders.jsonl")}
    library_wipe(backup_media)
    library_import(export)
    assert Document.objects.get(pk=victim.pk).chunks.count() == victim.chunk_count


def test_export_refuses_a_directory_that_is_not_empty(backup_library: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "something").write_text("x")
    with pytest.raises(CommandError, match="not an empty directory"):
        call_command("library_export", str(tmp_path / "export"), verbosity=0)


def test_a_broker_failure_after_commit_keeps_the_import_and_says_so(
    backup_exported: Path, backup_media: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from documents.services import backup_import

    def broker_down(document: Document) -> None:
        raise ConnectionRefusedError("no broker")

    monkeypatch.setattr(backup_import, "document_enqueue", broker_down)
    summary = library_import(backup_exported)
    assert "ConnectionRefusedError" in summary.enqueue_error
    assert Document.objects.count() == 9  # committed, files included
    assert len(list(backup_media.rglob("*.*"))) == 9
    assert Document.objects.get(pk=summary.queued_ids[0]).status == DocumentStatus.QUEUED
