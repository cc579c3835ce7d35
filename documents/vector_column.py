"""The chunk vector column's size against EMBEDDING_DIMS: never a silent mismatch.

The column (`documents_chunk.embedding`, vector(n)) and its HNSW index are built for one size;
`manage.py embedding_switch` rebuilds them for another. Until it has run, a search or an
ingestion under a different EMBEDDING_DIMS is refused with `VectorColumnMismatch`, whose message
names the command, and `manage.py check --database default` (and `migrate`) report it.
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.core import checks
from django.db import connection

from ragsite.errors import ServiceUnavailable

TABLE = "documents_chunk"
COLUMN = "embedding"
INDEX = "chunk_embedding_hnsw"
# pgvector's HNSW index takes vectors of at most this many dimensions.
HNSW_MAX_DIMS = 2000

_lock = threading.Lock()
_verified: set[tuple[str, int]] = set()  # (database name, EMBEDDING_DIMS) found to match


class VectorColumnMismatch(ServiceUnavailable):
    """The vector column holds vectors of another size than EMBEDDING_DIMS."""


def vector_column_dims() -> int | None:
    """The column's declared size (vector(n)), or None when the table is not there yet (before migrate)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.atttypmod FROM pg_attribute AS a"
            " WHERE a.attrelid = to_regclass(%s) AND a.attname = %s AND NOT a.attisdropped",
            [TABLE, COLUMN],
        )
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def mismatch_message(column: int, dims: int) -> str:
    return (
        f"The chunk vector column holds {column}-dimensional vectors but EMBEDDING_DIMS is {dims}. "
        f"Run `manage.py embedding_switch` to rebuild it for {dims} dimensions (every document is "
        f"re-embedded), or set EMBEDDING_DIMS={column} again."
    )


def vector_column_verify() -> None:
    """Raise VectorColumnMismatch unless the column's size is EMBEDDING_DIMS (a match is remembered)."""
    key = (str(connection.settings_dict.get("NAME")), settings.EMBEDDING_DIMS)
    if key in _verified:
        return
    column = vector_column_dims()
    if column is not None and column != settings.EMBEDDING_DIMS:
        raise VectorColumnMismatch(mismatch_message(column, settings.EMBEDDING_DIMS))
    with _lock:
        _verified.add(key)


def forget_verified() -> None:
    """After the column changed under this process (embedding_switch), verify it again."""
    with _lock:
        _verified.clear()


def vector_column_check(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """System check (database tag: `check --database default`, `migrate`)."""
    if not databases or "default" not in databases:
        return []
    column = vector_column_dims()
    if column is None or column == settings.EMBEDDING_DIMS:
        return []
    return [checks.Error(mismatch_message(column, settings.EMBEDDING_DIMS), id="documents.E001")]
