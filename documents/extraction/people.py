"""Titles, people's names and dates as metadata and title pages write them, cleaned or refused.

Used by documents/extraction/metadata.py: a value that does not look like a person's name or a
date is dropped, so a document shows no author rather than "Administrator" or "Google, Inc.".
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime

from django.utils import timezone

from documents.names import name_problem

MAX_NAME = 300  # Document.authors' element length

# TeX-made PDFs set an accent as its own glyph before the letter ("Andr´e"): composed back ("André").
_SPACING_ACCENTS = {"´": "\u0301", "`": "\u0300", "¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303"}
_LOOSE_ACCENT = re.compile(r"([´`¨ˆ˜])\s?([A-Za-z])")
_FOOTNOTE_MARKS = re.compile(r"[*∗†‡§¶⋆]+|(?<=[a-z])\d+$|\(\d+\)$")
_SEPARATORS = re.compile(r"\s*(?:[,;&]|\band\b|\bwith\b)\s*", re.I)
# A word of a name: capitalised letters, with initials ("W."), hyphens and apostrophes.
_NAME_WORD = re.compile(r"^[A-ZÀ-ÖØ-ÞĀ-ſ][\w'’\-.]*$", re.U)
_PARTICLES = {
    "van",
    "von",
    "de",
    "der",
    "den",
    "da",
    "di",
    "du",
    "del",
    "della",
    "dos",
    "la",
    "le",
    "bin",
    "ten",
    "ter",
}
# Words that make a line an affiliation, not a person.
_INSTITUTION_WORDS = {
    "university", "universität", "université", "inc", "inc.", "institute", "institut", "laboratory", "laboratories",
    "lab", "labs", "research", "project", "company", "corporation", "corp", "corp.", "department", "school",
    "college", "center", "centre", "group", "ltd", "ltd.", "llc", "gmbh", "foundation", "team", "systems",
    "computer", "science", "sciences", "technology", "google", "microsoft", "amazon", "facebook", "yahoo",
    "journal", "press", "entertainment", "ecole", "école", "polytechnique", "abstract", "introduction", "draft",
    "edition", "international", "software", "society", "association", "office", "agency", "council", "committee",
}  # fmt: skip

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}  # fmt: skip
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
)
MONTH_PATTERN = _MONTH  # one group: a month's name or abbreviation


def month_number(name: str) -> int:
    """1-12 for a month's name or abbreviation ("Sept."), 0 for anything else."""
    return _MONTHS.get(name.lower().rstrip("."), 0)


_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})")
_PDF_DATE = re.compile(r"^(?:D:)?(\d{4})(\d{2})(\d{2})")
_MONTH_DAY_YEAR = re.compile(_MONTH + r"\s+(\d{1,2}),?\s+(\d{4})\b", re.I)
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})\s+" + _MONTH + r",?\s+(\d{4})\b", re.I)
_ASCTIME = re.compile(r"^[A-Za-z]{3} " + _MONTH + r"\s+(\d{1,2}) \d{2}:\d{2}:\d{2} (\d{4})$", re.I)
OLDEST_YEAR = 1800


def clean_name(value: str) -> str:
    """One line of printable text in NFKC (ligatures undone), accents composed, or "" if unusable."""
    value = _LOOSE_ACCENT.sub(lambda m: m.group(2) + _SPACING_ACCENTS[m.group(1)], value or "")
    value = " ".join(unicodedata.normalize("NFKC", value).split())
    value = "".join(ch for ch in value if name_problem(ch) is None)
    return unicodedata.normalize("NFC", value)


def people(value: str) -> list[str]:
    """The people a byline or an author field names ("A, B and C"), skipping what is no person's name."""
    found: list[str] = []
    for name in _items(value):
        if looks_like_a_person(name) and name not in found:
            found.append(name[:MAX_NAME])
    return found


def byline_people(line: str) -> list[str]:
    """The people one line under a title names: a line of names, or a name then its affiliation
    ("Mike Burrows, Google Inc."); nothing from an address, a place or a label ("Palo Alto, CA 94303")."""
    items = _items(line)
    if not items or line.rstrip().endswith(":") or "@" in line or any(ch.isdigit() for ch in "".join(items)):
        return []
    persons = [looks_like_a_person(item) for item in items]
    if all(persons):
        return items
    if persons[0] and all(_is_institution(item) for item, person in zip(items, persons, strict=True) if not person):
        return [item for item, person in zip(items, persons, strict=True) if person]
    return []


def _items(value: str) -> list[str]:
    parts = (_FOOTNOTE_MARKS.sub("", part).strip(" .:") for part in _SEPARATORS.split(clean_name(value)))
    return [part for part in parts if part]


def _is_institution(item: str) -> bool:
    return any(w.lower().strip(".,") in _INSTITUTION_WORDS for w in item.split())


def looks_like_a_person(name: str) -> bool:
    words = name.split()
    if not 2 <= len(words) <= 5 or "@" in name or any(ch.isdigit() for ch in name):
        return False
    if any(w.lower().strip(".,") in _INSTITUTION_WORDS for w in words):
        return False
    if any(w.isupper() and len(w.strip(".")) > 2 for w in words):
        return False  # "FISCHER": a scanned byline in capitals is too often a misread
    # "van", "de" lowercase are particles; "Di", "De" capitalised are names in their own right.
    capitalised = [w for w in words if w not in _PARTICLES]
    # At least one word beyond initials: "J. R." is no one's name.
    return (
        len(capitalised) >= 2
        and all(_NAME_WORD.match(w) for w in capitalised)
        and any(len(w.rstrip(".")) > 2 for w in capitalised)
        and words[-1] not in _PARTICLES
    )


def date_from_text(value: str) -> date | None:
    """A full date (day, month, year) the value states, when it is a plausible one; else None."""
    value = " ".join((value or "").split())
    for pattern, order in (
        (_ISO_DATE, "ymd"), (_PDF_DATE, "ymd"), (_ASCTIME, "mdy"), (_MONTH_DAY_YEAR, "mdy"), (_DAY_MONTH_YEAR, "dmy"),
    ):  # fmt: skip
        match = pattern.search(value)
        if match:
            parts = dict(zip(order, match.groups(), strict=True))
            month = parts["m"]
            number = int(month) if month.isdigit() else month_number(month)
            return _plausible(int(parts["y"]), number, int(parts["d"]))
    return None


def _plausible(year: int, month: int, day: int) -> date | None:
    try:
        found = date(year, month, day)
    except ValueError:
        return None
    today = timezone.now().date()
    return found if year >= OLDEST_YEAR and found <= today else None


def as_date(value: object) -> date | None:
    """A YAML value for a date: a date, a datetime, or text stating one."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date_from_text(value) if isinstance(value, str) else None
