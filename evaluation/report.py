"""The run's results as a JSON payload (the contract), a Markdown report rendered from that
payload (so the two never disagree), and the gate-sweep plot."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings

from evaluation import gate
from evaluation.answers import summarise
from evaluation.comparisons import sign_tests
from evaluation.metrics import RECALL_KS, answered_at, leg_metrics
from evaluation.runner import LEGS, Evaluation, StrategyRun

Payload = dict[str, Any]
REPORTED_SETTINGS = (
    "CHUNK_TARGET_CHARS",
    "EMBEDDING_MODEL",
    "SEARCH_CANDIDATES_PER_LEG",
    "HNSW_EF_SEARCH",
    "SEARCH_DENSE_SHARE",
    "EMBEDDING_LANGUAGES",  # which questions and libraries that share applies to (search/services/fusion.py)
    "ANSWER_MAX_DISTANCE",
    "ANSWER_REFUSE_UNKNOWN_NAMES",
    "ANSWER_JARGON_MAX_ZIPF",
    "ANSWER_JARGON_LANGUAGE_LINES",
    "RERANKER",
    "RERANKER_MODEL",
    "RERANK_CANDIDATES",
    "RERANK_MIN_SCORE",
)


def build_payload(evaluation: Evaluation) -> Payload:
    strategies = list(evaluation.runs)
    cache = evaluation.cache
    return {
        "run_id": evaluation.run_id,
        "corpus": evaluation.corpus_dirs,
        "files": [f.path.name for f in evaluation.corpus.files],
        "skipped_files": [{"file": name, "reason": reason} for name, reason in evaluation.corpus.skipped],
        "questions": len(evaluation.questions),
        "queries": len(evaluation.queries),
        "ood_queries": len(evaluation.ood or []),
        "nearmiss_queries": len(evaluation.nearmiss or []),
        "settings": {name: getattr(settings, name, None) for name in REPORTED_SETTINGS},
        "lost_in_extraction": evaluation.lost_in_extraction,
        "strategies": {s: _strategy_payload(evaluation, run) for s, run in evaluation.runs.items()},
        "sign_tests": sign_tests({s: r.ranks for s, r in evaluation.runs.items()}, strategies),
        "timing_s": {
            "total": round(evaluation.seconds, 1),
            "extract": round(evaluation.corpus.seconds, 1),
            "embed": round(cache.seconds, 1),
            "texts_encoded": cache.encoded,
            "texts_reused": cache.reused,
        },
    }


def _strategy_payload(evaluation: Evaluation, run: StrategyRun) -> Payload:
    query_ids = [q.id for q in evaluation.queries]
    return {
        "chunks": run.stats.chunks,
        "destroyed": len(run.destroyed),
        "destroyed_ids": run.destroyed,
        "over_window": run.stats.over_window,
        "max_tokens": run.stats.max_tokens,
        "failed_documents": [{"file": name, "reason": reason} for name, reason in run.stats.failed],
        "legs": {leg: leg_metrics(run.ranks[leg]) for leg in LEGS},
        "by_kind": _by_kind(evaluation, run),
        "gate": _gate(evaluation, run),
        "answers": _answers(evaluation, run),
        "timing_s": {
            "index": round(run.stats.seconds, 1),
            "queries": round(run.query_seconds, 1),
            "cpu": round(run.cpu_seconds, 1),
        },
        # Per-query ranks let a later run be compared with this one, pair by pair.
        "ranks": {leg: dict(zip(query_ids, run.ranks[leg], strict=True)) for leg in LEGS},
    }


def _by_kind(evaluation: Evaluation, run: StrategyRun) -> Payload:
    kinds = sorted({q.question.kind for q in evaluation.queries})
    out: Payload = {}
    for kind in kinds:
        picks = [i for i, q in enumerate(evaluation.queries) if q.question.kind == kind]
        out[kind] = {}
        for leg in LEGS:
            metrics = leg_metrics([run.ranks[leg][i] for i in picks])
            metrics.pop("wilson")
            out[kind][leg] = metrics
    return out


def _gate(evaluation: Evaluation, run: StrategyRun) -> Payload:
    found = [answered_at(r, 20) for r in run.ranks["hybrid"]]
    # The gate as production applies it (decide(): distance, unknown names, missing terms, reader).
    rows = gate.sweep(run.in_evidence, run.ood_evidence, found)
    distance_only = gate.sweep(_distance_only(run.in_evidence), _distance_only(run.ood_evidence), found)
    # Best dense distance per query, to see which queries sit near the threshold.
    distances = {
        "in": {q.id: _round(d) for q, d in zip(evaluation.queries, run.in_distances, strict=True)},
        "ood": {q.id: _round(d) for q, d in zip(evaluation.ood or [], run.ood_distances, strict=True)},
    }
    unknown = {
        "in": {q.id: u for q, u in zip(evaluation.queries, run.in_unknown, strict=False) if u},
        "ood": {q.id: u for q, u in zip(evaluation.ood or [], run.ood_unknown, strict=False) if u},
    }
    payload: Payload = {"sweep": rows, "sweep_distance_only": distance_only, "distances": distances}
    payload["unknown_names"] = unknown
    payload.update(_states(evaluation, run))
    if evaluation.ood is None:
        return {**payload, "recommended": None, "reason": "no --ood file: bluffs were not measured"}
    recommended, reason = gate.recommend(rows)
    return {**payload, "recommended": recommended, "reason": reason}


def _distance_only(evidence: Sequence[gate.Evidence]) -> list[gate.Evidence]:
    return [gate.Evidence(e.best_distance, refuse_names=False) for e in evidence]


def _query_sets(evaluation: Evaluation, run: StrategyRun) -> dict[str, tuple[list[str], list[gate.Evidence]]]:
    sets = {"in": ([q.id for q in evaluation.queries], run.in_evidence)}
    if evaluation.ood is not None:
        sets["ood"] = ([q.id for q in evaluation.ood], run.ood_evidence)
    if evaluation.nearmiss is not None:
        sets["nearmiss"] = ([q.id for q in evaluation.nearmiss], run.nearmiss_evidence)
    return sets


def _states(evaluation: Evaluation, run: StrategyRun) -> Payload:
    """Each set's answered / caveat / refused counts at the production settings, per query, and the
    same counts for other jargon lines (the Zipf frequency below which an unmentioned word counts)."""
    threshold = settings.ANSWER_MAX_DISTANCE
    sets = _query_sets(evaluation, run)
    per_query = {
        name: {
            qid: {
                "state": gate.state(e, threshold).value,
                "distance": _round(e.best_distance),
                # [word, kind, Zipf, in a readable document, in the top passages]
                "words": [[c.term.text, c.term.kind, c.term.zipf, c.in_library, c.in_passages] for c in e.coverage],
                "rerank_score": e.rerank_score,
                "answer_type": e.answer_type,
                "unmet_answer_type": e.unmet_answer_type,
                "answer_type_sentence": e.answer_type_sentence,
            }
            for qid, e in zip(ids, evidence, strict=True)
        }
        for name, (ids, evidence) in sets.items()
    }
    return {
        "states": {name: gate.state_counts(evidence, threshold) for name, (_, evidence) in sets.items()},
        "states_per_query": per_query,
        "jargon_sweep": gate.jargon_sweep({name: evidence for name, (_, evidence) in sets.items()}, threshold),
        "rerank_sweep": gate.rerank_sweep({name: evidence for name, (_, evidence) in sets.items()}, threshold),
    }


def _answers(evaluation: Evaluation, run: StrategyRun) -> Payload:
    """Per set and answer state: fact shown, fact stated, non-prose quoted (evaluation/answers.py);
    and each query's answer."""
    sets = {"in": ([q.id for q in evaluation.queries], run.in_answers)}
    if evaluation.ood is not None:
        sets["ood"] = ([q.id for q in evaluation.ood], run.ood_answers)
    if evaluation.nearmiss is not None:
        sets["nearmiss"] = ([q.id for q in evaluation.nearmiss], run.nearmiss_answers)
    return {
        "per_state": {name: summarise(checks) for name, (_, checks) in sets.items()},
        "per_query": {
            name: {qid: check.payload() for qid, check in zip(ids, checks, strict=True)}
            for name, (ids, checks) in sets.items()
        },
    }


