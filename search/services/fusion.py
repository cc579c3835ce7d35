"""Reciprocal rank fusion: combine ranked lists by their ranks, never by their raw scores.

Dense distances and BM25 scores live on unrelated scales; ranks are comparable. A chunk
ranked r in a leg earns 1 / (RRF_K + r) from that leg; its fused score is the sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

RRF_K = 60


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


def reciprocal_rank_fusion(legs: Sequence[Sequence[int]], *, k: int = RRF_K) -> list[Fused]:
    """Fuse ranked id lists (best first); result sorted by score, then best rank, then id.

    The tie-break makes the order deterministic: equal scores happen whenever two chunks hold
    mirrored ranks in two legs, and callers (pagination, tests, caches) need a stable order.
    """
    per_leg = [best_ranks(leg) for leg in legs]
    ids = {chunk_id for ranks in per_leg for chunk_id in ranks}
    fused = []
    for chunk_id in ids:
        ranks = [ranks.get(chunk_id) for ranks in per_leg]
        score = sum(1.0 / (k + r) for r in ranks if r is not None)
        fused.append(Fused(chunk_id=chunk_id, score=score, ranks=ranks))
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.chunk_id))
    return fused
