"""Vectors from an embedding server (EMBEDDER=http): any OpenAI-compatible `/v1/embeddings`
(Text Embeddings Inference, vLLM, Ollama, Infinity, a hosted API) or TEI's native `/embed`.

Texts go out EMBEDDING_BATCH_SIZE to a request, EMBEDDING_CONCURRENCY requests at a time. A
timeout, a dropped connection, HTTP 429 or a 5xx is tried again (EMBEDDING_RETRIES times, waiting
EMBEDDING_BACKOFF_SECONDS doubled at each attempt); anything else, or the last failure, raises
`EmbeddingUnavailable` with a message a person can act on. Nothing is returned unless every text
has its vector of EMBEDDING_DIMS numbers, so a caller stores all of a document's vectors or none.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from django.conf import settings

from ragsite.errors import ServiceUnavailable

if TYPE_CHECKING:
    import numpy as np
    import requests

logger = logging.getLogger(__name__)

_RETRIED_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER_SECONDS = 60.0
_local = threading.local()


class EmbeddingUnavailable(ServiceUnavailable):
    """The embedder gave no usable vectors (server down, timeout, wrong size); the message says why."""


class _Transient(Exception):
    """A failure worth another attempt (timeout, connection, 429, 5xx)."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


def embeddings_url(url: str) -> tuple[str, str]:
    """The URL to POST to and its protocol: "tei" for TEI's native …/embed, else "openai".

    A base URL gets the OpenAI path: "http://host:8080" and "http://host:8080/v1" both become
    "http://host:8080/v1/embeddings".
    """
    base = url.strip().rstrip("/")
    if not base:
        raise EmbeddingUnavailable("EMBEDDER=http needs EMBEDDING_URL (the embedding server's address).")
    if base.endswith("/embed"):
        return base, "tei"
    if base.endswith("/embeddings"):
        return base, "openai"
    return (f"{base}/embeddings" if base.endswith("/v1") else f"{base}/v1/embeddings"), "openai"


def http_embed(texts: list[str]) -> np.ndarray:
    """L2-normalised float32 vectors for `texts` (already prefixed), one row per text, in order."""
    import numpy as np

    size = max(1, settings.EMBEDDING_BATCH_SIZE)
    batches = [texts[i : i + size] for i in range(0, len(texts), size)]
    workers = min(max(1, settings.EMBEDDING_CONCURRENCY), len(batches))
    if workers == 1:
        parts = [_embed_batch(batch) for batch in batches]
    else:
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="embed")
        try:
            futures = [pool.submit(_embed_batch, batch) for batch in batches]
            parts = [future.result() for future in futures]
        finally:
            # On a failure (or the time limit) the batches not yet sent never are, and the caller
            # does not wait for those in flight: their threads end with their request's timeout.
            pool.shutdown(wait=False, cancel_futures=True)
    vectors = np.concatenate(parts).astype(np.float32, copy=False)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def _embed_batch(texts: list[str]) -> np.ndarray:
    """One batch's vectors, trying again with backoff after a transient failure."""
    attempts = 1 + max(0, settings.EMBEDDING_RETRIES)
    for attempt in range(attempts):
        try:
            return _request(texts)
        except _Transient as exc:
            if attempt + 1 == attempts:
                raise EmbeddingUnavailable(f"{exc} ({attempts} attempts)") from exc
            wait = settings.EMBEDDING_BACKOFF_SECONDS * 2**attempt
            wait = max(wait, min(exc.wait, _MAX_RETRY_AFTER_SECONDS)) if exc.wait is not None else wait
            logger.warning("embedding server: %s; trying again in %.1f s", exc, wait)
            time.sleep(wait)
    raise AssertionError("unreachable")  # the loop returns or raises


def _request(texts: list[str]) -> np.ndarray:
    import requests

    url, protocol = embeddings_url(settings.EMBEDDING_URL)
    body: dict[str, Any]
    if protocol == "tei":
        body = {"inputs": texts, "normalize": True, "truncate": False}
    else:
        body = {"model": settings.EMBEDDING_MODEL, "input": texts, "encoding_format": "float"}
    timeout = settings.EMBEDDING_TIMEOUT_SECONDS
    try:
        response = _session().post(url, json=body, headers=_headers(), timeout=timeout)
    except requests.Timeout as exc:
        raise _Transient(f"the embedding server at {url} did not answer within {timeout:g} s") from exc
    except requests.RequestException as exc:
        raise _Transient(f"the embedding server at {url} could not be reached ({type(exc).__name__})") from exc
    if response.status_code != 200:
        detail = _error_detail(response)
        message = f"the embedding server at {url} answered HTTP {response.status_code}{detail}"
        if response.status_code in _RETRIED_STATUSES:
            raise _Transient(message, _retry_after(response))
        raise EmbeddingUnavailable(message)
    return _vectors(response, len(texts), protocol, url)


def _session() -> requests.Session:
    """One keep-alive session per thread (a Session is not safe to share between threads)."""
    session = getattr(_local, "session", None)
    if session is None:
        import requests

        session = _local.session = requests.Session()
    return session


def _headers() -> dict[str, str]:
    key = settings.EMBEDDING_API_KEY
    return {"Authorization": f"Bearer {key}"} if key else {}


def _vectors(response: requests.Response, count: int, protocol: str, url: str) -> np.ndarray:
    import numpy as np

    try:
        payload = response.json()
        rows = payload if protocol == "tei" else [item["embedding"] for item in _by_index(payload["data"])]
        vectors = np.asarray(rows, dtype=np.float32)
    except (ValueError, KeyError, TypeError) as exc:
        shape = "a list of vectors" if protocol == "tei" else "data[].embedding lists of numbers"
        raise EmbeddingUnavailable(f"the embedding server at {url} sent a reply without {shape}") from exc
    if vectors.ndim != 2 or vectors.shape[0] != count:
        got = vectors.shape[0] if vectors.ndim else 0
        raise EmbeddingUnavailable(f"the embedding server at {url} sent {got} vectors for {count} texts")
    dims = settings.EMBEDDING_DIMS
    if vectors.shape[1] != dims:
        raise EmbeddingUnavailable(
            f"the embedding server at {url} sent {vectors.shape[1]}-dimensional vectors but EMBEDDING_DIMS is "
            f"{dims}: set EMBEDDING_DIMS={vectors.shape[1]} and run `manage.py embedding_switch`, or use a "
            f"{dims}-dimensional model"
        )
    if not np.isfinite(vectors).all():
        raise EmbeddingUnavailable(f"the embedding server at {url} sent vectors holding NaN or infinity")
    return vectors


def _by_index(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI's items carry their input's index; servers may send them in any order."""
    return sorted(data, key=lambda item: item.get("index", 0))


def _error_detail(response: requests.Response) -> str:
    text = " ".join(response.text.split())[:200]
    return f": {text}" if text else ""


def _retry_after(response: requests.Response) -> float | None:
    try:
        return float(response.headers.get("Retry-After", ""))
    except ValueError:
        return None
