"""OCR for PDF pages without a text layer: the page rendered by MuPDF, read by Tesseract.

Why the Tesseract command (through pytesseract) and not PyMuPDF's `get_textpage_ocr` or OCRmyPDF
(docs/OCR.md has the long form): Tesseract's TSV output gives every word its box *and its
confidence* (MuPDF's OCR text page has no confidence); the engine is Debian's own package whose
version we can name in the extractor stamp; and it runs as a subprocess that the time limit can
kill. OCRmyPDF rewrites the whole file into a new PDF (we keep the upload byte for byte) and
brings Ghostscript and a dozen packages for what one Tesseract call per page does here.
"""

from __future__ import annotations

import functools
import os
import statistics
import time
from dataclasses import dataclass, field

import pymupdf
import pytesseract
from django.conf import settings
from PIL import Image

from documents import time_limit
from documents.extraction.pdf_layout import Line, clean_chars
from documents.extraction.types import ExtractionError, OcrPageText, OcrWord

# Tesseract parallelises one page with OpenMP; on a shared few-core worker that costs more than
# it gains (Tesseract's own advice when several run at once). The limit goes into Tesseract's
# environment only: in this process's it would also cap the OpenMP runtime that torch starts
# later, leaving the encoder one thread, and under bfloat16 computing only part of each product
# (documents.embedding.encoder_precision).
TESSERACT_OMP_THREAD_LIMIT = "1"


def tesseract_environment() -> dict[str, str]:
    """This process's environment with Tesseract's OpenMP limit (an operator's own limit kept)."""
    return {**os.environ, "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT", TESSERACT_OMP_THREAD_LIMIT)}


INSTALL_HINT = (
    "install Tesseract with its English data (Debian/Ubuntu: sudo apt-get install tesseract-ocr tesseract-ocr-eng; "
    "`make run` or `make test` as root installs them), then retry the document"
)
MAX_RENDER_PIXELS = 60_000_000  # a poster-sized page is OCR'd at a lower resolution, not in gigabytes
_WORD_LEVEL = 5  # Tesseract TSV: 1 page, 2 block, 3 paragraph, 4 line, 5 word


class OcrUnavailable(ExtractionError):
    """Tesseract (or its language data) is missing; the message says how to install it."""


@dataclass
class OcrStats:
    """Pages OCR'd by this process and the seconds they took (read by bench_ingest)."""

    pages: int = 0
    seconds: float = 0.0
    per_page: list[float] = field(default_factory=list)


STATS = OcrStats()


@functools.lru_cache(maxsize=4)
def _probe(command: str, languages: str) -> str:
    """ "tesseract-<version>" when the command runs and has every language; else OcrUnavailable."""
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = command  # engine() sets it again on every call
    try:
        version = str(pytesseract.get_tesseract_version()).split()[0]
        installed = set(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractNotFoundError, OSError) as exc:
        raise OcrUnavailable(
            f"OCR is not available: the Tesseract program ({command}) is not installed; " + INSTALL_HINT
        ) from exc
    missing = [lang for lang in languages.split("+") if lang not in installed]
    if missing:
        raise OcrUnavailable(
            f"OCR is not available: Tesseract has no language data for {', '.join(missing)}; " + INSTALL_HINT
        )
    return f"tesseract-{version}"


def engine() -> str:
    """The OCR engine and version for the extractor stamp ("tesseract-5.3.0"); OcrUnavailable if missing."""
    pytesseract.pytesseract.environ = tesseract_environment()  # pytesseract starts Tesseract with this global
    version = _probe(settings.TESSERACT_CMD, settings.OCR_LANGUAGES)
    pytesseract.pytesseract.tesseract_cmd = settings.TESSERACT_CMD  # pytesseract keeps it in a global
    return version


