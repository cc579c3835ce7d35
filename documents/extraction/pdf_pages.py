"""Reading a PDF's pages one at a time: the text layer, OCR where there is none, and what went wrong.

`PageReader.pages()` is iterated twice by the extractor (survey, then assembly). Text-layer pages
are simply read again (one page in memory at a time); OCR'd pages are read once and their lines
kept, since OCR costs seconds a page. Every page that could not be read is written down in the
`PageReport`, which `pdf_damage.page_warnings` turns into a failure or warnings.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

import pymupdf

from documents import time_limit
from documents.extraction.ocr import OcrUnavailable, ocr_page
from documents.extraction.pdf_layout import Line, read_page_lines
from documents.extraction.types import OcrPageText

logger = logging.getLogger(__name__)

_STORE_FLUSH_PAGES = 25
# A page with an image and fewer letters and digits than this in its text layer is read by OCR:
# a scan often carries a scanner's stamp or a page number as text, a page of prose has hundreds.
OCR_MIN_TEXT_CHARS = 40
# ...and whose images cover at least this share of the page (a scan covers all of it; the logo in
# the header of an otherwise blank page of the ECMA-404 spec covers 5 %).
OCR_MIN_IMAGE_COVER = 0.3


@dataclass
class PageReport:
    page_count: int
    repaired: bool  # MuPDF had to rebuild the file's structure (truncated or damaged)
    unreadable: list[int] = field(default_factory=list)  # 1-based: raised, or empty in a repaired file
    not_ocrd: list[int] = field(default_factory=list)  # image pages left unread: OCR unavailable
    ocr_unavailable: str = ""  # why, with how to install it
    ocr_pages: dict[int, OcrPageText] = field(default_factory=dict)  # by 1-based page number

    @property
    def ocr_empty(self) -> list[int]:
        return [number for number, page in self.ocr_pages.items() if not page.words]


class PageReader:
    def __init__(self, doc: pymupdf.Document) -> None:
        self.doc = doc
        self.report = PageReport(page_count=doc.page_count, repaired=bool(doc.is_repaired))
        self._ocr_lines: dict[int, list[Line]] = {}
        self._skip: set[int] = set()  # 0-based pages already known to hold nothing readable

    def pages(self) -> Iterator[tuple[int, list[Line]]]:
        """(0-based page number, its upright lines) for every page, in order."""
        for number in range(self.doc.page_count):
            time_limit.check()
            yield number, self._lines(number)
            if number % _STORE_FLUSH_PAGES == _STORE_FLUSH_PAGES - 1:
                # MuPDF keeps every parsed page resource in its global store; without emptying it a
                # 1000-page file grows the process by ~100 MB. Emptying only costs cache re-reads.
                pymupdf.TOOLS.store_shrink(100)

    def _lines(self, number: int) -> list[Line]:
        if number in self._ocr_lines:
            return self._ocr_lines[number]
        if number in self._skip:
            return []
        try:
            page = self.doc.load_page(number)
            lines = read_page_lines(page)
            if _needs_ocr(page, lines):
                lines = self._ocr(page, lines)
            del page
        except (RuntimeError, ValueError) as exc:
            # One page MuPDF cannot read does not fail the whole document; the report names it.
            logger.warning("PDF page %d could not be read: %s", number + 1, exc)
            self._mark_unreadable(number)
            return []
        if not lines and self.report.repaired:
            # An empty page in a file MuPDF had to rebuild: its content was most likely lost.
            self._mark_unreadable(number)
        return lines

    def _mark_unreadable(self, number: int) -> None:
        self._skip.add(number)
        self.report.unreadable.append(number + 1)

    def _ocr(self, page: pymupdf.Page, text_layer: list[Line]) -> list[Line]:
        if self.report.ocr_unavailable:
            self.report.not_ocrd.append(page.number + 1)
            self._ocr_lines[page.number] = text_layer  # so the second pass does not count it again
            return text_layer
        try:
            result, lines = ocr_page(page)
        except OcrUnavailable as exc:
            self.report.ocr_unavailable = str(exc)
            return self._ocr(page, text_layer)
        self.report.ocr_pages[result.number] = result
        self._ocr_lines[page.number] = lines
        return lines


def _needs_ocr(page: pymupdf.Page, lines: list[Line]) -> bool:
    """Only pages without usable text are OCR'd, and only those that look scanned: images cover a
    good part of the page (a nearly blank page with a logo in its header is not a scan)."""
    letters = 0
    for line in lines:
        letters += sum(ch.isalnum() for ch in line.text)
        if letters >= OCR_MIN_TEXT_CHARS:
            return False
    if not page.get_images():
        return False
    area = abs(page.rect)
    shown = sum(abs(pymupdf.Rect(info["bbox"]) & page.rect) for info in page.get_image_info())
    return area > 0 and shown >= OCR_MIN_IMAGE_COVER * area
