"""PDF pages as PNG images with a cited passage highlighted (PyMuPDF, imported lazily).

The passage is located on the page by its own words in order, not by searching for its phrases
(a phrase that recurs elsewhere on the page must not be marked there too). The page's canonical
text and the page's words (its text layer, in the layer's order) are both reduced to normalised
tokens (NFKC, case-folded, letters and digits only; a word split by a line-end hyphen is joined),
because extraction repaired the text (ligatures, hyphenation, headers), and the two sequences are
aligned in order (difflib): each page word is paired with at most one canonical word, so the
passage's words land on their own occurrence. Passage words the in-order alignment missed because
the text layer stores them in another order (a caption, a column) are looked for, in runs of
NGRAM or more, among the page words no canonical word took. The marked words are merged into one
box per line. A page read by OCR has no text layer: its words come from the word boxes Tesseract
gave at indexing time (documents.OcrPage).

Renders are cached on disk under MEDIA_ROOT/page-cache, keyed by the file's sha256, the page,
the passage range and the zoom, with the boxes in a JSON sidecar; citations/page_cache.py keeps
them within PAGE_CACHE_MAX_MB.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from documents.models import Document

ZOOM = 2.0  # 144 dpi
RENDER_VERSION = 2  # bump when the drawing changes, so old cache entries are not served
NGRAM = 3  # the shortest run of passage words looked for out of the page's order
MOVED_ROUNDS = 4  # rounds of looking for passage words stored out of order (see _moved)
GAP_FILL = 3  # page words the alignment could not pair that still count inside a passage
_WORD = re.compile(r"\S+")

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


def text_tokens(text: str, span: tuple[int, int]) -> tuple[list[str], set[int]]:
    """The normalised words of `text`, and the positions of those overlapping `span` (the passage)."""
    tokens: list[str] = []
    inside: set[int] = set()
    for match in _WORD.finditer(text):
        norm = normalise_word(match.group())
        if not norm:
            continue
        if match.end() > span[0] and match.start() < span[1]:
            inside.add(len(tokens))
        tokens.append(norm)
    return tokens, inside


def aligned_tokens(text: list[str], passage: set[int], page: list[str]) -> set[int]:
    """Positions in `page` (the page's words) of the words at `passage` positions in `text` (the
    page's canonical text), by aligning the two in order (see the module docstring)."""
    import difflib

    marked: set[int] = set()
    claimed: set[int] = set()  # page words the alignment gave to some canonical word
    left = set(passage)  # passage words not found on the page yet
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, text, page, autojunk=False).get_opcodes():
        if tag == "equal":
            if j2 - j1 >= NGRAM:  # a shorter match amid reordered words may be a chance pairing
                claimed.update(range(j1, j2))
            mine = [k for k in range(i2 - i1) if i1 + k in passage]
            marked.update(j1 + k for k in mine)
            left.difference_update(i1 + k for k in mine)
        elif tag == "replace" and passage.issuperset(range(i1, i2)) and max(i2 - i1, j2 - j1) <= GAP_FILL:
            # A few of the passage's own words spelt otherwise on the page (OCR misreadings,
            # symbols); a longer stretch is more likely other words, and _moved looks for it.
            marked.update(range(j1, j2))
            claimed.update(range(j1, j2))
            left.difference_update(range(i1, i2))
        elif tag == "insert" and {i1 - 1, i1} <= passage and j2 - j1 <= GAP_FILL:
            marked.update(range(j1, j2))  # a stray fragment between two of the passage's words
    return marked | _moved(text, left, page, claimed)