def _round(distance: float | None) -> float | None:
    return None if distance is None else round(distance, 4)


# --- Markdown ---------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{x:.3f}"


def _with_interval(leg: Payload, key: str) -> str:
    lo, hi = leg["wilson"][key]
    return f"{_pct(leg[key])} ({lo:.2f}–{hi:.2f})"


def render_markdown(payload: Payload, command: str = "") -> str:
    parts = [
        "# Retrieval evaluation",
        "",
        f"Run `{payload['run_id']}` over {len(payload['files'])} files in {', '.join(payload['corpus'])}: "
        f"{payload['questions']} questions, {payload['queries']} query phrasings, {payload['ood_queries']} "
        "out-of-domain queries. Top 20 per leg; a query is answered at k when one of the first k chunks' "
        "content holds the whole needle (NFKC, whitespace collapsed). Intervals are 95 % Wilson.",
        "",
    ]
    if command:
        parts += ["```", command, "```", ""]
    parts += _settings_section(payload)
    parts += _summary_section(payload)
    parts += _legs_section(payload)
    parts += _kinds_section(payload)
    parts += _sign_section(payload["sign_tests"])
    parts += _gate_section(payload)
    parts += _states_section(payload)
    parts += _answers_section(payload)
    parts += _timing_section(payload)
    return "\n".join(parts).rstrip() + "\n"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def _settings_section(payload: Payload) -> list[str]:
    lines = ["Settings: " + ", ".join(f"`{k}={v}`" for k, v in payload["settings"].items()), ""]
    if payload["skipped_files"]:
        lines += ["Skipped files: " + "; ".join(f"{s['file']} ({s['reason']})" for s in payload["skipped_files"]), ""]
    lost = payload["lost_in_extraction"]
    lines += [f"Needles absent from every extracted text (lost in extraction): {', '.join(lost) or 'none'}.", ""]
    return lines


