"""How much text one document may hold: INGEST_MAX_TEXT_CHARS, checked as early as each format allows.

Every later stage (chunking, token counting, embedding, the lexical index) works in bounded
pieces, so a worker's memory does not grow with a document's text beyond a few copies of it;
this limit bounds those copies and the time the encoder needs. Extractors check it before
they build the whole text when they can (a text file from its size, a PDF page by page), and
on the finished text otherwise.
"""

from __future__ import annotations

from django.conf import settings

from documents.extraction.types import ExtractionError

# No text encoding Python reads spends more than four bytes on a character (UTF-8 and UTF-32 at
# most four), so a file larger than four bytes a character over the limit is refused unread.
MAX_BYTES_PER_CHAR = 4


def max_text_chars() -> int:
    return settings.INGEST_MAX_TEXT_CHARS


def text_too_long(size_bytes: int | None = None) -> ExtractionError:
    """The refusal, in words staff can act on; `size_bytes` when the file was refused unread.

    The count is "more than" the limit: extraction stops where it crosses it, not at the end.
    """
    limit = max_text_chars()
    unread = f" (the file is {size_bytes / 1_048_576:,.1f} MB; it was not read)" if size_bytes is not None else ""
    return ExtractionError(
        f"The document holds more than {limit:,} characters of text{unread}, the most this library indexes "
        "in one document (INGEST_MAX_TEXT_CHARS). Split it into smaller files and upload those."
    )


def check_text_length(chars: int) -> None:
    """Refuse once a document's text (or the part of it built so far) is over the limit."""
    if chars > max_text_chars():
        raise text_too_long()


def check_file_size(size_bytes: int) -> None:
    """Refuse a text file that must decode to more characters than the limit, before reading it."""
    if size_bytes > MAX_BYTES_PER_CHAR * max_text_chars():
        raise text_too_long(size_bytes)
