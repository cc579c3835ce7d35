"""Image-only copies of PDF pages, as a scanner would make them: OCR's workload for the benchmark,
the evaluation over scanned documents (`manage.py scan_corpus`) and the tests.

Each page is rendered to a grey-scale image and placed alone on a page of the same size, so the
copy has no text layer at all. PyMuPDF is imported lazily (this runs only in tools).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymupdf

SCAN_DPI = 200  # a common office-scanner resolution; OCR renders the page again at OCR_DPI


def scanned_pdf(source: bytes | Path, pages: list[int] | None = None, *, dpi: int = SCAN_DPI) -> bytes:
    """An image-only PDF of the 0-based `pages` of `source` (all pages when None)."""
    import pymupdf

    src = pymupdf.open(source) if isinstance(source, Path) else pymupdf.open(stream=source, filetype="pdf")
    out = pymupdf.open()
    for number in range(src.page_count) if pages is None else pages:
        add_scan(out, src[number], dpi)
    src.close()
    data = out.tobytes(garbage=3, deflate=True)
    out.close()
    return data


def add_scan(out: pymupdf.Document, page: pymupdf.Page, dpi: int = SCAN_DPI) -> None:
    """Append `page` to `out` as an image of itself."""
    import pymupdf

    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    scan = out.new_page(width=page.rect.width, height=page.rect.height)
    scan.insert_image(scan.rect, pixmap=pixmap)
