"""Model-written chunk contexts in the evaluation, reproducible without the model.

`evaluate --contexts FILE` reads contexts from JSONL lines `{"chunk_sha256": …, "context": …}`
(the sha256 of the chunk's content → the context a model wrote for it); `--write-contexts FILE`
saves every context the run used, so a run made where a model server exists can be repeated,
with identical indexes, on a machine without one. Either option adds an `S+ctx` strategy for
each requested strategy S: S's chunker with the room a written context needs, each chunk's
context the header plus the written one, paired against S in the sign tests.

A chunk whose context is neither in the file nor written by a model (no `CONTEXT_WRITER`, or
the request failed) keeps its header and is counted as missing.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from django.conf import settings

from documents.chunking import ChunkSpan
from documents.context_writer import PROMPT_VERSION, ContextWriter
from documents.services.contexts import context_writer_enabled, contexts_apply, writer_from_settings

SUFFIX = "+ctx"


class ContextsFileError(ValueError):
    pass


def is_contextual(strategy: str) -> bool:
    return strategy.endswith(SUFFIX)


def base_strategy(strategy: str) -> str:
    return strategy.removesuffix(SUFFIX)


def with_contextual(strategies: list[str]) -> list[str]:
    return [*strategies, *(s + SUFFIX for s in strategies if not is_contextual(s))]


def load_contexts(path: Path) -> dict[str, str]:
    contexts: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ContextsFileError(f"cannot read {path}: {exc}") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key, context = row["chunk_sha256"], row["context"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ContextsFileError(f"{path}:{number}: expected {{'chunk_sha256': …, 'context': …}}") from exc
        if not isinstance(key, str) or not isinstance(context, str):
            raise ContextsFileError(f"{path}:{number}: chunk_sha256 and context must be strings")
        contexts[key] = context
    return contexts


class ContextBook:
    """The contexts of one run: known ones (from a file), the rest from the model when one is configured."""

    def __init__(self, known: dict[str, str], writer: ContextWriter | None) -> None:
        self.known = dict(known)
        self.writer = writer
        self.used: dict[str, str] = {}
        self.counts: dict[str, Counter[str]] = {}

    @classmethod
    def from_settings(cls, path: Path | None) -> ContextBook:
        writer = writer_from_settings() if context_writer_enabled() else None
        return cls(load_contexts(path) if path else {}, writer)

    def apply(self, strategy: str, text: str, spans: list[ChunkSpan]) -> list[ChunkSpan]:
        outcome = contexts_apply(text, spans, known=self.known, writer=self.writer)
        self.known.update(outcome.written)
        self.used.update(outcome.used)  # what the chunks got, for --write-contexts
        counts = self.counts.setdefault(strategy, Counter())
        counts.update(
            known=outcome.reused, written=len(outcome.written), missing=outcome.failures,
            prompt_tokens=outcome.prompt_tokens, cached_prompt_tokens=outcome.cached_prompt_tokens,
            completion_tokens=outcome.completion_tokens,
        )  # fmt: skip
        return outcome.spans

    def save(self, path: Path) -> int:
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = (json.dumps({"chunk_sha256": k, "context": v}, ensure_ascii=False) for k, v in sorted(self.used.items()))
        path.write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")
        return len(self.used)

    def summary(self) -> dict[str, Any]:
        return {
            "writer": f"openai:{self.writer.model}" if self.writer else None,
            "prompt_version": PROMPT_VERSION,
            "reserved_tokens": settings.CONTEXT_RESERVED_TOKENS,
            "per_strategy": {s: dict(c) for s, c in self.counts.items()},
        }
