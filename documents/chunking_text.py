"""Boundary finding for the chunker: paragraphs, sentences, lines, words, and hard cuts.

Every function here takes absolute offsets into the canonical text and returns spans *found*
in that same text, so chunk offsets are never rebuilt from the lengths of transformed strings.
Spans are half-open `(start, end)` pairs, stripped of surrounding whitespace and never empty.
"""

from __future__ import annotations

import re
from enum import IntEnum
from itertools import pairwise

Span = tuple[int, int]


class Level(IntEnum):
    """Boundary kinds from coarsest to finest; a unit too big at one level is cut at the next."""

    PARAGRAPH = 0
    SENTENCE = 1
    LINE = 2
    WORD = 3
    CHAR = 4


# A blank line (possibly holding spaces) separates paragraphs; the cut sits where the next one begins.
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
# Markdown code fences may hold blank lines that do not end the code block.
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)
# Western terminators need whitespace after them ("3.5", "e.g.x" are not ends); CJK ones do not.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*\s+|[。！？]+[」』”’)）]*\s*")
_LINE_BREAK = re.compile(r"\n\s*")
_WHITESPACE = re.compile(r"\s+")

# Words whose trailing period rarely ends a sentence ("e.g. Raft", "L. Lamport et al. 2004").
_ABBREVIATIONS = frozenset(
    {
        "al", "approx", "ca", "cf", "dept", "dr", "e.g", "i.e", "jr", "mr", "mrs", "prof", "resp", "sr", "st",
        "u.s", "viz", "vs",
    }
)  # fmt: skip
# These only abbreviate before a number ("Fig. 3", "Sec. 4.2"); "took 5 ms. Then" does end a sentence.
_NUMBERED_ABBREVIATIONS = frozenset(
    {"ch", "eq", "eqs", "fig", "figs", "no", "nos", "p", "pp", "ref", "refs", "sec", "secs", "tab", "vol"}
)
_CLOSERS = "\"'”’»)]」』）"
_TERMINATORS = ".!?…。！？"


def strip_span(text: str, start: int, end: int) -> Span:
    """Move the offsets inwards past whitespace (the content itself is never rewritten)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_units(text: str, start: int, end: int, level: Level, char_size: int = 0) -> list[Span]:
    """The non-empty stripped units of `text[start:end]` at `level`.

    At `Level.CHAR` the span is cut blindly into pieces of `char_size` characters: the last resort
    for a "word" with no spaces in it (a URL, a hash, a table flattened without separators).
    """
    if level is Level.CHAR:
        size = max(1, char_size)
        bounds = [*range(start, end, size), end]
    else:
        bounds = [start, *_cut_points(text, start, end, level), end]
    spans = (strip_span(text, a, b) for a, b in pairwise(bounds))
    return [(a, b) for a, b in spans if a < b]


def _cut_points(text: str, start: int, end: int, level: Level) -> list[int]:
    if level is Level.PARAGRAPH:
        cuts = _paragraph_cuts(text, start, end)
    elif level is Level.SENTENCE:
        cuts = _sentence_cuts(text, start, end)
    elif level is Level.LINE:
        cuts = [m.end() for m in _LINE_BREAK.finditer(text, start, end)]
    else:
        cuts = [m.end() for m in _WHITESPACE.finditer(text, start, end)]
    return [c for c in cuts if start < c < end]


def _paragraph_cuts(text: str, start: int, end: int) -> list[int]:
    fenced = _fenced_ranges(text, start, end)
    cuts = []
    i = 0  # both lists are in text order, so one pointer keeps this linear
    for match in _PARAGRAPH_BREAK.finditer(text, start, end):
        cut = match.end()
        while i < len(fenced) and fenced[i][1] <= cut:
            i += 1
        if i == len(fenced) or not fenced[i][0] < cut:
            cuts.append(cut)
    return cuts


def _fenced_ranges(text: str, start: int, end: int) -> list[Span]:
    """Closed code fences in the span; an unclosed fence is ignored rather than swallowing the rest."""
    ranges: list[Span] = []
    opened: tuple[int, str] | None = None
    for match in _FENCE.finditer(text, start, end):
        marker = match.group(1)[0]
        if opened is None:
            opened = (match.start(), marker)
        elif marker == opened[1]:
            ranges.append((opened[0], match.end()))
            opened = None
    return ranges


def _sentence_cuts(text: str, start: int, end: int) -> list[int]:
    cuts = []
    for match in _SENTENCE_END.finditer(text, start, end):
        cut = match.end()
        if cut >= end:
            continue
        # A lowercase continuation ("e.g. the", "approx. ten", "... and") is not a new sentence.
        if text[cut].islower():
            continue
        if text[match.start()] == "." and _is_abbreviation(text, start, match.start(), text[cut]):
            continue
        cuts.append(cut)
    return cuts


def _is_abbreviation(text: str, floor: int, period: int, following: str) -> bool:
    word_start = period
    while word_start > floor and not text[word_start - 1].isspace() and period - word_start < 24:
        word_start -= 1
    word = text[word_start:period].lstrip("([\"'“‘")
    if len(word) == 1 and word.isalpha() and word.isupper():
        return True  # an initial: "L. Lamport"
    word = word.casefold()
    return word in _ABBREVIATIONS or (word in _NUMBERED_ABBREVIATIONS and following.isdigit())


def ends_sentence(text: str, end: int) -> bool:
    """Whether `text[:end]` closes a sentence (so a chunk ending there was not cut mid-sentence)."""
    while end > 0 and text[end - 1] in _CLOSERS:
        end -= 1
    return end > 0 and text[end - 1] in _TERMINATORS


def boundary_starts(text: str, start: int, end: int, level: Level) -> list[int]:
    """Offsets strictly inside `text[start:end]` where a unit of `level` begins.

    Unlike unit starts, these are true boundaries even when `start` itself is mid-sentence, so a
    caller may scan only the tail of a long span.
    """
    return [c for c in _cut_points(text, start, end, level) if not text[c].isspace()]
