"""Pairing two evaluation runs (their JSON files) query by query: the before/after of a change.

Every retrieval change records this in docs/EVALUATION.md; the JSON's per-query ranks
(`strategies.<S>.ranks.<leg>`: query id → first answering rank or null) make the pairs.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from evaluation.metrics import answered_at, mean_reciprocal_rank, recall_at, sign_test

COMPARED_KS = (1, 4, 20)


class RunFileError(ValueError):
    """An evaluation JSON that cannot be paired; the message says why."""


def load_run(path: Path) -> dict[str, Any]:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunFileError(f"cannot read {path}: {exc}") from exc
    if not isinstance(payload, dict) or "strategies" not in payload:
        raise RunFileError(f"{path} is not an evaluate --json output")
    return payload


def ranks_of(payload: dict[str, Any], label: str, path: Path) -> dict[str, int | None]:
    """Ranks by query id for `label` ("E/hybrid") from a loaded run."""
    strategy, _, leg = label.partition("/")
    try:
        return dict(payload["strategies"][strategy]["ranks"][leg or "hybrid"])
    except KeyError as exc:
        raise RunFileError(f"{path} holds no ranks for {label}") from exc


def compare(before_by_id: dict[str, int | None], after_by_id: dict[str, int | None]) -> list[dict[str, Any]]:
    """One row per metric: before, after, and the sign test of after vs before (R@k only)."""
    if set(before_by_id) != set(after_by_id):
        missing = sorted(set(before_by_id) ^ set(after_by_id))[:5]
        raise RunFileError(f"the runs hold different queries (e.g. {', '.join(missing)}): not the same question set")
    ids = sorted(before_by_id)
    before, after = [before_by_id[i] for i in ids], [after_by_id[i] for i in ids]
    rows: list[dict[str, Any]] = []
    for k in COMPARED_KS:
        test = sign_test([answered_at(r, k) for r in after], [answered_at(r, k) for r in before])
        rows.append({"metric": f"R@{k}", "before": round(recall_at(before, k), 3),
                     "after": round(recall_at(after, k), 3), "wins": test.wins, "losses": test.losses,
                     "p": round(test.p, 4)})  # fmt: skip
    rows.append({"metric": "MRR", "before": round(mean_reciprocal_rank(before), 3),
                 "after": round(mean_reciprocal_rank(after), 3), "wins": None, "losses": None, "p": None})  # fmt: skip
    return rows


STATES = ("answered", "caveat", "refused")


def states_of(payload: dict[str, Any], strategy: str) -> dict[str, dict[str, str]]:
    """The gate's state per query id, per set ("in", "ood", "nearmiss"), at the production settings."""
    per_set = payload["strategies"].get(strategy, {}).get("gate", {}).get("states_per_query", {})
    return {name: {qid: row["state"] for qid, row in rows.items()} for name, rows in per_set.items()}


def state_changes(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """Per set both runs hold, the same queries' states before and after, paired: the counts of each
    state and every move ("answered → caveat": 12). Queries one run lacks are left out and counted."""
    rows: list[dict[str, Any]] = []
    for name in [n for n in before if n in after]:
        shared = sorted(set(before[name]) & set(after[name]))
        moves = Counter((before[name][q], after[name][q]) for q in shared if before[name][q] != after[name][q])
        rows.append({
            "set": name,
            "n": len(shared),
            "before": [sum(before[name][q] == s for q in shared) for s in STATES],
            "after": [sum(after[name][q] == s for q in shared) for s in STATES],
            "moves": {f"{a} → {b}": count for (a, b), count in sorted(moves.items())},
            "unpaired": len(set(before[name]) ^ set(after[name])),
        })  # fmt: skip
    return rows
