"""The rule for pages that could not be read: fail the document, or index it with warnings.

- No text anywhere: fail (a blank scan has nothing to index), saying why: OCR missing, the file
  truncated, or no words found.
- Unreadable pages (MuPDF raised on them, or they are empty in a file MuPDF had to repair): more
  than half of the pages -> fail, "the file looks truncated: 16 of 17 pages are unreadable";
  otherwise the document is indexed and a warning names the missing pages.
- Scanned pages left unread because Tesseract is missing, pages where OCR found no words, and
  pages OCR read with low confidence: indexed, each named in a warning. Blank pages of an intact
  file (nothing drawn, no image) are not reported: nothing was lost.
"""

from __future__ import annotations

from documents.extraction.pdf_pages import PageReport
from documents.extraction.types import ExtractionError

NO_TEXT = "The PDF has no extractable text"
LOW_CONFIDENCE = 60.0  # mean word confidence (0-100) under which OCR'd pages are flagged


def page_warnings(report: PageReport, text: str) -> list[str]:
    """The warnings to index the document with; raises ExtractionError when the rule says fail."""
    if not text.strip():
        raise ExtractionError(_no_text_reason(report))
    unreadable = report.unreadable
    if len(unreadable) * 2 > report.page_count:
        raise ExtractionError(_damaged_reason(report))
    warnings: list[str] = []
    if unreadable:
        damage = "the file is truncated or damaged" if report.repaired else "MuPDF could not read them"
        warnings.append(
            f"{_pages(unreadable).capitalize()} of {report.page_count} could not be read ({damage}): "
            "missing from search; upload a complete copy to index them."
        )
    if report.not_ocrd:
        warnings.append(f"{_pages(report.not_ocrd).capitalize()}: scanned, not read. {report.ocr_unavailable}")
    if report.ocr_empty:
        warnings.append(f"OCR found no words on {_pages(report.ocr_empty)} (a blank or illegible scan).")
    low = [n for n, p in sorted(report.ocr_pages.items()) if p.words and (p.mean_confidence or 0) < LOW_CONFIDENCE]
    if low:
        warnings.append(
            f"Low OCR confidence on {_pages(low)} (mean word confidence under {LOW_CONFIDENCE:g}%): "
            "searches may miss words there."
        )
    return warnings


def _no_text_reason(report: PageReport) -> str:
    if report.unreadable and report.repaired:
        return _damaged_reason(report)
    if report.not_ocrd:
        return f"{NO_TEXT}: its pages are scanned images. {report.ocr_unavailable}"
    if report.ocr_pages:
        return f"{NO_TEXT}: OCR found no words on its scanned pages (a blank or illegible scan)."
    return f"{NO_TEXT} (no text layer and no scanned image to read)."


def _damaged_reason(report: PageReport) -> str:
    kind = "truncated" if report.repaired else "damaged"
    return (
        f"The file looks {kind}: {len(report.unreadable)} of {report.page_count} pages are unreadable "
        f"({_pages(report.unreadable)}); upload the complete file."
    )


def _pages(numbers: list[int]) -> str:
    """ "page 4", "pages 2–17", "pages 3, 5, 7–9" (numbers sorted, 1-based)."""
    ordered = sorted(set(numbers))
    runs: list[list[int]] = []
    for number in ordered:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    parts = [f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs]
    return ("page " if len(ordered) == 1 else "pages ") + ", ".join(parts)
