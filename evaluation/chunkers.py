"""The chunking strategies the evaluation compares with the product's (documents/chunking.py).

  A  blind windows of 512 characters        B  A + 64-character overlap
  C  paragraph/sentence boundaries           D  C + overlap of the previous chunk's last sentence(s)
  E  C + "Title > Section path" header       F  E + overlap

E is the product's chunker, called as ingestion calls it; the others are built from its pieces,
so every strategy keeps a chunk within the encoder's window and `content == text[start:end]`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise

from documents import chunking
from documents.chunking import Atom, Chunker, ChunkSpan, TokenCounter, chunk_span, context_header, section_regions
from documents.chunking_text import Level, Span, boundary_starts, ends_sentence, strip_span
from documents.embedding import ENCODER_WINDOW_TOKENS
from documents.extraction.types import Section

STRATEGIES = ("A", "B", "C", "D", "E", "F")

BLIND_WINDOW_CHARS = 512
BLIND_OVERLAP_CHARS = 64
OVERLAP_SHARE = 0.15  # D/F: repeated tail of the previous chunk, as a share of target_chars


def check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown chunking strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}")


def pipeline_stamp(strategy: str, target_chars: int) -> str:
    """Identifies the chunker output; A/B ignore target_chars, so their stamp names the real window.
    E's is the product's own stamp."""
    check_strategy(strategy)
    if strategy == chunking.STRATEGY:
        return chunking.pipeline_stamp(target_chars)
    chars = BLIND_WINDOW_CHARS if strategy in ("A", "B") else target_chars
    return f"{strategy}/{chars}/chunker-{chunking.CHUNKER_VERSION}"


def chunk_document(
    text: str,
    *,
    title: str,
    sections: Sequence[Section],
    page_starts: Sequence[int],
    strategy: str,
    target_chars: int = 1000,
    count_tokens: TokenCounter | None = None,
    max_tokens: int = ENCODER_WINDOW_TOKENS,
) -> list[ChunkSpan]:
    check_strategy(strategy)
    if strategy == chunking.STRATEGY:
        return chunking.chunk_document(
            text, title=title, sections=sections, page_starts=page_starts, target_chars=target_chars,
            count_tokens=count_tokens, max_tokens=max_tokens,
        )  # fmt: skip
    chunker = chunking.chunker_for(text, target_chars, count_tokens, max_tokens)
    if chunker is None:
        return []
    regions = section_regions(text, sections)
    if strategy in ("A", "B"):
        windows = Chunker(text, chunker.counter, BLIND_WINDOW_CHARS, max_tokens)
        spans = _blind(windows, BLIND_WINDOW_CHARS - (BLIND_OVERLAP_CHARS if strategy == "B" else 0))
        starts = [r.start for r in regions]
        owner = [regions[max(0, bisect_right(starts, s[0]) - 1)] for s, _ in spans]
        return [chunk_span(text, s, n, r.path, "", page_starts) for (s, n), r in zip(spans, owner, strict=True)]
    chunks: list[ChunkSpan] = []
    for region in regions:
        context, context_tokens = chunker.fit_context(context_header(title, region.trail) if strategy == "F" else "")
        groups = chunker.groups(region, context, context_tokens)
        leads = _overlap_leads(chunker, groups) if strategy in ("D", "F") else None
        spans = chunker.verify(groups, context, leads)
        chunks.extend(chunk_span(text, s, n, region.path, context, page_starts) for s, n in spans)
    return chunks


def _blind(chunker: Chunker, step: int) -> list[tuple[Span, int]]:
    """Windows of the chunker's target length every `step` characters (an over-long one is cut at sentences)."""
    windows = []
    text = chunker.text
    for start in range(0, len(text), step):
        span = strip_span(text, start, min(start + chunker.target, len(text)))
        if span[0] < span[1]:
            windows.append([Atom(span[0], span[1], Level.PARAGRAPH, 0)])
        if start + chunker.target >= len(text):
            break
    return chunker.verify(windows, "")


def _overlap_leads(chunker: Chunker, groups: list[list[Atom]]) -> list[int | None]:
    """Where each chunk starts when it repeats the end of the previous one (D/F)."""
    allowance = max(1, int(chunker.target * OVERLAP_SHARE))
    leads: list[int | None] = [None]
    for prev, _ in pairwise(groups):
        leads.append(_tail_start(chunker.text, prev[0].start, prev[-1].end, allowance))
    return leads


def _tail_start(text: str, start: int, end: int, allowance: int) -> int | None:
    """The earliest sentence start within the allowance. A last sentence up to twice as long is
    still taken whole; a chunk opening mid-sentence makes a poor quote. Only when the previous
    chunk was itself cut inside a sentence are its last words repeated, for continuity."""
    window = max(start, end - 2 * allowance)  # only the tail is scanned: long documents, many chunks
    options = [(Level.SENTENCE, allowance), (Level.SENTENCE, 2 * allowance)]
    if not ends_sentence(text, end):
        options.append((Level.WORD, allowance))
    for level, limit in options:
        fitting = [s for s in boundary_starts(text, window, end, level) if end - s <= limit]
        if fitting:
            return fitting[0] if limit == allowance else fitting[-1]
    return None
