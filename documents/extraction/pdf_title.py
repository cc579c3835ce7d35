"""What a PDF's first page says about the document: its title, byline and date.

The title is the largest text on the first page (a title wrapping over lines is one title); the
byline is the people named in the lines under it, before the abstract; the date is the one the
page states for the document (documents/extraction/stated_dates.py). Reads one page's layout: the
text layer's, or for a scanned page the OCR'd words' (a line's height standing for its font size),
so a scan is read by the same rules.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from documents.extraction.people import byline_people, clean_name, date_from_text
from documents.extraction.stated_dates import stated_date
from documents.extraction.types import OcrWord

SIZE_TOLERANCE = 0.3  # points: one title's lines differ by rounding only
MAX_TITLE_LINES = 4
MAX_TITLE_CHARS = 300
MAX_BYLINE_LINES = 12
# A line that ends the title block: the abstract, or the body's first heading.
_BODY_START = re.compile(r"^(abstract|introduction|keywords|index terms|categories and|contents|1\.?\s+\w)", re.I)
_SECTION_NUMBER = re.compile(r"^\d+(\.\d+)*\.?\s+(?=\w)")
_FILE_NAME = re.compile(r"\.(dvi|docx?|pdf|e?ps|tex|rtf|odt|indd|qxd|ai|txt|html?|pptx?)$", re.I)
_TOOL_PREFIX = re.compile(r"^(microsoft (word|powerpoint|excel)|untitled)\b", re.I)
_LETTERS = re.compile(r"[^\W\d_]")
OCR_SIZE_RATIO = 0.15


@dataclass(frozen=True)
class _Line:
    text: str
    size: float
    ocr: bool = False  # read by OCR: `size` is estimated from the words' boxes (_em_height)


def _same_size(a: _Line, b: _Line) -> bool:
    """One font size: equal up to rounding, or for OCR'd lines up to what estimating it from boxes errs."""
    if a.ocr and b.ocr:
        return abs(a.size - b.size) <= OCR_SIZE_RATIO * max(a.size, b.size)
    return abs(a.size - b.size) <= SIZE_TOLERANCE


@dataclass
class FirstPage:
    title: str = ""
    authors: list[str] = field(default_factory=list)
    stated_date: date | None = None
    has_text: bool = False
    text: str = ""  # the whole page, normalised

    def mentions(self, name: str) -> bool:
        return bool(_norm(name)) and _norm(name) in self.text


def first_page_facts(doc: Any, metadata_title: str = "", ocr_words: list[OcrWord] | None = None) -> FirstPage:
    """The first page's title, byline and date. `metadata_title` (the information dictionary's) is
    the title when the page sets it apart as a line of its own, or has no text to compare with:
    such titles are often a file name ("paper.dvi") or a section's name ("System Model").
    `ocr_words` (the first page's, as OCR read them) stand in for a page without a text layer."""
    trusted = "" if metadata_title_is_junk(metadata_title) else metadata_title
    if doc.page_count < 1:
        return FirstPage(title=trusted)
    try:
        lines = _lines(doc[0])
    except (RuntimeError, ValueError):  # a damaged first page: extraction already reported it
        return FirstPage(title=trusted)
    if not lines and ocr_words:
        lines = _ocr_lines(ocr_words)
    if not lines:
        return FirstPage(title=trusted)
    facts = FirstPage(has_text=True, text=_norm(" ".join(line.text for line in lines)))
    title_end = _title(lines, facts)
    shown = _shown_at(lines, trusted) if trusted else None
    if shown is not None:
        facts.title, title_end = trusted, shown
    if title_end is not None:
        header = _header(lines[title_end:])
        for line in _capitals_joined(_unwrap(header)):
            facts.authors.extend(name for name in byline_people(line) if name not in facts.authors)
    facts.stated_date = stated_date(line.text for line in lines)
    return facts


def _shown_at(lines: list[_Line], title: str) -> int | None:
    """The index after the line, or run of same-size lines, that says just `title`; None if none does."""
    wanted = _norm(title)
    index = 0
    for run in _runs(lines):
        for first in range(len(run)):
            for last in range(first, min(len(run), first + MAX_TITLE_LINES)):
                if _norm(" ".join(line.text for line in run[first : last + 1])) == wanted:
                    return index + last + 1
        index += len(run)
    return None


def _lines(page: Any) -> list[_Line]:
    lines = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            spans = [s for s in line["spans"] if s["text"].strip()]
            text = clean_name("".join(s["text"] for s in line["spans"]))
            if spans and _LETTERS.search(text):
                lines.append(_Line(text, max(s["size"] for s in spans)))
    return lines


