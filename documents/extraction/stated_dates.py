"""The date a document's first page states for itself: its venue and year, a copyright line, a dated header.

A PDF's creation date is when the file was made, often years after the paper (a re-typeset
archive copy, a scan). What the page states wins; documents/extraction/metadata.py uses the file's
date only when its year agrees or when the page states none. Only lines that date the document
count: a copyright line, a venue or journal with its year ("OSDI 2006", "SOSP'03", "Proceedings of
… 1985", "Vol. 32, No. 2, April 1985"), a dated header ("November 1994", "Draft of October 7,
2013") or a year alone on its line; a year in a sentence ("started in 2000") dates something else.
Of several, the newest: a paper is published after it was received, and no earlier than the
dates it states.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from django.utils import timezone

from documents.extraction.people import MONTH_PATTERN, OLDEST_YEAR, date_from_text, month_number

_YEAR = r"(1[89]\d\d|20\d\d)"
_NOT_DIGIT_BEFORE, _NOT_DIGIT_AFTER = r"(?<![\d/.:-])", r"(?![\d/])"
# "November 1994", "April 1985", "1st Edition / October 2013", "Oct. 27–Nov. 1, 2013".
_MONTH_YEAR = re.compile(MONTH_PATTERN + r",?\s+(?:\d{1,2}(?:\s*[–-]\s*\w+\.?\s*\d{1,2})?,?\s+)?" + _YEAR + r"\b", re.I)
# "© Ecma International 2009", "Copyright 2003 ACM", "(c) 2008 Jane Doe"; OCR reads © as "0" or "@".
_COPYRIGHT = re.compile(r"(?:©|\(c\)|\bcopyright\b|^[0@]\s+(?=" + _YEAR + r"\s))\D{0,60}?" + _YEAR + r"\b", re.I)
# A venue's short name (capitals, perhaps two words) with its year: "OSDI 2006", "SOSP’03", "USENIX ATC ’13".
_VENUE_YEAR = re.compile(r"\b[A-Z][A-Za-z]*[A-Z]\b(?:\s+[A-Z]{2,})?\s*(?:" + _YEAR + r"\b|['’‘](\d\d)\b)")
# Words that make the line's year the document's: where, by whom and when it was published.
_PUBLICATION = re.compile(
    r"\b(proceedings|proc\.|conference|symposium|workshop|journal|transactions|vol\.|volume|to appear|"
    r"published|appeared|technical report|tech\.? report|report|draft|preprint|edition|arxiv)\b",
    re.I,
)
_ANY_YEAR = re.compile(_NOT_DIGIT_BEFORE + _YEAR + _NOT_DIGIT_AFTER)
_YEAR_ALONE = re.compile(r"^\s*" + _YEAR + r"\s*$")


def stated_date(lines: Iterable[str]) -> date | None:
    """The newest date the lines state of the document: a full date when a line gives one, else the
    first of its month, else 1 January of its year; None when no line dates the document."""
    found = [d for line in lines for d in _line_dates(" ".join(line.split()))]
    return max(found, default=None)


def _line_dates(line: str) -> list[date]:
    if not line or len(line) > 200:
        return []
    full = date_from_text(line)
    found = [full] if full is not None else []
    for match in _MONTH_YEAR.finditer(line):
        found.extend(_plausible(int(match.group(2)), month_number(match.group(1))))
    for match in _COPYRIGHT.finditer(line):
        found.extend(_plausible(int(match.group(1) or match.group(2))))
    for match in _VENUE_YEAR.finditer(line):
        if match.group(1):
            found.extend(_plausible(int(match.group(1))))
        elif match.group(2):
            found.extend(_plausible(_century(int(match.group(2)))))
    if _PUBLICATION.search(line) or _YEAR_ALONE.match(line):
        found.extend(d for match in _ANY_YEAR.finditer(line) for d in _plausible(int(match.group(1))))
    # A full date stands for its year: the coarser statements of that same year add nothing.
    return [full] if full is not None and all(d.year == full.year for d in found) else found


def _century(two_digits: int) -> int:
    """'03 is 2003 and '85 is 1985: the most recent such year not after this one."""
    this_year = timezone.now().year
    year = 2000 + two_digits
    return year if year <= this_year else year - 100


def _plausible(year: int, month: int = 1) -> list[date]:
    today = timezone.now().date()
    if year < OLDEST_YEAR or not 1 <= month <= 12:
        return []
    found = date(year, month, 1)
    return [found] if found <= today else []
