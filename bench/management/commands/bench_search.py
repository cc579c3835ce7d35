"""`python manage.py bench_search`: latency and HNSW recall of search at ~10k and ~100k chunks.

Runs in a throw-away database (never the library's own). By default the index holds distinct
synthetic passages made of real sentences (bench/synthetic.py says why that is
realistic); `--source copies` loads copies of the corpus instead (bench/searches.py). Prints a
Markdown report to paste into BENCHMARKS.md; `--json OUT` also writes the figures as JSON.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from django.db.models import Sum

from bench import filtered, halfvec, lexical, searches, synthetic
from documents import bulk_indexes
from documents.lexical.reads import PACKED_SQL
from documents.models import Folder
from ragsite.embedded import var_dir
from search.services.bm25_packed import READ_IN_INDEX_ORDER
from search.services.dense import DENSE_SQL, dense_params
from search.services.query_embedding import embed_query, vector_literal
from search.services.question_reading import question_reading
from search.services.side_leg import close_side_connections

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
        parser.add_argument(
            "--reuse-db",
            metavar="NAME",
            help="Time searches on a database a --keep-db run left (no build, not dropped).",
        )
        parser.add_argument("--source", choices=("synthetic", "copies"), default="synthetic")
        parser.add_argument("--files", type=int, help="Use only the first N corpus files (by path).")
        parser.add_argument("--json", type=Path, help="Write the figures per size to this JSON file.")
        parser.add_argument(
            "--halfvec", action="store_true", help="Also build a halfvec HNSW index and compare it with the default."
        )
        parser.add_argument("--skip-rerank", action="store_true", help="Do not time the reader stage (~2 s a search).")
        parser.add_argument(
            "--latency-only",
            action="store_true",
            help="Time `retrieve` only: no lexical-leg, recall, storage or plan passes (re-timing a kept database).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = int(options["verbosity"])
        self.halfvec, self.skip_rerank = options["halfvec"], options["skip_rerank"]
        self.latency_only = options["latency_only"]
        sizes = sorted(int(s) for s in options["sizes"].split(","))
        queries = [
            q
            for line in options["questions"].read_text().splitlines()
            if line.strip()
            for q in json.loads(line)["queries"]
        ]
        self.log(f"search benchmark · {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {machine()}")
        sources = searches.load_sources(
            options["corpus"], Path(settings.BASE_DIR) / "var" / "bench", self.log, options["files"]
        )
        per_copy = sum(len(s.chunks) for s in sources)
        self.log(f"source: {len(sources)} documents, {per_copy} chunks per copy; {len(queries)} queries")
        self.figures: dict[str, Any] = {"machine": machine(), "started": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"}
        self.figures["source"], self.figures["sizes"] = options["source"], {}
        if options["reuse_db"]:
            self.rerun(options["reuse_db"], queries, options["rounds"], options["json"])
            return
        old_name = connection.settings_dict["NAME"]
        connection.settings_dict.setdefault("TEST", {})["NAME"] = BENCH_DB
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            if options["source"] == "synthetic":
                self.run_synthetic(sizes, sources, queries, options["rounds"])
            else:
                self.run_sizes(sizes, sources, per_copy, queries, options["rounds"])
            if options["json"]:
                options["json"].write_text(json.dumps(self.figures, indent=2) + "\n")
        finally:
            close_side_connections()  # the BM25 legs' pooled connections to the scratch database
            if not options["keep_db"]:
                connection.creation.destroy_test_db(old_name, verbosity=0)

    def rerun(self, name: str, queries: list[str], rounds: int, json_path: Path | None) -> None:
        """The search figures again on a kept benchmark database, e.g. after a change to the query path."""
        connection.close()
        connection.settings_dict["NAME"] = name
        folder = Folder.objects.get(name="Search benchmark")
        size = folder.documents.aggregate(chunks=Sum("chunk_count"))["chunks"] or 0
        self.log(f"\n### {size} chunks in {name} (kept by an earlier run; not rebuilt)")
        self.figures["sizes"][str(size)] = self.report(queries, [folder.pk], rounds)
        if json_path:
            json_path.write_text(json.dumps(self.figures, indent=2) + "\n")

    def run_sizes(self, sizes: list[int], sources: list[Any], per_copy: int, queries: list[str], rounds: int) -> None:
        folder = Folder.objects.create(name="Search benchmark")
        copies = 0
        for size in sizes:
            wanted = max(1, round(size / per_copy))
            started = time.perf_counter()
            ddl = bulk_indexes.drop_search_indexes()
            inserted = searches.add_copies(folder, sources, copies, wanted - copies)
            loaded = time.perf_counter() - started
            index_seconds = bulk_indexes.create_search_indexes(ddl)
            copies = wanted
            build = time.perf_counter() - started
            title = f"{copies * per_copy} chunks ({copies} copies × {len(sources)} documents)"
            self.log_build(title, f"+{inserted} chunks loaded with stats in {loaded:.0f} s", index_seconds, build)
            self.figures["sizes"][str(copies * per_copy)] = {"build_seconds": round(build, 1)} | self.report(
                queries, [folder.pk], rounds
            )

    def run_synthetic(self, sizes: list[int], sources: list[Any], queries: list[str], rounds: int) -> None:
        bank = synthetic.build_bank(sources, Path(settings.BASE_DIR) / "var" / "bench", self.log)
        fidelity = synthetic.mean_vector_fidelity(sources, bank)
        self.figures["mean_vector_fidelity"] = fidelity
        self.log(
            f"sentences: {len(bank.vectors)} distinct; mean-of-sentences vs real chunk vector, cosine over "
            f"{fidelity['chunks']} real chunks: mean {fidelity['mean']:.3f}, p5 {fidelity['p5']:.3f}, "
            f"p50 {fidelity['p50']:.3f} (random real chunk pairs: {fidelity['random_pairs_mean']:.3f})"
        )
        folder = Folder.objects.create(name="Search benchmark")
        seen: set[str] = set()
        rng = random.Random(11)
        loaded_total = 0
        for size in sizes:
            started = time.perf_counter()
            ddl = bulk_indexes.drop_search_indexes()
            loaded_total += synthetic.add_passages(folder, bank, size - loaded_total, seen, rng)
            loaded = time.perf_counter() - started
            index_seconds = bulk_indexes.create_search_indexes(ddl)
            build = time.perf_counter() - started
            loading = f"loaded with stats in {loaded:.0f} s"
            self.log_build(f"{loaded_total} distinct synthetic chunks", loading, index_seconds, build)
            figures: dict[str, Any] = {"build_seconds": round(build, 1)}
            figures |= {"index_seconds": {k: round(v, 1) for k, v in index_seconds.items()}}
            self.figures["sizes"][str(loaded_total)] = figures | self.report(queries, [folder.pk], rounds)

    def log_build(self, title: str, loading: str, index_seconds: dict[str, float], build: float) -> None:
        indexes = ", ".join(f"{name} {sec:.0f} s" for name, sec in index_seconds.items())
        self.log(f"\n### {title}\nbuild: {loading}; indexes {indexes}; total {build:.0f} s")

    def report(self, queries: list[str], folder_ids: list[int], rounds: int) -> dict[str, Any]:
        figures = self.report_latency(queries, folder_ids, rounds)
        if self.latency_only:
            return figures
        figures |= self.report_lexical(queries, folder_ids, rounds)
        figures["filtered"] = self.report_filtered(queries, folder_ids, rounds)
        figures["storage_mb"], figures["postgres"] = storage_mb(), postgres_settings()
        self.log("sizes (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in figures["storage_mb"].items()))
        self.log("PostgreSQL: " + ", ".join(f"{k}={v}" for k, v in figures["postgres"].items()))
        self.plans(queries[0], folder_ids)
        if self.halfvec:
            figures["halfvec"] = self.report_halfvec(queries, folder_ids)
        return figures

    def report_halfvec(self, queries: list[str], folder_ids: list[int]) -> dict[str, Any]:
        half = halfvec.compare(queries, folder_ids)
        self.log(
            f"halfvec HNSW index: built in {half['build_seconds']:.0f} s, {half['halfvec_mb']:.0f} MB "
            f"(vector index {half['vector_mb']:.0f} MB); plan uses it: {half['plan_uses_index']}"
        )
        self.log("| ef_search | vector recall@20 | vector p50 / p95 ms | halfvec recall@20 | halfvec p50 / p95 ms |")
        self.log("|---|---|---|---|---|")
        for ef, full in half["vector"].items():
            low = half["halfvec"][ef]
            self.log(
                f"| {ef} | {full['recall@20']:.3f} | {full['ms']['p50']:.1f} / {full['ms']['p95']:.1f} "
                f"| {low['recall@20']:.3f} | {low['ms']['p50']:.1f} / {low['ms']['p95']:.1f} |"
            )
        return half

    def report_lexical(self, queries: list[str], folder_ids: list[int], rounds: int) -> dict[str, Any]:
        legs = lexical.lexical_legs(queries, folder_ids, rounds)
        self.log("lexical legs alone (one call each, k = candidates per leg):")
        for name, p in legs["legs"].items():
            self.log(f"  {name}: {fmt(p)}")
        self.log(
            f"BM25 leg = reference from the chunks' lexemes on all {legs['bm25_checked']} queries: "
            f"{legs['bm25_exact']} (reference {fmt(legs['reference_ms'])})"
        )
        recall = lexical.hnsw_recall_by_ef(queries, folder_ids)
        for ef, r in recall.items():
            timing = f"p50 {r['ms']['p50']:.1f} ms, p95 {r['ms']['p95']:.1f} ms"
            self.log(f"HNSW recall@20 vs exact scan at ef_search {ef}: {r['recall']:.3f}, within the exact 20th "
                     f"distance {r['within_distance']:.3f}, mended with the lexical candidates {r['mended']:.3f} "
                     f"({timing})")  # fmt: skip
        return {
            "bm25_exact": legs["bm25_exact"],
            "bm25_checked": legs["bm25_checked"],
            "lexical_legs": legs["legs"],
            "hnsw_recall@20": {ef: r["recall"] for ef, r in recall.items()},
            "hnsw_within_distance@20": {ef: r["within_distance"] for ef, r in recall.items()},
            "dense_mended_recall@20": {ef: r["mended"] for ef, r in recall.items()},
            "hnsw_ms": {ef: r["ms"] for ef, r in recall.items()},
        }

    def report_filtered(self, queries: list[str], folder_ids: list[int], rounds: int) -> dict[str, Any]:
        figures = filtered.time_filtered(queries, folder_ids, rounds)
        unfiltered = figures["cases"]["none"]["search"]["p95"]
        self.log("filtered searches (scope + hybrid retrieve; facets apart), ms:")
        self.log("| filter | documents allowed | search p50 / p95 | p95 ÷ unfiltered | facets p50 / p95 | with hits |")
        self.log("|---|---|---|---|---|---|")
        for case, f in figures["cases"].items():
            documents = "all" if f["allowed_documents"] < 0 else str(f["allowed_documents"])
            self.log(
                f"| {case} | {documents} | {f['search']['p50']:.1f} / {f['search']['p95']:.1f} "
                f"| {f['search']['p95'] / unfiltered:.2f} | {f['facets']['p50']:.1f} / {f['facets']['p95']:.1f} "
                f"| {f['searches_with_hits']:.0%} |"
            )
        self.log("stages of the filtered searches, p50 / p95 ms:")
        for case, f in figures["cases"].items():
            self.log(f"  {case}: " + ", ".join(f"{k} {v['p50']:.1f} / {v['p95']:.1f}" for k, v in f["stages"].items()))
        return figures

    def report_latency(self, queries: list[str], folder_ids: list[int], rounds: int) -> dict[str, Any]:
        embed = searches.percentiles(searches.time_embedding(queries))
        samples = searches.time_searches(queries, folder_ids, rounds)
        self.log(f"query embedding (uncached, warm model): {fmt(embed)}")
        self.log("| mode | total p50 | p95 | p99 | dense leg p50/p95 | BM25 leg p50/p95 | candidates' distances "
                 "p50/p95 | mend p50/p95 | coverage check p50/p95 | hydrate p50 |")  # fmt: skip
        self.log("|---|---|---|---|---|---|---|---|---|---|")
        for mode, stages in samples.items():
            total = searches.percentiles(stages["total"])
            cells = [searches.percentiles(stages[s]) for s in ("dense", "bm25", "distances", "mend", "terms")]
            self.log(
                f"| {mode} | {total['p50']:.1f} ms | {total['p95']:.1f} | {total['p99']:.1f} | "
                + " | ".join(f"{p['p50']:.1f} / {p['p95']:.1f}" for p in cells)
                + f" | {searches.percentiles(stages['hydrate'])['p50']:.1f} |"
            )
        hybrid = samples["hybrid"]
        figures: dict[str, Any] = {}
        if not self.skip_rerank:
            rerank = searches.percentiles(searches.time_rerank(queries, folder_ids, searches.rerank_standin(var_dir())))
            figures["rerank"] = rerank
            self.log(
                f"reader stage (MiniLM-L6-sized cross-encoder over {settings.RERANK_CANDIDATES} passages): "
                f"{fmt(rerank)}"
            )
        return figures | {
            "dense": searches.percentiles(hybrid["dense"]),
            "bm25": searches.percentiles(hybrid["bm25"]),
            "distances": searches.percentiles(hybrid["distances"]),
            "mend": searches.percentiles(hybrid["mend"]),
            "fusion_hydration": searches.percentiles(
                [f + h for f, h in zip(hybrid["fuse"], hybrid["hydrate"], strict=True)]
            ),
            "hybrid": searches.percentiles(hybrid["total"]),
            "hybrid_sequential": searches.percentiles(samples["hybrid_sequential"]["total"]),
            "embed": embed,
            "modes": {
                mode: {stage: searches.percentiles(v) for stage, v in st.items()} for mode, st in samples.items()
            },
        }

    def plans(self, query: str, folder_ids: list[int]) -> None:
        vector = vector_literal(embed_query(query)[0])
        dense_plan = searches.explain(DENSE_SQL, dense_params(vector, folder_ids, 50), hnsw=True)
        configs = question_reading(query, folder_ids).configs
        bm25_plan = searches.explain(
            PACKED_SQL, {"query": query, "folders": folder_ids, "configs": configs}, setup=READ_IN_INDEX_ORDER
        )
        self.log(
            f"dense plan uses HNSW: {'chunk_embedding_hnsw' in dense_plan}; "
            f"BM25 plan uses the packed rows' index: {'lexeme_block_unique' in bm25_plan}"
        )
        if self.verbosity > 1:
            self.log(f"dense plan:\n{dense_plan}\nBM25 plan:\n{bm25_plan}")

    def log(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()


def storage_mb() -> dict[str, float]:
    """Size of every table (with its TOAST) and every index of the library, and their total."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, CASE WHEN c.relkind = 'r' THEN pg_table_size(c.oid) ELSE pg_relation_size(c.oid) END
                 FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i', 'm')"""
        )
        sizes = {name: round(size / 2**20, 1) for name, size in sorted(cursor.fetchall())}
    return {name: mb for name, mb in sizes.items() if mb >= 1.0} | {"total": round(sum(sizes.values()), 1)}


def postgres_settings() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s) ORDER BY name",
            [
                [
                    "shared_buffers",
                    "work_mem",
                    "effective_cache_size",
                    "maintenance_work_mem",
                    "max_parallel_workers_per_gather",
                ]
            ],
        )
        return dict(cursor.fetchall())


def fmt(p: dict[str, float]) -> str:
    return f"p50 {p['p50']:.1f} ms, p95 {p['p95']:.1f} ms, p99 {p['p99']:.1f} ms"


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{platform.machine()}, {os.cpu_count()} CPUs (nproc), {math.floor(memory)} GiB RAM, {platform.platform()}"
