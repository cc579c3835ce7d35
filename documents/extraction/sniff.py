"""What a file is, from its first bytes: the upload's evidence besides its name.

Only signatures that cannot be mistaken are trusted over a file's extension: a file that
starts with a PDF header, or a zip archive holding `word/document.xml`. Weaker signs (a PDF
header further into the first kilobyte, which readers accept but which a note about PDFs may
also quote; HTML's opening tags) only name the type of a file whose extension names none.
A file whose first bytes make its extension's promise impossible (`broken_promise`) is refused
at upload, with what it looks like instead (`what_it_is`).
"""

from __future__ import annotations

import codecs
import re
import zipfile
from typing import IO

from django.utils.translation import gettext

from documents.extraction import formats

PDF = formats.PDF.media_type
DOCX = formats.DOCX.media_type
HTML = formats.HTML.media_type

HEAD_BYTES = 4096
PDF_HEADER_WITHIN = 1024  # PDF readers accept the header anywhere in the first kilobyte
_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the pre-2007 binary .doc (and .xls, .ppt) container
# Programs: Linux (ELF) and macOS (64-bit Mach-O) by their magic; Windows by "MZ" with its "PE" header.
_PROGRAM_MAGIC = (b"\x7fELF", b"\xcf\xfa\xed\xfe")
_TEXT_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
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
        if b"%PDF-" in head[:PDF_HEADER_WITHIN]:
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


def broken_promise(content_type: str, stream: IO[bytes]) -> str | None:
    """Why a file whose name says `content_type` cannot be one, when its first bytes make that
    certain ("is not a PDF: …", with what it looks like instead); None when it may be one.

    Only what no reader could open is named here: a PDF without its header in the first kilobyte,
    a Word file that does not start as a zip archive. A file that passes may still be damaged
    further in; extraction finds that, and the document fails with its reason.
    """
    stream.seek(0)
    head = stream.read(HEAD_BYTES)
    stream.seek(0)
    if content_type == PDF and b"%PDF-" not in head[:PDF_HEADER_WITHIN]:
        why = gettext("is not a PDF: its first kilobyte holds no PDF header (%PDF-)")
    elif content_type == DOCX and not head.startswith(_ZIP_MAGIC):
        why = gettext("is not a Word document (.docx): it does not start as a zip archive, as every .docx does")
    else:
        return None
    found = what_it_is(head) or gettext("The file may be damaged or of another type.")
    return f"{why}. {found}"


def what_it_is(head: bytes) -> str | None:
    """What a file's first bytes show it to be, and what to do, in one sentence; None if unclear."""
    if head.startswith(_OLE_MAGIC):
        return gettext("It is an old binary Word (.doc) file; save it as .docx in Word and upload that.")
    if head.lstrip().startswith(b"%PDF-"):
        return gettext("It is a PDF; upload it with a .pdf name.")
    if looks_like_html(head):
        return gettext("It is a web page (HTML); upload it with an .html name.")
    if head.startswith(_PROGRAM_MAGIC) or (head.startswith(b"MZ") and b"PE\x00\x00" in head):
        return gettext("It is a program, not a document.")
    if _looks_like_text(head):
        return gettext("It looks like plain text; upload it with a .txt name.")
    return None


def _looks_like_text(head: bytes) -> bool:
    """UTF-8 (a character cut at the end of the head aside) without control characters."""
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return bool(text.strip()) and not _TEXT_CONTROLS.search(text)
