"""`python -m bench.side_by_side DATABASE CHECKOUT [CHECKOUT ...]`: search latency of several
checkouts of this repository, timed alternately on one kept benchmark database.

A change to the query path is judged against the code before it on the same index, the same
server and the same minutes of machine load: each run is `manage.py bench_search --reuse-db
DATABASE --latency-only --skip-rerank` in one checkout, and the checkouts take turns, so a
burst of load elsewhere falls on all of them alike. DATABASE is one a `bench_search --keep-db`
run left. Every checkout reads this checkout's `var/` (the embedded PostgreSQL and the
benchmark's cache of extracted corpus files): a checkout without a `var/` gets a link to it.
Prints each run's hybrid p50 / p95 and, per checkout, the median of its runs' p95 and its
ratio to the first checkout's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CORPUS = HERE.parent / "shared" / "corpus"  # every checkout reads this checkout's corpus and questions


@dataclass
class Checkout:
    path: Path
    label: str
    p50: list[float] = field(default_factory=list)
    p95: list[float] = field(default_factory=list)


def share_var(checkout: Path) -> None:
    """`checkout/var` is this checkout's var/ (the same server and cache), linked when absent."""
    var = checkout / "var"
    if checkout.resolve() == HERE:
        return
    if not var.exists():
        var.symlink_to(HERE / "var")
    elif var.resolve() != (HERE / "var").resolve():
        sys.exit(f"{var} is not {HERE / 'var'}: remove it, or link it there, to share the kept database")


def label_of(checkout: Path) -> str:
    commit = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
    )
    return commit.stdout.strip()


def one_run(checkout: Checkout, database: str, rounds: int) -> tuple[float, float]:
    """Hybrid p50 and p95 (ms) of one `bench_search --reuse-db` run in `checkout`."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "figures.json"
        python = checkout.path / ".venv" / "bin" / "python"
        args = [str(python), "manage.py", "bench_search", "--reuse-db", database, "--latency-only",
                "--skip-rerank", "--rounds", str(rounds), "--json", str(out),
                "--corpus", str(CORPUS / "dev"), str(CORPUS / "holdout"),
                "--questions", str(CORPUS / "dev-questions.jsonl")]  # fmt: skip
        env = {**os.environ, "VAR_DIR": str((HERE / "var").resolve())}
        done = subprocess.run(args, cwd=checkout.path, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{checkout.label}: bench_search failed\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
        (figures,) = json.loads(out.read_text())["sizes"].values()
    return figures["hybrid"]["p50"], figures["hybrid"]["p95"]


def load_average() -> float:
    return os.getloadavg()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database", help="A database a `bench_search --keep-db` run left.")
    parser.add_argument("checkouts", nargs="+", type=Path, help="Checkouts of this repository; the first is the base.")
    parser.add_argument("--runs", type=int, default=5, help="Runs per checkout, taken in turns.")
    parser.add_argument("--rounds", type=int, default=3, help="Passes over the queries in each run.")
    options = parser.parse_args()
    checkouts = [Checkout(path=p.resolve(), label=label_of(p)) for p in options.checkouts]
    for checkout in checkouts:
        share_var(checkout.path)
    print("| run | checkout | load average | hybrid p50 ms | hybrid p95 ms |")
    print("|---|---|---|---|---|")
    for run in range(options.runs):
        # The order turns each run, so no checkout always runs first after a pause.
        shift = run % len(checkouts)
        for checkout in checkouts[shift:] + checkouts[:shift]:
            load = load_average()
            p50, p95 = one_run(checkout, options.database, options.rounds)
            checkout.p50.append(p50)
            checkout.p95.append(p95)
            print(f"| {run + 1} | {checkout.label} | {load:.1f} | {p50:.1f} | {p95:.1f} |", flush=True)
    base = statistics.median(checkouts[0].p95)
    print(f"\nmedians of {options.runs} runs each, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC:")
    print("| checkout | hybrid p50 ms | hybrid p95 ms (range) | p95 ÷ first |")
    print("|---|---|---|---|")
    for checkout in checkouts:
        p95 = statistics.median(checkout.p95)
        spread = f"{min(checkout.p95):.1f}–{max(checkout.p95):.1f}"
        print(f"| {checkout.label} | {statistics.median(checkout.p50):.1f} | {p95:.1f} ({spread}) | {p95 / base:.2f} |")


if __name__ == "__main__":
    main()
