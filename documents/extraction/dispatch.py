"""Route a stored file to the extractor for its content type."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from documents.extraction.formats import FORMAT_BY_MEDIA_TYPE, FORMATS, supported_description
from documents.extraction.types import ExtractedText, ExtractionError
from documents.progress import ProgressReport, no_progress


def _pdf(path: Path, report: ProgressReport) -> ExtractedText:
    # Imported lazily so that Markdown/text extraction does not load MuPDF.
    from documents.extraction.pdf import extract_pdf

    return extract_pdf(path, report)


# The other formats are read in one go, too fast to be worth reporting page by page.
def _markdown(path: Path, report: ProgressReport) -> ExtractedText:
    from documents.extraction.markdown import extract_markdown

    return extract_markdown(path)


def _plaintext(path: Path, report: ProgressReport) -> ExtractedText:
    from documents.extraction.plaintext import extract_plaintext

    return extract_plaintext(path)


def _docx(path: Path, report: ProgressReport) -> ExtractedText:
    from documents.extraction.docx import extract_docx

    return extract_docx(path)


def _html(path: Path, report: ProgressReport) -> ExtractedText:
    from documents.extraction.html import extract_html

    return extract_html(path)


# One extractor per format of documents/extraction/formats.py (by its key).
EXTRACTORS: dict[str, Callable[[Path, ProgressReport], ExtractedText]] = {
    "pdf": _pdf,
    "markdown": _markdown,
    "plaintext": _plaintext,
    "docx": _docx,
    "html": _html,
}
assert set(EXTRACTORS) == {f.key for f in FORMATS}, "every supported format needs an extractor"


def extract_document(path: Path, content_type: str, report: ProgressReport = no_progress) -> ExtractedText:
    """The one entry point of extraction: the stored file's text, pages and sections; `report`
    hears of the pages read, for the formats that have pages (documents/progress.py)."""
    # Content types may carry parameters ("text/plain; charset=utf-8"); only the type matters.
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    file_format = FORMAT_BY_MEDIA_TYPE.get(media_type)
    if file_format is None:
        shown = media_type or "unknown"
        raise ExtractionError(f"Unsupported file type ({shown}); supported types are {supported_description()}.")
    return EXTRACTORS[file_format.key](Path(path), report)
