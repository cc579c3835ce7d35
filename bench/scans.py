"""Image-only copies of PDF pages, as a scanner would make them: OCR's workload for the benchmark,
the evaluation over scanned documents (`manage.py scan_corpus`) and the tests.

Each page is rendered to a grey-scale image and placed alone on a page of the same size, so the
copy has no text layer at all. PyMuPDF is imported lazily (this runs only in tools).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
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


@dataclass(frozen=True)
class OcrWordAccuracy:
    truth_words: int
    read_words: int
    recall: float  # share of the text layer's words OCR gave back, in order
    precision: float  # share of OCR's words that are the text layer's


def ocr_word_accuracy(text_layer: str, ocr_text: str) -> OcrWordAccuracy:
    """How much of a page's own text layer OCR of its scan gave back, as words in the same order.

    Words are lower-cased NFKC word tokens; matches are difflib's matching blocks over the two
    sequences. A misread word counts as missed, as do page numbers and dot leaders read
    differently (a table of contents scores low) and superscripts run into their words.
    """
    truth, read = _words(text_layer), _words(ocr_text)
    matched = sum(block.size for block in SequenceMatcher(None, truth, read, autojunk=False).get_matching_blocks())
    return OcrWordAccuracy(
        truth_words=len(truth),
        read_words=len(read),
        recall=matched / len(truth) if truth else 0.0,
        precision=matched / len(read) if read else 0.0,
    )


def _words(text: str) -> list[str]:
    # NFKC: the text layer spells ligatures as one character ("ﬁ"), OCR reads two letters. A word
    # hyphenated at a line end is one word (the text layer keeps "con-\nsensus"; OCR joins it).
    joined = _LINE_END_HYPHEN.sub("", unicodedata.normalize("NFKC", text))
    return re.findall(r"\w+", joined.lower())


_LINE_END_HYPHEN = re.compile(r"(?<=\w)[-\u00ad]\s*\n\s*(?=\w)")
