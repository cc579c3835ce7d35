"""What every extractor produces and raises: the types shared by the formats and their callers.

Everything downstream (chunk offsets, `#char=` locators, page numbers) points into
`ExtractedText.text`. This module imports nothing of the project, so the formats, the
dispatcher and the callers can all import it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class ExtractionError(Exception):
    """The file cannot be turned into text; the message is shown to staff as the failure reason."""


@dataclass(frozen=True)
class Section:
    start: int  # char offset in the canonical text where the heading text begins
    level: int  # 1 = top level
    title: str


# One OCR'd word as PyMuPDF's page.get_text("words") gives a text-layer word:
# x0, y0, x1, y1 (PDF points, unrotated page), text, block, line.
OcrWord = tuple[float, float, float, float, str, int, int]


@dataclass
class OcrPageText:
    """A page read by OCR: its words with their boxes (for highlighting) and its mean word confidence."""

    number: int  # 1-based page number
    mean_confidence: float | None  # 0-100 over the recognised words; None when OCR found none
    words: list[OcrWord] = field(default_factory=list)


@dataclass
class ExtractedText:
    text: str
    page_starts: list[int] = field(default_factory=list)  # char offset where each page begins; [] if no pages
    sections: list[Section] = field(default_factory=list)  # ordered by start
    page_count: int | None = None
    extractor: str = ""  # name and version, stamped on the document
    # Pages that could not be read, said in words; the document is indexed without them.
    warnings: list[str] = field(default_factory=list)
    ocr_pages: list[OcrPageText] = field(default_factory=list)
