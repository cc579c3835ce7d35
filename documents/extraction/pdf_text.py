"""Lines to paragraphs: joining lines, repairing hyphenation, spotting headings and page furniture."""

from __future__ import annotations

import re
from dataclasses import dataclass

from documents.extraction.pdf_layout import Line, merge_row, rows

_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(?:\d{1,5}|[ivxlcdm]{1,7})\s*[-–—]?(?:\s*(?:of|/)\s*\d{1,5})?$", re.IGNORECASE
)
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+\S")
_SENTENCE_END = re.compile(r"[.!?:;)\]\"”’]$")
_HYPHENS = "-\u00ad\u2010"  # hyphen-minus, soft hyphen, Unicode hyphen
_BULLETS = "•◦▪▫●○■□‣⁃∙"  # a list item starts a paragraph even inside a MuPDF block


@dataclass
class Paragraph:
    text: str
    size: float = 0.0
    heading: bool = False
    depth: int = 0  # numbering depth of a heading ("5.1 Tablet Location" -> 2), 0 if unnumbered


_CONTACT = re.compile(r"\S@\S+\.\w|://|^www\.", re.IGNORECASE)


@dataclass(frozen=True)
class FontStats:
    """Document-wide font facts gathered in the first pass."""

    body_size: float

    def is_heading_line(self, line: Line) -> bool:
        if line.ocr:
            # OCR gives word boxes, not font sizes or weights; box heights are too noisy to tell a
            # heading (tried on a scanned Raft page: a third of the lines came out as headings).
            return False
        words = line.text.split()
        if not words or len(words) > 14 or len(line.text) > 120 or sum(c.isalpha() for c in line.text) < 2:
            return False
        if _CONTACT.search(line.text):
            # An author block's e-mail or web address, set large on a title page: never a section,
            # and taken for one it would head every chunk up to the next real heading.
            return False
        if self.body_size and line.size >= self.body_size * 1.12 and line.size - self.body_size >= 1.0:
            return True
        if not line.bold or line.size < self.body_size - 0.5:
            return False
        # Bold at body size: only numbered ("3.2 Replication") or all-caps ("REFERENCES") lines,
        # since bold sentences and run-in labels are common in body text.
        if _NUMBERED.match(line.text):
            return True
        letters = [c for c in line.text if c.isalpha()]
        return len(words) <= 6 and len(letters) >= 4 and all(c.isupper() for c in letters)


def furniture_key(text: str) -> str:
    """Normalised form used to recognise running headers/footers: digits don't count, so
    "Page 3 of 10" and "Page 4 of 10" are the same line."""
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(text.strip()))


def edge_rows(lines: list[Line]) -> list[list[Line]]:
    """The rows at the top and bottom edge of a page, where running headers/footers live.

    The outermost row always qualifies; the next one only when it is set off from the body by
    a wider gap than from the outermost row (a two-line header), so that a first body line
    repeated on many pages is not mistaken for a header.
    """
    page_rows = rows(lines)
    if len(page_rows) <= 2:
        return page_rows
    top, bottom = page_rows[:1], page_rows[-1:]
    if len(page_rows) >= 5:
        if _gap(page_rows[1], page_rows[2]) > _gap(page_rows[0], page_rows[1]) + 1.0:
            top.append(page_rows[1])
        if _gap(page_rows[-3], page_rows[-2]) > _gap(page_rows[-2], page_rows[-1]) + 1.0:
            bottom.insert(0, page_rows[-2])
    return top + bottom


def _gap(upper: list[Line], lower: list[Line]) -> float:
    return min(line.y0 for line in lower) - max(line.y1 for line in upper)


def join_lines(left: str, right: str) -> str:
    """Join two lines of one paragraph, repairing words hyphenated at the line end.

    Heuristic: a hyphen after a letter, followed by a line starting with a lowercase letter,
    is a line-break hyphen and is dropped ("imple-" + "mentation"). This also merges the rare
    genuine compound split at its hyphen ("key-" + "value" -> "keyvalue"); without a dictionary
    that can't be told apart, and break hyphens are far more common in justified text.
    A hyphen after a digit or symbol, or before a capital/digit, is kept and the pieces are
    joined without a space ("128-" + "bit", "B+-" + "tree", "Key-" + "Value").
    """
    if not left:
        return right
    if not right:
        return left
    if left[-1] in _HYPHENS and len(left) > 1 and not left[-2].isspace():
        if left[-1] == "\u00ad" or (left[-2].isalpha() and right[0].islower()):
            return left[:-1] + right
        if right[0].isalnum():
            return left + right
    return left + " " + right


def continues(prev: Paragraph, nxt: Paragraph) -> bool:
    """Is `nxt` the rest of `prev`, interrupted by a column break or a figure?"""
    if prev.heading or nxt.heading or not nxt.text[:1].islower():
        return False
    return prev.text[-1] in _HYPHENS or not _SENTENCE_END.search(prev.text)


def group_paragraphs(group: list[Line], stats: FontStats) -> list[Paragraph]:
    """Paragraphs of one reading group (a column or a full-width band), top to bottom."""
    visual = [merge_row(row) for row in rows(group)]
    block_rows: dict[int, int] = {}
    for line in visual:
        block_rows[line.block] = block_rows.get(line.block, 0) + 1
    paragraphs: list[Paragraph] = []
    prev: Line | None = None
    prev_heading = False
    for line in visual:
        heading = stats.is_heading_line(line)
        if prev is None or _breaks(prev, line, prev_heading, heading, block_rows):
            paragraphs.append(Paragraph("", line.size, heading, _depth(line.text) if heading else 0))
        para = paragraphs[-1]
        para.text = join_lines(para.text, line.text)
        prev, prev_heading = line, heading
    return [para for para in paragraphs if para.text]


def _breaks(prev: Line, cur: Line, prev_heading: bool, heading: bool, block_rows: dict[int, int]) -> bool:
    if prev_heading or heading:
        # A heading wrapped over two lines stays one paragraph; anything else around it breaks,
        # including a numbered heading straight after another ("3. RELATED WORK", "3.1 ...").
        wrapped = prev_heading and heading and abs(prev.size - cur.size) < 0.5 and cur.y0 - prev.y1 < prev.size
        return not wrapped or bool(_NUMBERED.match(cur.text))
    if cur.text[0] in _BULLETS or abs(prev.size - cur.size) > 0.75:
        return True
    if cur.y0 - prev.y1 > 0.6 * max(prev.size, cur.size, 1.0):
        return True
    # MuPDF's blocks are usually paragraphs, but some producers put every line in its own
    # block (then only the vertical gap above decides) or split a paragraph into blocks
    # mid-sentence (a lowercase start after an unfinished line is a continuation).
    if cur.block == prev.block or (block_rows[cur.block] == 1 and block_rows[prev.block] == 1):
        return False
    return not (cur.text[:1].islower() and not _SENTENCE_END.search(prev.text))


def _depth(text: str) -> int:
    match = _NUMBERED.match(text)
    return match.group(1).count(".") + 1 if match else 0
