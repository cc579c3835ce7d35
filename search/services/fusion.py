"""Weighted reciprocal rank fusion: combine ranked lists by their ranks, never by raw scores.

Dense distances and BM25 scores live on unrelated scales; ranks are comparable. A chunk
ranked r in leg i earns w_i / (k + r) from that leg; its fused score is the sum.

The defaults are measured (docs/EVALUATION.md, change log): the classic k = 60 with equal
weights let BM25's noise on plain-language questions push the dense leg's good hits out of
the first four. A smaller k makes a leg's top ranks count more than its tail, and BM25 at
half the dense weight still lifts a chunk both legs agree on, while a BM25-only first hit
still lands about 12th — an exact identifier or error message stays on the first page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

RRF_K = 60  # the textbook constant; production passes settings.SEARCH_RRF_K


@dataclass
class Fused:
    chunk_id: int
    score: float
    ranks: list[int | None] = field(default_factory=list)  # 1-based rank per leg, None if absent

    @property
    def best_rank(self) -> int:
        return min(r for r in self.ranks if r is not None)


def best_ranks(leg: Sequence[int]) -> dict[int, int]:
    """1-based rank of each id; an id listed twice keeps its better (first) rank."""
    ranks: dict[int, int] = {}
    for position, chunk_id in enumerate(leg, start=1):
        ranks.setdefault(chunk_id, position)
    return ranks


def reciprocal_rank_fusion(
    legs: Sequence[Sequence[int]], *, k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[Fused]:
    """Fuse ranked id lists (best first); result sorted by score, then best rank, then id.

    `weights` (one per leg, default all 1.0) scale each leg's contribution.

    The tie-break makes the order deterministic: equal scores happen whenever two chunks hold
    mirrored ranks in two legs, and callers (pagination, tests, caches) need a stable order.
    """
    leg_weights = [1.0] * len(legs) if weights is None else list(weights)
    if len(leg_weights) != len(legs):
        raise ValueError(f"{len(legs)} legs but {len(leg_weights)} weights")
    per_leg = [best_ranks(leg) for leg in legs]
    ids = {chunk_id for ranks in per_leg for chunk_id in ranks}
    fused = []
    for chunk_id in ids:
        ranks = [ranks.get(chunk_id) for ranks in per_leg]
        score = sum(w / (k + r) for w, r in zip(leg_weights, ranks, strict=True) if r is not None)
        fused.append(Fused(chunk_id=chunk_id, score=score, ranks=ranks))
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.chunk_id))
    return fused
