"""The dev sets for other libraries (tuned on, unlike the sealed ones): the evaluate loaders read
them, their pages are none of the sealed sets' pages, and their needles and absence patterns hold
against the text the library extracts from the packaged pages."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from evaluation.corpora import CORPORA, DEV_CORPORA, PackagedCorpus, grep_hits, needle_counts, rows
from evaluation.dataset import load_ood, load_questions
from tests.evaluation.test_sealed_sets import require_built

IN_DOMAIN = 20
NEAR_MISS = 10
OUT_OF_DOMAIN = 10


@pytest.mark.parametrize("corpus", DEV_CORPORA, ids=lambda c: c.name)
def test_the_evaluate_loaders_read_each_dev_set(corpus: PackagedCorpus) -> None:
    questions = load_questions(corpus.question_file("questions"))
    nearmiss = load_ood(corpus.question_file("nearmiss"))
    ood = load_ood(corpus.question_file("ood"))
    assert (len(questions), len(nearmiss), len(ood)) == (IN_DOMAIN, NEAR_MISS, OUT_OF_DOMAIN)
    assert all(len(q.queries) == 2 and q.doc in corpus.files for q in questions)  # technical, then plain
    assert {q.kind for q in nearmiss} == {"nearmiss"}
    assert Counter(q.kind for q in ood) == {"near": OUT_OF_DOMAIN // 2, "far": OUT_OF_DOMAIN // 2}
    ids = [q.id for q in questions] + [q.id for q in nearmiss] + [q.id for q in ood]
    assert len(set(ids)) == len(ids)
    for part in ("nearmiss", "ood"):
        for row in rows(corpus.question_file(part)):
            assert row["grep"]
            for pattern in row["grep"]:
                re.compile(pattern)


def test_no_dev_page_is_a_sealed_page() -> None:
    sealed = {(c.package, name) for c in CORPORA for name in c.files}
    dev = {(c.package, name) for c in DEV_CORPORA for name in c.files}
    assert dev
    assert not sealed & dev
    assert {c.sets for c in DEV_CORPORA}.isdisjoint(c.sets for c in CORPORA)


@pytest.mark.parametrize("corpus", DEV_CORPORA, ids=lambda c: c.name)
def test_every_dev_needle_occurs_once_in_the_extracted_pages(corpus: PackagedCorpus) -> None:
    require_built(corpus)
    counts = needle_counts(corpus)
    assert len(counts) == IN_DOMAIN
    assert {qid: n for qid, n in counts.items() if n != 1} == {}


@pytest.mark.parametrize("corpus", DEV_CORPORA, ids=lambda c: c.name)
def test_no_dev_nearmiss_or_out_of_domain_pattern_matches_the_pages(corpus: PackagedCorpus) -> None:
    require_built(corpus)
    assert grep_hits(corpus) == []
