"""Text normalisation used to compare needles with chunk content (evaluation, tests)."""

from __future__ import annotations

import re
import unicodedata

_WHITESPACE = re.compile(r"\s+")


def normalise_for_match(text: str) -> str:
    """Unicode NFKC, then every run of whitespace collapsed to one space, trimmed."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()
