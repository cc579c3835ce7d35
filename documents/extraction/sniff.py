"""What a file is, from its first bytes: the upload's evidence besides its name.

Only signatures that cannot be mistaken are trusted over a file's extension: a file that
starts with a PDF header, or a zip archive holding `word/document.xml`. Weaker signs (a PDF
header further into the first kilobyte, which readers accept but which a note about PDFs may
also quote; HTML's opening tags) only name the type of a file whose extension names none.
"""

from __future__ import annotations

import re
import zipfile
from typing import IO

from documents.extraction import formats

PDF = formats.PDF.media_type
DOCX = formats.DOCX.media_type
HTML = formats.HTML.media_type

HEAD_BYTES = 4096
_ZIP_MAGIC = b"PK\x03\x04"
# The HTML standard's sniffing table: a tag among the first non-blank bytes.
_HTML_START = re.compile(
    rb"^\s*(<\?xml[^>]*\?>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|title|meta|p|div|h1|table)[\s>/]",
    re.I | re.S,
)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def is_docx_archive(stream: IO[bytes]) -> bool:
    """A zip archive whose members include the Word main document part."""
    try:
        with zipfile.ZipFile(stream) as archive:
            return "word/document.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


def sniff_content_type(stream: IO[bytes]) -> str | None:
    """PDF, DOCX or HTML judged from the content, or None; the stream is left at 0."""
    return sniff(stream)[0]


def sniff(stream: IO[bytes]) -> tuple[str | None, bool]:
    """(type or None, whether the sign is certain enough to overrule the file's extension)."""
    stream.seek(0)
    head = stream.read(HEAD_BYTES)
    stream.seek(0)
    try:
        if head.lstrip().startswith(b"%PDF-"):
            return PDF, True
        if b"%PDF-" in head[:1024]:  # readers accept the header anywhere in the first kilobyte
            return PDF, False
        if head.startswith(_ZIP_MAGIC):
            return (DOCX, True) if is_docx_archive(stream) else (None, False)
        return (HTML if looks_like_html(head) else None), False
    finally:
        stream.seek(0)


def looks_like_html(head: bytes) -> bool:
    for bom in _BOMS:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    # UTF-16 markup has a NUL after every ASCII byte; drop them for the tag test.
    return bool(_HTML_START.match(head.replace(b"\x00", b"")))
