"""PDF extraction with PyMuPDF: canonical text, page map and sections.

Two passes over the pages, one page in memory at a time:
1. a survey collecting the document-wide facts a single page can't tell: which lines at the
   top/bottom of pages repeat (running headers/footers) and the body font size;
2. the extraction proper: reading order, paragraphs, hyphenation, headings.
Before them, a file whose streams would decode to gigabytes is refused (pdf_guard); pages without
a text layer are read by OCR (pdf_pages, ocr); pages that could not be read fail the file or
become warnings (pdf_damage; see docs/OCR.md).
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from django.conf import settings

from documents.extraction import ocr, versions
from documents.extraction.limits import check_text_length
from documents.extraction.pdf_damage import page_warnings
from documents.extraction.pdf_guard import refuse_bombs
from documents.extraction.pdf_layout import Line, reading_groups
from documents.extraction.pdf_pages import PageReader
from documents.extraction.pdf_sections import HeadingCandidate, heading_sections, toc_sections
from documents.extraction.pdf_text import (
    FontStats,
    Paragraph,
    continues,
    edge_rows,
    furniture_key,
    group_paragraphs,
    is_page_number,
    join_lines,
)
from documents.extraction.types import ExtractedText, ExtractionError, Section
from documents.progress import LAYOUT, READING, ProgressReport, no_progress

logger = logging.getLogger(__name__)

EXTRACTOR = f"pymupdf-{pymupdf.VersionBind}+{versions.PDF_LAYOUT}"
PASSWORD_PROTECTED = "The PDF is password-protected; upload an unencrypted copy."
PARAGRAPH_SEP = "\n\n"


@dataclass
class _Survey:
    furniture: set[str]  # furniture_key()s of running headers/footers
    stats: FontStats


def extract_pdf(path: Path, report: ProgressReport = no_progress) -> ExtractedText:
    """The PDF's text, pages and sections; `report` hears of each page of both passes (reading,
    where OCR happens, then layout), as (stage, pages done, page count)."""
    doc = _open(path)
    try:
        refuse_bombs(doc, settings.PDF_MAX_DECODED_BYTES)
        reader = PageReader(doc)
        survey = _survey(reader, report)
        text, page_starts, headings = _assemble(reader, survey, report)
        toc = _outline(doc)
        page_count = doc.page_count
    finally:
        doc.close()
    warnings = page_warnings(reader.report, text)  # raises when the pages lost make it fail
    sections: list[Section] = toc_sections(toc, text, page_starts) if toc else []
    if not sections:
        sections = heading_sections(headings)
    ocr_pages = [reader.report.ocr_pages[n] for n in sorted(reader.report.ocr_pages)]
    return ExtractedText(
        text=text,
        page_starts=page_starts,
        sections=sections,
        page_count=page_count,
        extractor=_stamp(bool(ocr_pages)),
        warnings=warnings,
        ocr_pages=ocr_pages,
    )


def _stamp(ocr_used: bool) -> str:
    """The extractor stamp; it names the OCR engine and its version when any page was OCR'd."""
    return f"pymupdf-{pymupdf.VersionBind}+{ocr.engine()}+{versions.PDF_LAYOUT}" if ocr_used else EXTRACTOR


def _open(path: Path) -> pymupdf.Document:
    if not Path(path).is_file():
        raise ExtractionError("The stored file is missing.")
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except pymupdf.EmptyFileError as exc:
        raise ExtractionError("The file is empty.") from exc
    except (RuntimeError, ValueError) as exc:
        raise ExtractionError(f"The file is not a readable PDF ({_reason(exc)}).") from exc
    if not doc.is_pdf:
        # MuPDF sniffs the content and happily opens HTML, images or e-books despite the hint.
        doc.close()
        raise ExtractionError("The file is not a readable PDF (its content is another format).")
    if doc.needs_pass:
        doc.close()
        raise ExtractionError(PASSWORD_PROTECTED)
    if doc.page_count == 0:
        doc.close()
        raise ExtractionError("The file is not a readable PDF (no pages could be found; it may be truncated).")
    return doc


def _reason(exc: Exception) -> str:
    """A one-line description of a MuPDF error, without file paths or internals."""
    message = str(exc).split("\n", 1)[0].strip()
    if not message or "Failed to open file" in message:
        return "it is damaged or not a PDF at all"
    return message[:200]


