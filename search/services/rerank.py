"""The reader stage: a model that reads the question and each passage together and scores them.

Fusion ranks by what each leg saw separately; a reader (cross-encoder) sees both texts at once,
which is what separates "the passage mentions Shazam" from "the passage says who bought Shazam".
`RERANKER` chooses it:

- `none` (default: no reader weights ship with this machine),
- `cross-encoder`: `RERANKER_MODEL` is a local sentence-transformers CrossEncoder folder, loaded
  lazily, once per process (never from a hub),
- `http`: `RERANK_URL` speaks the `/rerank` shape of Text Embeddings Inference, Cohere and Jina
  (query + texts in; index + score out), with an optional `RERANK_API_KEY`.

The reader reorders the fused top `RERANK_CANDIDATES`; its best score joins the gate
(`RERANK_MIN_SCORE`). A reader that fails or times out never fails the search: `RerankError`
tells retrieval to keep the fused order and say so in a notice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from django.conf import settings

from ragsite.llm import ChatError, post_json

MAX_TEXT_CHARS = 4000  # a passage is ~1,000 characters; cap what one request carries


class RerankError(ChatError):
    """The reader could not score the passages; the message says why, for the notice."""


class Reranker(Protocol):
    name: str

    def score(self, query: str, texts: list[str]) -> list[float]: ...


@dataclass
class CrossEncoderReranker:
    model_dir: str
    name: str = "cross-encoder"

    def score(self, query: str, texts: list[str]) -> list[float]:
        try:
            model = _load_cross_encoder(self.model_dir)
            scores = model.predict([(query, text) for text in texts], batch_size=32, show_progress_bar=False)
        except (OSError, ValueError, RuntimeError) as exc:
            raise RerankError(f"the reranker model in {self.model_dir} could not score ({exc})") from exc
        return [float(s) for s in scores]


@lru_cache(maxsize=2)
def _load_cross_encoder(model_dir: str) -> Any:
    if not (Path(model_dir) / "config.json").is_file():
        raise OSError(f"no config.json in {model_dir!r}: RERANKER_MODEL must be a local CrossEncoder folder")
    from sentence_transformers import CrossEncoder

    return CrossEncoder(model_dir, device="cpu", local_files_only=True)


@dataclass
class HttpReranker:
    url: str
    api_key: str = ""
    model: str = ""
    timeout: float = 5.0
    name: str = "http"

    def score(self, query: str, texts: list[str]) -> list[float]:
        # TEI reads "texts"; Cohere and Jina read "documents" (and "model"). Both are sent.
        body: dict[str, Any] = {"query": query, "texts": texts, "documents": texts}
        if self.model:
            body["model"] = self.model
        response = post_json(
            rerank_url(self.url), body, api_key=self.api_key, timeout=self.timeout, what="the reranker",
            error=RerankError,
        )  # fmt: skip
        return scores_from_reply(response, len(texts))


def rerank_url(base: str) -> str:
    base = base.strip().rstrip("/")
    return base if base.endswith("/rerank") else f"{base}/rerank"


def scores_from_reply(response: Any, count: int) -> list[float]:
    """Scores in input order from a TEI list or a Cohere/Jina `results` object."""
    try:
        reply = response.json()
        items = reply["results"] if isinstance(reply, dict) else reply
        pairs = [(int(i["index"]), float(i.get("score", i.get("relevance_score")))) for i in items]
    except (ValueError, KeyError, TypeError) as exc:
        raise RerankError("the reranker's reply holds no list of {index, score}") from exc
    scores: list[float | None] = [None] * count
    for index, score in pairs:
        if not 0 <= index < count or math.isnan(score):
            raise RerankError(f"the reranker's reply has an invalid entry (index {index}, score {score})")
        scores[index] = score
    if any(s is None for s in scores):
        raise RerankError(f"the reranker scored {sum(s is not None for s in scores)} of {count} passages")
    return [float(s) for s in scores if s is not None]


def get_reranker() -> Reranker | None:
    """The configured reader, or None for `RERANKER=none`; a misconfiguration raises RerankError."""
    kind = settings.RERANKER  # one of the three, checked at start-up (ragsite/env.py)
    if kind == "none":
        return None
    if kind == "cross-encoder":
        if not settings.RERANKER_MODEL:
            raise RerankError("RERANKER=cross-encoder needs RERANKER_MODEL (a local CrossEncoder folder)")
        return CrossEncoderReranker(settings.RERANKER_MODEL)
    if not settings.RERANK_URL:
        raise RerankError("RERANKER=http needs RERANK_URL")
    return HttpReranker(
        url=settings.RERANK_URL,
        api_key=settings.RERANK_API_KEY,
        model=settings.RERANKER_MODEL,
        timeout=settings.RERANK_TIMEOUT_SECONDS,
    )


def reader_text(context: str, content: str) -> str:
    """What the reader sees of a passage: its retrieval header, then its own words."""
    text = f"{context}\n{content}" if context else content
    return text[:MAX_TEXT_CHARS]
