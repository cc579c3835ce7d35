"""Issue 15b: an export made by format version 1 (before OCR pages, warnings, context counters and
reuse keys were exported) still restores, the newer fields taking their defaults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from documents.models import Chunk, ChunkContext, Document, OcrPage
from documents.services.backup_export import CHUNK_FIELDS_V1, DOCUMENT_FIELDS_V1
from documents.services.backup_format import MANIFEST_NAME, JsonlWriter, read_jsonl, table_name
from documents.services.backup_import import library_import
from documents.services.backup_tables import BACKUP_TABLES
from tests.documents.backup_library import library_wipe

pytestmark = [pytest.mark.corpus, pytest.mark.slow]
_V1_COLUMNS = {
    "documents": {"id", "folder", "uploaded_by", *DOCUMENT_FIELDS_V1},
    "chunks": {"id", "document", "embedding", *CHUNK_FIELDS_V1},
}


def _as_version_1(export: Path) -> None:
    """Rewrite a current export as version 1 wrote it: fewer columns, no OCR, context or registered tables."""
    manifest = json.loads((export / MANIFEST_NAME).read_text())
    for name in ("ocr_pages", "chunk_contexts", *BACKUP_TABLES):
        (export / table_name(name)).unlink()
        del manifest["tables"][name], manifest["counts"][name]
    for name, columns in _V1_COLUMNS.items():
        path = export / table_name(name)
        rows = [{k: v for k, v in row.items() if k in columns} for row in read_jsonl(path)]
        writer = JsonlWriter(path)
        for row in rows:
            writer.write(row)
        manifest["tables"][name] = vars(writer.close())
    manifest["format_version"] = 1
    (export / MANIFEST_NAME).write_text(json.dumps(manifest))


def test_a_version_1_export_restores_with_defaults_and_recomputed_reuse_keys(
    backup_library: dict[str, Any], backup_media: Path, tmp_path: Path
) -> None:
    keys = _reuse_keys()
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)
    _as_version_1(export)
    library_wipe(backup_media)
    summary = library_import(export, enqueue=False)

    assert summary.documents_created == 9
    assert (summary.ocr_pages_restored, summary.chunk_contexts_restored) == (0, 0)
    assert (OcrPage.objects.count(), ChunkContext.objects.count()) == (0, 0)
    layout = Document.objects.get(original_name="corpus-layout.pdf")
    assert (layout.warnings, layout.context_cache_hits, layout.context_seconds) == ([], 0, 0.0)
    # The recomputed keys are the ones ingestion stored: restored vectors are reused by a later re-index.
    assert _reuse_keys() == keys
    assert all(len(key) == 64 for *_, key in keys)


def _reuse_keys() -> list[tuple[str, str, int, str]]:
    rows = Chunk.objects.values_list("document__folder__name", "document__sha256", "ordinal", "embedding_key")
    return sorted(rows)
