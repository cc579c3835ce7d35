"""Model-written chunk contexts in the ingest pipeline: settings, cache, window fit, cost.

With `CONTEXT_WRITER=openai` every chunk's `context` becomes its "Title > Section" header
followed by a context a model wrote after reading the document. The context is embedded and
indexed by BM25 with the chunk, never quoted. Chunks are cut `CONTEXT_RESERVED_TOKENS` smaller
so the written context has room; whatever does not fit the encoder window is cut from the
written context, never from the content. A chunk whose request fails keeps its header alone and
is counted on the document. Contexts are cached by (document text, chunk text, model, prompt
version), so re-indexing unchanged chunks asks the model nothing.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from django.conf import settings

from documents.chunking import ChunkSpan, embedded_text
from documents.context_writer import PROMPT_VERSION, ChunkRequest, ContextWriter
from documents.embedding import count_tokens, count_tokens_batch, window_tokens
from documents.models import ChunkContext, Document
from documents.progress import CONTEXTS, ProgressReport, no_progress
from ragsite.llm import ChatEndpoint

_SAFETY = 0.9  # when cutting by a token ratio, aim a little low so one more count usually suffices


class ContextWriterMisconfigured(ValueError):
    pass


def context_writer_enabled() -> bool:
    return settings.CONTEXT_WRITER == "openai"  # "none" or "openai", checked at start-up (ragsite/env.py)


def writer_stamp() -> str:
    """Appended to the pipeline stamp: switching the writer, model, prompt or reserve makes documents stale."""
    if not context_writer_enabled():
        return ""
    return f"+ctx-openai:{settings.CONTEXT_LLM_MODEL}:p{PROMPT_VERSION}:r{settings.CONTEXT_RESERVED_TOKENS}"


def chunk_window(contextual: bool | None = None) -> int:
    """The word-piece budget the chunker gets: the encoder window, less the room kept for a written context."""
    on = context_writer_enabled() if contextual is None else contextual
    return window_tokens() - (settings.CONTEXT_RESERVED_TOKENS if on else 0)


def writer_from_settings() -> ContextWriter:
    if not settings.CONTEXT_LLM_BASE_URL or not settings.CONTEXT_LLM_MODEL:
        raise ContextWriterMisconfigured(
            "CONTEXT_WRITER=openai needs CONTEXT_LLM_BASE_URL and CONTEXT_LLM_MODEL (or LLM_BASE_URL and LLM_MODEL)"
        )
    endpoint = ChatEndpoint(
        base_url=settings.CONTEXT_LLM_BASE_URL,
        model=settings.CONTEXT_LLM_MODEL,
        api_key=settings.CONTEXT_LLM_API_KEY,
        timeout=settings.CONTEXT_LLM_TIMEOUT_SECONDS,
    )
    return ContextWriter(
        endpoint=endpoint,
        max_input_tokens=settings.CONTEXT_LLM_MAX_INPUT_TOKENS,
        max_output_tokens=settings.CONTEXT_LLM_MAX_OUTPUT_TOKENS,
        concurrency=settings.CONTEXT_LLM_CONCURRENCY,
        retries=settings.CONTEXT_LLM_RETRIES,
        backoff_seconds=settings.CONTEXT_LLM_BACKOFF_SECONDS,
    )


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class ContextOutcome:
    spans: list[ChunkSpan]
    written: dict[str, str] = field(default_factory=dict)  # chunk hash -> context the model wrote now
    used: dict[str, str] = field(default_factory=dict)  # chunk hash -> written context each chunk got (uncut)
    failures: int = 0  # chunks left with the header alone (request failed, or no writer and no known context)
    reused: int = 0  # chunks whose context was known beforehand (cache or file)
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


def contexts_apply(
    text: str,
    spans: Sequence[ChunkSpan],
    *,
    known: Mapping[str, str],
    writer: ContextWriter | None,
    report: ProgressReport = no_progress,
) -> ContextOutcome:
    """Give every span its header + written context: known ones by chunk hash, the rest from `writer`.

    `report` hears of the contexts in hand (known, then written) of the distinct chunk texts."""
    started = time.perf_counter()
    hashes = [text_hash(s.content) for s in spans]
    firsts = {h: i for i, h in reversed(list(enumerate(hashes)))}  # a repeated chunk text is asked once
    todo = [(h, i) for h, i in firsts.items() if h not in known]
    outcome = ContextOutcome(spans=[])
    if writer is not None and todo:
        requests = [ChunkRequest(spans[i].content, spans[i].char_start, spans[i].char_end) for _, i in todo]
        ready = len(firsts) - len(todo)
        report(CONTEXTS, ready, len(firsts))
        results = writer.write_all(text, requests, lambda count: report(CONTEXTS, ready + count, len(firsts)))
        for (h, _), result in zip(todo, results, strict=True):
            outcome.prompt_tokens += result.usage.prompt_tokens
            outcome.cached_prompt_tokens += result.usage.cached_prompt_tokens
            outcome.completion_tokens += result.usage.completion_tokens
            if result.context:
                outcome.written[h] = result.context
    contexts = [known.get(h) or outcome.written.get(h) for h in hashes]
    outcome.used = {h: c for h, c in zip(hashes, contexts, strict=True) if c}
    outcome.reused = sum(1 for h in hashes if h in known)
    outcome.failures = sum(1 for c in contexts if not c)
    outcome.spans = fit_contexts(spans, contexts)
    outcome.seconds = time.perf_counter() - started
    return outcome


def combined_context(header: str, written: str) -> str:
    return f"{header}\n{written}" if header and written else header or written


def fit_contexts(spans: Sequence[ChunkSpan], written: Sequence[str | None]) -> list[ChunkSpan]:
    """Each span with its header and written context, cut so the embedded text fits the encoder window."""
    candidates = [combined_context(s.context, w or "") for s, w in zip(spans, written, strict=True)]
    counts = count_tokens_batch([embedded_text(c, s.content) for c, s in zip(candidates, spans, strict=True)])
    window = window_tokens()
    fitted = []
    for span, text, context, tokens in zip(spans, written, candidates, counts, strict=True):
        if text and tokens > window:
            context, tokens = _cut_to_window(span, text, tokens, window)
        fitted.append(replace(span, context=context, token_count=tokens))
    return fitted


def _cut_to_window(span: ChunkSpan, written: str, tokens: int, window: int) -> tuple[str, int]:
    """Shorten the written context (never the header or content) until the chunk fits; "" at worst."""
    while written:
        own = max(1, count_tokens(written) - count_tokens(""))
        keep = int(len(written) * max(0, own - (tokens - window)) / own * _SAFETY)
        written = written[:keep].rsplit(" ", 1)[0].rstrip() + "…" if keep > 1 else ""
        context = combined_context(span.context, written)
        tokens = count_tokens(embedded_text(context, span.content))
        if tokens <= window:
            return context, tokens
    return span.context, count_tokens(embedded_text(span.context, span.content))


# --- the production pipeline step -------------------------------------------------------------


def chunk_contexts_write(
    document: Document, text: str, spans: list[ChunkSpan], report: ProgressReport = no_progress
) -> list[ChunkSpan]:
    """Ingest's context step: cached contexts, the model for the rest, the cost recorded on the
    document; `report` hears of the contexts written."""
    if not context_writer_enabled():
        _record(document.pk, ContextOutcome(spans=spans))  # a previous writer's counts no longer apply
        return spans
    writer = writer_from_settings()
    document_hash = text_hash(text)
    hashes = {text_hash(s.content) for s in spans}
    cached = ChunkContext.objects.filter(
        document_hash=document_hash, model=writer.model, prompt_version=PROMPT_VERSION, chunk_hash__in=hashes
    )
    known = dict(cached.values_list("chunk_hash", "context"))
    outcome = contexts_apply(text, spans, known=known, writer=writer, report=report)
    ChunkContext.objects.bulk_create(
        [
            ChunkContext(
                document_hash=document_hash, chunk_hash=h, model=writer.model, prompt_version=PROMPT_VERSION, context=c
            )
            for h, c in outcome.written.items()
        ],
        ignore_conflicts=True,  # two workers on the same bytes in two folders may write the same row
    )
    _record(document.pk, outcome)
    return outcome.spans


def _record(document_id: int, outcome: ContextOutcome) -> None:
    Document.objects.filter(pk=document_id).update(
        context_failures=outcome.failures,
        context_cache_hits=outcome.reused,
        context_prompt_tokens=outcome.prompt_tokens,
        context_cached_prompt_tokens=outcome.cached_prompt_tokens,
        context_completion_tokens=outcome.completion_tokens,
        context_seconds=round(outcome.seconds, 3),
    )
