"""Section titles for a PDF: from its outline when it has one, else from heading lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

from documents.extraction.types import Section

_NUMBERING_PREFIX = re.compile(r"^[\dIVXivx.\s§]*$")


@dataclass(frozen=True)
class HeadingCandidate:
    """A paragraph the font heuristics took for a heading, with its place in the text."""

    start: int
    size: float
    depth: int  # numbering depth, 0 when unnumbered
    title: str


def heading_sections(candidates: list[HeadingCandidate]) -> list[Section]:
    """Levels by font size rank (largest = 1); numbered headings of one size are nested
    by their numbering ("5 Implementation" above "5.1 Tablet Location")."""
    sizes = sorted({round(candidate.size * 2) / 2 for candidate in candidates}, reverse=True)
    rank = {size: index + 1 for index, size in enumerate(sizes)}
    return [
        Section(
            start=candidate.start,
            level=rank[round(candidate.size * 2) / 2] + max(candidate.depth - 1, 0),
            title=candidate.title,
        )
        for candidate in candidates
    ]


class _PageIndex:
    """Alphanumeric-only, casefolded view of one page's text, mapped back to text offsets,
    so that outline titles match despite spacing, punctuation and case differences."""

    def __init__(self, text: str, start: int, end: int) -> None:
        chars: list[str] = []
        self.offsets: list[int] = []
        for offset in range(start, end):
            folded = text[offset].casefold()
            if folded.isalnum():
                chars.append(folded)
                self.offsets.extend([offset] * len(folded))
        self.key = "".join(chars)

    def find_all(self, key: str) -> list[int]:
        found, position = [], self.key.find(key)
        while position >= 0:
            found.append(self.offsets[position])
            position = self.key.find(key, position + 1)
        return found


def toc_sections(toc: list[list], text: str, page_starts: list[int]) -> list[Section]:
    """Place each outline entry at its title in the canonical text of its target page.

    Entries whose title can't be found (bookmarks named "OLE_LINK6", titles that differ
    from the printed heading) are skipped rather than guessed.
    """
    sections: list[Section] = []
    cache: dict[int, _PageIndex] = {}
    last_start = 0
    for entry in toc:
        level, title, page = int(entry[0]), str(entry[1]).strip(), int(entry[2])
        key = "".join(ch for ch in title.casefold() if ch.isalnum())
        if len(key) < 2 or not 1 <= page <= len(page_starts):
            continue
        # Outline targets are occasionally one page early (the destination is the bottom of
        # the previous page), so the following page is tried too.
        for number in (page, page + 1):
            start = _locate(text, page_starts, number, key, last_start, cache)
            if start is not None:
                sections.append(Section(start=start, level=max(level, 1), title=" ".join(title.split())))
                last_start = start
                break
    sections.sort(key=lambda section: section.start)
    return _dedupe(sections)


def _locate(
    text: str, page_starts: list[int], number: int, key: str, last_start: int, cache: dict[int, _PageIndex]
) -> int | None:
    if number > len(page_starts):
        return None
    if number not in cache:
        cache.clear()  # outline entries go forward through the document; keep one or two pages
        end = page_starts[number] if number < len(page_starts) else len(text)
        cache[number] = _PageIndex(text, page_starts[number - 1], end)
    matches = cache[number].find_all(key)
    if not matches:
        return None
    # Prefer, in order: a match starting a paragraph after the previous section, any match
    # after it, then the first match on the page.
    ordered = [m for m in matches if m >= last_start] or matches
    starts = [_paragraph_start(text, m) for m in ordered]
    return next((start for start in starts if start is not None), ordered[0])


def _paragraph_start(text: str, offset: int) -> int | None:
    """`offset` or the start of its paragraph when only numbering precedes it; None when
    the match is in the middle of a paragraph."""
    para_start = text.rfind("\n\n", 0, offset)
    para_start = 0 if para_start < 0 else para_start + 2
    if _NUMBERING_PREFIX.match(text[para_start:offset]) and offset - para_start <= 12:
        return para_start
    return None


def _dedupe(sections: list[Section]) -> list[Section]:
    result: list[Section] = []
    for section in sections:
        if not result or result[-1].start != section.start:
            result.append(section)
    return result
