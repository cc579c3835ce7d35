"""`library_import`: restore an export into this library, all or nothing.

The whole export is verified first (export_verify: manifest, every table's lines and sha256,
every original's sha256) and only then written, in one transaction. Originals are copied into
storage inside it and removed again if it rolls back, so a failed import leaves the library
and its media directory as they were.

Chunks come back with their vectors; their lexical index (vectors, lengths, packed postings) is
rebuilt by the same function ingestion calls (lexical_index_replace). A document whose
chunks cannot be restored (an export --without-index, or vectors of another embedding model
than this library's) is queued for indexing instead. OCR pages come back with their document,
and cached chunk contexts are added to this library's cache (format version 2 on).

Into an empty library, folders, documents and chunks keep their exported ids: links such as
/documents/42/view keep working after a move, and rankings break exact ties (by chunk id) the
same way. With --merge they are numbered anew.

An export is read as possibly hostile (its hashes are no signature): accounts come without
privileges unless restore_privileges (backup_accounts), lines and the manifest are bounded,
vectors must be ones the model could have written (this library's dimensions, finite, length 1:
backup_format), and a row the database refuses (a DataError or IntegrityError) rolls everything
back and is reported as ExportDamaged naming the table and line.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.files.storage import default_storage
from django.core.management.color import no_style
from django.db import DataError, IntegrityError, connection, transaction

from documents.bulk_indexes import drop_search_indexes
from documents.chunking import embedded_text
from documents.embedding import embedding_stamp
from documents.lexical.blocks import lexeme_blocks_rebuild_for_documents
from documents.lexical.index import lexical_index_replace
from documents.models import Chunk, ChunkContext, Document, DocumentStatus, Folder, OcrPage, Tag, document_upload_to
from documents.names import InvalidName
from documents.services.backup_accounts import (
    AccountsRestored,
    folders_restore,
    groups_restore,
    parse_time,
    users_restore,
)
from documents.services.backup_export import (
    CHUNK_CONTEXT_FIELDS,
    CHUNK_FIELDS,
    CHUNK_FIELDS_V1,
    DOCUMENT_FIELDS,
    DOCUMENT_FIELDS_V1,
    DOCUMENT_FIELDS_V2,
    OCR_PAGE_FIELDS,
)
from documents.services.backup_format import (
    ExportDamaged,
    Manifest,
    decode_vector,
    export_file,
    name_checked,
    original_path,
    progress,
    read_jsonl,
)
from documents.services.backup_format import table_name as jsonl
from documents.services.backup_tables import BACKUP_TABLES, RestoreIds
from documents.services.backup_verify import export_verify
from documents.services.language_detect import document_languages_store
from documents.services.metadata import tag_get_or_create
from documents.services.queueing import document_enqueue
from documents.services.upload import safe_original_name
from documents.services.vector_reuse import embedding_key

logger = logging.getLogger(__name__)
_LOCK_KEY = 0x6C69627261727921  # "library!": one import at a time
_CHUNKS_PER_INSERT = 1000
_ROWS_PER_INSERT = 200  # OCR pages (tens of kB of word boxes each) and cached contexts
_STAMPS = ("indexed_at", "status_changed_at", "created_at", "updated_at")


class ImportRefused(Exception):
    """The target library is not one this import may write into (not empty, without --merge)."""


@dataclass
class ImportSummary:
    accounts: AccountsRestored
    documents_created: int = 0
    documents_skipped: int = 0  # --merge: the same bytes were already in that folder
    chunks_restored: int = 0
    ocr_pages_restored: int = 0
    chunk_contexts_restored: int = 0
    queued_ids: list[int] = field(default_factory=list)
    enqueue_error: str = ""
    tables_restored: dict[str, int] = field(default_factory=dict)  # registered tables: rows restored

    @property
    def privileges_skipped(self) -> dict[str, list[str]]:
        """Per created account, the privileges the export gives it that were not restored."""
        return self.accounts.privileges_skipped


def library_import(
    directory: Path,
    *,
    merge: bool = False,
    enqueue: bool = True,
    show_progress: bool = False,
    restore_privileges: bool = False,
) -> ImportSummary:
    """Verify the export, then restore it in one transaction; queued documents go to the workers
    after commit (enqueue=False leaves them queued for the caller to index). Accounts get the
    export's staff, superuser and group grants only with restore_privileges (a trusted export)."""
    root = Path(directory).resolve()
    manifest = export_verify(root, show_progress=show_progress)
    stored: list[str] = []
    run = _ImportRun(
        root, manifest, merge=merge, show_progress=show_progress, stored=stored, restore_privileges=restore_privileges
    )
    try:
        with transaction.atomic():
            _lock_and_check_target(merge)
            summary = run.restore()
    except BaseException as exc:
        for name in stored:  # the rows are gone with the rollback; so go their files
            default_storage.delete(name)
        if isinstance(exc, (KeyError, TypeError, ValueError)):
            raise ExportDamaged(f"The export has a malformed row ({run.where}: {_briefly(exc)}).") from exc
        if isinstance(exc, (DataError, IntegrityError)):  # rows are written in batches: the line is a bound
            raise ExportDamaged(
                f"The database refused a row of the export (at or before {run.where}): {_briefly(exc, named=False)}."
            ) from exc
        raise
    if enqueue:  # after the commit, outside the try: a broker problem must not undo a committed import
        summary.enqueue_error = _enqueue(summary.queued_ids)
    return summary


