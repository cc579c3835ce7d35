"""The one rule for names and titles people type: folder, group and token names, document titles.

A name is one line of text that people read in menus, headings and error messages, and that
PostgreSQL stores. So it must not hold:
- control characters (Unicode category Cc: NUL, tab, line feed, escape, DEL, C1 controls):
  PostgreSQL refuses NUL in text, and the others are invisible or break the line;
- unpaired surrogates (Cs): they cannot be encoded as UTF-8 at all;
- line and paragraph separators (Zl, Zp): a name is one line;
- bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they make a
  name display in another order than it is stored ("Trojan Source"), so one name could pass
  for another.
Other invisible format characters (Cf) stay allowed: the zero-width joiner and non-joiner and
the left-to-right / right-to-left marks are needed to write some languages and emoji correctly.

Such a character is refused, never silently removed: the person learns what was wrong and no
name is stored differently from what they meant. Surrounding whitespace is removed (a pasted
title often ends in a line break) and the name is put in Unicode NFC, so that an "é" typed as one
character or as "e" plus an accent is the same name (folder names are unique within a parent).
Spaces inside a name are kept as typed.

`name_clean` is the rule for services (it raises `InvalidName`, a 400 over the API);
`NameValidator` is the same rule for Django model and form fields (admin forms show it).
Uploaded files' own names are not typed by anyone: the upload service drops such characters
from them instead (`documents/services/upload.py: safe_original_name`).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePosixPath

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from ragsite.errors import InvalidInput

# Bidirectional embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI, RLI, FSI, PDI).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Lazily translated: these are built at import, and said in the language active where a name is refused.
_KINDS = {
    "Cc": gettext_lazy("a control character"),
    "Cs": gettext_lazy("an unpaired surrogate"),
    "Zl": gettext_lazy("a line separator"),
    "Zp": gettext_lazy("a paragraph separator"),
}
_BIDI_CONTROL = gettext_lazy("a bidirectional text control")
# What the callers name, in the active language; `what` itself stays the English word, as the
# validators in the migrations spell it. A name not listed here is said as the caller wrote it.
_WHATS = {
    "name": pgettext_lazy("what holds a refused character", "name"),
    "title": pgettext_lazy("what holds a refused character", "title"),
    "folder name": pgettext_lazy("what holds a refused character", "folder name"),
    "group name": pgettext_lazy("what holds a refused character", "group name"),
    "tag name": pgettext_lazy("what holds a refused character", "tag name"),
    "token name": pgettext_lazy("what holds a refused character", "token name"),
    "author name": pgettext_lazy("what holds a refused character", "author name"),
}


class InvalidName(InvalidInput):
    """A name or title that holds a character no name may hold."""


def _kind(char: str) -> str | None:
    """What is wrong with one character, in words, or None when a name may hold it."""
    if char in BIDI_CONTROLS:
        return str(_BIDI_CONTROL)
    kind = _KINDS.get(unicodedata.category(char))
    return None if kind is None else str(kind)


def name_problem(value: str, *, what: str = "name") -> str | None:
    """Why `value` is not a valid name (naming the first bad character), or None when it is."""
    for position, char in enumerate(value, start=1):
        kind = _kind(char)
        if kind is not None:
            said = gettext(
                "The %(what)s contains %(kind)s (U+%(code)s) at character %(position)s; "
                "names and titles must be printable text on one line."
            )
            return said % {
                "what": _WHATS.get(what, what),
                "kind": kind,
                "code": f"{ord(char):04X}",
                "position": position,
            }
    return None


def name_clean(value: str, *, what: str = "name") -> str:
    """`value` without surrounding whitespace, in NFC; raises InvalidName if it breaks the rule.

    It may return "": whether a blank name is allowed is the caller's decision.
    """
    value = value.strip()
    problem = name_problem(value, what=what)
    if problem is not None:
        raise InvalidName(problem)
    return unicodedata.normalize("NFC", value)


@deconstructible
class NameValidator:
    """Django's form of the rule: a field validator raising ValidationError with the same reason."""

    code = "invalid_name_character"

    def __init__(self, what: str = "name") -> None:
        self.what = what

    def __call__(self, value: object) -> None:
        problem = name_problem(str(value), what=self.what)
        if problem is not None:
            raise ValidationError(problem, code=self.code)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NameValidator) and other.what == self.what

    def __hash__(self) -> int:
        return hash((type(self), self.what))


def title_from_name(name: str) -> str:
    """What a file name says a document is called: its stem, underscores as spaces ("tide_tables.pdf")."""
    suffix = PurePosixPath(name).suffix[:10]
    stem = name[: len(name) - len(suffix)]
    return re.sub(r"[_\s]+", " ", stem).strip() or name