def _moved(text: list[str], left: set[int], page: list[str], claimed: set[int]) -> set[int]:
    """Passage words the in-order alignment left out because the page's words run in another
    order there (a caption, a figure, a column the text layer stores elsewhere): runs of NGRAM or
    more, found only among the page words no canonical word claimed, a few rounds so that pieces
    moved in different directions are all found."""
    import difflib

    free = set(range(len(page))) - claimed
    left = set(left)
    found: set[int] = set()
    for _round in range(MOVED_ROUNDS):
        before = len(found)
        for run in _runs(sorted(left)):
            spots = sorted(free)
            matcher = difflib.SequenceMatcher(None, [text[i] for i in run], [page[j] for j in spots], autojunk=False)
            for block in matcher.get_matching_blocks():
                pairs = list(
                    zip(run[block.a : block.a + block.size], spots[block.b : block.b + block.size], strict=True)
                )
                for piece in _runs_of_pairs(pairs):  # free words next to each other on the page
                    if len(piece) >= NGRAM:
                        found.update(j for _, j in piece)
                        free.difference_update(j for _, j in piece)
                        left.difference_update(i for i, _ in piece)
        if len(found) == before or not left:
            break
    return found


def _runs_of_pairs(pairs: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """(passage word, page word) pairs split where the page words stop being consecutive."""
    pieces: list[list[tuple[int, int]]] = []
    for pair in pairs:
        if pieces and pair[1] == pieces[-1][-1][1] + 1:
            pieces[-1].append(pair)
        else:
            pieces.append([pair])
    return pieces


def _runs(positions: list[int]) -> list[list[int]]:
    """Sorted positions split into runs of consecutive numbers."""
    runs: list[list[int]] = []
    for position in positions:
        if runs and position == runs[-1][-1] + 1:
            runs[-1].append(position)
        else:
            runs.append([position])
    return runs


def passage_boxes(
    page: Any, page_text: str, span: tuple[int, int], words: list[tuple[Any, ...]] | None = None
) -> list[Box]:
    """One box per line of `page` holding words of the passage `page_text[span[0]:span[1]]`, where
    `page_text` is the page's canonical text; `words` (x0, y0, x1, y1, text, block, line) replace
    the page's text layer for a page read by OCR."""
    if words is None:
        words = page.get_text("words")
    tokens = page_tokens(words)
    text, passage = text_tokens(page_text, span)
    lines: dict[tuple[int, int], list[float]] = {}
    for position in sorted(aligned_tokens(text, passage, [t for t, _ in tokens])):
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
        os.utime(png)  # least recently shown goes first when citations.page_cache prunes
        meta = json.loads(sidecar.read_text())
        return RenderedPage(png, [tuple(b) for b in meta["boxes"]], meta["width"], meta["height"])
    rendered = _render(document, page, span, png)
    _write_atomically(
        sidecar, json.dumps({"boxes": rendered.boxes, "width": rendered.width, "height": rendered.height}).encode()
    )
    return rendered


def _render(document: Document, page_number: int, span: tuple[int, int] | None, png: Path) -> RenderedPage:
    import pymupdf

    from documents.file_storage.local import local_copy

    # A local path (a temporary copy from a remote FILE_STORAGE): MuPDF reads the pages it needs,
    # never the whole file into memory.
    with local_copy(document.file.storage, document.file.name) as path, pymupdf.open(path, filetype="pdf") as pdf:
        page = pdf[page_number - 1]
        boxes = _boxes(document, page, page_number, span) if span else []
        if boxes:
            annot = page.add_highlight_annot([pymupdf.Rect(*b) for b in boxes])
            annot.set_colors(stroke=(1.0, 0.85, 0.1))
            annot.update()
        pixmap = page.get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM), annots=True, alpha=False)
        _write_atomically(png, pixmap.tobytes("png"))
        return RenderedPage(png, boxes, page.rect.width, page.rect.height)


def _boxes(document: Document, page: Any, page_number: int, span: tuple[int, int]) -> list[Box]:
    from documents import locators

    text = document.canonical_text
    start, end = locators.page_span(document.page_starts, page_number, len(text))
    own = (span[0] - start, span[1] - start)
    return passage_boxes(page, text[start:end], own, _ocr_words(document, page_number))


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
