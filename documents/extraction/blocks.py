"""Canonical text from a sequence of blocks (headings, paragraphs, list items, table rows).

Word, HTML and Markdown extraction all walk a structured document and hand over its blocks in
reading order. Blocks are joined with a blank line, so the paragraph-aware chunkers see the same
boundaries wherever the text came from; headings up to level 3 become sections at the offset of
their own text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from documents.extraction.limits import check_text_length
from documents.extraction.plaintext import NO_TEXT, clean_text
from documents.extraction.types import ExtractedText, ExtractionError, Section

MAX_SECTION_LEVEL = 3  # deeper headings stay plain text
BLOCK_SEPARATOR = "\n\n"

_SPACES = re.compile(r"[^\S\n]+")  # runs of whitespace other than newlines
_BLANK_LINES = re.compile(r"\n\s*\n+")


@dataclass(frozen=True)
class Block:
    text: str
    heading_level: int = 0  # 0 = not a heading
    # Leading spaces are content (code, a nested list's indentation): only trailing spaces and
    # blank lines go, so the block still stays one paragraph for the chunkers.
    preformatted: bool = False


def normalise_block(text: str) -> str:
    """Spaces collapsed, lines trimmed, no blank line inside a block (that would split it)."""
    text = clean_text(text.replace("\xa0", " "))
    lines = (_SPACES.sub(" ", line).strip() for line in _BLANK_LINES.sub("\n", text).split("\n"))
    return "\n".join(line for line in lines if line)


def normalise_preformatted(text: str) -> str:
    lines = (line.rstrip() for line in clean_text(text.replace("\xa0", " ")).split("\n"))
    return "\n".join(line for line in lines if line)


def assemble(blocks: Iterable[Block], *, extractor: str, empty_reason: str = NO_TEXT) -> ExtractedText:
    parts: list[str] = []
    sections: list[Section] = []
    offset = 0
    for block in blocks:
        text = normalise_preformatted(block.text) if block.preformatted else normalise_block(block.text)
        if not text:
            continue
        if parts:
            offset += len(BLOCK_SEPARATOR)
        if 0 < block.heading_level <= MAX_SECTION_LEVEL:
            title = text.replace("\n", " ")
            text = title  # a heading is one line, so text[start:start + len(title)] == title
            sections.append(Section(start=offset, level=block.heading_level, title=title))
        parts.append(text)
        offset += len(text)
        check_text_length(offset)
    text = BLOCK_SEPARATOR.join(parts)
    if not text.strip():
        raise ExtractionError(empty_reason)
    return ExtractedText(text=text, page_starts=[], sections=sections, page_count=None, extractor=extractor)
