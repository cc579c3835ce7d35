"""The thirteenth holdout sets (sealed until the lead runs them): the evaluate loaders read them,
and their needles and absence patterns hold against the text the library extracts from the
holdout corpus."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from evaluation.corpora import rows
from evaluation.dataset import load_ood, load_questions
from evaluation.index import CorpusFile, extract_corpus
from evaluation.metrics import normalised_needle
from evaluation.textnorm import normalise_for_match
from tests.corpus import HOLDOUT_DIR, require_corpus

EVAL_DIR = Path(__file__).resolve().parents[2] / "eval"
QUESTIONS = EVAL_DIR / "holdout-questions-13.jsonl"
NEARMISS = EVAL_DIR / "holdout-nearmiss-13.jsonl"
OOD = EVAL_DIR / "ood-holdout-13.jsonl"
HOLDOUT_FILES = 17


@cache
def extracted() -> dict[str, CorpusFile]:
    """Each holdout file as `evaluate` reads it, by file name (extracted once for the module)."""
    require_corpus()
    if not HOLDOUT_DIR.is_dir():
        pytest.skip(f"holdout corpus not found at {HOLDOUT_DIR}")
    return {f.path.name: f for f in extract_corpus([HOLDOUT_DIR]).files}


def page_text(file: CorpusFile, page: int) -> str:
    """The normalised text of one 1-based page; a file without pages is all page 1."""
    starts = file.extracted.page_starts or [0]
    text = file.extracted.text
    end = starts[page] if page < len(starts) else len(text)
    return normalise_for_match(text[starts[page - 1] : end])


def test_the_evaluate_loaders_read_the_thirteenth_sets() -> None:
    questions = load_questions(QUESTIONS)
    nearmiss = load_ood(NEARMISS)
    ood = load_ood(OOD)
    assert (len(questions), len(nearmiss), len(ood)) == (40, 30, 30)
    assert all(len(q.queries) == 2 for q in questions)  # technical, then plain
    per_doc = Counter(q.doc for q in questions)
    assert len(per_doc) == HOLDOUT_FILES
    assert set(per_doc.values()) == {2, 3}
    assert {q.kind for q in nearmiss} == {"nearmiss"}
    assert Counter(q.kind for q in ood) == {"near": 15, "far": 15}
    ids = [q.id for q in questions] + [q.id for q in nearmiss] + [q.id for q in ood]
    assert len(set(ids)) == len(ids)


def test_every_nearmiss_records_how_its_absence_was_checked() -> None:
    for row in rows(NEARMISS):
        assert all(row.get(field) for field in ("doc", "answer_type", "checked")), row["id"]
    for row in rows(NEARMISS) + rows(OOD):
        assert row["grep"], row["id"]
        for pattern in row["grep"]:
            re.compile(pattern)


@pytest.mark.corpus
def test_every_needle_occurs_once_in_the_extracted_corpus_on_its_page() -> None:
    files = extracted()
    assert len(files) == HOLDOUT_FILES
    for row in rows(QUESTIONS):
        needle = normalised_needle(row["needle"])
        counts = {name: f.normalised_text.count(needle) for name, f in files.items()}
        assert {name: n for name, n in counts.items() if n} == {row["doc"]: 1}, row["id"]
        assert needle in page_text(files[row["doc"]], row["page"]), row["id"]


@pytest.mark.corpus
def test_no_nearmiss_or_out_of_domain_pattern_matches_the_extracted_corpus() -> None:
    files = extracted()
    hits = [
        f"{row['id']} pattern {pattern!r} matches {name}"
        for row in rows(NEARMISS) + rows(OOD)
        for pattern in row["grep"]
        for name, f in files.items()
        if re.search(pattern, f.normalised_text, re.IGNORECASE)
    ]
    assert hits == []