def _survey(reader: PageReader, report: ProgressReport) -> _Survey:
    sizes: Counter[float] = Counter()
    edges: Counter[str] = Counter()
    total = reader.report.page_count
    report(READING, 0, total)
    for number, lines in reader.pages():
        report(READING, number + 1, total)
        for line in lines:
            if not line.ocr:  # an OCR'd line's size is not a font size
                sizes[line.size] += len(line.text)
        # Count each candidate once per page.
        edges.update({furniture_key(line.text) for row in edge_rows(lines) for line in row})
    # A line repeated at the page edge on 3+ pages (and on a fair share of a short document's
    # pages) is furniture; capped so that chapter headers of long books still qualify.
    threshold = min(max(3, math.ceil(0.15 * reader.report.page_count)), 20)
    # Keys without letters ("#", "#.#") are left to is_page_number(): otherwise a section
    # number set on its own line at the top of a few pages would be taken for furniture.
    furniture = {key for key, count in edges.items() if count >= threshold and any(c.isalpha() for c in key)}
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    return _Survey(furniture=furniture, stats=FontStats(body_size=body))


def _assemble(
    reader: PageReader, survey: _Survey, report: ProgressReport
) -> tuple[str, list[int], list[HeadingCandidate]]:
    parts: list[str] = []
    length = 0
    page_starts: list[int] = []
    headings: list[HeadingCandidate] = []
    last: Paragraph | None = None  # the last paragraph written: the next page may continue it
    total = reader.report.page_count
    report(LAYOUT, 0, total)
    for number, lines in reader.pages():
        paragraphs = _page_paragraphs(lines, survey)
        carried = bool(paragraphs) and last is not None and continues(last, paragraphs[0])
        if carried:
            # A sentence or a hyphenated word runs over the page break: rejoin it, so the page break
            # does not become a paragraph break that the chunker would cut at mid-sentence.
            first = paragraphs.pop(0)
            left = _rejoined_left(parts[-1], first.text)
            length += len(left) - len(parts[-1])
            parts[-1] = left
            page_starts.append(length)  # the page starts inside the rejoined paragraph
            parts.append(first.text)
            length += len(first.text)
        else:
            if paragraphs and length:
                parts.append(PARAGRAPH_SEP)
                length += len(PARAGRAPH_SEP)
            page_starts.append(length)
        for index, para in enumerate(paragraphs):
            if index or carried:
                parts.append(PARAGRAPH_SEP)
                length += len(PARAGRAPH_SEP)
            if para.heading:
                headings.append(HeadingCandidate(length, para.size, para.depth, para.text))
            parts.append(para.text)
            length += len(para.text)
        if carried or paragraphs:
            last = paragraphs[-1] if paragraphs else Paragraph(text=parts[-1])
        check_text_length(length)  # page by page: an over-long document stops before its text is built
        report(LAYOUT, number + 1, total)
    return "".join(parts), page_starts, headings


def _rejoined_left(left: str, right: str) -> str:
    """`left` as it stands before `right` once the two are joined as one paragraph's lines
    (a line-break hyphen dropped, or a space added): join_lines always keeps `right` whole."""
    return join_lines(left, right)[: -len(right)]


def _page_paragraphs(lines: list[Line], survey: _Survey) -> list[Paragraph]:
    furniture = {
        id(line)
        for row in edge_rows(lines)
        for line in row
        if furniture_key(line.text) in survey.furniture or is_page_number(line.text)
    }
    body = [line for line in lines if id(line) not in furniture]
    paragraphs: list[Paragraph] = []
    for group in reading_groups(body):
        group_paras = group_paragraphs(group, survey.stats)
        # A paragraph cut by a column break or a figure continues in the next group.
        if paragraphs and group_paras and continues(paragraphs[-1], group_paras[0]):
            first = group_paras.pop(0)
            paragraphs[-1].text = join_lines(paragraphs[-1].text, first.text)
        paragraphs.extend(group_paras)
    return paragraphs


def _outline(doc: pymupdf.Document) -> list[list]:
    try:
        return doc.get_toc(simple=True)
    except (RuntimeError, ValueError) as exc:  # a broken outline only costs us the section titles
        logger.warning("PDF outline could not be read: %s", exc)
        return []
