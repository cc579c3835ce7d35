"""Word (.docx) extraction with python-docx: body paragraphs and tables in reading order.

Headings come from paragraph styles ("Title", "Heading 1".."Heading 3", or a custom style based
on one of them). Page headers, footers, footnotes and comments are left out: they repeat on
every page or annotate rather than say what the document says.

A .docx is a zip archive, so its directory is checked before python-docx reads any part: a
file whose parts would unpack past DOCX_MAX_UNPACKED_BYTES is refused unread. Python's zipfile
never inflates a member past the size its directory declares, so that check bounds memory.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

from documents.extraction import versions
from documents.extraction.blocks import Block, assemble
from documents.extraction.sniff import looks_like_html
from documents.extraction.types import ExtractedText, ExtractionError

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.table import Table

MAIN_PART = "word/document.xml"
MAX_PARTS = 10_000  # real documents have tens of parts; thousands of tiny ones is an attack
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the pre-2007 binary .doc (and .xls, .ppt) container
_HEADING_STYLE = re.compile(r"^heading ([1-9])$", re.I)
_MB = 1_048_576


def extractor_stamp() -> str:
    return f"python-docx-{version('python-docx')}+{versions.DOCX}"


def extract_docx(path: Path) -> ExtractedText:
    check_archive(path)
    document = _open(path)
    check_no_doctype(document)
    return assemble(list(_blocks(document)), extractor=extractor_stamp(), empty_reason=_NO_TEXT)


_NO_TEXT = "The Word document contains no text (only pictures, or nothing at all)."


def check_archive(path: Path) -> None:
    """Refuse what is not a Word archive, or would unpack too large, before reading any part."""
    if not zipfile.is_zipfile(path):
        raise ExtractionError(f"The file is not a Word document (.docx): {_what_it_is(path)}")
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
        head = stream.read(4096)
    if head.startswith(_OLE_MAGIC):
        return "it is an old binary Word (.doc) file; save it as .docx in Word and upload that."
    if head.lstrip().startswith(b"%PDF-"):
        return "it is a PDF; upload it with a .pdf name."
    if looks_like_html(head):
        return "it is a web page (HTML); upload it with an .html name."
    return "it is not a zip archive, as every .docx is; the file may be damaged or of another type."


def _open(path: Path) -> WordDocument:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import XMLSyntaxError

    try:
        return docx.Document(str(path))
    except ValueError as exc:  # python-docx: "file '…' is not a Word file, content type is '…'"
        raise ExtractionError(
            "The file is an Office archive but not a Word document (perhaps a spreadsheet or a presentation)."
        ) from exc
    except (PackageNotFoundError, zipfile.BadZipFile, zlib.error, KeyError, EOFError, XMLSyntaxError) as exc:
        detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise ExtractionError(
            f"The Word document is damaged ({detail}); save it again from Word and upload it."
        ) from exc


def check_no_doctype(document: WordDocument) -> None:
    """Refuse a document whose XML parts declare a document type (DTD), where XML entities live.

    python-docx parses with entities left unexpanded (so neither an external entity nor an
    expanding one can do harm), but a run's text then ends at the first entity reference: the words
    after it would be lost without a trace. Word never writes a DTD (the Open Packaging Conventions
    forbid one), so a file with one is refused with a reason instead.
    """
    for part in document.part.package.iter_parts():
        element = getattr(part, "_element", None)  # parsed XML parts only; pictures stay unread
        if element is not None and element.getroottree().docinfo.doctype:
            raise ExtractionError(
                f"The Word document's part {part.partname} declares an XML document type (DOCTYPE), where XML "
                "entities are defined; Word never writes one, and text that uses entities cannot be read "
                "faithfully, so the file was refused rather than indexed with text missing. Save it again "
                "from Word and upload that."
            )


def _blocks(document: WordDocument) -> Any:
    from docx.table import Table

    for item in document.iter_inner_content():
        if isinstance(item, Table):
            yield Block(_table_text(item))
        else:
            yield Block(item.text, heading_level=_heading_level(item.style))


def _heading_level(style: Any) -> int:
    """1-9 for Title/Heading N or a style based on one of them; 0 for body text."""
    seen = 0
    while style is not None and seen < 10:  # base-style chains are short; a cycle must not hang us
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 1
        match = _HEADING_STYLE.match(name)
        if match:
            return int(match.group(1))
        style, seen = style.base_style, seen + 1
    return 0


def _table_text(table: Table) -> str:
    """One line per row, cells separated by " | "; a merged cell is written once."""
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            text = " ".join(cell.text.split())
            if text:
                cells.append(text)
        if cells:
            rows.append(" | ".join(cells))
    return "\n".join(rows)
