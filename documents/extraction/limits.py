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
    return int(settings.INGEST_MAX_TEXT_CHARS)


def text_too_long(chars: int | None = None) -> ExtractionError:
    """The refusal, in words staff can act on; `chars` when the count is known."""
    limit = max_text_chars()
    held = f"{chars:,} characters of text" if chars is not None else "more text than that"
    return ExtractionError(
        f"The document holds {held}; this library indexes at most {limit:,} characters per document "
        "(INGEST_MAX_TEXT_CHARS). Split it into smaller files and upload those."
    )


def check_text_length(chars: int) -> None:
    """Refuse once a document's text (or the part of it built so far) is over the limit."""
    if chars > max_text_chars():
        raise text_too_long(chars)


def check_file_size(size_bytes: int) -> None:
    """Refuse a text file that must decode to more characters than the limit, before reading it."""
    if size_bytes > MAX_BYTES_PER_CHAR * max_text_chars():
        raise text_too_long()
