"""Word (.docx) extraction: body paragraphs and tables in reading order, read as a stream.

Headings come from paragraph styles ("Title", "Heading 1".."Heading 3", or a custom style based
on one of them). Page headers, footers, footnotes and comments are left out: they repeat on
every page or annotate rather than say what the document says.

A .docx is a zip archive, so its directory is checked before any part is read: a file whose
parts would unpack past DOCX_MAX_UNPACKED_BYTES is refused unread. Python's zipfile never
inflates a member past the size its directory declares, and the body is parsed as a stream
(documents/extraction/docx_body.py), so memory stays bounded whatever the part's size.
"""

from __future__ import annotations

import zipfile
import zlib
from importlib.metadata import version
from pathlib import Path

from django.conf import settings
from lxml.etree import XMLSyntaxError

from documents.extraction import versions
from documents.extraction.blocks import assemble
from documents.extraction.docx_body import Styles, body_blocks, main_part_is_a_word_document, read_styles
from documents.extraction.sniff import HEAD_BYTES, what_it_is
from documents.extraction.types import ExtractedText, ExtractionError

MAIN_PART = "word/document.xml"
STYLES_PART = "word/styles.xml"
MAX_PARTS = 10_000  # real documents have tens of parts; thousands of tiny ones is an attack
_MB = 1_048_576


def extractor_stamp() -> str:
    return f"lxml-{version('lxml')}+{versions.DOCX}"


def extract_docx(path: Path) -> ExtractedText:
    check_archive(path)
    try:
        with zipfile.ZipFile(path) as archive:
            if not main_part_is_a_word_document(archive.open):
                raise ExtractionError(
                    "The file is an Office archive but not a Word document (perhaps a spreadsheet, a "
                    "presentation, a template or a macro-enabled document)."
                )
            styles = _styles(archive)
            with archive.open(MAIN_PART) as body:
                return assemble(
                    body_blocks(body, styles, MAIN_PART), extractor=extractor_stamp(), empty_reason=_NO_TEXT
                )
    except (zipfile.BadZipFile, zlib.error, KeyError, EOFError, OSError, XMLSyntaxError) as exc:
        detail = _what_went_wrong(exc)
        raise ExtractionError(
            f"The Word document is damaged ({detail}); save it again from Word and upload it."
        ) from exc


def _what_went_wrong(exc: Exception) -> str:
    # With entities left unexpanded, lxml's own message can be "no element found (line 0)": the
    # parser's error log holds the real first error ("Entity 'xxe' not defined").
    errors = exc.error_log.filter_from_errors() if isinstance(exc, XMLSyntaxError) else []
    if errors:
        return f"{errors[0].message}, line {errors[0].line}"[:200]
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _styles(archive: zipfile.ZipFile) -> Styles:
    if STYLES_PART not in archive.namelist():
        return Styles()
    with archive.open(STYLES_PART) as stream:
        return read_styles(stream, STYLES_PART)


_NO_TEXT = "The Word document contains no text (only pictures, or nothing at all)."


def check_archive(path: Path) -> None:
    """Refuse what is not a Word archive, or would unpack too large, before reading any part."""
    if not zipfile.is_zipfile(path):
        raise ExtractionError(f"The file is not a Word document (.docx). {_what_it_is(path)}")
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ExtractionError(f"The Word document is damaged ({exc}); save it again from Word and upload it.") from exc
    if MAIN_PART not in {m.filename for m in members}:
        raise ExtractionError(
            "The file is a zip archive but not a Word document (.docx): it has no word/document.xml part."
        )
    unpacked = sum(m.file_size for m in members)
    limit = settings.DOCX_MAX_UNPACKED_BYTES
    if len(members) > MAX_PARTS or unpacked > limit:
        raise ExtractionError(
            f"The Word document would unpack to {unpacked / _MB:,.0f} MB in {len(members):,} parts (the limit is "
            f"{limit / _MB:,.0f} MB and {MAX_PARTS:,} parts); it was refused unread, as it looks like a "
            "decompression bomb."
        )


def _what_it_is(path: Path) -> str:
    with path.open("rb") as stream:
        head = stream.read(HEAD_BYTES)
    return what_it_is(head) or "It is not a zip archive, as every .docx is; the file may be damaged or of another type."
