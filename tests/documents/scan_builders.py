"""Scanned PDFs made by the tests themselves: pages rendered to images, put into image-only PDFs.

A scan has no text layer at all, like a page that went through a scanner; rendering a real corpus
page keeps the test honest about OCR quality on real typography.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from bench.scans import add_scan
from bench.scans import scanned_pdf as _scanned_pdf


def scanned_pdf(source: bytes | Path, pages: list[int]) -> bytes:
    """An image-only PDF of the 0-based `pages` of `source`; checked to hold no text at all."""
    data = _scanned_pdf(source, pages)
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        assert all(not page.get_text().strip() for page in doc), "a scan has no text"
    return data


def mixed_pdf(source: Path, text_pages: list[int], scanned_pages: list[int]) -> bytes:
    """The `text_pages` with their text layer, then the `scanned_pages` as images (0-based)."""
    with pymupdf.open(source) as src, pymupdf.open() as out:
        for number in text_pages:
            out.insert_pdf(src, from_page=number, to_page=number)
        for number in scanned_pages:
            add_scan(out, src[number])
        return out.tobytes(garbage=3, deflate=True)
