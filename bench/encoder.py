"""`make bench-encoder`: the encoder in float32 and under bfloat16 autocast, side by side in one run.

What the product embeds, timed both ways on the same texts, alternating, so a busy machine slows
both alike: chunk-sized windows of the dev papers (ingestion), pools of 26 sentences in batches of
the extractive writer's size (an answer) and the dev questions one at a time (a search). It also
reports how far the two vectors of a text are apart (1 - cosine, the largest) and how far a
question's similarity to a chunk moves. The product runs bfloat16 only where the CPU has it in
hardware (documents.embedding.encoder_precision); on another CPU this compares an emulation.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
WORDS_PER_CHUNK = 180
POOL_SIZE, POOLS = 26, 12


def corpus_texts() -> tuple[list[str], list[list[str]], list[str]]:
    """Chunk-sized windows, sentence pools and questions from the dev corpus."""
    import pymupdf

    from citations.writers.extractive import sentences, usable

    chunks: list[str] = []
    found: list[str] = []
    for path in sorted((CORPUS / "dev").glob("*.pdf")):
        with pymupdf.open(path) as pdf:
            pages = [page.get_text() for page in pdf]
        words = " ".join(pages).split()
        chunks.extend(" ".join(words[i : i + WORDS_PER_CHUNK]) for i in range(0, len(words), WORDS_PER_CHUNK))
        found.extend(s for page in pages for s in sentences(page) if usable(s))
    rng = random.Random(7)
    pools = [rng.sample(found, POOL_SIZE) for _ in range(POOLS)]
    lines = (CORPUS / "dev-questions.jsonl").read_text().splitlines()
    questions = [q for line in lines if line.strip() for q in json.loads(line)["queries"]]
    return rng.sample(chunks, min(len(chunks), 160)), pools, questions


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def bench(rounds: int) -> str:
    import numpy as np
    import torch

    from citations.writers.extractive import SENTENCE_BATCH
    from documents.embedding import bf16_in_hardware, encoder_precision, get_model

    model = get_model()

    def encode(texts: list[str], batch: int, bf16: bool) -> Any:
        with encoder_precision(bf16):
            return model.encode(texts, batch_size=batch, normalize_embeddings=True, show_progress_bar=False)

    chunks, pools, questions = corpus_texts()
    for bf16 in (False, True):  # first runs set up each precision's kernels
        encode(chunks[:8], 32, bf16)
    seconds: dict[str, dict[bool, list[float]]] = {k: {False: [], True: []} for k in ("chunks", "pool", "question")}
    vectors: dict[bool, Any] = {}
    for _ in range(rounds):
        for bf16 in (False, True):
            elapsed, vectors[bf16] = timed(partial(encode, chunks, 32, bf16))
            seconds["chunks"][bf16].append(elapsed)
        for pool in pools:
            for bf16 in (False, True):
                seconds["pool"][bf16].append(timed(partial(encode, pool, SENTENCE_BATCH, bf16))[0])
        for question in questions[:20]:
            for bf16 in (False, True):
                seconds["question"][bf16].append(timed(partial(encode, [question], 1, bf16))[0])
    q32, q16 = encode(questions, 32, False), encode(questions, 32, True)
    drift = float(np.abs(q16 @ vectors[True].T - q32 @ vectors[False].T).max())
    apart = float((1 - (vectors[True] * vectors[False]).sum(axis=1)).max())
    rate = {b: len(chunks) / statistics.median(seconds["chunks"][b]) for b in (False, True)}
    pool_ms = {b: 1000 * statistics.median(seconds["pool"][b]) for b in (False, True)}
    one = {b: 1000 * statistics.median(seconds["question"][b]) for b in (False, True)}
    return "\n".join([
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, bf16 in hardware: {bf16_in_hardware()}",
        f"chunks ({len(chunks)} windows of {WORDS_PER_CHUNK} words, batch 32): float32 {rate[False]:.1f}/s, "
        f"bfloat16 {rate[True]:.1f}/s ({rate[True] / rate[False]:.2f}x)",
        f"sentence pool ({POOL_SIZE} sentences, batch {SENTENCE_BATCH}), median: float32 {pool_ms[False]:.0f} ms, "
        f"bfloat16 {pool_ms[True]:.0f} ms ({pool_ms[False] / pool_ms[True]:.2f}x)",
        f"one question, median: float32 {one[False]:.1f} ms, bfloat16 {one[True]:.1f} ms",
        f"largest 1 - cosine between a chunk's two vectors: {apart:.1e}; "
        f"largest change of a question-chunk similarity: {drift:.1e}",
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.encoder", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")
    os.environ.setdefault("DATABASE_URL", "postgres://unused@localhost/unused")  # no database is read
    django.setup()
    print(bench(args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
