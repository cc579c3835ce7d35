"""Reusing stored vectors: a text already embedded by the same model is not embedded again.

Every chunk stores `embedding_key`, the SHA-256 of the model stamp and of the exact text that
was sent to the encoder (context + content, as built by whoever wrote the context). When a
document is processed again, each text whose key is already stored anywhere in the library
takes that vector; only the others go to the encoder. Because the key is taken from the text
actually embedded, a changed context, chunk boundary, model or dimension gives another key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from documents.embedding import embed_step, embedding_stamp
from documents.models import Chunk
from documents.progress import EMBEDDING, ProgressReport

Embedder = Callable[[list[str]], Any]  # texts -> array of vectors, one row per text


def embedding_key(text: str, model: str | None = None, dims: int | None = None) -> str:
    stamp = f"{model or embedding_stamp()}\n{dims or settings.EMBEDDING_DIMS}\n"
    return hashlib.sha256(stamp.encode() + text.encode()).hexdigest()


@dataclass
class ReuseTally:
    """Counts for this process (what `reindex` reports when it ends)."""

    reused: int = 0
    embedded: int = 0


TALLY = ReuseTally()


@dataclass
class Vectors:
    vectors: Any  # float32 array, one row per text
    keys: list[str]
    reused: int  # texts whose vector came from the store


def vectors_for(texts: Sequence[str], embed: Embedder, report: ProgressReport | None = None) -> Vectors:
    """Vectors for `texts`, from stored chunks where the key matches, else from `embed`.

    With `report`, the texts go to `embed` a step at a time (`embed_step`: a batch, or a batch for
    each concurrent request) and `report` hears, after each, how many of `texts` have their vector;
    without, in one call."""
    import numpy as np

    keys = [embedding_key(t) for t in texts]
    known = stored_vectors(set(keys)) if settings.EMBEDDING_REUSE else {}
    reused = sum(1 for k in keys if k in known)
    missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in known))
    step = embed_step() if report is not None else max(1, len(missing))
    for start in range(0, len(missing), step):
        if report is not None:
            # Counted in texts; the copies of a repeated text count as done from the start (a lead
            # of a few at most, which the last report evens out).
            report(EMBEDDING, len(texts) - len(missing) + start, len(texts))
        part = missing[start : start + step]
        for text, vector in zip(part, embed(part), strict=True):
            known[embedding_key(text)] = vector
    if report is not None:
        report(EMBEDDING, len(texts), len(texts))
    TALLY.reused += reused
    TALLY.embedded += len(missing)
    if not keys:
        return Vectors(vectors=np.asarray(embed([]), dtype=np.float32), keys=[], reused=0)
    vectors = np.stack([np.asarray(known[k], dtype=np.float32) for k in keys])
    return Vectors(vectors=vectors, keys=keys, reused=reused)


def stored_vectors(keys: set[str]) -> dict[str, Any]:
    if not keys:
        return {}
    rows = (
        Chunk.objects.filter(embedding_key__in=keys, embedding__isnull=False)
        .order_by()
        .values_list("embedding_key", "embedding")
    )
    return dict(rows.iterator(chunk_size=500))
