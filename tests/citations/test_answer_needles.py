"""Oracle check on real corpus passages: given the four passages the search shows for a dev
question (cut from the corpus file's extracted text where the index cut them), the extractive
writer quotes the sentence holding the question's needle, as `evaluate` judges it."""

from __future__ import annotations

import pytest

from citations.writers import Source
from citations.writers.extractive import ExtractiveWriter, quoted_pieces
from documents.extraction.dispatch import extract_document
from evaluation.answers import in_one_piece
from evaluation.textnorm import normalise_for_match
from tests.corpus import DEV_DIR, dev_questions

pytestmark = pytest.mark.corpus

SECTION = "PromQL > Range selectors and lookback exclude samples coinciding with the left boundary"
# (first words, last words, distance) of each passage the search showed, in its order.
SHOWN = [
    ("Range selectors and lookback exclude samples", "will always return 5 samples given even spacing.", 0.283),
    (
        "Such queries will need to be rewritten",
        "either adjust the expected number of samples or extend the range.",
        0.303,
    ),
    ("This change will typically affect subqueries", "resulting in No Data returned.", 0.389),
]


def passage(text: str, first: str, last: str) -> str:
    start = text.index(first)
    return text[start : text.index(last, start) + len(last)]


def test_the_fix_for_sample_counting_tests_is_quoted() -> None:
    question = next(q for q in dev_questions() if "To fix those" in q["needle"])
    text = extract_document(DEV_DIR / "prometheus-3-migration-guide.md", "text/markdown").text
    sources = [Source(n, passage(text, a, b), d, SECTION) for n, (a, b, d) in enumerate(SHOWN, start=1)]
    for phrasing in question["queries"][:1]:
        pieces = quoted_pieces(ExtractiveWriter().write(phrasing, sources))
        wanted = normalise_for_match(question["needle"]).casefold()
        assert any(wanted in normalise_for_match(piece).casefold() for piece, _n in pieces), pieces
        assert all(in_one_piece(piece, sources[n - 1].text) for piece, n in pieces)
