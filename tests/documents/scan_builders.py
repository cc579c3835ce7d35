"""Scanned PDFs made by the tests themselves: pages rendered to images, put into image-only PDFs.

A scan has no text layer at all, like a page that went through a scanner; rendering a real corpus
page keeps the test honest about OCR quality on real typography.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

SCAN_DPI = 200  # a common office-scanner resolution; OCR renders the page again at OCR_DPI


def scanned_pdf(source: bytes | Path, pages: list[int], *, dpi: int = SCAN_DPI) -> bytes:
    """An image-only PDF of the 0-based `pages` of `source`, one grey-scale image per page."""
    src = pymupdf.open(source) if isinstance(source, Path) else pymupdf.open(stream=source, filetype="pdf")
    out = pymupdf.open()
    for number in pages:
        _add_scan(out, src[number], dpi)
    src.close()
    data = _finish(out)
    assert all(not p.get_text().strip() for p in pymupdf.open(stream=data, filetype="pdf")), "a scan has no text"
    return data


def mixed_pdf(source: Path, text_pages: list[int], scanned_pages: list[int], *, dpi: int = SCAN_DPI) -> bytes:
    """The `text_pages` with their text layer, then the `scanned_pages` as images (0-based)."""
    src = pymupdf.open(source)
    out = pymupdf.open()
    for number in text_pages:
        out.insert_pdf(src, from_page=number, to_page=number)
    for number in scanned_pages:
        _add_scan(out, src[number], dpi)
    src.close()
    return _finish(out)


def _add_scan(out: pymupdf.Document, page: pymupdf.Page, dpi: int) -> None:
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    scan = out.new_page(width=page.rect.width, height=page.rect.height)
    scan.insert_image(scan.rect, pixmap=pixmap)


def _finish(out: pymupdf.Document) -> bytes:
    data = out.tobytes(garbage=3, deflate=True)
    out.close()
    return data
