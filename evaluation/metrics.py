"""Retrieval metrics, free of Django and the database so they can be checked against known values."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evaluation.textnorm import normalise_for_match

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
RECALL_KS: tuple[int, ...] = (1, 4, 8, 20)
TOP_K = 20  # ranks past this count as "not answered", for R@k and MRR alike

Rank = int | None  # 1-based rank of the first answering hit, None when none of the top K answers


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (0, 1) when there is no data.

    Unlike the normal approximation it stays inside [0, 1] and is not degenerate at 0/n or n/n,
    which matters here: recall on a few dozen queries is often near 1.
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes={successes} is outside 0..{n}")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def normalised_needle(needle: str) -> str:
    text = normalise_for_match(needle)
    if not text:
        raise ValueError("a needle must contain some text: an empty one would match every chunk")
    return text


def contains_needle(content: str, needle: str) -> bool:
    """True when the chunk's own words hold the whole needle (NFKC, whitespace collapsed on both sides)."""
    return normalised_needle(needle) in normalise_for_match(content)


def first_answer_rank(contents: Iterable[str], needle: str, limit: int = TOP_K) -> Rank:
    """1-based rank of the first content holding the needle among the first `limit`, else None."""
    wanted = normalised_needle(needle)
    for rank, content in enumerate(contents, start=1):
        if rank > limit:
            break
        if wanted in normalise_for_match(content):
            return rank
    return None


def answered_at(rank: Rank, k: int) -> bool:
    return rank is not None and rank <= k


def recall_at(ranks: Sequence[Rank], k: int) -> float:
    """Share of queries answered within the first k hits (0.0 for no queries)."""
    return sum(answered_at(r, k) for r in ranks) / len(ranks) if ranks else 0.0


def reciprocal_rank(rank: Rank, limit: int = TOP_K) -> float:
    return 1.0 / rank if rank is not None and rank <= limit else 0.0


def mean_reciprocal_rank(ranks: Sequence[Rank], limit: int = TOP_K) -> float:
    return sum(reciprocal_rank(r, limit) for r in ranks) / len(ranks) if ranks else 0.0


def leg_metrics(ranks: Sequence[Rank]) -> dict[str, object]:
    """R@1/4/8/20 and MRR of one leg, each R@k with its 95 % Wilson interval, and n."""
    n = len(ranks)
    summary: dict[str, object] = {f"R@{k}": round(recall_at(ranks, k), 4) for k in RECALL_KS}
    summary["MRR"] = round(mean_reciprocal_rank(ranks), 4)
    summary["wilson"] = {
        f"R@{k}": [round(x, 4) for x in wilson_interval(sum(answered_at(r, k) for r in ranks), n)] for k in RECALL_KS
    }
    summary["n"] = n
    return summary


@dataclass(frozen=True)
class SignTest:
    wins: int  # pairs where a answers and b does not
    losses: int  # pairs where b answers and a does not
    p: float  # exact two-sided binomial p on the discordant pairs; 1.0 when there are none


def sign_test(a_hits: Sequence[bool], b_hits: Sequence[bool]) -> SignTest:
    """Exact two-sided sign test on paired outcomes; ties (both or neither answer) carry no information."""
    from scipy.stats import binomtest

    if len(a_hits) != len(b_hits):
        raise ValueError(f"paired outcomes differ in length: {len(a_hits)} vs {len(b_hits)}")
    wins = sum(1 for a, b in zip(a_hits, b_hits, strict=True) if a and not b)
    losses = sum(1 for a, b in zip(a_hits, b_hits, strict=True) if b and not a)
    if wins + losses == 0:
        return SignTest(0, 0, 1.0)
    p = float(binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue)
    return SignTest(wins, losses, min(1.0, p))