def _summary_section(payload: Payload) -> list[str]:
    rows = []
    for name, s in payload["strategies"].items():
        h = s["legs"]["hybrid"]
        rows.append([name, s["chunks"], s["destroyed"], s["over_window"], s["max_tokens"], _pct(h["R@1"]),
                     _pct(h["R@4"]), _pct(h["R@20"]), _pct(h["MRR"]), s["gate"]["recommended"]])  # fmt: skip
    header = ["Strategy", "Chunks", "Destroyed", "Over window", "Max tokens", "Hybrid R@1", "R@4", "R@20", "MRR",
              "Gate threshold"]  # fmt: skip
    return ["## Summary (hybrid leg)", "", *_table(header, rows)]


def _legs_section(payload: Payload) -> list[str]:
    rows = []
    for name, s in payload["strategies"].items():
        for leg, m in s["legs"].items():
            rows.append([name, leg, *(_with_interval(m, f"R@{k}") for k in RECALL_KS), _pct(m["MRR"])])
    lines = ["## Per strategy and leg", "", *_table(["Strategy", "Leg", "R@1", "R@4", "R@8", "R@20", "MRR"], rows)]
    for name, s in payload["strategies"].items():
        if s["destroyed_ids"] or s["failed_documents"]:
            failed = "; ".join(f"{f['file']} ({f['reason']})" for f in s["failed_documents"])
            lines += [f"- {name}: destroyed {', '.join(s['destroyed_ids']) or 'none'}"
                      + (f"; failed documents: {failed}" if failed else "")]  # fmt: skip
    return [*lines, ""] if lines[-1] else lines


