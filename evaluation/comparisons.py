"""Which paired sign tests a run reports, and computing them from per-query ranks.

Pairs are per query (phrasing), never per question: both phrasings of a question are separate
units, since a strategy can answer one and miss the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluation.metrics import Rank, answered_at, sign_test

SIGN_TEST_KS: tuple[int, ...] = (20, 4, 1)
# Strategy pairs beyond "each vs A": what a header adds (E vs C) and what overlap adds on
# boundary chunks (D vs C, F vs E; B vs A is already among "each vs A").
EXTRA_STRATEGY_PAIRS: tuple[tuple[str, str], ...] = (("E", "C"), ("F", "E"), ("D", "C"))

Ranks = Mapping[str, Mapping[str, Sequence[Rank]]]  # strategy -> leg -> rank per query


def planned_pairs(strategies: Sequence[str]) -> list[tuple[str, str]]:
    """("E/hybrid", "A/hybrid")-style pairs, for the strategies that actually ran."""
    present = set(strategies)
    pairs: list[tuple[str, str]] = []
    if "A" in present:
        pairs += [(f"{s}/hybrid", "A/hybrid") for s in strategies if s != "A"]
    pairs += [(f"{a}/hybrid", f"{b}/hybrid") for a, b in EXTRA_STRATEGY_PAIRS if a in present and b in present]
    # A model-written context against the header alone (evaluate --contexts): "E+ctx" vs "E".
    bases = {s: s.removesuffix("+ctx") for s in strategies if s.endswith("+ctx")}
    pairs += [(f"{s}/hybrid", f"{base}/hybrid") for s, base in bases.items() if base in present]
    for s in strategies:
        pairs += [(f"{s}/hybrid", f"{s}/dense"), (f"{s}/hybrid", f"{s}/bm25")]
    return list(dict.fromkeys(pairs))


def _ranks(ranks: Ranks, label: str) -> Sequence[Rank]:
    strategy, leg = label.split("/")
    return ranks[strategy][leg]


def sign_tests(ranks: Ranks, strategies: Sequence[str], ks: Sequence[int] = SIGN_TEST_KS) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for a, b in planned_pairs(strategies):
        a_ranks, b_ranks = _ranks(ranks, a), _ranks(ranks, b)
        for k in ks:
            test = sign_test([answered_at(r, k) for r in a_ranks], [answered_at(r, k) for r in b_ranks])
            rows.append({"a": a, "b": b, "metric": f"R@{k}", "wins": test.wins, "losses": test.losses,
                         "p": round(test.p, 6)})  # fmt: skip
    return rows