def ocr_page(page: pymupdf.Page) -> tuple[OcrPageText, list[Line]]:
    """Read one page by OCR: its words (with boxes and confidence) and its lines for layout."""
    engine()  # fails with the install hint before any rendering
    started = time.perf_counter()
    zoom = _zoom(page)
    pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
    image = Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples)
    del pixmap
    try:
        with time_limit.subprocess_wait() as timeout:
            data = pytesseract.image_to_data(
                image, lang=settings.OCR_LANGUAGES, output_type=pytesseract.Output.DICT, timeout=timeout
            )
    except pytesseract.TesseractError as exc:
        raise ExtractionError(f"OCR failed on page {page.number + 1} ({str(exc)[:200]}).") from exc
    except RuntimeError as exc:  # pytesseract's "Tesseract process timeout" (it has killed the process)
        if "timeout" not in str(exc).lower():
            raise
        time_limit.check()  # the deadline has passed: raises TimeLimitExceeded
        raise
    words = _words(data, 1 / zoom)
    STATS.pages += 1
    STATS.per_page.append(time.perf_counter() - started)
    STATS.seconds += STATS.per_page[-1]
    confidences = [conf for _, conf in words]
    mean = round(statistics.fmean(confidences), 1) if confidences else None
    upright = [word for word, _ in words]  # as displayed: what the layout reads
    # Stored as page.get_text("words") gives them, in unrotated page space, for highlighting.
    stored = [_derotated(word, page.derotation_matrix) for word in upright]
    return OcrPageText(number=page.number + 1, mean_confidence=mean, words=stored), _lines(upright)


def _zoom(page: pymupdf.Page) -> float:
    zoom = settings.OCR_DPI / 72
    pixels = page.rect.width * page.rect.height * zoom * zoom
    if pixels > MAX_RENDER_PIXELS:
        zoom *= (MAX_RENDER_PIXELS / pixels) ** 0.5
    return zoom


def _words(data: dict[str, list], scale: float) -> list[tuple[OcrWord, float]]:
    """Tesseract's words as (word box in displayed PDF points, confidence); block = paragraph,
    lines numbered per page."""
    paragraphs: dict[tuple[int, int], int] = {}
    lines: dict[tuple[int, int, int], int] = {}
    words: list[tuple[OcrWord, float]] = []
    for i, level in enumerate(data["level"]):
        text = clean_chars(str(data["text"][i])).strip()
        conf = float(data["conf"][i])
        if level != _WORD_LEVEL or not text or conf < 0:
            continue
        para = paragraphs.setdefault((data["block_num"][i], data["par_num"][i]), len(paragraphs))
        line = lines.setdefault((data["block_num"][i], data["par_num"][i], data["line_num"][i]), len(lines))
        left, top = data["left"][i] * scale, data["top"][i] * scale
        right, bottom = left + data["width"][i] * scale, top + data["height"][i] * scale
        words.append(((round(left, 1), round(top, 1), round(right, 1), round(bottom, 1), text, para, line), conf))
    return words


def _derotated(word: OcrWord, derotate: pymupdf.Matrix) -> OcrWord:
    rect = pymupdf.Rect(word[:4]) * derotate
    return (round(rect.x0, 1), round(rect.y0, 1), round(rect.x1, 1), round(rect.y1, 1), word[4], word[5], word[6])


def _lines(words: list[OcrWord]) -> list[Line]:
    """OCR words grouped into layout Lines, so OCR'd pages go through the same paragraph logic.

    OCR gives no font size: every line gets the page's median line height as its `size`, which
    is what the paragraph logic needs to judge the gap between lines (headings are not guessed).
    """
    grouped: dict[int, list[OcrWord]] = {}
    for word in words:
        grouped.setdefault(word[6], []).append(word)
    if not grouped:
        return []
    size = round(statistics.median(max(w[3] for w in ws) - min(w[1] for w in ws) for ws in grouped.values()), 1)
    result: list[Line] = []
    for members in grouped.values():
        result.append(
            Line(
                text=" ".join(w[4] for w in members),
                x0=min(w[0] for w in members),
                y0=min(w[1] for w in members),
                x1=max(w[2] for w in members),
                y1=max(w[3] for w in members),
                size=size,
                bold=False,
                block=members[0][5],
                ocr=True,
            )
        )
    return result