def _kinds_section(payload: Payload) -> list[str]:
    rows = []
    for name, s in payload["strategies"].items():
        for kind, legs in s["by_kind"].items():
            cells = [f"{_pct(legs[leg]['R@20'])} / {_pct(legs[leg]['MRR'])}" for leg in LEGS]
            rows.append([name, kind, legs["hybrid"]["n"], *cells, _pct(legs["hybrid"]["R@1"])])
    header = ["Strategy", "Kind", "n", *(f"{leg} R@20 / MRR" for leg in LEGS), "hybrid R@1"]
    return ["## By question kind", "", *_table(header, rows)]


def _sign_section(tests: list[Payload]) -> list[str]:
    rows = [[t["a"], t["b"], t["metric"], t["wins"], t["losses"], f"{t['p']:.3g}"] for t in tests]
    intro = ("Exact two-sided sign test on discordant query pairs: *wins* = queries a answers and b does not, "
             "*losses* the reverse.")  # fmt: skip
    return ["## Paired sign tests", "", intro, "", *_table(["a", "b", "metric", "wins", "losses", "p"], rows)]


def _gate_section(payload: Payload) -> list[str]:
    strategies = payload["strategies"]
    if not strategies:
        return []
    lines = ["## Gate sweep", "", "Per strategy: recommended threshold and why.", ""]
    lines += [f"- {name}: **{s['gate']['recommended']}** — {s['gate']['reason']}" for name, s in strategies.items()]
    lines += ["", "Refused at every threshold because they name something no chunk of the index mentions:", ""]
    lines += [_blocked_line(name, s["gate"]) for name, s in strategies.items()]
    lines += ["", "Cells: in-domain queries answered / OOD bluffs, the gate as production applies it (distance "
              "and unknown names); in brackets: answered queries whose needle is also in the hybrid top 20.",
              ""]  # fmt: skip
    first = next(iter(strategies.values()))
    rows = []
    for i, row in enumerate(first["gate"]["sweep"]):
        cells = []
        for s in strategies.values():
            r = s["gate"]["sweep"][i]
            cells.append(f"{r['in_answered']} / {r['ood_bluffs']} [{r.get('in_answered_found', '-')}]")
        rows.append([f"{row['threshold']:.3f}", *cells])
    n_in, n_ood = payload["queries"], payload["ood_queries"]
    header = ["Threshold", *(f"{name} (of {n_in} / {n_ood})" for name in strategies)]
    return [*lines, *_table(header, rows)]


def _states_section(payload: Payload) -> list[str]:
    rows = []
    for name, s in payload["strategies"].items():
        for set_name, counts in s["gate"].get("states", {}).items():
            total = sum(counts.values())
            cells = [f"{counts[k]} ({counts[k] / max(1, total):.0%})" for k in ("answered", "caveat", "refused")]
            rows.append([name, set_name, total, *cells])
    if not rows:
        return []
    intro = (f"At the production settings (threshold {payload['settings']['ANSWER_MAX_DISTANCE']}, jargon line "
             f"{payload['settings'].get('ANSWER_JARGON_MAX_ZIPF')}): how each set's queries end.")  # fmt: skip
    lines = ["## Answer states per set", "", intro, ""]
    lines += _table(["Strategy", "Set", "n", "answered", "caveat", "refused"], rows)
    for name, s in payload["strategies"].items():
        sweep = s["gate"].get("jargon_sweep", [])
        if not sweep:
            continue
        set_names = [k for k in sweep[0] if k != "line"]
        header = ["Zipf line", *(f"{n}: answered / caveat / refused" for n in set_names)]
        sweep_rows: list[list[object]] = []
        for r in sweep:
            counts = (r[n] for n in set_names)
            sweep_rows.append([r["line"], *(f"{c['answered']} / {c['caveat']} / {c['refused']}" for c in counts)])
        lines += [f"Jargon line sweep ({name}):", "", *_table(header, sweep_rows)]
        lines += _rerank_lines(name, s["gate"].get("rerank_sweep", []))
    return lines