def _ocr_lines(words: list[OcrWord]) -> list[_Line]:
    """OCR'd words as lines; a line's size is its words' median em (_em_height), in points."""
    grouped: dict[int, list[OcrWord]] = {}
    for word in words:
        grouped.setdefault(word[6], []).append(word)
    lines = []
    for members in grouped.values():
        text = clean_name(" ".join(w[4] for w in members))
        ems = [em for w in members if (em := _em_height(w[4], w[3] - w[1])) is not None]
        if _LETTERS.search(text) and ems:
            lines.append(_Line(text, statistics.median(ems), ocr=True))
    return lines


# Of a Latin font's em, roughly: lower-case letters fill half, capitals and ascenders reach 0.72,
# descenders go 0.22 below. A word's box is as tall as the letters it holds, so "Process" and
# "Faulty" in one font have boxes a quarter apart; divided by what they hold, they agree.
_ASCENDING = re.compile(r"[A-Zbdfhiklt0-9À-ÖØ-Þ(){}\[\]/|]")
_DESCENDING = re.compile(r"[gjpqy(){}\[\]/|,;]")


def _em_height(word: str, height: float) -> float | None:
    if not _LETTERS.search(word):
        return None
    share = 0.5 + (0.22 if _ASCENDING.search(word) else 0) + (0.22 if _DESCENDING.search(word) else 0)
    return height / share


def _runs(lines: list[_Line]) -> list[list[_Line]]:
    """Consecutive lines of one size: a wrapped title, a byline, a paragraph."""
    runs: list[list[_Line]] = []
    for line in lines:
        if runs and _same_size(runs[-1][-1], line):
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


def _title(lines: list[_Line], facts: FirstPage) -> int | None:
    """Set facts.title from the largest lines; returns the index of the first line after it."""
    body: Counter[float] = Counter()
    for line in lines:
        body[round(line.size, 1)] += len(line.text)
    body_size = body.most_common(1)[0][0]
    largest = max(lines, key=lambda line: line.size)
    if largest.size <= body_size or _same_size(largest, replace(largest, size=body_size)):
        return None  # no line stands out: the page does not show a title
    parts: list[str] = []
    end = None
    index = 0
    for run in _runs(lines):
        start, index = index, index + len(run)
        if not _same_size(run[0], largest):
            continue
        text = " ".join(line.text for line in run)
        if len(run) > MAX_TITLE_LINES or len(text) > MAX_TITLE_CHARS or len(_LETTERS.findall(text)) < 3:
            continue
        parts.append(_SECTION_NUMBER.sub("", text))
        end = index
        if len(parts) == 2 or start > 15:
            break
    # A cover setting its number and its name apart ("ECMA-404", "The JSON Data Interchange Format").
    facts.title = ": ".join(parts)
    return end


def _header(lines: list[_Line]) -> list[str]:
    header = []
    for line in lines[:MAX_BYLINE_LINES]:
        if _BODY_START.match(line.text) or len(line.text) > 160:
            break
        header.append(line.text)
    return header


def _capitals_joined(lines: list[str]) -> list[str]:
    """A byline set in capitals, its names broken over lines ("MICHAEL" / "J. FISCHER"), as one
    capitalised name a line ("Michael J. Fischer"); a lone "AND" between names is dropped. Only
    capitals that read as a name are changed: broken over lines, or holding an initial, so that
    "TECHNICAL REPORT" stays as it is (and is no one)."""
    joined: list[str] = []
    pending: list[list[str]] = []  # the capital lines of one name so far

    def flush() -> None:
        words = [word for line in pending for word in line]
        if len(pending) > 1 or any(len(word.strip(".")) == 1 for word in words):
            joined.append(" ".join(word.capitalize() if len(word.strip(".")) > 1 else word for word in words))
        else:
            joined.extend(" ".join(line) for line in pending)
        pending.clear()

    for line in lines:
        words = line.split()
        if words and line.isupper() and len(words) <= 3 and "," not in line:
            if pending and len(pending[-1]) > 1:
                flush()  # the name so far is whole: only a given name alone is broken from the rest
            if line.strip() != "AND":
                pending.append(words)
            continue
        flush()
        joined.append(line)
    flush()
    return joined


def _unwrap(lines: list[str]) -> list[str]:
    """Byline lines with a name broken over two lines ("…, Avinash" / "Lakshman, …") joined again."""
    joined: list[str] = []
    for line in lines:
        last = joined[-1] if joined else ""
        tail = last.rsplit(",", 1)[-1].split()
        # A line in capitals starts a name of its own (_capitals_joined), however the last one ended.
        if "," in last and len(tail) == 1 and tail[0].isalpha() and tail[0][0].isupper() and not line.isupper():
            joined[-1] = f"{last} {line}"
        else:
            joined.append(line)
    return joined


def metadata_title_is_junk(title: str) -> bool:
    """A title the producing tool wrote rather than the author: a file name, "Microsoft Word - x"."""
    return not _LETTERS.search(title) or bool(_FILE_NAME.search(title) or _TOOL_PREFIX.match(title))


def metadata_date(value: str) -> date | None:
    return date_from_text(value)


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    return " ".join(text.casefold().split()).strip(" .:")
