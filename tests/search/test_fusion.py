"""Reciprocal rank fusion: a pure function, tested without a database."""

from __future__ import annotations

import pytest

from search.services.fusion import RRF_K, best_ranks, reciprocal_rank_fusion


def ids(fused: list) -> list[int]:
    return [f.chunk_id for f in fused]


def test_scores_are_sums_of_reciprocal_ranks() -> None:
    fused = reciprocal_rank_fusion([[10, 20, 30], [30, 10]])
    by_id = {f.chunk_id: f for f in fused}
    assert by_id[10].score == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 2))
    assert by_id[30].score == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 1))
    assert by_id[20].score == pytest.approx(1 / (RRF_K + 2))
    assert by_id[20].ranks == [2, None]
    assert ids(fused) == [10, 30, 20]


def test_ties_break_on_best_rank_then_chunk_id() -> None:
    # 1 and 2 hold mirrored ranks: equal scores, equal best rank -> smaller id first.
    assert ids(reciprocal_rank_fusion([[2, 1], [1, 2]])) == [1, 2]
    # Equal scores, but 7 has the better best rank (1 in leg two vs 2 and 2).
    fused = reciprocal_rank_fusion([[5, 9], [7, 9, 8], [5]])
    by_id = {f.chunk_id: f for f in fused}
    assert ids(fused)[0] == 5
    # 9 (ranks 2, 2) vs 7 (rank 1 only): 2/(62) > 1/61, so 9 first on score.
    assert by_id[9].score > by_id[7].score
    assert ids(reciprocal_rank_fusion([[3], [4]])) == [3, 4]
    assert ids(reciprocal_rank_fusion([[4], [3]])) == [3, 4]


def test_equal_scores_with_different_best_rank() -> None:
    # a: ranks (1, None) -> 1/61; b: ranks (None, 1) -> 1/61 too; tie on best rank -> id.
    # c: rank 2 in both legs = 2/62 beats 1/61.
    fused = reciprocal_rank_fusion([[100, 50], [200, 50]])
    assert ids(fused) == [50, 100, 200]


def test_one_empty_leg_keeps_the_other_order() -> None:
    assert ids(reciprocal_rank_fusion([[], [8, 3, 5]])) == [8, 3, 5]
    assert ids(reciprocal_rank_fusion([[8, 3, 5], []])) == [8, 3, 5]
    fused = reciprocal_rank_fusion([[8, 3], []])
    assert fused[0].ranks == [1, None]


def test_both_legs_empty() -> None:
    assert reciprocal_rank_fusion([[], []]) == []
    assert reciprocal_rank_fusion([]) == []


def test_duplicate_ids_within_a_leg_keep_the_best_rank() -> None:
    assert best_ranks([4, 2, 4, 9, 2]) == {4: 1, 2: 2, 9: 4}
    fused = reciprocal_rank_fusion([[4, 2, 4], [2]])
    by_id = {f.chunk_id: f for f in fused}
    assert by_id[4].ranks == [1, None]
    assert by_id[4].score == pytest.approx(1 / (RRF_K + 1))
    assert by_id[2].score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert ids(fused) == [2, 4]


def test_custom_constant() -> None:
    fused = reciprocal_rank_fusion([[1]], k=0)
    assert fused[0].score == 1.0


def test_weights_scale_each_legs_contribution():
    fused = reciprocal_rank_fusion([[1, 2], [2, 3]], k=10, weights=[1.0, 0.5])
    by_id = {f.chunk_id: f for f in fused}
    assert by_id[1].score == pytest.approx(1 / 11)
    assert by_id[2].score == pytest.approx(1 / 12 + 0.5 / 11)
    assert by_id[3].score == pytest.approx(0.5 / 12)
    assert ids(fused) == [2, 1, 3]


def test_a_down_weighted_leg_cannot_outvote_the_other_legs_top_hit():
    # Alone at rank 1 in the half-weight leg, 9 earns 0.5/11 ≈ 0.045: below dense rank 1 (1/11),
    # above dense rank 12 (1/22); equal weights would have tied it with dense rank 1.
    fused = reciprocal_rank_fusion([list(range(100, 120)), [9]], k=10, weights=[1.0, 0.5])
    assert ids(fused).index(9) == 11
    equal = reciprocal_rank_fusion([[100], [9]], k=10)
    assert equal[0].score == equal[1].score


def test_weights_must_match_the_legs():
    with pytest.raises(ValueError, match="2 legs but 1 weights"):
        reciprocal_rank_fusion([[1], [2]], weights=[1.0])