def _answers_section(payload: Payload) -> list[str]:
    rows = []
    for name, s in payload["strategies"].items():
        for set_name, states in s.get("answers", {}).get("per_state", {}).items():
            for state, c in states.items():
                if c["n"]:
                    rows.append([name, set_name, state, c["n"], c["fact_shown"], c["fact_stated"],
                                 c["stated_where_shown"], c["non_prose"]])  # fmt: skip
    if not rows:
        return []
    intro = ("The extractive answer each shown query gets: *fact shown*, a shown source holds the needle; "
             "*fact stated*, the answer's text does (NFKC, whitespace collapsed, case folded, never across an "
             "ellipsis); *non-prose*, answers quoting a reference entry, acknowledgement, author line, caption, "
             "header, or sentences joined across a paragraph break.")  # fmt: skip
    header = ["Strategy", "Set", "State", "n", "fact shown", "fact stated", "stated where shown", "non-prose"]
    return ["## What the answers say", "", intro, "", *_table(header, rows)]


def _rerank_lines(name: str, sweep: list[Payload]) -> list[str]:
    """The reader's minimum score, swept (only when evaluate ran with a RERANKER)."""
    if not sweep:
        return []
    set_names = [k for k in sweep[0] if k != "min_score"]
    header = ["RERANK_MIN_SCORE", *(f"{n}: answered / caveat / refused" for n in set_names)]
    rows = [[r["min_score"], *(f"{r[n]['answered']} / {r[n]['caveat']} / {r[n]['refused']}" for n in set_names)]
            for r in sweep]  # fmt: skip
    return [f"Reader minimum score sweep ({name}):", "", *_table(header, rows)]


def _blocked_line(name: str, gate: Payload) -> str:
    unknown = gate.get("unknown_names", {"in": {}, "ood": {}})
    in_ids = ", ".join(f"{qid} ({'/'.join(names)})" for qid, names in unknown["in"].items()) or "none"
    ood_ids = ", ".join(f"{qid} ({'/'.join(names)})" for qid, names in unknown["ood"].items()) or "none"
    return f"- {name}: in-domain {len(unknown['in'])}: {in_ids}; OOD {len(unknown['ood'])}: {ood_ids}"


def _timing_section(payload: Payload) -> list[str]:
    t = payload["timing_s"]
    rows = [[name, s["chunks"], s["timing_s"]["index"], s["timing_s"]["queries"], s["timing_s"]["cpu"]]
            for name, s in payload["strategies"].items()]  # fmt: skip
    intro = (f"Total {t['total']} s; extraction {t['extract']} s (once); embedding {t['embed']} s for "
             f"{t['texts_encoded']} distinct texts ({t['texts_reused']} reused from earlier strategies).")  # fmt: skip
    return [
        "## Timing",
        "",
        intro,
        "",
        *_table(["Strategy", "Chunks", "Index s (wall)", "Queries s (wall)", "CPU s (process)"], rows),
    ]


# --- plot -------------------------------------------------------------------------------------


def plot_sweep(payload: Payload, path: Path) -> None:
    """In-domain answered rate (solid) and OOD bluff rate (dashed) per threshold, per strategy."""
    import matplotlib

    matplotlib.use("Agg")  # no display: the command may run on a server or in CI
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for name, s in payload["strategies"].items():
        rows = s["gate"]["sweep"]
        xs = [r["threshold"] for r in rows]
        n_in = max(1, rows[0]["in_answered"] + rows[0]["in_refused"])
        (line,) = ax.plot(xs, [r["in_answered"] / n_in for r in rows], label=f"{name} in-domain answered")
        if rows[0]["ood_total"]:
            ax.plot(xs, [r["ood_bluffs"] / r["ood_total"] for r in rows], linestyle="--", color=line.get_color(),
                    label=f"{name} OOD bluffs")  # fmt: skip
        if s["gate"]["recommended"] is not None:
            ax.axvline(s["gate"]["recommended"], color=line.get_color(), linestyle=":", linewidth=1)
    ax.axhline(gate.MAX_BLUFF_RATE, color="grey", linewidth=0.8)
    ax.set(xlabel="ANSWER_MAX_DISTANCE (cosine distance)", ylabel="share of queries", ylim=(-0.02, 1.02),
           title="Answer gate sweep: in-domain answered vs out-of-domain bluffs")  # fmt: skip
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
