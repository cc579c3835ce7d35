"""Sweeping the answer gate with the production rule: per distance threshold (and per jargon line),
how many queries of each set end answered, with a caveat, or refused, and which threshold to
recommend.

Every figure comes from `search.services.gate.decide`, the function retrieval calls: the sweep
only varies its inputs (the distance threshold; the Zipf line below which an unmentioned word is
jargon). `Evidence` is what one query gave the gate in an evaluation run: at the production
threshold and jargon line its `inputs` are the live gate's (search.services.retrieval)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from search.services.gate import AnswerState, GateInputs, decide
from search.services.retrieval import unmentioned_words, unseen_terms
from search.services.terms import TermCoverage

THRESHOLDS: tuple[float, ...] = tuple(round(0.30 + 0.025 * i, 3) for i in range(21))  # 0.300 .. 0.800
JARGON_LINES: tuple[float, ...] = (0.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5)
MAX_BLUFF_RATE = 0.10


@dataclass(frozen=True)
class Evidence:
    best_distance: float | None
    coverage: tuple[TermCoverage, ...] = ()  # the question's words: in the index? in the top passages?
    rerank_score: float | None = None
    refuse_names: bool = True
    rerank_min_score: float | None = None
    answer_type: str | None = None  # the kind of fact the query asks for (search/services/answer_type.py)
    unmet_answer_type: str | None = None  # that kind, when none of the top passages states it
    answer_type_words: tuple[str, ...] = ()  # the question's words such a fact had to stand beside
    answer_type_sentence: str | None = None  # the top passages' sentence that states that kind of fact
    words_shared: int | None = None  # search.services.retrieval.words_shared: for an unread language
    language: str | None = None  # the question's language, when the library holds no document in it
    languages_held: tuple[str, ...] = ("en",)  # the library's languages, main first

    def inputs(self, threshold: float, jargon_line: float | None = None) -> GateInputs:
        names, missing = unmentioned_words(list(self.coverage), jargon_line=jargon_line, refuse_names=self.refuse_names)
        return GateInputs(
            best_distance=self.best_distance,
            threshold=threshold,
            unknown_names=tuple(names),
            missing_terms=tuple(missing),
            unseen_terms=tuple(unseen_terms(list(self.coverage))),
            rerank_score=self.rerank_score,
            rerank_min_score=self.rerank_min_score,
            language=self.language,
            languages_held=self.languages_held,
            unmet_answer_type=self.unmet_answer_type,
            answer_type_words=self.answer_type_words,
            words_shared=self.words_shared,
        )


def state(evidence: Evidence, threshold: float, jargon_line: float | None = None) -> AnswerState:
    return decide(evidence.inputs(threshold, jargon_line)).state


def passes(evidence: Evidence, threshold: float) -> bool:
    """Shown (answered or caveat) by the production rule at `threshold`."""
    return state(evidence, threshold) != AnswerState.REFUSED


def state_counts(evidences: Sequence[Evidence], threshold: float, jargon_line: float | None = None) -> dict[str, int]:
    counts = {s.value: 0 for s in AnswerState}
    for evidence in evidences:
        counts[state(evidence, threshold, jargon_line).value] += 1
    return counts


def sweep(
    in_evidence: Sequence[Evidence],
    ood_evidence: Sequence[Evidence],
    in_found: Sequence[bool] | None = None,
    thresholds: Sequence[float] = THRESHOLDS,
) -> list[dict[str, float | int]]:
    """One row per threshold: in-domain shown/refused, OOD shown (bluffs). `in_found` (optional, per
    in-domain query) marks queries whose needle the hybrid top 20 holds (`in_answered_found`)."""
    rows: list[dict[str, float | int]] = []
    for threshold in thresholds:
        shown = [passes(e, threshold) for e in in_evidence]
        row: dict[str, float | int] = {
            "threshold": threshold,
            "in_answered": sum(shown),
            "in_refused": len(shown) - sum(shown),
            "ood_bluffs": sum(passes(e, threshold) for e in ood_evidence),
            "ood_total": len(ood_evidence),
        }
        if in_found is not None:
            row["in_answered_found"] = sum(a and f for a, f in zip(shown, in_found, strict=True))
        rows.append(row)
    return rows


def jargon_sweep(sets: dict[str, Sequence[Evidence]], threshold: float) -> list[dict[str, object]]:
    """Per Zipf line: each set's answered / caveat / refused counts at the production threshold."""
    return [
        {"line": line, **{name: state_counts(evidences, threshold, line) for name, evidences in sets.items()}}
        for line in JARGON_LINES
    ]


def rerank_sweep(sets: dict[str, Sequence[Evidence]], threshold: float) -> list[dict[str, object]]:
    """With a reader configured: per candidate `RERANK_MIN_SCORE` (the deciles of the in-domain
    queries' best reader scores), each set's answered / caveat / refused counts."""
    scores = sorted(e.rerank_score for e in sets.get("in", []) if e.rerank_score is not None)
    if not scores:
        return []
    minimums = sorted({round(scores[min(len(scores) - 1, len(scores) * i // 10)], 4) for i in range(10)})
    return [
        {
            "min_score": minimum,
            **{
                name: state_counts([replace(e, rerank_min_score=minimum) for e in evidences], threshold)
                for name, evidences in sets.items()
            },
        }
        for minimum in minimums
    ]


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
