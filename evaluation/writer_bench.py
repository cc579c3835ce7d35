"""`python -m evaluation.writer_bench`: the answer for one question with this checkout's extractive writer and
with the one of a git ref (default `main`), side by side in one run.

The dev corpus is indexed once into an eval folder (as `evaluate` indexes it: strategy E). Each dev
question's first phrasing is searched once as `/api/answer` searches it (hybrid, `passage_count()`
passages); then both writers write its answer from the same sources, alternating which goes first,
`--rounds` times, so a busy machine slows both alike. An answer's time is the search's plus the
writer's. The ref's writer is read with `git show` (citations/writers/extractive.py and prose.py)
into a temporary package; the rest of the code is this checkout's. The folder is removed at the end.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
BASELINE_PACKAGE = "baseline_writers"


def baseline_writer(ref: str, into: Path) -> Any:
    """The extractive writer class of git `ref`, loaded as a package of its own."""
    package = into / BASELINE_PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("extractive.py", "prose.py"):
        text = subprocess.run(
            ["git", "show", f"{ref}:citations/writers/{name}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
        text = text.replace("from citations.writers.prose import", f"from {BASELINE_PACKAGE}.prose import")
        (package / name).write_text(text)
    sys.path.insert(0, str(into))
    return importlib.import_module(f"{BASELINE_PACKAGE}.extractive").ExtractiveWriter


def timed(write: Any, question: str, sources: list[Any]) -> float:
    started = time.perf_counter()
    write(question, sources)
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.writer_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-ref", default="main")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=ROOT / "var" / "bench" / "writers.json")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")
    from ragsite.embedded import local_services_start

    local_services_start()
    import django

    django.setup()
    from citations.services.answer import answer_from_search, passage_count
    from citations.writers.extractive import ExtractiveWriter
    from evaluation.dataset import load_questions
    from evaluation.index import EmbeddingCache, create_folder, extract_corpus, populate, remove_folder
    from evaluation.runner import new_run_id
    from search.services.retrieval import retrieve

    with tempfile.TemporaryDirectory() as tmp:
        writers = {"baseline": baseline_writer(args.baseline_ref, Path(tmp))(), "current": ExtractiveWriter()}
        corpus = extract_corpus([CORPUS / "dev"])
        folder = create_folder(new_run_id(), "E")
        rows: list[dict[str, Any]] = []
        try:
            populate(folder, corpus, "E", EmbeddingCache())
            for question in load_questions(CORPUS / "dev-questions.jsonl"):
                text = question.queries[0]
                started = time.perf_counter()
                result = retrieve(query=text, folder_ids=[folder.pk], k=passage_count(), mode="hybrid")
                _answer, sources = answer_from_search(result)
                search_ms = (time.perf_counter() - started) * 1000
                if not sources:
                    continue
                times: dict[str, list[float]] = {name: [] for name in writers}
                for round_ in range(args.rounds):
                    names = list(writers) if round_ % 2 == 0 else list(reversed(writers))
                    for name in names:
                        times[name].append(timed(writers[name].write, text, sources))
                rows.append({"question": text, "search_ms": search_ms}
                            | {f"{n}_ms": statistics.median(t) for n, t in times.items()})  # fmt: skip
        finally:
            remove_folder(folder.pk)

    def answer_ms(name: str) -> float:
        return statistics.median(r["search_ms"] + r[f"{name}_ms"] for r in rows)

    summary = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {platform.processor() or platform.machine()} {os.cpu_count()} cores",
        "load_average": os.getloadavg(),
        "baseline_ref": args.baseline_ref,
        "questions": len(rows),
        "rounds": args.rounds,
        "median_search_ms": statistics.median(r["search_ms"] for r in rows),
        "median_writer_ms": {n: statistics.median(r[f"{n}_ms"] for r in rows) for n in writers},
        "median_answer_ms": {n: answer_ms(n) for n in writers},
        "total_answer_ms": {n: sum(r["search_ms"] + r[f"{n}_ms"] for r in rows) for n in writers},
    }
    summary["answer_ratio_median"] = summary["median_answer_ms"]["current"] / summary["median_answer_ms"]["baseline"]
    summary["answer_ratio_total"] = summary["total_answer_ms"]["current"] / summary["total_answer_ms"]["baseline"]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
