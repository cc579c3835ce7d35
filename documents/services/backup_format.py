"""The library export format: a manifest, JSON Lines tables and the original files by sha256.

An export directory holds

    manifest.json        written last: format, version, settings, counts, and for every table
                         its line count and sha256 (so a truncated or edited table is caught)
    users.jsonl          accounts by username (no passwords), with their group names
    groups.jsonl         group names
    folders.jsonl        folders with parent and readers/writers by name
    documents.jsonl      documents with metadata, extracted text and version stamps
    chunks.jsonl         chunks with offsets, contexts, vectors and their reuse keys (absent with
                         --without-index)
    ocr_pages.jsonl      (version 2) per OCR'd page: confidence, word count and word boxes
    chunk_contexts.jsonl (version 2) the cache of model-written chunk contexts, so a re-index
                         after an import does not ask the model again
    webhook_endpoints.jsonl (version 4) webhook endpoints with their signing secrets: the
                         manifest names it under `secret_bearing_tables`
    question_log.jsonl   (version 4) the questions asked, with the readers' feedback
                         (registered by the citations app: documents/services/backup_tables.py)
    files/ab/abcdef…     each original file once, named by its sha256

Every table is written and read one line at a time, so memory does not grow with the library.
An export is not signed (its hashes catch damage, not tampering), so reading one is bounded as
if it were hostile: a line longer than line_bytes_max() and a manifest over MANIFEST_BYTES_MAX
are refused unread, and a vector must be one the model could have written: this library's
dimensions, finite numbers, length 1.
Vectors are base64 of little-endian float32: pgvector stores float32, so these bytes restore
every vector bit for bit (no decimal formatting in between), take 2,048 characters for 384
dimensions instead of ~7,500 as JSON numbers, and decode with one numpy call.

Version 2 added the two tables above, the documents' warnings and context-writer counters and
the chunks' embedding_key. Version 1 exports are still read: those fields take their defaults
(embedding_key is recomputed as ingestion computes it), and the two tables are simply absent.
Version 3 added the documents' metadata: authors, published, metadata_edited (which of them staff
corrected) and tags by name; older exports restore without them (`backfill_metadata` reads them).
Version 4 added the registered tables (webhook endpoints, the question log); older exports restore
without them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from tqdm import tqdm

from documents.names import name_problem

FORMAT_NAME = "ragsite-library-export"
FORMAT_VERSION = 4
MANIFEST_NAME = "manifest.json"
FILES_DIR = "files"
VECTOR_ENCODING = "base64-float32-le"
# How far from 1 a vector's length may be: float32 rounding (and bfloat16 encoding) moves it by
# less than a thousandth; a vector further off was not written by the model.
UNIT_LENGTH_TOLERANCE = 0.01
TABLES_V1 = ("users", "groups", "folders", "documents", "chunks")
TABLES = (*TABLES_V1, "ocr_pages", "chunk_contexts")
NOT_EXPORTED = (
    "API tokens (they are secrets; create new ones with `manage.py create_token`), passwords, "
    "sessions and Django admin permissions are not exported."
)
# A manifest holds a few hundred bytes a table plus the documents skipped during the export.
MANIFEST_BYTES_MAX = 16 << 20
_LINE_SLACK_BYTES = 1 << 20  # a document row's fields besides its text: title, names, stamps, warnings
T = TypeVar("T")


class ExportDamaged(Exception):
    """The export cannot be restored as it is; the message names the problem."""


def table_name(table: str) -> str:
    return f"{table}.jsonl"


def original_path(root: Path, sha256: str) -> Path:
    return root / FILES_DIR / sha256[:2] / sha256


def name_checked(value: object, *, what: str, validators: Iterable[Callable[[Any], None]] = ()) -> str:
    """`value` if the admin or an upload would take it as a `what` (documents/names.py, then
    `validators`, e.g. the user model's username rule); else ValueError saying why, which the
    import reports naming the table and line. The value itself is not quoted: it may hold escapes."""
    if not isinstance(value, str):
        raise ValueError(f"the {what} is not text")
    problem = name_problem(value, what=what)
    if problem is not None:
        raise ValueError(problem)
    for validator in validators:
        try:
            validator(value)
        except ValidationError as exc:
            raise ValueError(f"the {what} is refused: {' '.join(exc.messages)}") from exc
    return value


def export_file(root: Path, path: Path) -> Path:
    """`path`, a file of the export at `root`, once it is known to be the export's own: no symbolic
    link on the way to it and nothing outside the directory (else an import would read, and store
    as an original, whatever file of this machine the link points at)."""
    relative = path.relative_to(root)
    step = root
    for part in relative.parts:
        step = step / part
        if step.is_symlink():
            raise ExportDamaged(
                f"{step.relative_to(root)} is a symbolic link: an export holds only its own files, so it is refused."
            )
    if not path.resolve().is_relative_to(root.resolve()):
        raise ExportDamaged(f"{relative} lies outside the export directory, so it is refused.")
    return path


def encode_vector(vector: Any) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str, dims: int) -> np.ndarray:
    """A chunk's vector, refused unless the model could have written it: `dims` finite numbers of
    length 1 (every embedder here returns L2-normalised vectors: documents/embedding.py)."""
    vector = np.frombuffer(base64.b64decode(text, validate=True), dtype="<f4")
    if vector.shape != (dims,):
        raise ExportDamaged(f"a vector has {vector.shape[0]} dimensions, this library's have {dims}")
    if not np.isfinite(vector).all():  # pgvector refuses NaN and infinity; so does every distance
        raise ExportDamaged("a vector holds NaN or infinity")
    length = float(np.linalg.norm(vector.astype(np.float64)))  # float64: 3e38 squared overflows float32
    if length == 0.0:  # no direction, so no cosine distance: every search would meet NaN
        raise ExportDamaged("a vector is all zeros")
    if abs(length - 1.0) > UNIT_LENGTH_TOLERANCE:
        raise ExportDamaged(f"a vector has length {length:.3g}; the model's vectors have length 1")
    return vector


def line_bytes_max() -> int:
    """The longest line a table may have: a document row holding the longest text this library indexes.

    INGEST_MAX_TEXT_CHARS characters take at most 6 bytes each as JSON (a control character is
    written as \\u0000; any other character is at most 4 bytes of UTF-8), plus 1 MiB for the
    row's other fields. Every other table's lines are far shorter.
    """
    return 6 * settings.INGEST_MAX_TEXT_CHARS + _LINE_SLACK_BYTES


def line_too_long(name: str, number: int) -> ExportDamaged:
    return ExportDamaged(
        f"{name} line {number} is longer than {line_bytes_max():,} bytes, the most a line may hold "
        f"(6 bytes for each of INGEST_MAX_TEXT_CHARS = {settings.INGEST_MAX_TEXT_CHARS:,} characters, plus "
        "1 MiB): the export was made by a library with a higher limit, or tampered with."
    )


def progress(iterable: Iterable[T], *, total: int | None, desc: str, enabled: bool, unit: str = "row") -> Iterator[T]:
    """A tqdm bar on stderr (silent when disabled): the commands show it, tests keep quiet."""
    yield from tqdm(iterable, total=total, desc=desc, unit=unit, disable=not enabled, leave=False)


@dataclass
class TableStats:
    lines: int = 0
    sha256: str = ""
    bytes: int = 0


class JsonlWriter:
    """Writes one JSON object per line, counting and hashing as it goes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stream: IO[bytes] = path.open("wb")
        self._digest = hashlib.sha256()
        self.stats = TableStats()

    def write(self, row: dict[str, Any]) -> None:
        line = json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=str).encode() + b"\n"
        self._stream.write(line)
        self._digest.update(line)
        self.stats.lines += 1
        self.stats.bytes += len(line)

    def close(self) -> TableStats:
        self._stream.flush()
        os.fsync(self._stream.fileno())
        self._stream.close()
        self.stats.sha256 = self._digest.hexdigest()
        return self.stats


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of a table, one line in memory at a time; a line over line_bytes_max() is refused
    after reading no more than that many bytes of it."""
    limit = line_bytes_max()
    with path.open("rb") as stream:
        number = 0
        while line := stream.readline(limit + 1):
            number += 1
            if len(line) > limit:
                raise line_too_long(path.name, number)
            yield _row(line, path.name, number)


def _row(line: bytes, name: str, number: int) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ExportDamaged(f"{name} line {number} is not valid JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise ExportDamaged(f"{name} line {number} is not UTF-8 ({exc.reason})") from exc
    except RecursionError as exc:
        raise ExportDamaged(f"{name} line {number} nests JSON too deeply") from exc
    if not isinstance(row, dict):
        raise ExportDamaged(f"{name} line {number} is not a JSON object")
    return row


@dataclass
class Manifest:
    created_at: str
    index_included: bool
    embedding_model: str
    embedding_dims: int
    pipeline: str
    text_search_config: str
    tables: dict[str, TableStats]
    counts: dict[str, int]
    skipped: list[dict[str, str]] = field(default_factory=list)
    secret_bearing: list[str] = field(default_factory=list)  # tables whose rows hold secrets
    format_version: int = FORMAT_VERSION

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "format_version": self.format_version,
            "created_at": self.created_at,
            "index_included": self.index_included,
            "vector_encoding": VECTOR_ENCODING,
            "embedding_model": self.embedding_model,
            "embedding_dims": self.embedding_dims,
            "pipeline": self.pipeline,
            "text_search_config": self.text_search_config,
            "tables": {name: vars(stats) for name, stats in self.tables.items()},
            "counts": self.counts,
            "skipped": self.skipped,
            "secret_bearing_tables": self.secret_bearing,
            "not_exported": NOT_EXPORTED,
        }

    def write(self, root: Path) -> None:
        # Written last and renamed into place: an export without a manifest is an unfinished one.
        partial = root / f"{MANIFEST_NAME}.part"
        partial.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n")
        partial.replace(root / MANIFEST_NAME)


def manifest_read(root: Path) -> Manifest:
    """The manifest of an export, refusing a missing, damaged or newer one."""
    path = root / MANIFEST_NAME
    if not path.is_file():
        raise ExportDamaged(f"{path} is missing: this is not a library export, or the export did not finish.")
    export_file(root, path)
    # Never more than the bound, even if the file grows meanwhile (read(n) sets aside n bytes at once).
    with path.open("rb") as stream:
        text = stream.read(min(os.fstat(stream.fileno()).st_size, MANIFEST_BYTES_MAX) + 1)
    if len(text) > MANIFEST_BYTES_MAX:
        raise ExportDamaged(f"{path} is larger than {MANIFEST_BYTES_MAX >> 20} MiB, the most a manifest may hold.")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ExportDamaged(f"{path} is damaged (not complete JSON: {exc}).") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise ExportDamaged(f"{path} is not a {FORMAT_NAME} manifest.")
    version = data.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ExportDamaged(
            f"The export has format version {version!r}; this version of the library reads versions up to "
            f"{FORMAT_VERSION}. Restore it with the newer version that made it."
        )
    try:
        return _manifest_from(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ExportDamaged(f"{path} lacks or garbles a required entry ({exc!r}).") from exc


def _manifest_from(data: dict[str, Any]) -> Manifest:
    if data["vector_encoding"] != VECTOR_ENCODING:
        raise ValueError(f"vector_encoding {data['vector_encoding']}")
    tables = {name: TableStats(**stats) for name, stats in data["tables"].items()}
    expected = set(TABLES if data["format_version"] >= 2 else TABLES_V1)
    if data["format_version"] >= 4:
        expected |= registered_table_names()
    if not data["index_included"]:
        expected.discard("chunks")
    if set(tables) != expected:
        raise ValueError(f"tables {sorted(tables)}")
    return Manifest(
        created_at=str(data["created_at"]),
        index_included=bool(data["index_included"]),
        embedding_model=str(data["embedding_model"]),
        embedding_dims=int(data["embedding_dims"]),
        pipeline=str(data["pipeline"]),
        text_search_config=str(data["text_search_config"]),
        tables=tables,
        counts={str(k): int(v) for k, v in data["counts"].items()},
        skipped=list(data.get("skipped", [])),
        secret_bearing=[str(name) for name in data.get("secret_bearing_tables", [])],
        format_version=int(data["format_version"]),
    )


def registered_table_names() -> set[str]:
    """The tables registered beside the documents (imported here when asked: they need the models)."""
    from documents.services.backup_tables import BACKUP_TABLES

    return set(BACKUP_TABLES)