def _briefly(exc: BaseException, *, named: bool = True) -> str:
    """The error's first line, cut short: messages quote the offending value (PostgreSQL's DETAIL
    lines, `fromisoformat`'s repr), and a hostile one may be megabytes long."""
    text = str(exc).strip().split("\n", 1)[0]
    text = text if len(text) <= 300 else f"{text[:300]}…"
    return f"{type(exc).__name__}: {text}" if named else text


def _enqueue(document_ids: list[int]) -> str:
    """Send the queued documents to the workers; '' or why not (they stay queued either way)."""
    try:
        for document_id in document_ids:
            document_enqueue(Document(pk=document_id))
    except Exception as exc:  # the broker is down: reconcile re-queues them later, or run reindex
        logger.warning("could not queue imported documents: %s", exc)
        return f"{type(exc).__name__}: {exc}"
    return ""


def _lock_and_check_target(merge: bool) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
    folders, documents = Folder.objects.count(), Document.objects.count()
    if (folders or documents) and not merge:
        raise ImportRefused(
            f"The library is not empty ({folders} folders, {documents} documents). Import into an empty "
            "library, or add --merge to add the export to this one (documents already in the same folder "
            "with the same bytes are skipped)."
        )


class _ImportRun:
    def __init__(
        self,
        root: Path,
        manifest: Manifest,
        *,
        merge: bool,
        show_progress: bool,
        stored: list[str],
        restore_privileges: bool,
    ):
        self.root, self.manifest, self.merge, self.show_progress = root, manifest, merge, show_progress
        self.stored, self.restore_privileges = stored, restore_privileges
        self.where = "before the first row"  # the table and line last read, for error messages
        # For documents whose chunks come back: export id -> library id, and library id -> chunks expected.
        self.restoring: dict[int, int] = {}
        self.titles: dict[int, str] = {}  # export id -> title of those documents, to name one in an error
        self.expected_chunks: dict[int, int] = {}
        self.document_ids: dict[int, int] = {}  # export id -> library id of every document created
        self.indexed_documents: list[int] = []  # whose chunks were restored (their packed postings follow)
        self.version = manifest.format_version
        self.user_ids: dict[str, int] = {}

    def rows(self, table: str) -> Any:
        total = self.manifest.tables[table].lines
        return progress(self._numbered(table), total=total, desc=f"import {table}", enabled=self.show_progress)

    def _numbered(self, table: str) -> Iterator[dict[str, Any]]:
        for number, row in enumerate(read_jsonl(self.root / jsonl(table)), start=1):
            self.where = f"{jsonl(table)} line {number}"
            yield row

    def restore(self) -> ImportSummary:
        summary = ImportSummary(accounts=AccountsRestored())
        groups_restore(self.rows("groups"), summary.accounts)
        users_restore(self.rows("users"), summary.accounts, restore_privileges=self.restore_privileges)
        self.user_ids = dict(get_user_model().objects.values_list("username", "pk"))
        folder_ids = folders_restore(
            list(self.rows("folders")), summary.accounts, merge=self.merge, restore_privileges=self.restore_privileges
        )
        for row in self.rows("documents"):
            self._document_restore(row, folder_ids[row["folder"]], summary)
        if self.manifest.index_included:
            with _search_indexes_built_after(enabled=not self.merge):
                self._chunks_restore(summary)
            # Packed postings once for all restored documents (per document, each would re-read its blocks).
            lexeme_blocks_rebuild_for_documents(self.indexed_documents)
        if "ocr_pages" in self.manifest.tables:  # format version 2 on
            summary.ocr_pages_restored = self._ocr_pages_restore()
            summary.chunk_contexts_restored = _in_batches(
                (ChunkContext(**{f: row[f] for f in CHUNK_CONTEXT_FIELDS}) for row in self.rows("chunk_contexts")),
                ChunkContext,
                ignore_conflicts=True,  # --merge: this library may have cached the same context already
            )
        summary.tables_restored = self._registered_tables_restore(folder_ids)
        if not self.merge:
            _sequences_reset()
        return summary

    def _registered_tables_restore(self, folder_ids: dict[int, int]) -> dict[str, int]:
        """The tables registered beside the documents (documents/services/backup_tables.py), those
        the export holds (version 4 on), after everything they may refer to."""
        ids = RestoreIds(users=self.user_ids, folders=folder_ids, documents=self.document_ids)
        return {
            name: table.restore(self.rows(name), ids)
            for name, table in BACKUP_TABLES.items()
            if name in self.manifest.tables
        }

    def _restores_chunks(self, row: dict[str, Any]) -> bool:
        return bool(
            self.manifest.index_included
            and row["chunk_count"]
            and row["embedding_model"] == embedding_stamp()
            and row["embedding_dims"] == settings.EMBEDDING_DIMS
        )

    def _document_restore(self, row: dict[str, Any], folder_id: int, summary: ImportSummary) -> None:
        if self.merge and Document.objects.filter(folder_id=folder_id, sha256=row["sha256"]).exists():
            summary.documents_skipped += 1
            return
        with_chunks = self._restores_chunks(row)
        names = _document_fields(self.version)  # older versions: the rest take defaults
        fields = {name: row[name] for name in names if name not in _STAMPS}
        fields["title"] = name_checked(fields["title"], what=f"title of document {row['id']}")
        if safe_original_name(fields["original_name"]) != fields["original_name"]:
            raise ValueError(
                f"the original file name of document {row['id']} holds what an upload's may not "
                "(a directory, a control character, a leading dot)"
            )
        if "published" in fields:
            fields["published"] = _published(fields["published"])
        queue = _needs_indexing(row["status"], with_chunks)
        if queue:
            fields.update(status=DocumentStatus.QUEUED, attempts=0, failure_reason="")
        if not with_chunks:
            fields.update(chunk_count=0, lexeme_total=0)
        document = Document.objects.create(
            pk=None if self.merge else row["id"],
            folder_id=folder_id,
            file=self._store_original(row),
            uploaded_by_id=self.user_ids.get(row["uploaded_by"] or ""),
            **fields,
        )
        if self.version >= 3:
            document.tags.set(_tags(row.get("tags")))
        # auto_now / auto_now_add stamps are set on save; the original times are put back here.
        Document.objects.filter(pk=document.pk).update(**{s: parse_time(row[s]) for s in _STAMPS})
        summary.documents_created += 1
        self.document_ids[row["id"]] = document.pk
        if queue:
            summary.queued_ids.append(document.pk)
        if with_chunks:
            self.restoring[row["id"]] = document.pk
            self.titles[row["id"]] = document.title
            self.expected_chunks[document.pk] = row["chunk_count"]

    def _store_original(self, row: dict[str, Any]) -> str:
        # A fresh random storage name, as an upload gets; the export's bytes were verified already.
        # Checked again as it is opened: verification passed, but the directory is not ours to trust.
        with export_file(self.root, original_path(self.root, row["sha256"])).open("rb") as stream:
            name = default_storage.save(document_upload_to(Document(), row["original_name"]), File(stream))
        self.stored.append(name)
        return name

    def _chunks_restore(self, summary: ImportSummary) -> None:
        batch = _ChunkBatch(on_document_done=self._document_indexed)
        for row in self.rows("chunks"):
            document_id = self.restoring.get(row["document"])
            if document_id is None:
                continue
            vector = self._vector(row["embedding"], row["document"])
            batch.add(document_id, Chunk(document_id=document_id, embedding=vector, **self._chunk_fields(row)))
            summary.chunks_restored += 1
        batch.finish()
        if self.expected_chunks:
            raise ExportDamaged(f"chunks.jsonl lacks the chunks of {len(self.expected_chunks)} indexed document(s).")

    def _vector(self, encoded: str | None, export_document_id: int) -> Any:
        if encoded is None:
            return None
        try:
            # Only chunks of documents embedded at this library's dimensions are restored (_restores_chunks).
            return decode_vector(encoded, settings.EMBEDDING_DIMS)
        except ExportDamaged as exc:
            title = self.titles[export_document_id]
            raise ExportDamaged(f"{self.where}, a chunk of document {export_document_id} ('{title}'): {exc}.") from exc

    def _chunk_fields(self, row: dict[str, Any]) -> dict[str, Any]:
        if self.version >= 2:
            return {f: row[f] for f in CHUNK_FIELDS}
        fields = {f: row[f] for f in CHUNK_FIELDS_V1}
        # Version 1 had no reuse key: computed as ingestion computes it. Only vectors of this library's
        # model and dimensions are restored (_restores_chunks), which is the stamp embedding_key uses.
        return fields | {"embedding_key": embedding_key(embedded_text(fields["context"], fields["content"]))}

    def _ocr_pages_restore(self) -> int:
        pages = (
            OcrPage(document_id=self.document_ids[row["document"]], **{f: row[f] for f in OCR_PAGE_FIELDS})
            for row in self.rows("ocr_pages")
            if row["document"] in self.document_ids  # --merge: a skipped document keeps its own pages
        )
        return _in_batches(pages, OcrPage)

    def _document_indexed(self, document_id: int, stored: int) -> None:
        document_languages_store(document_id)  # derived from the text, as ingestion does
        lexical_index_replace(document_id, blocks=False)
        self.indexed_documents.append(document_id)
        expected = self.expected_chunks.pop(document_id, None)
        if stored != expected:
            raise ExportDamaged(
                f"chunks.jsonl holds {stored} chunks of a document that documents.jsonl says has {expected}."
            )


