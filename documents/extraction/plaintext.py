"""Plain-text extraction: decode the bytes, normalise newlines, nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from documents.extraction import versions
from documents.extraction.limits import check_file_size, check_text_length
from documents.extraction.types import ExtractedText, ExtractionError

EXTRACTOR = versions.PLAINTEXT
NO_TEXT = "The file contains no extractable text."

_NEWLINES = re.compile(r"\r\n?")
# C0 controls other than tab and newline never carry meaning in stored text; NUL in
# particular cannot be stored in a PostgreSQL text column.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise ExtractionError("The stored file is missing.") from exc
    except OSError as exc:
        raise ExtractionError(f"The stored file could not be read ({exc.strerror or exc}).") from exc


def decode_text(data: bytes) -> str:
    """UTF-8 (with or without BOM) first; otherwise let charset_normalizer guess.

    UTF-8 is tried strictly first because detection on short files is unreliable and
    almost everything uploaded today is UTF-8.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    matches = from_bytes(data)
    best = matches.best()
    if best is not None:
        # Western text decodes without "chaos" as cp1250, cp1252, cp1257... alike, and the
        # language-coherence score that breaks the tie is noise on short text (it picked
        # cp1250 for French, turning "naïve" into "naďve"). Among the cleanest decodings,
        # prefer Windows-1252, by far the most common legacy encoding of uploaded files.
        tied = [m for m in matches if m.chaos <= best.chaos]
        best = next((m for m in tied if "cp1252" in m.could_be_from_charset), best)
    if best is None:
        raise ExtractionError(
            "The file is not readable text (its character encoding could not be recognised; save it as UTF-8)."
        )
    return str(best)


def read_text(path: Path) -> str:
    """A text file's decoded, cleaned text, refused unread when its size alone puts it over the
    text limit and refused before cleaning when its decoded length does."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # read_bytes says what is wrong with the file
    check_file_size(size)
    text = decode_text(read_bytes(path))
    check_text_length(len(text))
    return clean_text(text)


def clean_text(text: str) -> str:
    """Newlines to "\\n", control characters (including NUL) removed."""
    return _CONTROL.sub("", _NEWLINES.sub("\n", text))


def extract_plaintext(path: Path) -> ExtractedText:
    text = read_text(path)
    if not text.strip():
        raise ExtractionError(NO_TEXT)
    return ExtractedText(text=text, page_starts=[], sections=[], page_count=None, extractor=EXTRACTOR)
