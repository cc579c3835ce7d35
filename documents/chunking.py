"""Chunking: canonical text in, chunk spans (offsets into that same text) out.

Strategies (letters used in the evaluation notes):
  A  blind windows of 512 characters        B  A + 64-character overlap
  C  paragraph/sentence boundaries           D  C + overlap of the previous chunk's last sentence(s)
  E  C + "Title > Section path" header       F  E + overlap

Every strategy keeps `count_tokens(embedded_text(context, content)) <= max_tokens`: the encoder
silently drops word-pieces past its window, so an oversized chunk would be embedded from its
beginning only while its whole content is quoted as evidence. Offsets are found in the text
(regex matches, section starts), never summed from lengths, so `content == text[start:end]`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

from documents import embedding
from documents.chunking_text import Level, Span, boundary_starts, ends_sentence, split_units, strip_span
from documents.embedding import ENCODER_WINDOW_TOKENS
from documents.extraction.types import Section

CHUNKER_VERSION = 1  # bump when output changes
STRATEGIES = ("A", "B", "C", "D", "E", "F")

BLIND_WINDOW_CHARS = 512
BLIND_OVERLAP_CHARS = 64
OVERLAP_SHARE = 0.15  # D/F: repeated tail of the previous chunk, as a share of target_chars
CONTEXT_SHARE = 0.25  # a header may take at most this share of the window; longer ones are truncated
HEADING_CHARS = 200  # an opening unit this short is treated as a heading that must not stand alone
_SAFETY = 0.9  # when shrinking by a token ratio, aim a little low so one retry usually suffices

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class ChunkSpan:
    char_start: int
    char_end: int
    content: str  # == text[char_start:char_end], always
    section: str  # section path "Intro > Background" ("" when none)
    context: str  # prefix embedded before content: "Title > Section path" for E/F, "" for A-D
    token_count: int  # tokens of embedded_text(context, content)
    page_start: int  # 1-based
    page_end: int


def embedded_text(context: str, content: str) -> str:
    return f"{context}\n{content}" if context else content


def pipeline_stamp(strategy: str, target_chars: int) -> str:
    """Identifies the chunker output; A/B ignore target_chars, so their stamp names the real window."""
    _check_strategy(strategy)
    chars = BLIND_WINDOW_CHARS if strategy in ("A", "B") else target_chars
    return f"{strategy}/{chars}/chunker-{CHUNKER_VERSION}"


def chunk_document(
    text: str,
    *,
    title: str,
    sections: Sequence[Section],
    page_starts: Sequence[int],
    strategy: str = "E",
    target_chars: int = 1000,
    count_tokens: TokenCounter | None = None,
    max_tokens: int = ENCODER_WINDOW_TOKENS,
) -> list[ChunkSpan]:
    _check_strategy(strategy)
    if target_chars < 1:
        raise ValueError(f"target_chars must be positive, got {target_chars}")
    if not text.strip():
        return []
    counter = _Counter(count_tokens)
    if max_tokens <= counter.overhead:
        raise ValueError(f"max_tokens={max_tokens} leaves no room for content")
    regions = section_regions(text, sections)
    if strategy in ("A", "B"):
        chunker = _Chunker(text, counter, BLIND_WINDOW_CHARS, max_tokens)
        step = BLIND_WINDOW_CHARS - (BLIND_OVERLAP_CHARS if strategy == "B" else 0)
        spans = chunker.blind(step)
        starts = [r.start for r in regions]
        owner = [regions[max(0, bisect_right(starts, s[0]) - 1)] for s, _ in spans]
        return [_make(text, s, n, r.path, "", page_starts) for (s, n), r in zip(spans, owner, strict=True)]
    chunker = _Chunker(text, counter, target_chars, max_tokens)
    chunks: list[ChunkSpan] = []
    for region in regions:
        context = _context_header(title, region.trail) if strategy in ("E", "F") else ""
        context, context_tokens = chunker.fit_context(context)
        spans = chunker.boundary(region, context, context_tokens, overlap=strategy in ("D", "F"))
        chunks.extend(_make(text, s, n, region.path, context, page_starts) for s, n in spans)
    return chunks


def _check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown chunking strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}")


def _make(text: str, span: Span, tokens: int, section: str, context: str, page_starts: Sequence[int]) -> ChunkSpan:
    start, end = span
    return ChunkSpan(
        char_start=start,
        char_end=end,
        content=text[start:end],
        section=section,
        context=context,
        token_count=tokens,
        page_start=page_of(page_starts, start),
        page_end=page_of(page_starts, end - 1),
    )


def page_of(page_starts: Sequence[int], offset: int) -> int:
    """1-based page holding `offset`; documents without a page map are one page."""
    return max(1, bisect_right(page_starts, offset))


# --- sections -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Region:
    """A slice of the text owned by one section (or the preamble before the first heading)."""

    start: int
    end: int
    trail: tuple[str, ...]  # heading titles from the top level down

    @property
    def path(self) -> str:
        return " > ".join(self.trail)


def section_regions(text: str, sections: Sequence[Section]) -> list[Region]:
    """Split the text at headings; each region starts with its own heading line.

    A heading whose section holds nothing but the heading and is followed by a deeper one
    ("# Intro" then "## Background") joins that child's region, so no chunk is a bare title.
    """
    ordered = sorted((s for s in sections if 0 <= s.start < len(text)), key=lambda s: s.start)
    if not ordered:
        return [Region(0, len(text), ())]
    trails = _section_trails(ordered)
    starts: list[int] = []
    for sec in ordered:
        starts.append(_heading_line_start(text, sec.start, starts[-1] if starts else 0))
    bounds = [*starts, len(text)]
    regions = [Region(0, starts[0], ())] if text[: starts[0]].strip() else []
    carry: int | None = None
    for i, sec in enumerate(ordered):
        start = starts[i] if carry is None else carry
        heading_end = text.find("\n", sec.start, bounds[i + 1])
        bare = heading_end < 0 or not text[heading_end : bounds[i + 1]].strip()
        if bare and i + 1 < len(ordered) and ordered[i + 1].level > sec.level:
            carry = start
            continue
        carry = None
        if start < bounds[i + 1]:
            regions.append(Region(start, bounds[i + 1], trails[i]))
    return regions


def _section_trails(ordered: Sequence[Section]) -> list[tuple[str, ...]]:
    stack: list[tuple[int, str]] = []
    trails = []
    for sec in ordered:
        while stack and stack[-1][0] >= sec.level:
            stack.pop()
        stack.append((sec.level, " ".join(sec.title.split())))
        trails.append(tuple(t for _, t in stack if t))
    return trails


def _heading_line_start(text: str, start: int, floor: int) -> int:
    """Back up over a short heading prefix ("## ", "3.2 ") so the whole heading line is kept.

    A long prefix means the title sits mid-line in running text; backing up would pull the
    previous paragraph into this section, so the region then starts at the title itself.
    """
    line_start = text.rfind("\n", floor, start) + 1
    line_start = max(line_start, floor)
    return line_start if start - line_start <= 20 else start


def _context_header(title: str, trail: tuple[str, ...]) -> str:
    title = " ".join(title.split())
    parts = list(trail)
    if title and parts and parts[0].casefold() == title.casefold():
        parts = parts[1:]  # a Markdown H1 usually repeats the title
    return " > ".join([title, *parts] if title else parts)


# --- splitting ------------------------------------------------------------------------------


class _Atom(NamedTuple):
    start: int
    end: int
    level: Level  # the boundary kind that produced it; a further cut uses a finer one
    tokens: int


class _Counter:
    """Word-pieces of many texts, counted in calls of bounded size.

    A tokenizer's encodings cost hundreds of bytes per word-piece (ids, offsets, masks, the
    pieces' strings), so one call over a whole document, or over all of its sentences at once,
    made a worker's memory grow with the document's size. Calls here hold at most
    COUNT_BATCH_CHARS characters, and a text longer than COUNT_PIECE_CHARS is counted in pieces
    cut at whitespace: word-pieces never span whitespace, so the pieces' counts, less the
    special tokens each piece carries, add up to the whole text's count.
    """

    def __init__(self, count_one: TokenCounter | None) -> None:
        if count_one is None or count_one is embedding.count_tokens:
            self._batch: Callable[[list[str]], list[int]] = embedding.count_tokens_batch
        else:
            self._batch = lambda texts: [count_one(t) for t in texts]
        self.overhead = self._batch([""])[0]  # special tokens every encoded text carries

    def batch(self, texts: list[str]) -> list[int]:
        counts: list[int] = []
        for call in _bounded_calls(texts):
            if len(call) == 1 and len(call[0]) > COUNT_PIECE_CHARS:
                counts.append(self._long(call[0]))
            else:
                counts.extend(self._batch(call))
        return counts

    def _long(self, text: str) -> int:
        pieces = whitespace_pieces(text, COUNT_PIECE_CHARS)
        return self.overhead + sum(count - self.overhead for count in self.batch(pieces))


# Characters one tokenizer call may hold, and the longest text counted in one piece (~30 MB and
# ~8 MB of encodings at ~150-900 bytes a word-piece; bench_memory measures the whole pipeline).
COUNT_BATCH_CHARS = 64_000
COUNT_PIECE_CHARS = 16_000


def _bounded_calls(texts: list[str]) -> Iterator[list[str]]:
    """`texts` in order, grouped into calls of at most COUNT_BATCH_CHARS characters; a text longer
    than COUNT_PIECE_CHARS is a call of its own."""
    call: list[str] = []
    size = 0
    for text in texts:
        alone = len(text) > COUNT_PIECE_CHARS
        if call and (alone or size + len(text) > COUNT_BATCH_CHARS):
            yield call
            call, size = [], 0
        call.append(text)
        size += len(text)
        if alone:
            yield call
            call, size = [], 0
    if call:
        yield call


def whitespace_pieces(text: str, size: int) -> list[str]:
    """`text` cut into consecutive pieces of at most about `size` characters, each cut just after
    a whitespace character where the piece holds one (a run without any is cut blindly)."""
    pieces = []
    start = 0
    while len(text) - start > size:
        end = start + size
        cut = max(text.rfind(" ", start + 1, end), text.rfind("\n", start + 1, end))
        end = cut + 1 if cut > start else end
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return pieces


class _Chunker:
    def __init__(self, text: str, counter: _Counter, target: int, max_tokens: int) -> None:
        self.text = text
        self.counter = counter
        self.target = target
        self.max_tokens = max_tokens

    def fit_context(self, context: str) -> tuple[str, int]:
        """Truncate a header that would crowd out the content (it is not quoted, so this is safe)."""
        limit = max(self.counter.overhead + 1, int(self.max_tokens * CONTEXT_SHARE))
        while context:
            tokens = self.counter.batch([context])[0]
            if tokens <= limit:
                return context, tokens
            keep = min(len(context) - 2, int(len(context) * limit / tokens * _SAFETY))
            context = context[: max(0, keep)].rstrip() + "…" if keep > 0 else ""
        return "", self.counter.overhead

    def blind(self, step: int) -> list[tuple[Span, int]]:
        windows = []
        for start in range(0, len(self.text), step):
            span = strip_span(self.text, start, min(start + self.target, len(self.text)))
            if span[0] < span[1]:
                windows.append([_Atom(span[0], span[1], Level.PARAGRAPH, 0)])  # over-long: cut at sentences
            if start + self.target >= len(self.text):
                break
        return self.verify(windows, "")

    def boundary(self, region: Region, context: str, context_tokens: int, overlap: bool) -> list[tuple[Span, int]]:
        # Word-pieces add up across whitespace, so the header's cost is its count minus the specials.
        budget = self.max_tokens - (context_tokens - self.counter.overhead if context else 0)
        paragraphs = split_units(self.text, region.start, region.end, Level.PARAGRAPH)
        groups = self.pack(self.atoms(paragraphs, budget), budget)
        leads = self.overlap_leads(groups) if overlap else [None] * len(groups)
        return self.verify(groups, context, leads)

    def atoms(self, spans: list[Span], budget: int) -> list[_Atom]:
        """Units that fit alone; one over the char target or token budget is cut at the next finer level.

        Breadth-first, so each level is counted in one tokenizer batch rather than one call per unit.
        """
        out: list[_Atom] = []
        pending = [(a, b, Level.PARAGRAPH) for a, b in spans]
        while pending:
            counts = self.counter.batch([self.text[a:b] for a, b, _ in pending])
            finer_pending: list[tuple[int, int, Level]] = []
            for (a, b, level), tokens in zip(pending, counts, strict=True):
                if b - a <= self.target and tokens <= budget:
                    out.append(_Atom(a, b, level, tokens))
                    continue
                ratio = budget / tokens * _SAFETY if tokens > budget else 1.0
                finer, finer_level = self.finer(a, b, level, min(self.target, int((b - a) * ratio)))
                finer_pending.extend((x, y, finer_level) for x, y in finer)
            pending = finer_pending
        return sorted(out)

    def finer(self, start: int, end: int, level: Level, char_size: int) -> tuple[list[Span], Level]:
        """The first finer level that actually cuts the span (a sentence may hold no line breaks)."""
        for finer_level in Level:
            if finer_level <= level and finer_level is not Level.CHAR:
                continue
            units = split_units(self.text, start, end, finer_level, char_size)
            if len(units) > 1:
                return units, finer_level
        raise ValueError(f"cannot cut text[{start}:{end}] below the token budget; max_tokens is too small")

    def pack(self, atoms: list[_Atom], budget: int) -> list[list[_Atom]]:
        """Greedy: add whole units while the chunk stays within target_chars and the token budget.

        A short opening unit (the heading line) may exceed target_chars to join the next unit:
        a chunk holding nothing but a title is noise in search results.
        """
        groups: list[list[_Atom]] = []
        current: list[_Atom] = []
        estimate = 0
        for atom in atoms:
            extra = atom.tokens - self.counter.overhead
            opening = current[-1].end - current[0].start if current else 0
            lone_heading = bool(current) and not groups and opening <= min(HEADING_CHARS, self.target // 2)
            too_long = atom.end - current[0].start > self.target if current else False
            if current and ((too_long and not lone_heading) or estimate + extra > budget):
                groups.append(current)
                current = []
            if not current:
                estimate = self.counter.overhead
            current.append(atom)
            estimate += extra
        if current:
            groups.append(current)
        return groups

    def verify(
        self, groups: list[list[_Atom]], context: str, leads: Sequence[int | None] | None = None
    ) -> list[tuple[Span, int]]:
        """Count every candidate with the real tokenizer in one batch; fix the few the estimate got wrong.

        `leads` are overlap starts (D/F). A chunk over the window first loses its overlap, which is
        known to fit without it or is then halved.
        """
        done: list[tuple[Span, int]] = []
        pending = list(zip(groups, leads or [None] * len(groups), strict=True))
        while pending:
            spans = [(g[0].start if lead is None else lead, g[-1].end) for g, lead in pending]
            texts = [embedded_text(context, self.text[a:b]) for a, b in spans]
            retry: list[tuple[list[_Atom], int | None]] = []
            for (group, lead), span, tokens in zip(pending, spans, self.counter.batch(texts), strict=True):
                if tokens <= self.max_tokens:
                    done.append((span, tokens))
                elif lead is not None:
                    retry.append((group, None))
                else:
                    retry.extend((half, None) for half in self.halve(group))
            pending = retry
        return sorted(done)

    def halve(self, group: list[_Atom]) -> list[list[_Atom]]:
        if len(group) == 1:
            atom = group[0]
            spans, level = self.finer(atom.start, atom.end, atom.level, (atom.end - atom.start + 1) // 2)
            group = [_Atom(a, b, level, 0) for a, b in spans]
        middle = (group[0].start + group[-1].end) // 2
        cut = min(range(1, len(group)), key=lambda i: abs(group[i].start - middle))
        return [group[:cut], group[cut:]]

    def overlap_leads(self, groups: list[list[_Atom]]) -> list[int | None]:
        """Where each chunk starts when it repeats the end of the previous one (D/F)."""
        allowance = max(1, int(self.target * OVERLAP_SHARE))
        leads: list[int | None] = [None]
        for prev, _ in pairwise(groups):
            leads.append(self._tail_start(prev[0].start, prev[-1].end, allowance))
        return leads

    def _tail_start(self, start: int, end: int, allowance: int) -> int | None:
        """The earliest sentence start within the allowance. A last sentence up to twice as long is
        still taken whole; a chunk opening mid-sentence makes a poor quote. Only when the previous
        chunk was itself cut inside a sentence are its last words repeated, for continuity."""
        window = max(start, end - 2 * allowance)  # only the tail is scanned: long documents, many chunks
        options = [(Level.SENTENCE, allowance), (Level.SENTENCE, 2 * allowance)]
        if not ends_sentence(self.text, end):
            options.append((Level.WORD, allowance))
        for level, limit in options:
            fitting = [s for s in boundary_starts(self.text, window, end, level) if end - s <= limit]
            if fitting:
                return fitting[0] if limit == allowance else fitting[-1]
        return None
