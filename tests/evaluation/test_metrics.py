"""Metric functions against values worked out by hand (or from their textbook definitions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation import gate
from evaluation.comparisons import planned_pairs, sign_tests
from evaluation.dataset import DatasetError, flatten, load_ood, load_questions
from evaluation.metrics import (
    contains_needle,
    first_answer_rank,
    leg_metrics,
    mean_reciprocal_rank,
    recall_at,
    reciprocal_rank,
    sign_test,
    wilson_interval,
)
from search.services.terms import Term, TermCoverage


@pytest.mark.parametrize(
    ("successes", "n", "expected"),
    [
        (8, 10, (0.4902, 0.9433)),
        (0, 10, (0.0, 0.2775)),
        (10, 10, (0.7225, 1.0)),
        (30, 60, (0.3773, 0.6227)),
    ],
)
def test_wilson_interval_known_values(successes: int, n: int, expected: tuple[float, float]) -> None:
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(expected[0], abs=1e-4)
    assert hi == pytest.approx(expected[1], abs=1e-4)


def test_wilson_interval_without_data_is_uninformative() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_sign_test_exact_p() -> None:
    # 8 wins, 2 losses: P(X >= 8 or X <= 2 | n=10, p=.5) = 2 * (45 + 10 + 1) / 1024.
    a = [True] * 8 + [False] * 2 + [True] * 5 + [False] * 3
    b = [False] * 8 + [True] * 2 + [True] * 5 + [False] * 3  # ties on the last 8 are ignored
    test = sign_test(a, b)
    assert (test.wins, test.losses) == (8, 2)
    assert test.p == pytest.approx(112 / 1024)
    assert sign_test([True] * 6, [False] * 6).p == pytest.approx(2 / 64)


def test_sign_test_without_discordant_pairs() -> None:
    test = sign_test([True, False], [True, False])
    assert (test.wins, test.losses, test.p) == (0, 0, 1.0)
    with pytest.raises(ValueError):
        sign_test([True], [True, False])


def test_recall_and_mrr_on_toy_rankings() -> None:
    ranks = [1, 3, None, 8, 20]
    assert recall_at(ranks, 1) == pytest.approx(1 / 5)
    assert recall_at(ranks, 4) == pytest.approx(2 / 5)
    assert recall_at(ranks, 8) == pytest.approx(3 / 5)
    assert recall_at(ranks, 20) == pytest.approx(4 / 5)
    assert mean_reciprocal_rank(ranks) == pytest.approx((1 + 1 / 3 + 0 + 1 / 8 + 1 / 20) / 5)
    assert reciprocal_rank(21) == 0.0
    assert recall_at([], 4) == 0.0
    assert mean_reciprocal_rank([]) == 0.0


def test_leg_metrics_shape() -> None:
    summary = leg_metrics([1, None, 2, 5])
    assert summary["R@1"] == 0.25
    assert summary["R@4"] == 0.5
    assert summary["R@8"] == 0.75
    assert summary["n"] == 4
    assert set(summary["wilson"]) == {"R@1", "R@4", "R@8", "R@20"}
    lo, hi = summary["wilson"]["R@4"]
    assert lo < 0.5 < hi


def test_needle_matching_normalises_both_sides() -> None:
    needle = "the ﬁrst   answer\nspans lines"
    assert contains_needle("Before. The first answer spans lines? No: the first answer spans\n lines.", needle)
    assert contains_needle("the ﬁrst answer spans lines", "the first answer spans lines")  # NFKC ligature
    assert contains_needle("x\u00a0y", "x y")  # a no-break space is whitespace after NFKC
    assert not contains_needle("the first answer", needle)  # a cut needle does not count
    with pytest.raises(ValueError):
        contains_needle("anything", " \n ")


def test_first_answer_rank() -> None:
    contents = ["nothing here", "a half of the needle", "the whole needle is here", "the whole needle again"]
    assert first_answer_rank(contents, "whole  needle") == 3
    assert first_answer_rank(contents, "absent") is None
    assert first_answer_rank(contents, "whole needle", limit=2) is None


def ev(distance: float | None, *unmentioned: tuple[str, str, float]) -> gate.Evidence:
    return gate.Evidence(distance, tuple(TermCoverage(Term(*u), False, False) for u in unmentioned))


def test_gate_sweep_and_recommendation() -> None:
    in_d = [ev(d) for d in (0.20, 0.35, 0.45, 0.55, None)]
    ood = [ev(d) for d in (0.40, 0.62, 0.70, 0.72, 0.75, 0.78, 0.79, 0.80, 0.85, 0.90)]
    rows = gate.sweep(in_d, ood, [True, True, False, True, False])
    by_t = {r["threshold"]: r for r in rows}
    assert gate.THRESHOLDS[0] == 0.3
    assert gate.THRESHOLDS[-1] == 0.8
    assert len(gate.THRESHOLDS) == 21
    assert by_t[0.45] == {
        "threshold": 0.45, "in_answered": 3, "in_refused": 2, "ood_bluffs": 1, "ood_total": 10, "in_answered_found": 2
    }  # fmt: skip
    # 4 answered from 0.55 on; bluffs: 1 up to 0.6 (10 %), 2 from 0.625. Lowest threshold reaching 4 is 0.55.
    threshold, reason = gate.recommend(rows)
    assert threshold == 0.55
    assert "lowest" in reason


def test_gate_sweep_applies_the_production_rule() -> None:
    rows = gate.sweep([ev(0.2), ev(0.3, ("Kafka", "name", 2.9))], [ev(0.25, ("Grafana", "name", 1.2)), ev(0.4)])
    by_t = {r["threshold"]: r for r in rows}
    assert (by_t[0.3]["in_answered"], by_t[0.3]["ood_bluffs"]) == (1, 0)  # Kafka refused; OOD Grafana refused
    assert (by_t[0.8]["in_answered"], by_t[0.8]["ood_bluffs"]) == (1, 1)
    caveat = ev(0.2, ("kvm", "word", 2.3))
    assert gate.passes(caveat, 0.5) is True  # a caveat is shown
    assert gate.state(caveat, 0.5, jargon_line=3.0).value == "caveat"
    assert gate.state(caveat, 0.5, jargon_line=2.0).value == "answered"  # 2.3 is above that line
    # A word in no everyday vocabulary names a system, however it is typed: refused, as "Grafana" is.
    assert gate.state(ev(0.2, ("hdfs", "word", 1.5)), 0.5).value == "refused"
    assert gate.state(ev(0.2, ("2018", "year", 3.9)), 0.5, jargon_line=0.0).value == "caveat"  # years always count


def test_states_and_jargon_sweep_count_each_set() -> None:
    sets = {"in": [ev(0.2), ev(0.3, ("emoji", "word", 3.2))], "nearmiss": [ev(0.4, ("kvm", "word", 2.3)), ev(0.9)]}
    assert gate.state_counts(sets["in"], 0.65, 3.0) == {"answered": 2, "caveat": 0, "refused": 0}
    assert gate.state_counts(sets["nearmiss"], 0.65, 3.0) == {"answered": 0, "caveat": 1, "refused": 1}
    rows = {r["line"]: r for r in gate.jargon_sweep(sets, 0.65)}
    assert rows[3.5]["in"] == {"answered": 1, "caveat": 1, "refused": 0}
    assert rows[2.0]["nearmiss"] == {"answered": 1, "caveat": 0, "refused": 1}


def test_rerank_sweep_refuses_below_each_minimum() -> None:
    scored = [gate.Evidence(0.3, rerank_score=s) for s in (0.1, 0.5, 0.9)]
    assert gate.rerank_sweep({"in": [gate.Evidence(0.3)]}, 0.65) == []  # no reader ran
    rows = {float(str(r["min_score"])): r for r in gate.rerank_sweep({"in": scored, "nearmiss": scored[:1]}, 0.65)}
    assert sorted(rows) == [0.1, 0.5, 0.9]
    assert rows[0.5]["in"] == {"answered": 2, "caveat": 0, "refused": 1}
    assert rows[0.5]["nearmiss"] == {"answered": 0, "caveat": 0, "refused": 1}


def test_gate_recommendation_falls_back_to_lowest_bluff_rate() -> None:
    rows = gate.sweep([ev(0.5)], [ev(d) for d in (0.1, 0.1, 0.2, 0.35)])
    threshold, reason = gate.recommend(rows)
    assert threshold == 0.3  # 3/4 bluffs everywhere up to 0.325, then 4/4; 0.3 is the lowest rate
    assert "no threshold" in reason


def test_planned_pairs_cover_the_required_comparisons() -> None:
    pairs = planned_pairs(list("ABCDEF"))
    for s in "BCDEF":
        assert (f"{s}/hybrid", "A/hybrid") in pairs
    assert ("E/hybrid", "C/hybrid") in pairs
    assert ("F/hybrid", "E/hybrid") in pairs
    for s in "ABCDEF":
        assert (f"{s}/hybrid", f"{s}/dense") in pairs
        assert (f"{s}/hybrid", f"{s}/bm25") in pairs
    assert planned_pairs(["E"]) == [("E/hybrid", "E/dense"), ("E/hybrid", "E/bm25")]


def test_sign_tests_rows() -> None:
    ranks = {"A": {"dense": [1, None], "bm25": [None, None], "hybrid": [2, 5]},
             "E": {"dense": [1, 1], "bm25": [1, None], "hybrid": [1, 1]}}  # fmt: skip
    rows = sign_tests(ranks, ["A", "E"])
    r4 = next(r for r in rows if r["a"] == "E/hybrid" and r["b"] == "A/hybrid" and r["metric"] == "R@4")
    assert (r4["wins"], r4["losses"], r4["p"]) == (1, 0, 1.0)
    r1 = next(r for r in rows if r["a"] == "E/hybrid" and r["b"] == "A/hybrid" and r["metric"] == "R@1")
    assert (r1["wins"], r1["losses"], r1["p"]) == (2, 0, 0.5)


def test_dataset_loading(tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "q1", "needle": "n", "queries": ["a", "b"], "kind": "lexical"}) + "\n\n"
        + json.dumps({"id": "q2", "needle": "m", "queries": ["c"]}) + "\n"
    )  # fmt: skip
    loaded = load_questions(questions)
    assert [q.id for q in flatten(loaded)] == ["q1#0", "q1#1", "q2#0"]
    assert loaded[1].kind == "unspecified"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "q1", "needle": " ", "queries": ["a"]}) + "\n")
    with pytest.raises(DatasetError, match=r"bad\.jsonl:1"):
        load_questions(bad)
    ood = tmp_path / "ood.jsonl"
    ood.write_text(json.dumps({"id": "o1", "query": "how to bake bread", "kind": "far"}) + "\n")
    assert load_ood(ood)[0].kind == "far"


def test_dev_ood_file_is_well_formed() -> None:
    path = Path(__file__).resolve().parents[2] / "eval" / "dev-ood.jsonl"
    queries = load_ood(path)
    kinds = [q.kind for q in queries]
    assert (len(queries), kinds.count("near"), kinds.count("far")) == (30, 20, 10)
    assert len({q.id for q in queries}) == 30
