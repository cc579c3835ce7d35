"""Issue 15.2: a damaged export stops with a message naming the problem and changes nothing.

Each case damages a real export, tries to import it into an empty library with an empty media
directory (and, for the failure mid-write, into a non-empty one with --merge), and checks
every library table, the accounts and the stored files are exactly as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from documents.services import backup_import
from documents.services.backup_format import FORMAT_VERSION, MANIFEST_NAME, original_path, read_jsonl
from tests.conftest import ingest_file_inline
from tests.corpus import DEV_DIR
from tests.documents.backup_library import library_counts, media_files
from tests.factories import FolderFactory

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def _a_document(export: Path) -> dict[str, Any]:
    return next(row for row in read_jsonl(export / "documents.jsonl") if row["content_type"] == "application/pdf")


def _remove_original(export: Path) -> None:
    original_path(export, _a_document(export)["sha256"]).unlink()


def _flip_a_byte(export: Path) -> None:
    path = original_path(export, _a_document(export)["sha256"])
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate_manifest(export: Path) -> None:
    path = export / MANIFEST_NAME
    path.write_text(path.read_text()[:200])


def _remove_manifest(export: Path) -> None:
    (export / MANIFEST_NAME).unlink()


def _newer_format(export: Path) -> None:
    path = export / MANIFEST_NAME
    manifest = json.loads(path.read_text())
    manifest["format_version"] = FORMAT_VERSION + 1
    path.write_text(json.dumps(manifest))


def _drop_last_document(export: Path) -> None:
    path = export / "documents.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))


def _cut_chunks_mid_line(export: Path) -> None:
    path = export / "chunks.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _remove_table(export: Path) -> None:
    (export / "folders.jsonl").unlink()


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "missing original": (_remove_original, r"original file of document \d+ .* is missing: files/"),
    "checksum mismatch": (_flip_a_byte, r"original file of document \d+ .* is damaged: .* has sha256 [0-9a-f]{64}"),
    "truncated manifest": (_truncate_manifest, r"manifest.json is damaged \(not complete JSON"),
    "missing manifest": (_remove_manifest, r"manifest.json is missing"),
    "newer format version": (
        _newer_format,
        rf"format version {FORMAT_VERSION + 1}.*reads versions up to {FORMAT_VERSION}",
    ),
    "truncated documents table": (_drop_last_document, r"documents.jsonl has 8 lines .* manifest says 9 lines"),
    "truncated chunks table": (_cut_chunks_mid_line, r"chunks.jsonl has \d+ lines .* truncated or changed"),
    "missing table": (_remove_table, r"folders.jsonl is missing"),
}


@pytest.mark.parametrize("damage", DAMAGES, ids=list(DAMAGES))
def test_a_damaged_export_is_refused_by_name_and_leaves_the_library_as_it_was(
    damage: str, backup_exported: Path, backup_media: Path
) -> None:
    damage_export, message = DAMAGES[damage]
    damage_export(backup_exported)
    before = (library_counts(), media_files(backup_media))
    with pytest.raises(CommandError, match=message) as refused:
        call_command("library_import", str(backup_exported), verbosity=0)
    assert "Nothing was imported" in str(refused.value)
    assert (library_counts(), media_files(backup_media)) == before


def test_a_failure_while_writing_rolls_everything_back_files_included(
    backup_exported: Path, backup_media: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A non-empty target (--merge) whose folder, document and file must survive the failed import.
    ingest_file_inline(DEV_DIR / "promql-operators.md", FolderFactory(name="Local"))
    before = (library_counts(), media_files(backup_media))
    real_replace, calls = backup_import.lexical_index_replace, []

    def fail_on_third_document(document_id: int, **options: Any) -> None:
        calls.append(document_id)
        if len(calls) == 3:
            raise RuntimeError("disk full")
        real_replace(document_id, **options)

    monkeypatch.setattr(backup_import, "lexical_index_replace", fail_on_third_document)
    with pytest.raises(RuntimeError, match="disk full"):
        call_command("library_import", str(backup_exported), "--merge", verbosity=0)
    assert len(calls) == 3  # it failed after documents, files and some chunks were written
    assert (library_counts(), media_files(backup_media)) == before


def test_import_into_a_library_that_is_not_empty_is_refused_without_merge(
    backup_exported: Path, backup_media: Path
) -> None:
    FolderFactory(name="Already here")
    before = (library_counts(), media_files(backup_media))
    with pytest.raises(CommandError, match=r"library is not empty \(1 folders, 0 documents\).*--merge"):
        call_command("library_import", str(backup_exported), verbosity=0)
    assert (library_counts(), media_files(backup_media)) == before
