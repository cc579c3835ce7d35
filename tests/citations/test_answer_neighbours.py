"""The answer quotes the figure asked for when it stands next to the sentences that name the
question's words: on the four passages the search showed for a question (cut from the corpus
file's extracted text where the index cut them), the extractive writer states the needle, as
`evaluate` judges it, and every stretch it quotes is one piece of its source."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from citations.writers import Source
from citations.writers.extractive import ExtractiveWriter, quoted_pieces
from documents.extraction.dispatch import extract_document
from evaluation.answers import in_one_piece
from evaluation.textnorm import normalise_for_match
from tests.corpus import DEV_DIR, HOLDOUT_DIR, require_corpus

pytestmark = pytest.mark.corpus

BIGTABLE = "Bigtable: A Distributed Storage System for Structured Data"
MAPREDUCE = "MapReduce: Simplified Data Processing on Large Clusters"
WALDO = "A Note on Distributed Computing > Jim Waldo, Geoff Wyant, Ann Wollrath, and Sam Kendall"

# (file, first words, last words, section, distance) of each passage the search showed, in its order.
Shown = tuple[Path, str, str, str, float]


@cache
def extracted(path: Path) -> str:
    return extract_document(path, "application/pdf").text


def passage(path: Path, first: str, last: str) -> str:
    text = extracted(path)
    start = text.index(first)
    return text[start : text.index(last, start) + len(last)]


def stated(question: str, needle: str, shown: list[Shown]) -> list[tuple[str, int]]:
    require_corpus()
    sources = [
        Source(n, passage(path, first, last), distance, section)
        for n, (path, first, last, section, distance) in enumerate(shown, start=1)
    ]
    pieces = quoted_pieces(ExtractiveWriter().write(question, sources))
    assert all(in_one_piece(piece, sources[n - 1].text) for piece, n in pieces)
    wanted = normalise_for_match(needle).casefold()
    assert any(wanted in normalise_for_match(piece).casefold() for piece, _n in pieces), pieces
    return pieces


def test_the_figure_before_the_sentence_naming_the_question_is_quoted() -> None:
    # "5 bad minutes per year" shares no word with the question; it states the amount asked for
    # and stands right before the sentence that names 99.999 % availability.
    mit = DEV_DIR / "mit-6826-availability-replication-2002.pdf"
    stated(
        "How much annual downtime corresponds to 99.999% (five-nines) availability?",
        "If p = .00001 then there are 5 bad minutes per year.",
        [
            (mit, "If requests come in at a certain rate, say 1/minute",
             "escribed as 99.999% availability, or ‘5-nines’ availability.",
             "28. Availability and Replication > What is availability?", 0.525),
            (DEV_DIR / "dynamo-amazon-2007.pdf", "Figure 6: Fraction of nodes that are out-of-balance",
             "performance, durability, consistency, and availability SLAs.", "6. EXPERIENCES & LESSONS LEARNED", 0.623),
            (mit, "The definition of ‘available’ is important. In a big system,",
             "mportant. This simple point is often overlooked.\n\nRedundancy",
             "28. Availability and Replication > What is availability?", 0.554),
            (DEV_DIR / "bigtable-google-2006.pdf", "Chubby clients can also register callbacks on Chubby files",
             "that was most affected by Chubby unavailability was 0.0326%.", f"{BIGTABLE} > 4 Building Blocks", 0.604),
        ],
    )  # fmt: skip


def test_the_sentence_left_out_between_two_quoted_ones_is_quoted() -> None:
    bigtable, mapreduce = DEV_DIR / "bigtable-google-2006.pdf", DEV_DIR / "mapreduce-google-2004.pdf"
    stated(
        "how much smaller did crawled html pages get after compressing them",
        "The scheme achieved a 10-to-1 reduction in space.",
        [
            (bigtable, "For example, in Webtable, we use this compression scheme to ",
             "of the same value in Bigtable.\n\nCaching for read performance", f"{BIGTABLE} > 6 Refinements", 0.554),
            (mapreduce, "6.1 Large-Scale Indexing\n\nOne of our most significant uses o",
             "e to approximately 700 lines when expressed using MapReduce.",
             f"{MAPREDUCE} > 6 Experience > 6.1 Large-Scale Indexing", 0.594),
            (mapreduce, "1 Introduction\n\nOver the past five years, the authors and ma",
             "ith large amounts of complex code to deal with these issues.", f"{MAPREDUCE} > 1 Introduction", 0.632),
            (bigtable, "Families Groups memory sensitive?\n\n1000\n\nCrawl 50 33% Google",
             " built from a few images, this column family is very sparse.",
             f"{BIGTABLE} > 8 Real Applications > 8.2 Google Earth", 0.644),
        ],
    )  # fmt: skip


def test_how_much_slower_a_remote_call_is_quotes_its_figure() -> None:
    note = HOLDOUT_DIR / "note-on-distributed-computing-sun-1994.pdf"
    latency = f"{WALDO} > 4 Local and Distributed Computing > 4.1 Latency"
    stated(
        "how much slower is calling an object on another machine than a local call",
        "The difference between the two is currently between four and five orders of magnitude",
        [
            (note, "4.1 Latency\n\nThe most obvious difference between a local obj",
             "ssential difference between local and distributed computing.", latency, 0.370),
            (note, "Whether or not it will ever become possible to mask the effi",
             " people could disagree as to the wisdom of such an approach.", latency, 0.437),
            (note, "However, the difference in latency between the two kinds of ",
             " and has tended to mask the more irreconcilable differences.", latency, 0.399),
            (note, "Ignoring the difference between the performance of local and",
             " be made remote and what objects must be clustered together.", latency, 0.443),
        ],
    )  # fmt: skip
