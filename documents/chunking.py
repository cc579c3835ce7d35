"""Chunking: canonical text in, chunk spans (offsets into that same text) out.

Chunks end at paragraph and sentence boundaries, and each carries a "Title > Section path"
header that is embedded with it (strategy E of the evaluation notes; the other strategies it is
compared with live in evaluation/chunkers.py and use the pieces here).

A chunk always keeps `count_tokens(embedded_text(context, content)) <= max_tokens`: the encoder
silently drops word-pieces past its window, so an oversized chunk would be embedded from its
beginning only while its whole content is quoted as evidence. Offsets are found in the text
(regex matches, section starts), never summed from lengths, so `content == text[start:end]`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from documents import embedding
from documents.chunking_text import Level, Span, ends_sentence, split_units
from documents.embedding import ENCODER_WINDOW_TOKENS
from documents.extraction.types import Section

CHUNKER_VERSION = 2  # bump when output changes
STRATEGY = "E"  # the letter naming this chunker in pipeline stamps and the evaluation notes
CONTEXT_SHARE = 0.25  # a header may take at most this share of the window; longer ones are truncated
HEADING_CHARS = 200  # an opening unit this short is treated as a heading that must not stand alone
LEAD_LINE_CHARS = 100  # a chunk's last line this short, ending no sentence, opens the next one instead
LEAD_LINES = 3  # at most this many such lines (an option's short and long forms, a caption and a header)
_SAFETY = 0.9  # when shrinking by a token ratio, aim a little low so one retry usually suffices

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class ChunkSpan:
    char_start: int
    char_end: int
    content: str  # == text[char_start:char_end], always
    section: str  # section path "Intro > Background" ("" when none)
    context: str  # prefix embedded before content: "Title > Section path"
    token_count: int  # tokens of embedded_text(context, content)
    page_start: int  # 1-based
    page_end: int


def embedded_text(context: str, content: str) -> str:
    return f"{context}\n{content}" if context else content


def pipeline_stamp(target_chars: int) -> str:
    """Identifies the chunker output."""
    return f"{STRATEGY}/{target_chars}/chunker-{CHUNKER_VERSION}"


def chunk_document(
    text: str,
    *,
    title: str,
    sections: Sequence[Section],
    page_starts: Sequence[int],
    target_chars: int = 1000,
    count_tokens: TokenCounter | None = None,
    max_tokens: int = ENCODER_WINDOW_TOKENS,
) -> list[ChunkSpan]:
    chunker = chunker_for(text, target_chars, count_tokens, max_tokens)
    if chunker is None:
        return []
    chunks: list[ChunkSpan] = []
    for region in section_regions(text, sections):
        context, context_tokens = chunker.fit_context(context_header(title, region.trail))
        spans = chunker.boundary(region, context, context_tokens)
        chunks.extend(chunk_span(text, s, n, region.path, context, page_starts) for s, n in spans)
    return chunks


def chunker_for(text: str, target_chars: int, count_tokens: TokenCounter | None, max_tokens: int) -> Chunker | None:
    """The chunker of `text`, or None when it holds nothing but whitespace; sizes that leave no
    room for content are refused."""
    if target_chars < 1:
        raise ValueError(f"target_chars must be positive, got {target_chars}")
    if not text.strip():
        return None
    counter = TokenCounts(count_tokens)
    if max_tokens <= counter.overhead:
        raise ValueError(f"max_tokens={max_tokens} leaves no room for content")
    return Chunker(text, counter, target_chars, max_tokens)


def chunk_span(text: str, span: Span, tokens: int, section: str, context: str, page_starts: Sequence[int]) -> ChunkSpan:
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


def context_header(title: str, trail: tuple[str, ...]) -> str:
    title = " ".join(title.split())
    parts = list(trail)
    if title and parts and parts[0].casefold() == title.casefold():
        parts = parts[1:]  # a Markdown H1 usually repeats the title
    return " > ".join([title, *parts] if title else parts)


# --- splitting ------------------------------------------------------------------------------


class Atom(NamedTuple):
    start: int
    end: int
    level: Level  # the boundary kind that produced it; a further cut uses a finer one
    tokens: int


class TokenCounts:
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


class Chunker:
    def __init__(self, text: str, counter: TokenCounts, target: int, max_tokens: int) -> None:
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

    def boundary(self, region: Region, context: str, context_tokens: int) -> list[tuple[Span, int]]:
        """The region's chunks, cut at paragraph and sentence boundaries, each fitting with `context`."""
        return self.verify(self.groups(region, context, context_tokens), context)

    def groups(self, region: Region, context: str, context_tokens: int) -> list[list[Atom]]:
        """The region's units, packed into chunks by the token estimate (`verify` checks them)."""
        # Word-pieces add up across whitespace, so the header's cost is its count minus the specials.
        budget = self.max_tokens - (context_tokens - self.counter.overhead if context else 0)
        paragraphs = split_units(self.text, region.start, region.end, Level.PARAGRAPH)
        return self.pack(self.atoms(paragraphs, budget), budget)

    def atoms(self, spans: list[Span], budget: int) -> list[Atom]:
        """Units that fit alone; one over the char target or token budget is cut at the next finer level.

        Breadth-first, so each level is counted in one tokenizer batch rather than one call per unit.
        """
        out: list[Atom] = []
        pending = [(a, b, Level.PARAGRAPH) for a, b in spans]
        while pending:
            counts = self.counter.batch([self.text[a:b] for a, b, _ in pending])
            finer_pending: list[tuple[int, int, Level]] = []
            for (a, b, level), tokens in zip(pending, counts, strict=True):
                if b - a <= self.target and tokens <= budget:
                    out.append(Atom(a, b, level, tokens))
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

    def pack(self, atoms: list[Atom], budget: int) -> list[list[Atom]]:
        """Greedy: add whole units while the chunk stays within target_chars and the token budget.

        A short opening unit (the heading line) may exceed target_chars to join the next unit:
        a chunk holding nothing but a title is noise in search results.
        """
        groups: list[list[Atom]] = []
        current: list[Atom] = []
        estimate = self.counter.overhead
        for atom in atoms:
            extra = atom.tokens - self.counter.overhead
            opening = current[-1].end - current[0].start if current else 0
            lone_heading = bool(current) and not groups and opening <= min(HEADING_CHARS, self.target // 2)
            too_long = atom.end - current[0].start > self.target if current else False
            if current and ((too_long and not lone_heading) or estimate + extra > budget):
                leads = self.lead_lines(current, atom, budget)
                groups.append(current[: len(current) - len(leads)])
                current = leads
                estimate = self.counter.overhead + sum(a.tokens - self.counter.overhead for a in leads)
            current.append(atom)
            estimate += extra
        if current:
            groups.append(current)
        return groups

    def lead_lines(self, current: list[Atom], following: Atom, budget: int) -> list[Atom]:
        """The chunk's last units when they are lines that introduce the one that does not fit after
        them — a setting's entry line ("geqo_threshold (integer)"), an option and its long form
        ("-m <msg>", "--message=<msg>"), a table's caption, "For example:" — and all fit in one chunk
        with it: they then open the next chunk. Left behind, the description would stand without
        the name it describes, and the name without its description. Empty otherwise: whole
        paragraphs, sentences that end, more than LEAD_LINES such lines (a list of short lines,
        a table of contents, is cut anywhere), a unit after them that is such a line too, or
        nothing else left in the chunk."""
        if self._introduces(following):
            return []
        run: list[Atom] = []
        tokens = following.tokens
        for atom in reversed(current[1:]):
            if not self._introduces(atom):
                break
            tokens += atom.tokens - self.counter.overhead
            run.insert(0, atom)
        left = current[: len(current) - len(run)]
        if len(run) > LEAD_LINES or tokens > budget or all(self._introduces(a) for a in left):
            return []  # too many, too long, or a chunk of nothing but a title left behind
        return run

    def _introduces(self, atom: Atom) -> bool:
        """A short line of its own that ends no sentence."""
        if atom.level is not Level.PARAGRAPH or atom.end - atom.start > LEAD_LINE_CHARS:
            return False
        return "\n" not in self.text[atom.start : atom.end] and not ends_sentence(self.text, atom.end)

    def verify(
        self, groups: list[list[Atom]], context: str, leads: Sequence[int | None] | None = None
    ) -> list[tuple[Span, int]]:
        """Count every candidate with the real tokenizer in one batch; fix the few the estimate got wrong.

        `leads` are where chunks start when they repeat the end of the previous one (the overlapping
        strategies evaluation/chunkers.py compares). A chunk over the window first loses its overlap,
        which is known to fit without it or is then halved.
        """
        done: list[tuple[Span, int]] = []
        pending = list(zip(groups, leads or [None] * len(groups), strict=True))
        while pending:
            spans = [(g[0].start if lead is None else lead, g[-1].end) for g, lead in pending]
            texts = [embedded_text(context, self.text[a:b]) for a, b in spans]
            retry: list[tuple[list[Atom], int | None]] = []
            for (group, lead), span, tokens in zip(pending, spans, self.counter.batch(texts), strict=True):
                if tokens <= self.max_tokens:
                    done.append((span, tokens))
                elif lead is not None:
                    retry.append((group, None))
                else:
                    retry.extend((half, None) for half in self.halve(group))
            pending = retry
        return sorted(done)

    def halve(self, group: list[Atom]) -> list[list[Atom]]:
        if len(group) == 1:
            atom = group[0]
            spans, level = self.finer(atom.start, atom.end, atom.level, (atom.end - atom.start + 1) // 2)
            group = [Atom(a, b, level, 0) for a, b in spans]
        middle = (group[0].start + group[-1].end) // 2
        cut = min(range(1, len(group)), key=lambda i: abs(group[i].start - middle))
        return [group[:cut], group[cut:]]
