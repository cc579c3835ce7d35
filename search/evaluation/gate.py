"""Sweeping the answer gate: how many in-domain queries each distance threshold answers, how many
out-of-domain queries it would bluff on, and which threshold to recommend.

The gate has two checks (search/services/retrieval.py): the distance threshold, swept here, and
the unknown-names check, which does not depend on the threshold. A query the names check blocks
is refused at every threshold; pass `*_blocked` to sweep the gate as production applies it."""

from __future__ import annotations

from collections.abc import Sequence

THRESHOLDS: tuple[float, ...] = tuple(round(0.30 + 0.025 * i, 3) for i in range(21))  # 0.300 .. 0.800
MAX_BLUFF_RATE = 0.10


def passes(distance: float | None, threshold: float, blocked: bool = False) -> bool:
    """The gate's rule in retrieval: answered when the nearest chunk is at or under the threshold
    and the query names nothing the library never mentions (`blocked`)."""
    return not blocked and distance is not None and distance <= threshold


def sweep(
    in_distances: Sequence[float | None],
    ood_distances: Sequence[float | None],
    in_found: Sequence[bool] | None = None,
    thresholds: Sequence[float] = THRESHOLDS,
    in_blocked: Sequence[bool] | None = None,
    ood_blocked: Sequence[bool] | None = None,
) -> list[dict[str, float | int]]:
    """One row per threshold. `in_found` (optional, per in-domain query) marks queries whose needle
    the hybrid top 20 holds, giving `in_answered_found`: answered *and* retrievable."""
    in_blocked = in_blocked or [False] * len(in_distances)
    ood_blocked = ood_blocked or [False] * len(ood_distances)
    rows: list[dict[str, float | int]] = []
    for threshold in thresholds:
        answered = [passes(d, threshold, b) for d, b in zip(in_distances, in_blocked, strict=True)]
        row: dict[str, float | int] = {
            "threshold": threshold,
            "in_answered": sum(answered),
            "in_refused": len(answered) - sum(answered),
            "ood_bluffs": sum(passes(d, threshold, b) for d, b in zip(ood_distances, ood_blocked, strict=True)),
            "ood_total": len(ood_distances),
        }
        if in_found is not None:
            row["in_answered_found"] = sum(a and f for a, f in zip(answered, in_found, strict=True))
        rows.append(row)
    return rows


def recommend(rows: Sequence[dict[str, float | int]], max_bluff_rate: float = MAX_BLUFF_RATE) -> tuple[float, str]:
    """The threshold answering the most in-domain queries with bluffs ≤ max_bluff_rate of OOD queries.

    Ties go to the lowest such threshold: bluffs never fall as the threshold rises, so the lowest
    one reaching the maximum answers as much while bluffing least. With no OOD queries, or when
    no threshold meets the bluff limit, the lowest bluff rate wins (ties: most answered).
    """
    if not rows:
        raise ValueError("an empty sweep has no recommendation")

    def rate(row: dict[str, float | int]) -> float:
        return row["ood_bluffs"] / row["ood_total"] if row["ood_total"] else 0.0

    within = [r for r in rows if rate(r) <= max_bluff_rate + 1e-12]
    if within:
        best = max(within, key=lambda r: (r["in_answered"], -r["threshold"]))
        reason = (
            f"most in-domain queries answered ({best['in_answered']}/{best['in_answered'] + best['in_refused']}) "
            f"with OOD bluffs {best['ood_bluffs']}/{best['ood_total']} (≤ {max_bluff_rate:.0%}); lowest such threshold"
        )
    else:
        best = min(rows, key=lambda r: (rate(r), -r["in_answered"], r["threshold"]))
        reason = f"no threshold keeps bluffs ≤ {max_bluff_rate:.0%}; lowest bluff rate ({rate(best):.0%})"
    return float(best["threshold"]), reason
