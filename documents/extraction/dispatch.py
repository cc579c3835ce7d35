"""Route a stored file to the extractor for its content type."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from documents.extraction import ExtractedText, ExtractionError

SUPPORTED = "PDF, Word (.docx), HTML, Markdown and plain text"


def _pdf(path: Path) -> ExtractedText:
    # Imported lazily so that Markdown/text extraction does not load MuPDF.
    from documents.extraction.pdf import extract_pdf

    return extract_pdf(path)


def _markdown(path: Path) -> ExtractedText:
    from documents.extraction.markdown import extract_markdown

    return extract_markdown(path)


def _plaintext(path: Path) -> ExtractedText:
    from documents.extraction.plaintext import extract_plaintext

    return extract_plaintext(path)


def _docx(path: Path) -> ExtractedText:
    from documents.extraction.docx import extract_docx

    return extract_docx(path)


def _html(path: Path) -> ExtractedText:
    from documents.extraction.html import extract_html

    return extract_html(path)


_EXTRACTORS: dict[str, Callable[[Path], ExtractedText]] = {
    "application/pdf": _pdf,
    "application/x-pdf": _pdf,
    "text/markdown": _markdown,
    "text/x-markdown": _markdown,
    "text/plain": _plaintext,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": _docx,
    "text/html": _html,
    "application/xhtml+xml": _html,
}


def extract_by_type(path: Path, content_type: str) -> ExtractedText:
    # Content types may carry parameters ("text/plain; charset=utf-8"); only the type matters.
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    extractor = _EXTRACTORS.get(media_type)
    if extractor is None:
        shown = media_type or "unknown"
        raise ExtractionError(f"Unsupported file type ({shown}); supported types are {SUPPORTED}.")
    return extractor(Path(path))
