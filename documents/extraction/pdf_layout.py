"""Page geometry: text lines out of a PyMuPDF page, upright, in reading order.

Everything here works on one page at a time so that a long document never has more
than one page's layout in memory.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

import pymupdf

# No images (their bytes would be copied into the dict for nothing), no ligature expansion
# (we normalise ligatures ourselves so behaviour does not depend on the MuPDF version),
# clip to the media box so that invisible off-page text is not indexed.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP

_LIGATURES = re.compile("[\ufb00-\ufb06]")
# NUL can't be stored in PostgreSQL text; other C0 controls are junk from broken fonts.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACES = re.compile(r"[ \t\n]+")
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)


@dataclass
class Line:
    """One line of text in upright page coordinates (y grows downwards)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float  # font size of most of the line's characters
    bold: bool  # every visible character is bold
    block: int  # MuPDF block number, a hint for paragraph boundaries
    ocr: bool = False  # read by OCR: `size` is the page's line height, not a font size

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 0.1)

    @property
    def yc(self) -> float:
        return (self.y0 + self.y1) / 2


def clean_chars(text: str) -> str:
    """Ligatures to letters (NFKC on those characters only, so nothing else changes),
    control characters dropped, whitespace runs collapsed to one space."""
    text = _LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    return _SPACES.sub(" ", _CONTROL.sub("", text))


def read_page_lines(page: pymupdf.Page) -> list[Line]:
    """The page's text lines, rotated so that the dominant text direction reads left to right.

    Rotating by the dominant direction (rather than by `page.rotation` alone) handles both
    `/Rotate` pages and landscape content drawn sideways on a portrait page. Lines in other
    directions (margin stamps, rotated figure labels, diagonal watermarks) are dropped.
    """
    raw: list[tuple[tuple[int, int], Line]] = []
    weight: Counter[tuple[int, int]] = Counter()
    for block_no, block in enumerate(page.get_text("dict", flags=_TEXT_FLAGS)["blocks"]):
        if block.get("type") != 0:
            continue
        for line in block["lines"]:
            parsed = _parse_line(line, block_no)
            direction = _axis(line["dir"])
            if parsed is None or direction is None:
                continue
            raw.append((direction, parsed))
            weight[direction] += len(parsed.text)
    if not raw:
        return []
    main = weight.most_common(1)[0][0]
    return [_upright(line, main) for direction, line in raw if direction == main]


def _parse_line(line: dict, block_no: int) -> Line | None:
    text = clean_chars("".join(span["text"] for span in line["spans"])).strip()
    if not text:
        return None
    sizes: Counter[float] = Counter()
    bold = True
    for span in line["spans"]:
        visible = len(span["text"].strip())
        if not visible:
            continue
        sizes[round(span["size"] * 2) / 2] += visible
        if not (span["flags"] & pymupdf.TEXT_FONT_BOLD or _BOLD_NAME.search(span["font"])):
            bold = False
    size = sizes.most_common(1)[0][0] if sizes else 0.0
    x0, y0, x1, y1 = line["bbox"]
    return Line(text, x0, y0, x1, y1, size, bold, block_no)


def _axis(direction: tuple[float, float]) -> tuple[int, int] | None:
    """Snap a writing direction to one of the four axes; None when it is diagonal."""
    dx, dy = direction
    if abs(dx) > 0.95:
        return (1 if dx > 0 else -1, 0)
    if abs(dy) > 0.95:
        return (0, 1 if dy > 0 else -1)
    return None


def _upright(line: Line, direction: tuple[int, int]) -> Line:
    """Rotate a line's box by minus the writing direction's angle, so text runs along +x."""
    if direction == (1, 0):
        return line
    cos, sin = direction
    corners = [(x, y) for x in (line.x0, line.x1) for y in (line.y0, line.y1)]
    xs = [x * cos + y * sin for x, y in corners]
    ys = [-x * sin + y * cos for x, y in corners]
    return Line(line.text, min(xs), min(ys), max(xs), max(ys), line.size, line.bold, line.block)


def rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into visual rows (same baseline band), top to bottom, each left to right."""
    result: list[list[Line]] = []
    for line in sorted(lines, key=lambda item: (item.yc, item.x0)):
        if result:
            anchor = result[-1][0]
            # Centres closer than ~a third of a line height: same row (superscripts, split spans).
            if abs(line.yc - anchor.yc) < 0.35 * min(line.height, anchor.height):
                result[-1].append(line)
                continue
        result.append([line])
    for row in result:
        row.sort(key=lambda item: item.x0)
    return result


def merge_row(row: list[Line]) -> Line:
    """One visual line from the pieces of a row (e.g. "5" and "Implementation")."""
    if len(row) == 1:
        return row[0]
    parts = [row[0].text]
    for prev, cur in itertools.pairwise(row):
        # MuPDF splits a line at wide gaps; touching pieces are one word (a subscript, a kerned span).
        touching = cur.x0 - prev.x1 < 0.15 * max(cur.size, 1.0)
        parts.append(cur.text if touching else " " + cur.text)
    main = max(row, key=lambda item: len(item.text))
    return Line(
        "".join(parts),
        min(item.x0 for item in row),
        min(item.y0 for item in row),
        max(item.x1 for item in row),
        max(item.y1 for item in row),
        main.size,
        all(item.bold for item in row),
        row[0].block,
        main.ocr,
    )


def reading_groups(lines: list[Line]) -> list[list[Line]]:
    """Split a page's lines into groups read one after another.

    A two-column page (or a 2-up sheet: two portrait pages side by side) becomes:
    full-width lines above the columns, the whole left column, the whole right column,
    and so on down the page whenever a full-width element (title, wide figure caption)
    interrupts the columns. A single-column page is one group.
    """
    split = find_gutter(lines)
    if split is None:
        return [lines] if lines else []
    groups: list[list[Line]] = []
    left: list[Line] = []
    right: list[Line] = []
    for line in sorted(lines, key=lambda item: (item.y0, item.x0)):
        side = _side(line, split)
        if side == "left":
            left.append(line)
        elif side == "right":
            right.append(line)
        else:
            groups.extend(group for group in (left, right) if group)
            left, right = [], []
            if groups and groups[-1] and _side(groups[-1][-1], split) == "full":
                groups[-1].append(line)
            else:
                groups.append([line])
    groups.extend(group for group in (left, right) if group)
    return groups


def _side(line: Line, split: float) -> str:
    margin = 2.0
    if line.x1 <= split + margin:
        return "left"
    if line.x0 >= split - margin:
        return "right"
    # A line across the gutter: a centred title is full width; a figure label that only
    # pokes into the gutter belongs to the side holding most of it.
    left_part, right_part = split - line.x0, line.x1 - split
    if min(left_part, right_part) < 0.25 * line.width:
        return "left" if left_part > right_part else "right"
    return "full"


def find_gutter(lines: list[Line]) -> float | None:
    """The x of the vertical gap between two columns, or None for a single-column page.

    Only "narrow" lines (under 55% of the text width) are considered, so full-width titles
    and abstracts don't hide the gutter; a few stray lines may cross it (figure labels).
    """
    if len(lines) < 6:
        return None
    left_edge = min(line.x0 for line in lines)
    width = max(line.x1 for line in lines) - left_edge
    if width < 150:
        return None
    narrow = [line for line in lines if line.width < 0.55 * width]
    total_chars = sum(len(line.text) for line in lines)
    if sum(len(line.text) for line in narrow) < 0.5 * total_chars:
        return None  # mostly full-width lines: a single-column page
    cover = [0] * (math.ceil(width) + 1)
    for line in narrow:
        for x in range(int(line.x0 - left_edge), min(int(line.x1 - left_edge) + 1, len(cover))):
            cover[x] += 1
    # Centred title-page lines (affiliations, e-mail addresses) and the odd figure label may
    # cross the gutter; a real gutter is still empty for the great majority of lines.
    tolerance = max(2, int(0.08 * len(narrow)))
    best = _widest_gap(cover, int(0.25 * width), int(0.75 * width), tolerance)
    if best is None or best[1] - best[0] < 5:
        return None
    split = left_edge + (best[0] + best[1]) / 2
    left_chars = sum(len(line.text) for line in narrow if line.x1 <= split)
    right_chars = sum(len(line.text) for line in narrow if line.x0 >= split)
    if min(left_chars, right_chars) < 0.15 * total_chars:
        return None
    return split


def _widest_gap(cover: list[int], lo: int, hi: int, tolerance: int) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    start: int | None = None
    for x in range(lo, hi + 1):
        empty = x < hi and cover[x] <= tolerance
        if empty and start is None:
            start = x
        elif not empty and start is not None:
            if best is None or x - start > best[1] - best[0]:
                best = (start, x)
            start = None
    return best
