"""`python manage.py bench_search`: latency and HNSW recall of search at ~10k and ~100k chunks.

Runs in a throw-away database (never the library's own); see search/bench.py for how the
index is built. Prints a Markdown report to paste into BENCHMARKS.md.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection

from documents.models import Folder
from search import bench
from search.services.bm25 import BM25_SQL, bm25_params
from search.services.dense import DENSE_SQL, dense_params
from search.services.query_embedding import embed_query, vector_literal

SHARED = Path(settings.BASE_DIR).parent / "shared" / "corpus"
BENCH_DB = f"bench_search_{os.getpid()}"  # one scratch database per run


class Command(BaseCommand):
    help = "Build ~10k and ~100k chunk indexes in a scratch database and time dense, BM25 and hybrid search."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sizes", default="10000,100000", help="Target chunk counts, ascending.")
        parser.add_argument("--corpus", nargs="+", type=Path, default=[SHARED / "dev", SHARED / "holdout"])
        parser.add_argument("--questions", type=Path, default=SHARED / "dev-questions.jsonl")
        parser.add_argument("--rounds", type=int, default=3, help="Passes over the queries per mode.")
        parser.add_argument("--keep-db", action="store_true", help=f"Leave the {BENCH_DB} database behind.")

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = int(options["verbosity"])
        sizes = sorted(int(s) for s in options["sizes"].split(","))
        queries = [
            q
            for line in options["questions"].read_text().splitlines()
            if line.strip()
            for q in json.loads(line)["queries"]
        ]
        self.log(f"search benchmark · {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {machine()}")
        sources = bench.load_sources(options["corpus"], Path(settings.BASE_DIR) / "var" / "bench", self.log)
        per_copy = sum(len(s.chunks) for s in sources)
        self.log(f"source: {len(sources)} documents, {per_copy} chunks per copy; {len(queries)} queries")
        old_name = connection.settings_dict["NAME"]
        connection.settings_dict.setdefault("TEST", {})["NAME"] = BENCH_DB
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            self.run_sizes(sizes, sources, per_copy, queries, options["rounds"])
        finally:
            if not options["keep_db"]:
                connection.creation.destroy_test_db(old_name, verbosity=0)

    def run_sizes(self, sizes: list[int], sources: list[Any], per_copy: int, queries: list[str], rounds: int) -> None:
        folder = Folder.objects.create(name="Search benchmark")
        copies = 0
        for size in sizes:
            wanted = max(1, round(size / per_copy))
            started = time.perf_counter()
            ddl = bench.drop_search_indexes()
            inserted = bench.add_copies(folder, sources, copies, wanted - copies)
            loaded = time.perf_counter() - started
            index_seconds = bench.create_search_indexes(ddl)
            copies = wanted
            build = time.perf_counter() - started
            self.log(
                f"\n### {copies * per_copy} chunks ({copies} copies × {len(sources)} documents)\n"
                f"build: +{inserted} chunks loaded with stats in {loaded:.0f} s; indexes "
                + ", ".join(f"{name} {sec:.0f} s" for name, sec in index_seconds.items())
                + f"; total {build:.0f} s"
            )
            self.report(queries, [folder.pk], rounds)

    def report(self, queries: list[str], folder_ids: list[int], rounds: int) -> None:
        embed = bench.percentiles(bench.time_embedding(queries))
        samples = bench.time_searches(queries, folder_ids, rounds)
        self.log(f"query embedding (uncached, warm model): {fmt(embed)}")
        self.log("| mode | total p50 | p95 | p99 | dense leg p50/p95 | BM25 leg p50/p95 | names check p50/p95 "
                 "| hydrate p50 |")  # fmt: skip
        self.log("|---|---|---|---|---|---|---|---|")
        for mode, stages in samples.items():
            total = bench.percentiles(stages["total"])
            dense, bm25, names, hydrate = (bench.percentiles(stages[s]) for s in ("dense", "bm25", "names", "hydrate"))
            self.log(
                f"| {mode} | {total['p50']:.1f} ms | {total['p95']:.1f} | {total['p99']:.1f} "
                f"| {dense['p50']:.1f} / {dense['p95']:.1f} | {bm25['p50']:.1f} / {bm25['p95']:.1f} "
                f"| {names['p50']:.1f} / {names['p95']:.1f} | {hydrate['p50']:.1f} |"
            )
        self.log(
            f"HNSW recall@20 vs exact scan (ef_search={settings.HNSW_EF_SEARCH}): "
            f"{bench.hnsw_recall(queries, folder_ids):.3f}"
        )
        self.plans(queries[0], folder_ids)

    def plans(self, query: str, folder_ids: list[int]) -> None:
        vector = vector_literal(embed_query(query)[0])
        dense_plan = bench.explain(DENSE_SQL, dense_params(vector, folder_ids, 50), hnsw=True)
        bm25_plan = bench.explain(BM25_SQL, bm25_params(query, folder_ids, 50))
        self.log(
            f"dense plan uses HNSW: {'chunk_embedding_hnsw' in dense_plan}; "
            f"BM25 plan uses the postings index: {'chunk_lexeme_postings' in bm25_plan}"
        )
        if self.verbosity > 1:
            self.log(f"dense plan:\n{dense_plan}\nBM25 plan:\n{bm25_plan}")

    def log(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()


def fmt(p: dict[str, float]) -> str:
    return f"p50 {p['p50']:.1f} ms, p95 {p['p95']:.1f} ms, p99 {p['p99']:.1f} ms"


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{platform.machine()}, {os.cpu_count()} CPUs (nproc), {math.floor(memory)} GiB RAM, {platform.platform()}"
