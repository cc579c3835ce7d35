"""Relative score fusion: a pure function, tested without a database, against a plain oracle."""

from __future__ import annotations

import random

import pytest

from search.services.fusion import Fused, relative_score_fusion


def ids(fused: list[Fused]) -> list[int]:
    return [f.chunk_id for f in fused]


def oracle(dense: list[tuple[int, float]], bm25: list[tuple[int, float]], share: float) -> dict[int, float]:
    """The definition, written out: each leg's values min-max scaled (distances negated), summed with
    the shares; a leg that does not list a chunk adds nothing; an all-equal leg scales to 1."""

    def scale(leg: list[tuple[int, float]]) -> dict[int, float]:
        values = [v for _, v in leg]
        low, high = min(values), max(values)
        return {pk: (v - low) / (high - low) if high > low else 1.0 for pk, v in leg}

    near = scale([(pk, -d) for pk, d in dense]) if dense else {}
    words = scale(bm25) if bm25 else {}
    return {pk: share * near.get(pk, 0.0) + (1 - share) * words.get(pk, 0.0) for pk in near.keys() | words.keys()}


def random_legs(rng: random.Random) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    pool = rng.sample(range(1, 200), 60)
    dense = sorted(((pk, rng.uniform(0.2, 0.9)) for pk in pool[: rng.randint(0, 50)]), key=lambda x: x[1])
    bm25 = sorted(((pk, rng.uniform(0.5, 30.0)) for pk in pool[rng.randint(0, 30) :][:50]), key=lambda x: -x[1])
    return dense, bm25


@pytest.mark.parametrize("seed", range(40))
def test_scores_and_order_agree_with_the_oracle(seed: int) -> None:
    rng = random.Random(seed)
    dense, bm25 = random_legs(rng)
    share = rng.choice([0.0, 0.03, 0.3, 0.7, 1.0])
    fused = relative_score_fusion(dense, bm25, dense_share=share)
    expected = oracle(dense, bm25, share)
    assert {f.chunk_id: f.score for f in fused} == pytest.approx(expected)
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)


def test_each_leg_is_scaled_between_its_best_and_its_worst_candidate() -> None:
    fused = relative_score_fusion([(1, 0.2), (2, 0.4), (3, 0.6)], [(3, 9.0), (4, 5.0), (1, 1.0)], dense_share=0.7)
    by_id = {f.chunk_id: f for f in fused}
    assert by_id[1].score == pytest.approx(0.7 * 1.0 + 0.3 * 0.0)  # nearest; BM25's worst
    assert by_id[2].score == pytest.approx(0.7 * 0.5)  # halfway in distance, no BM25 match
    assert by_id[3].score == pytest.approx(0.7 * 0.0 + 0.3 * 1.0)  # farthest; BM25's best
    assert by_id[4].score == pytest.approx(0.3 * 0.5)
    assert by_id[3].ranks == [3, 1]
    assert by_id[4].ranks == [None, 2]
    assert ids(fused) == [1, 2, 3, 4]


def test_a_clear_lead_counts_where_a_first_place_by_a_hair_does_not() -> None:
    # The same ranks in both cases; only how far BM25's first stands above its second differs.
    dense = [(1, 0.30), (2, 0.31), (3, 0.60)]
    by_a_hair = relative_score_fusion(dense, [(2, 10.0), (1, 9.9), (3, 1.0)], dense_share=0.7)
    by_a_mile = relative_score_fusion(dense, [(2, 10.0), (1, 1.1), (3, 1.0)], dense_share=0.7)
    assert ids(by_a_hair)[0] == 1
    assert ids(by_a_mile)[0] == 2


def test_the_shares_at_their_ends_give_one_legs_order() -> None:
    dense = [(5, 0.1), (6, 0.2), (7, 0.3)]
    bm25 = [(7, 3.0), (8, 2.0), (5, 1.0)]
    assert ids(relative_score_fusion(dense, bm25, dense_share=1.0))[:2] == [5, 6]
    assert ids(relative_score_fusion(dense, bm25, dense_share=0.0))[:2] == [7, 8]


def test_ties_break_on_a_bm25_match_then_best_rank_then_chunk_id() -> None:
    # 3 and 4 each first in one leg at even shares: equal scores; 3 holds a word of the question.
    assert ids(relative_score_fusion([(3, 0.1), (9, 0.5)], [(4, 2.0), (9, 1.0)], dense_share=0.5))[:2] == [4, 3]
    # Both 0 from the only leg: the better rank first, not the smaller id.
    assert ids(relative_score_fusion([], [(8, 5.0), (3, 1.0), (2, 1.0)], dense_share=0.5)) == [8, 3, 2]
    # Two dense-only chunks at equal scores: the better rank, then the smaller id.
    assert ids(relative_score_fusion([(7, 0.2), (6, 0.2)], [], dense_share=0.5)) == [7, 6]


def test_one_empty_leg_keeps_the_other_order() -> None:
    assert ids(relative_score_fusion([], [(8, 3.0), (3, 2.0), (5, 1.0)], dense_share=0.7)) == [8, 3, 5]
    assert ids(relative_score_fusion([(8, 0.1), (3, 0.2), (5, 0.3)], [], dense_share=0.7)) == [8, 3, 5]
    assert relative_score_fusion([(8, 0.1)], [], dense_share=0.7)[0].ranks == [1, None]
    assert relative_score_fusion([], [], dense_share=0.7) == []


def test_a_leg_of_equal_values_scores_each_of_them_in_full() -> None:
    fused = relative_score_fusion([(1, 0.4)], [(2, 7.0), (3, 7.0)], dense_share=0.5)
    assert {f.chunk_id: f.score for f in fused} == pytest.approx({1: 0.5, 2: 0.5, 3: 0.5})


def test_an_id_listed_twice_keeps_its_first_place() -> None:
    fused = relative_score_fusion([(4, 0.1), (2, 0.3), (4, 0.5)], [(2, 1.0)], dense_share=0.7)
    by_id = {f.chunk_id: f for f in fused}
    assert by_id[4].ranks == [1, None]
    assert by_id[4].score == pytest.approx(0.7)
    assert by_id[2].score == pytest.approx(0.3)


@pytest.mark.parametrize("seed", range(20))
def test_a_longer_list_scaled_over_its_head_orders_that_head_as_the_head_alone(seed: int) -> None:
    # The grouped result list hands every BM25 match to fusion; scaled over the first `depth`,
    # the chunks retrieval fuses keep retrieval's scores and order.
    rng = random.Random(seed)
    dense, _ = random_legs(rng)
    bm25 = sorted(((pk, rng.uniform(0.5, 30.0)) for pk in rng.sample(range(1, 300), 120)), key=lambda x: -x[1])
    head = relative_score_fusion(dense, bm25[:50], dense_share=0.7)
    whole = relative_score_fusion(dense, bm25, dense_share=0.7, depth=50)
    kept = {f.chunk_id for f in head}
    assert [f.chunk_id for f in whole if f.chunk_id in kept] == ids(head)
    assert {f.chunk_id: f.score for f in whole if f.chunk_id in kept} == pytest.approx(
        {f.chunk_id: f.score for f in head}
    )
    assert all(f.score <= head[-1].score or f.chunk_id in kept for f in whole)


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_share_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="must lie in"):
        relative_score_fusion([(1, 0.1)], [(2, 1.0)], dense_share=share)