@contextmanager
def _search_indexes_built_after(*, enabled: bool) -> Iterator[None]:
    """Into an empty library, build the search indexes once after loading, as pg_restore does.

    Inserting row by row updates the HNSW graph for every chunk, and again for every row the
    statistics rewrite: ~5 ms a chunk. The DDL is part of the import's transaction, so a failed
    import gets its indexes back with the rollback. (A merge keeps them: people may be searching.)
    """
    if not enabled:
        yield
        return
    ddl = drop_search_indexes()
    yield
    with connection.cursor() as cursor:
        # Django's foreign keys are checked at commit; CREATE INDEX wants no checks pending, so run them now.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for statement in ddl.values():
            cursor.execute(statement)
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        for table in ("documents_chunk", "documents_document"):
            cursor.execute(f"ANALYZE {table}")


def _sequences_reset() -> None:
    """After rows were written with their exported ids, new rows must be numbered after them."""
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [Folder, Document, Chunk]):
            cursor.execute(statement)


def _in_batches(rows: Iterator[Any], model: Any, *, ignore_conflicts: bool = False) -> int:
    """Insert a stream of unsaved rows a few hundred at a time; how many were sent."""
    count, pending = 0, []
    for row in rows:
        pending.append(row)
        if len(pending) >= _ROWS_PER_INSERT:
            model.objects.bulk_create(pending, ignore_conflicts=ignore_conflicts)
            count, pending = count + len(pending), []
    model.objects.bulk_create(pending, ignore_conflicts=ignore_conflicts)
    return count + len(pending)


