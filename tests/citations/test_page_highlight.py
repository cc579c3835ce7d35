"""Page-image highlights mark the cited passage's own words on the page, never other places where
the same phrases recur (citations.rendering)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest

from citations.rendering import aligned_tokens, passage_boxes, render_page
from documents import locators
from documents.extraction.pdf import extract_pdf
from documents.models import Chunk
from tests.conftest import ingest_file_inline
from tests.corpus import DEV_DIR, require_corpus

Box = tuple[float, float, float, float]

# The cited phrase recurs on the page: in the paragraph before and the one after the passage.
REPEATS = [
    "The quartermaster protocol elects one coordinator per shard.",
    "Its lease is renewed every three seconds by the coordinator.",
    "",
    "Storage nodes keep an append-only log of every write they accept.",
    "The quartermaster protocol elects one coordinator per shard and",
    "renews its lease every three seconds while the shard is healthy.",
    "",
    "Again: the quartermaster protocol elects one coordinator per shard.",
]


def repeats_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 90.0
    for line in REPEATS:
        if line:
            page.insert_text((72, y), line, fontsize=11, fontname="helv")
        y += 15
    doc.save(path)
    doc.close()
    return path


def inside(box: Box, region: pymupdf.Rect, slack: float = 1.0) -> bool:
    return (
        box[0] >= region.x0 - slack
        and box[1] >= region.y0 - slack
        and box[2] <= region.x1 + slack
        and box[3] <= region.y1 + slack
    )


def overlaps(box: Box, rect: pymupdf.Rect) -> bool:
    return bool(pymupdf.Rect(box).intersects(rect))


def test_only_the_cited_occurrence_of_a_repeated_phrase_is_boxed(tmp_path: Path) -> None:
    path = repeats_pdf(tmp_path / "repeats.pdf")
    text = extract_pdf(path).text  # one page: offsets into it are offsets into the page's text
    phrase = "quartermaster protocol elects one coordinator per shard"
    first = text.index(phrase)
    cited = text.index(phrase, first + 1)
    last = text.index(phrase, cited + 1)
    with pymupdf.open(path) as doc:
        page = doc[0]
        hits = page.search_for(phrase)
        assert len(hits) == 3, "the page repeats the phrase"
        for start in (first, cited, last):
            boxes = passage_boxes(page, text, (start, start + len(phrase)))
            own = [hit for hit in hits if any(overlaps(box, hit) for box in boxes)]
            assert len(boxes) == 1
            assert len(own) == 1, f"only the cited occurrence is boxed, got {boxes} for {hits}"
            assert inside(boxes[0], own[0], slack=4)  # a word's box holds its full stop
        # The whole middle paragraph: its two lines, and nothing of the paragraphs around it.
        start = text.index("The quartermaster protocol elects one coordinator per shard and")
        end = text.index("healthy.") + len("healthy.")
        boxes = passage_boxes(page, text, (start, end))
        region = page.search_for("The quartermaster protocol elects one coordinator per shard and")[0]
        region |= page.search_for("renews its lease every three seconds while the shard is healthy.")[0]
        assert len(boxes) == 2
        assert all(inside(box, region) for box in boxes)


def tokens(words: str) -> list[str]:
    return words.split()


def test_words_stored_out_of_reading_order_are_found_in_runs() -> None:
    # The canonical text reads a caption first; the text layer keeps it mid-page.
    text = tokens("figure 3 version evolution of an object the body text of the page follows here")
    page = tokens("the body text of the page follows figure 3 version evolution of an object here")
    caption = set(range(8))
    assert aligned_tokens(text, caption, page) == set(range(7, 14))
    # Out of order, two loose words are not a run: they could be anybody's, so they stay unmarked.
    text = tokens("of an the body text here")
    assert aligned_tokens(text, {0, 1}, tokens("the body text here of an")) == set()


# (document, page, the passage's opening words, [(first words, last words) of its lines per
# column]); the page repeats the passage's phrases outside that region.
CORPUS_CASES = [
    (
        "dynamo-amazon-2007.pdf",
        7,
        "To illustrate the use of vector clocks",
        [("To illustrate the use of vector clocks", "associated clock [(Sx, 2), (Sy, 1)].")],
        "vector clock",
    ),
    (
        "dynamo-amazon-2007.pdf",
        7,
        "Now assume some client reads both D3 and D4",
        [
            ("Now assume some client reads both D3 and D4", "clocks may grow if many servers coordinate"),
            ("object. In practice, this is not likely", "scenarios, it is desirable to limit the size"),
        ],
        "top N nodes",
    ),
    (
        "raft-consensus-2014.pdf",
        6,
        "Raft uses randomized election timeouts",
        [("Raft uses randomized election timeouts to ensure", "elects a leader rapidly.")],
        "election",
    ),
]


def unique_hit(page: Any, words: str) -> pymupdf.Rect:
    """Where `words` are on the page, once, on one line (MuPDF may split a hit into several rects)."""
    hits = page.search_for(words)
    assert hits, f"{words!r} is on the page"
    found = pymupdf.Rect(hits[0])
    for hit in hits[1:]:
        found |= hit
    assert found.height < 15, f"{words!r} is on the page once, on one line"
    return found


def column_region(page: Any, first: str, last: str) -> pymupdf.Rect:
    """From the line holding `first` to the line holding `last`, across the column `first` is in."""
    top, bottom = unique_hit(page, first), unique_hit(page, last)
    middle = page.rect.width / 2
    x0, x1 = (0.0, middle) if top.x0 < middle else (middle, page.rect.width)
    return pymupdf.Rect(x0, top.y0, x1, bottom.y1)


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "number", "opening", "columns", "recurring"), CORPUS_CASES)
def test_corpus_page_highlights_only_the_passage(
    memoised_pipeline: None,
    folder_factory: Any,
    name: str,
    number: int,
    opening: str,
    columns: list[tuple[str, str]],
    recurring: str,
) -> None:
    require_corpus()
    # Ingested here rather than taken from `dev_corpus`, whose session-wide build stores its
    # files before this test's MEDIA_ROOT is set, where render_page would not find them.
    document = ingest_file_inline(DEV_DIR / name, folder_factory(name="Highlights"))
    assert document.status == "indexed", document.failure_reason
    chunk = Chunk.objects.get(document=document, content__startswith=opening)
    assert chunk.page_start == chunk.page_end == number
    bounds = locators.page_span(document.page_starts, number, len(document.canonical_text))
    span = locators.clip((chunk.char_start, chunk.char_end), bounds)
    assert span is not None
    rendered = render_page(document, number, span)
    with pymupdf.open(document.file.path) as pdf:
        page = pdf[number - 1]
        regions = [column_region(page, first, last) for first, last in columns]
        elsewhere = [hit for hit in page.search_for(recurring) if not any(hit in region for region in regions)]
    assert elsewhere, f"the page also says {recurring!r} outside the passage"
    assert rendered.boxes
    strays = [box for box in rendered.boxes if not any(inside(box, region) for region in regions)]
    assert strays == [], "every highlight box lies inside the passage's region"
    assert not any(overlaps(box, hit) for box in rendered.boxes for hit in elsewhere)
    for region in regions:  # the passage is marked from its first line to its last
        assert any(box[1] <= region.y0 + 2 for box in rendered.boxes if inside(box, region))
        assert any(box[3] >= region.y1 - 2 for box in rendered.boxes if inside(box, region))
