"""PDF pages as PNG images with a cited passage highlighted (PyMuPDF, imported lazily).

The passage is located on the page by its words, not by character offsets: the canonical text
was repaired during extraction (ligatures, hyphenation, headers), so the page's words and the
passage's words are both normalised (NFKC, case-folded, letters and digits only; a word split
by a line-end hyphen is joined) and every page word inside a run of three or more consecutive
passage words is marked. Short stray runs are dropped, small gaps inside a passage are filled,
and the marked words are merged into one box per line. A page read by OCR has no text layer: its
words come from the word boxes Tesseract gave at indexing time (documents.OcrPage).

Renders are cached on disk under MEDIA_ROOT/page-cache, keyed by the file's sha256, the page,
the passage range and the zoom, with the boxes in a JSON sidecar.
"""

from __future__ import annotations

import json
import os
import unicodedata
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from documents.models import Document

ZOOM = 2.0  # 144 dpi
RENDER_VERSION = 1  # bump when the drawing changes, so old cache entries are not served
NGRAM = 3
GAP_FILL = 3  # unmatched page words allowed between two matched runs of one passage
MIN_RUN = 4  # in passages of LONG_PASSAGE words or more, shorter isolated runs are noise
LONG_PASSAGE = 12

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points


@dataclass
class RenderedPage:
    png: Path
    boxes: list[Box]
    width: float  # page size in PDF points
    height: float


def normalise_word(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", word).casefold() if ch.isalnum())


def page_tokens(words: list[tuple[Any, ...]]) -> list[tuple[str, list[int]]]:
    """(normalised token, indices of the page words it spans), joining line-end hyphenation."""
    tokens: list[tuple[str, list[int]]] = []
    index = 0
    while index < len(words):
        text, members = words[index][4], [index]
        nxt = index + 1
        if text.endswith(("-", "\u00ad")) and nxt < len(words) and words[nxt][6] != words[index][6]:
            text, members = text[:-1] + words[nxt][4], [index, nxt]
        norm = normalise_word(text)
        if norm:
            tokens.append((norm, members))
        index += len(members)
    return tokens


def matched_tokens(tokens: list[str], passage: list[str]) -> list[int]:
    """Positions in `tokens` that belong to the passage (see the module docstring)."""
    n = min(NGRAM, len(passage))
    if n == 0:
        return []
    grams = {tuple(passage[i : i + n]) for i in range(len(passage) - n + 1)}
    marked = sorted({i + j for i in range(len(tokens) - n + 1) if tuple(tokens[i : i + n]) in grams for j in range(n)})
    runs: list[list[int]] = []
    for position in marked:
        if runs and position - runs[-1][-1] <= GAP_FILL + 1:
            runs[-1].extend(range(runs[-1][-1] + 1, position + 1))
        else:
            runs.append([position])
    if len(passage) >= LONG_PASSAGE:
        runs = [run for run in runs if len(run) >= MIN_RUN]
    return [position for run in runs for position in run]


def passage_boxes(page: Any, passage: str, words: list[tuple[Any, ...]] | None = None) -> list[Box]:
    """One box per line of `page` holding words of `passage`; `words` (x0, y0, x1, y1, text,
    block, line) replace the page's text layer for a page read by OCR."""
    if words is None:
        words = page.get_text("words")
    tokens = page_tokens(words)
    wanted = [t for t in (normalise_word(w) for w in passage.split()) if t]
    lines: dict[tuple[int, int], list[float]] = {}
    for position in matched_tokens([t for t, _ in tokens], wanted):
        for index in tokens[position][1]:
            x0, y0, x1, y1, _text, block, line = words[index][:7]
            box = lines.setdefault((block, line), [x0, y0, x1, y1])
            box[:] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
    return [(b[0], b[1], b[2], b[3]) for b in lines.values()]


def cache_dir() -> Path:
    return Path(settings.MEDIA_ROOT) / "page-cache"


def cache_path(document: Document, page: int, span: tuple[int, int] | None) -> Path:
    key = f"{span[0]}-{span[1]}" if span else "plain"
    name = f"p{page}-{key}-z{ZOOM:g}-v{RENDER_VERSION}.png"
    return cache_dir() / f"{document.pk}-{document.sha256[:16]}" / name


def is_cached(document: Document, page: int, span: tuple[int, int] | None) -> bool:
    png = cache_path(document, page, span)
    return png.exists() and png.with_suffix(".json").exists()


def render_page(document: Document, page: int, span: tuple[int, int] | None) -> RenderedPage:
    """The page as a PNG with the canonical-text range `span` (already clipped to it) highlighted."""
    png = cache_path(document, page, span)
    sidecar = png.with_suffix(".json")
    if is_cached(document, page, span):
        meta = json.loads(sidecar.read_text())
        return RenderedPage(png, [tuple(b) for b in meta["boxes"]], meta["width"], meta["height"])
    rendered = _render(document, page, span, png)
    _write_atomically(
        sidecar, json.dumps({"boxes": rendered.boxes, "width": rendered.width, "height": rendered.height}).encode()
    )
    return rendered


def _render(document: Document, page_number: int, span: tuple[int, int] | None, png: Path) -> RenderedPage:
    import pymupdf

    with document.file.open("rb") as stream, pymupdf.open(stream=stream.read(), filetype="pdf") as pdf:
        page = pdf[page_number - 1]
        words = _ocr_words(document, page_number) if span else None
        boxes = passage_boxes(page, document.canonical_text[span[0] : span[1]], words) if span else []
        if boxes:
            annot = page.add_highlight_annot([pymupdf.Rect(*b) for b in boxes])
            annot.set_colors(stroke=(1.0, 0.85, 0.1))
            annot.update()
        pixmap = page.get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM), annots=True, alpha=False)
        _write_atomically(png, pixmap.tobytes("png"))
        return RenderedPage(png, boxes, page.rect.width, page.rect.height)


def _ocr_words(document: Document, page_number: int) -> list[tuple[Any, ...]] | None:
    """The OCR word boxes of the page when it was read by OCR (it has no usable text layer), else None."""
    from documents.models import OcrPage

    words = OcrPage.objects.filter(document=document, number=page_number).values_list("words", flat=True).first()
    return None if words is None else [tuple(word) for word in words]


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