def _document_fields(version: int) -> tuple[str, ...]:
    if version >= 3:
        return DOCUMENT_FIELDS
    return DOCUMENT_FIELDS_V2 if version == 2 else DOCUMENT_FIELDS_V1


def _published(value: object) -> date | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"published must be a date (YYYY-MM-DD) or null, not {value!r}")
    return date.fromisoformat(value)


def _tags(names: object) -> list[Tag]:
    """The export's tag names as this library's tags, created when missing (matched whatever their case)."""
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"tags must be a list of names, not {names!r}")
    try:
        return [tag_get_or_create(name) for name in names]
    except InvalidName as exc:
        raise ValueError(str(exc)) from exc


def _needs_indexing(status: str, with_chunks: bool) -> bool:
    """Failed stays failed; indexed stays indexed when its chunks come back; the rest is queued."""
    if status == DocumentStatus.FAILED:
        return False
    return status != DocumentStatus.INDEXED or not with_chunks


class _ChunkBatch:
    """Inserts chunks a thousand at a time and rebuilds statistics once per finished document."""

    def __init__(self, on_document_done: Callable[[int, int], None]) -> None:
        self.on_document_done = on_document_done
        self.pending: list[Chunk] = []
        self.document_id: int | None = None
        self.document_chunks = 0

    def add(self, document_id: int, chunk: Chunk) -> None:
        if document_id != self.document_id:
            self.finish()
            self.document_id = document_id
        self.pending.append(chunk)
        self.document_chunks += 1
        if len(self.pending) >= _CHUNKS_PER_INSERT:
            self._insert()

    def finish(self) -> None:
        self._insert()
        if self.document_id is not None:
            self.on_document_done(self.document_id, self.document_chunks)
        self.document_id, self.document_chunks = None, 0

    def _insert(self) -> None:
        if self.pending:
            Chunk.objects.bulk_create(self.pending)
            self.pending = []
