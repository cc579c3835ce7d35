"""The fusion rules `sweep_fusion score` compares (evaluation/fusion_sweep.py keeps the legs).

Every rule but `fixed-*` keeps the English weights for a question the encoder reads (English
weights), and changes only the dense weight of one it does not (KEYWORD_LEADS_WEIGHTS).
"""

from __future__ import annotations

import math

from evaluation.fusion_sweep import Phrasing, Rule, Weights, compare, leg_ranks, score
from evaluation.metrics import mean_reciprocal_rank, recall_at
from search.services.fusion import KEYWORD_LEADS_WEIGHTS, KEYWORD_MATCH_LINE, KEYWORD_WEAK_WEIGHTS


def keyword_leads(p: Phrasing) -> Weights:
    """The rule before evidence: KEYWORD_LEADS_WEIGHTS whenever the encoder does not read the language."""
    return p.weights


def evidence(p: Phrasing) -> Weights:
    """Production's rule (search/services/fusion.py `leg_weights`) on the kept share."""
    if not _unread(p):
        return p.weights
    share = p.best_share if p.best_share is not None else top_coverage(p)
    return KEYWORD_WEAK_WEIGHTS if share < KEYWORD_MATCH_LINE else KEYWORD_LEADS_WEIGHTS


def fixed(dense: float) -> Rule:
    return lambda p: (dense, 1.0)


def _unread(p: Phrasing) -> bool:
    return tuple(p.weights) == KEYWORD_LEADS_WEIGHTS


def absent_idf(p: Phrasing) -> float:
    """The idf a lexeme no readable chunk holds would have (df 0)."""
    return math.log(1 + (p.n_chunks + 0.5) / 0.5)


def top_coverage(p: Phrasing, *, depth: int = 1, with_absent: bool = False) -> float:
    """The best idf-weighted share of the question's lexemes held by one of BM25's first `depth`
    chunks; `with_absent`: the lexemes no chunk holds count too, at the idf they would have."""
    total = sum(lexeme.idf for lexeme in p.lexemes) + (absent_idf(p) * len(p.absent) if with_absent else 0.0)
    if not p.bm25 or not total:
        return 0.0
    return max(sum(x.idf for x in p.lexemes if pk in x.chunks) / total for pk in p.bm25[:depth])


def weak_evidence(dense: float, line: float, *, depth: int = 1, with_absent: bool = False) -> Rule:
    """Dense weight `dense` when BM25's best chunk holds less than `line` of the question (idf
    share), else KEYWORD_LEADS_WEIGHTS."""

    def rule(p: Phrasing) -> Weights:
        if not _unread(p) or top_coverage(p, depth=depth, with_absent=with_absent) >= line:
            return p.weights
        return (dense, KEYWORD_LEADS_WEIGHTS[1])

    return rule


def sliding(dense: float, *, with_absent: bool = False) -> Rule:
    """Dense weight rising from 0.03 to `dense` as BM25's best chunk holds less of the question."""

    def rule(p: Phrasing) -> Weights:
        if not _unread(p):
            return p.weights
        missing = 1.0 - top_coverage(p, with_absent=with_absent)
        return (max(KEYWORD_LEADS_WEIGHTS[0], dense * missing), KEYWORD_LEADS_WEIGHTS[1])

    return rule


def agreeing(dense: float, line: float = 1.01) -> Rule:
    """Dense weight `dense` for the chunks BM25 also lists (the dense hits BM25 does not list are
    dropped) when BM25's best chunk holds less than `line` of the question."""

    def rule(p: Phrasing) -> Weights:
        if not _unread(p) or top_coverage(p) >= line:
            return p.weights
        listed = set(p.bm25)
        p.dense = [pk for pk in p.dense if pk in listed]
        return (dense, KEYWORD_LEADS_WEIGHTS[1])

    return rule


RULES: dict[str, Rule] = {"keyword-leads": keyword_leads, "evidence": evidence}
RULES |= {f"fixed-{w}": fixed(w) for w in (0.03, 0.1, 0.2, 0.5, 1.0)}
for _w in (0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0):
    for _line in (0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 1.01):
        RULES[f"agree-{_w}-{_line}"] = agreeing(_w, _line)
        RULES[f"weak-{_w}-{_line}"] = weak_evidence(_w, _line)
        RULES[f"weakabs-{_w}-{_line}"] = weak_evidence(_w, _line, with_absent=True)
        RULES[f"weak3-{_w}-{_line}"] = weak_evidence(_w, _line, depth=3)
    RULES[f"slide-{_w}"] = sliding(_w)
    RULES[f"slideabs-{_w}"] = sliding(_w, with_absent=True)


def sweep_table(sets: dict[str, list[Phrasing]], names: list[str]) -> str:
    """Markdown: per rule, per set R@1/R@4/R@20/MRR; over all sets together the MRR, the smallest
    margin of a set's MRR over its better single leg, and the paired wins/losses against BM25
    alone and the rule before evidence (`keyword_leads`)."""
    head = " | all MRR | worst margin | vs BM25 (w/l, p) | vs keyword-leads (w/l, p) |"
    lines = ["| rule | " + " | ".join(sets) + head, "|---" * (len(sets) + 5) + "|"]
    everything = [p for phrasings in sets.values() for p in phrasings]
    bm25_all = leg_ranks(everything, "bm25")
    before = score(everything, keyword_leads)
    rows = [("dense alone", {n: leg_ranks(ps, "dense") for n, ps in sets.items()}, leg_ranks(everything, "dense"))]
    rows.append(("BM25 alone", {n: leg_ranks(ps, "bm25") for n, ps in sets.items()}, bm25_all))
    for name in names:
        rule = RULES[name]
        rows.append((name, {n: score(ps, rule) for n, ps in sets.items()}, score(everything, rule)))
    better_leg = {
        n: max(mean_reciprocal_rank(leg_ranks(ps, "bm25")), mean_reciprocal_rank(leg_ranks(ps, "dense")))
        for n, ps in sets.items()
    }
    for name, per_set, together in rows:
        margin = min(mean_reciprocal_rank(r) - better_leg[n] for n, r in per_set.items())
        cells = [
            f"{recall_at(r, 1):.3f}/{recall_at(r, 4):.3f}/{recall_at(r, 20):.3f}/{mean_reciprocal_rank(r):.3f}"
            for r in per_set.values()
        ]
        vs_bm25, vs_before = compare(together, bm25_all), compare(together, before)
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {mean_reciprocal_rank(together):.3f} | {margin:+.3f}"
            f" | {vs_bm25.wins}/{vs_bm25.losses}, {vs_bm25.p:.3f}"
            f" | {vs_before.wins}/{vs_before.losses}, {vs_before.p:.3f} |"
        )
    return "\n".join(lines)
