"""Query vectors: the same embedder as the chunks (local model or embedding server), behind an
in-process LRU cache.

Encoding a short query costs milliseconds of CPU (or a round trip to the embedding server);
people (and the evaluation harness) repeat queries, and a cached vector turns that cost into a
dictionary lookup. The cache key includes the embedding stamp (model, embedder, prefixes) and the
size, so a change never serves a vector from the old space. A vector column of another size than
EMBEDDING_DIMS refuses every query (documents/vector_column.py) rather than match nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from django.conf import settings

from documents.embedding import embed_queries, embedding_stamp
from documents.vector_column import vector_column_verify

if TYPE_CHECKING:
    import numpy as np

_lock = threading.Lock()
_cache: OrderedDict[tuple[str, int, str], np.ndarray] = OrderedDict()


def clean_query(text: str) -> str:
    """PostgreSQL text cannot hold NUL characters; surrounding whitespace carries no meaning."""
    return text.replace("\x00", "").strip()


def embed_query(text: str) -> tuple[np.ndarray, bool]:
    """The query's L2-normalised vector, and whether it came from the cache.

    Raises VectorColumnMismatch (the column needs `manage.py embedding_switch`) or
    EmbeddingUnavailable (the embedding server failed), both with a message naming the cause."""
    vector_column_verify()
    return query_vector(text)


def query_vector(text: str) -> tuple[np.ndarray, bool]:
    """`embed_query` without the vector column's check, for a caller that compares the vector
    with others it embeds itself (the extractive writer's sentences), never with the column."""
    key = (embedding_stamp(), settings.EMBEDDING_DIMS, text)
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached, True
    # Encoding happens outside the lock: two threads may both encode a new query, which is
    # harmless, while a held lock would serialise every search behind the model.
    vector = embed_queries([text])[0]
    vector.setflags(write=False)  # shared between callers: nobody may mutate it
    with _lock:
        _cache[key] = vector
        _cache.move_to_end(key)
        size = settings.QUERY_EMBEDDING_CACHE_SIZE
        while len(_cache) > size:
            _cache.popitem(last=False)
    return vector, False


def clear_query_cache() -> None:
    with _lock:
        _cache.clear()


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form, cast with `%s::vector` in SQL."""
    return "[" + ",".join(f"{float(x):.8g}" for x in vector) + "]"
