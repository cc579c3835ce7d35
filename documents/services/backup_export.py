"""`library_export`: write the whole library to a directory, from one consistent snapshot.

The export runs in one REPEATABLE READ, READ ONLY transaction (what pg_dump uses): every table
is read as of the same instant while uploads, ingestion and deletes go on, and server-side
cursors (`.iterator(chunk_size=…)`) stream rows so memory stays flat for any library size.
Original files are copied while that snapshot is open; a document deleted after the snapshot
began has lost its file by then and is listed as skipped rather than exported half.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from documents.embedding import embedding_stamp
from documents.lexical.index import TEXT_SEARCH_CONFIG
from documents.models import Chunk, ChunkContext, Document, Folder, OcrPage, Tag
from documents.selectors import current_pipeline_stamp
from documents.services.backup_format import (
    JsonlWriter,
    Manifest,
    TableStats,
    encode_vector,
    original_path,
    progress,
    table_name,
)
from documents.services.backup_tables import BACKUP_TABLES

# Document fields copied as they are; ids become references inside the export only.
DOCUMENT_FIELDS_V1 = (
    "title", "original_name", "content_type", "size", "sha256", "page_count", "status", "failure_reason",
    "attempts", "extractor", "embedding_model", "embedding_dims", "pipeline", "chunk_count", "lexeme_total",
    "canonical_text", "page_starts", "indexed_at", "status_changed_at", "created_at", "updated_at",
)  # fmt: skip
DOCUMENT_FIELDS: tuple[str, ...] = (
    *DOCUMENT_FIELDS_V1, "warnings", "context_failures", "context_cache_hits", "context_prompt_tokens",
    "context_cached_prompt_tokens", "context_completion_tokens", "context_seconds",
)  # fmt: skip
# Version 3: the document's own metadata and what staff corrected of it; tags go by name ("tags").
DOCUMENT_FIELDS_V2 = DOCUMENT_FIELDS
DOCUMENT_FIELDS = (*DOCUMENT_FIELDS_V2, "authors", "published", "metadata_edited")
# search_vector and lexeme_count are not exported: the import derives them as ingestion does.
CHUNK_FIELDS_V1 = (
    "ordinal", "section", "content", "context", "char_start", "char_end", "page_start", "page_end", "token_count",
)  # fmt: skip
# The reuse key is copied, not recomputed: it is whatever ingestion stored with that vector ('' before
# vector reuse existed), so a restored library reuses exactly the vectors the original would.
CHUNK_FIELDS = (*CHUNK_FIELDS_V1, "embedding_key")
OCR_PAGE_FIELDS = ("number", "mean_confidence", "word_count", "words")
# created_at is left out: a cache entry is dated by the import that stores it (nothing reads the date).
CHUNK_CONTEXT_FIELDS = ("document_hash", "chunk_hash", "model", "prompt_version", "context")
_ROWS_PER_FETCH = 500
# A document row carries its whole extracted text (tens to hundreds of kB): fetch few at a time.
_DOCUMENTS_PER_FETCH = 20
_BLOCK = 1 << 20


class ExportRefused(Exception):
    """The export cannot start (the target directory is not empty, a transaction is open)."""


@dataclass
class ExportSummary:
    directory: Path
    counts: dict[str, int]
    total_bytes: int
    skipped: list[dict[str, str]] = field(default_factory=list)


def library_export(directory: Path, *, with_index: bool = True, show_progress: bool = False) -> ExportSummary:
    """Export folders, accounts, documents, files and (unless with_index=False) chunks to `directory`."""
    root = _prepare_directory(directory)
    if connection.in_atomic_block:
        raise ExportRefused("library_export opens its own snapshot transaction; call it outside transaction.atomic.")
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        run = _ExportRun(root, show_progress)
        tables = {
            "users": run.write_table("users", _user_rows()),
            "groups": run.write_table("groups", ({"name": n} for n in _ordered(Group.objects.values_list("name")))),
            "folders": run.write_table("folders", _folder_rows()),
            "documents": run.write_table("documents", run.document_rows(), total=Document.objects.count()),
        }
        if with_index:
            tables["chunks"] = run.write_table("chunks", run.chunk_rows(), total=Chunk.objects.count())
        tables["ocr_pages"] = run.write_table("ocr_pages", run.ocr_page_rows(), total=OcrPage.objects.count())
        tables["chunk_contexts"] = run.write_table(
            "chunk_contexts", _chunk_context_rows(), total=ChunkContext.objects.count()
        )
        tables |= _registered_tables_write(run)
    counts = {name: stats.lines for name, stats in tables.items()} | {
        "files": run.file_count,
        "file_bytes": run.file_bytes,
    }
    Manifest(
        created_at=timezone.now().isoformat(),
        index_included=with_index,
        embedding_model=embedding_stamp(),
        embedding_dims=settings.EMBEDDING_DIMS,
        pipeline=current_pipeline_stamp(),
        text_search_config=TEXT_SEARCH_CONFIG,
        tables=tables,
        counts=counts,
        skipped=run.skipped,
        secret_bearing=sorted(name for name, table in BACKUP_TABLES.items() if table.secret_bearing),
    ).write(root)
    total = run.file_bytes + sum(s.bytes for s in tables.values()) + (root / "manifest.json").stat().st_size
    return ExportSummary(directory=root, counts=counts, total_bytes=total, skipped=run.skipped)


def _registered_tables_write(run: _ExportRun) -> dict[str, TableStats]:
    """The tables registered beside the documents (documents/services/backup_tables.py)."""
    return {name: run.write_table(name, table.rows(), total=table.count()) for name, table in BACKUP_TABLES.items()}


def _prepare_directory(directory: Path) -> Path:
    root = Path(directory).resolve()
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ExportRefused(f"{root} exists and is not an empty directory; export into a new one.")
    (root / "files").mkdir(parents=True, exist_ok=True)
    return root


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _ordered(rows: Any) -> Iterator[str]:
    for (name,) in rows.order_by("name").iterator(chunk_size=_ROWS_PER_FETCH):
        yield name


def _user_rows() -> Iterator[dict[str, Any]]:
    users = get_user_model().objects.order_by("pk").prefetch_related("groups")
    for user in users.iterator(chunk_size=_ROWS_PER_FETCH):
        yield {
            "username": user.get_username(),
            "email": user.email,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "is_active": user.is_active,
            "is_staff": user.is_staff,
            "is_superuser": user.is_superuser,
            "date_joined": _iso(user.date_joined),
            "groups": sorted(g.name for g in user.groups.all()),
        }


def _folder_rows() -> Iterator[dict[str, Any]]:
    folders = Folder.objects.order_by("pk").prefetch_related(
        "reader_groups", "reader_users", "writer_groups", "writer_users"
    )
    for folder in folders.iterator(chunk_size=_ROWS_PER_FETCH):
        yield {
            "id": folder.pk,
            "parent": folder.parent_id,
            "name": folder.name,
            "is_public": folder.is_public,
            "created_at": _iso(folder.created_at),
            "reader_groups": sorted(g.name for g in folder.reader_groups.all()),
            "reader_users": sorted(u.get_username() for u in folder.reader_users.all()),
            "writer_groups": sorted(g.name for g in folder.writer_groups.all()),
            "writer_users": sorted(u.get_username() for u in folder.writer_users.all()),
        }


def _chunk_context_rows() -> Iterator[dict[str, Any]]:
    rows = ChunkContext.objects.order_by("pk").values(*CHUNK_CONTEXT_FIELDS)
    yield from rows.iterator(chunk_size=_ROWS_PER_FETCH)


class _ExportRun:
    """State of one export: where it writes, the originals copied and the documents skipped."""

    def __init__(self, root: Path, show_progress: bool) -> None:
        self.root = root
        self.show_progress = show_progress
        self.file_count = 0
        self.file_bytes = 0
        self.skipped: list[dict[str, str]] = []
        self._skipped_ids: set[int] = set()

    def write_table(self, name: str, rows: Iterator[dict[str, Any]], total: int | None = None) -> TableStats:
        writer = JsonlWriter(self.root / table_name(name))
        try:
            for row in progress(rows, total=total, desc=f"export {name}", enabled=self.show_progress):
                writer.write(row)
        finally:
            stats = writer.close()
        return stats

    def document_rows(self) -> Iterator[dict[str, Any]]:
        rows = Document.objects.order_by("pk").values(
            "id", "folder_id", "file", "uploaded_by__username", *DOCUMENT_FIELDS
        )
        for row in rows.iterator(chunk_size=_DOCUMENTS_PER_FETCH):
            problem = self._copy_original(row["file"], row["sha256"])
            if problem:
                self._skip(row, problem)
                continue
            row["folder"] = row.pop("folder_id")
            row["uploaded_by"] = row.pop("uploaded_by__username")
            del row["file"]
            for stamp in ("indexed_at", "status_changed_at", "created_at", "updated_at"):
                row[stamp] = _iso(row[stamp])
            row["published"] = row["published"].isoformat() if row["published"] else None
            row["tags"] = list(Tag.objects.filter(documents=row["id"]).order_by("name").values_list("name", flat=True))
            yield row

    def chunk_rows(self) -> Iterator[dict[str, Any]]:
        chunks = Chunk.objects.order_by("document_id", "ordinal").values(
            "id", "document_id", "embedding", *CHUNK_FIELDS
        )
        for row in chunks.iterator(chunk_size=_ROWS_PER_FETCH * 2):
            if row["document_id"] in self._skipped_ids:
                continue
            row["document"] = row.pop("document_id")
            vector = row.pop("embedding")
            row["embedding"] = encode_vector(vector) if vector is not None else None
            yield row

    def ocr_page_rows(self) -> Iterator[dict[str, Any]]:
        # Word boxes make a page row tens of kB: fetch about as few as documents.
        pages = OcrPage.objects.order_by("document_id", "number").values("document_id", *OCR_PAGE_FIELDS)
        for row in pages.iterator(chunk_size=_DOCUMENTS_PER_FETCH * 5):
            if row["document_id"] in self._skipped_ids:
                continue
            row["document"] = row.pop("document_id")
            yield row

    def _skip(self, row: dict[str, Any], reason: str) -> None:
        self._skipped_ids.add(row["id"])
        self.skipped.append({"document": str(row["id"]), "title": row["title"], "reason": reason})

    def _copy_original(self, storage_name: str, sha256: str) -> str:
        """Copy a stored file to files/<sha256> (once per distinct content); '' or the problem."""
        target = original_path(self.root, sha256)
        if target.exists():
            return ""
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        digest = hashlib.sha256()
        try:
            with default_storage.open(storage_name, "rb") as source, partial.open("wb") as out:
                for block in iter(lambda: source.read(_BLOCK), b""):
                    digest.update(block)
                    out.write(block)
        except OSError:
            partial.unlink(missing_ok=True)
            return "its stored file is missing (deleted while the export ran, or lost from storage)"
        if digest.hexdigest() != sha256:
            partial.unlink()
            return f"its stored file does not match its sha256 {sha256} (storage damaged?)"
        partial.replace(target)
        self.file_count += 1
        self.file_bytes += target.stat().st_size
        return ""
