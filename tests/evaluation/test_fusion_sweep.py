"""The offline fusion sweep's scoring (evaluation/fusion_sweep.py, evaluation/fusion_rules.py) on
hand-made legs: the ranks it measures are those production's fusion makes of them."""

from __future__ import annotations

from evaluation.fusion_rules import evidence, keyword_leads, top_coverage
from evaluation.fusion_sweep import Lexeme, Phrasing, answer_rank, compare, score
from search.services.fusion import KEYWORD_LEADS_WEIGHTS


def phrasing(*, dense: list[int], bm25: list[int], answers: list[int], held: list[int]) -> Phrasing:
    """A Portuguese phrasing (the keyword leg leads) with two lexemes of equal idf: "a", held by
    every BM25 chunk, and "b", held by the chunks `held`."""
    return Phrasing(
        id="q#0",
        text="q",
        dense=dense,
        distances=[0.3] * len(dense),
        bm25=bm25,
        bm25_scores=[1.0 / rank for rank in range(1, len(bm25) + 1)],
        answers=answers,
        lexemes=[Lexeme("a", 2.0, list(bm25)), Lexeme("b", 2.0, held)],
        absent=[],
        n_chunks=100,
        weights=KEYWORD_LEADS_WEIGHTS,
    )


def test_a_weak_keyword_match_lets_the_dense_leg_lift_the_answer_and_a_strong_one_does_not() -> None:
    bm25 = list(range(1, 21))
    weak = phrasing(dense=[7, 30], bm25=bm25, answers=[7], held=[7])  # BM25's first holds half the question
    strong = phrasing(dense=[7, 30], bm25=bm25, answers=[7], held=bm25)  # BM25's first holds all of it
    assert top_coverage(weak) == 0.5
    assert top_coverage(strong) == 1.0
    assert score([weak, strong], keyword_leads) == [7, 7]
    assert score([weak, strong], evidence) == [1, 7]
    paired = compare(score([weak, strong], evidence), score([weak, strong], keyword_leads))
    assert (paired.wins, paired.losses) == (1, 0)


def test_a_rule_reads_a_copy_of_the_legs() -> None:
    p = phrasing(dense=[3, 1], bm25=[1, 2], answers=[3], held=[])

    def dense_only_in_bm25(view: Phrasing) -> tuple[float, float]:
        view.dense = [pk for pk in view.dense if pk in view.bm25]
        return (1.0, 1.0)

    assert score([p], dense_only_in_bm25) == [None]
    assert p.dense == [3, 1]


def test_an_answer_past_the_cut_is_not_ranked() -> None:
    assert answer_rank(list(range(1, 30)), [21]) is None
    assert answer_rank(list(range(1, 30)), [20, 5]) == 5
