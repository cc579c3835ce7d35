"""The encoder under bfloat16 autocast (documents.embedding.encoder_precision) makes the float32
model's vectors, to within a cosine of 1e-4, on real text: chunks of the dev papers, single
sentences and the dev questions. The oracle is the model called directly, in float32.

The check that matters for search: a question's similarity to a chunk moves by less than
`SCORE_DRIFT` whichever precision made the two vectors, so the chunk a dev question finds nearest
is the same chunk unless the float32 model itself puts the next one within that drift of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from documents import embedding
from documents.embedding import embed_queries, embed_texts, get_model
from tests.corpus import DEV_DIR, dev_questions, require_corpus

# Loads the encoder in float32 beside the product's and embeds corpus text with both (~45 s).
pytestmark = [pytest.mark.corpus, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ["dynamo-amazon-2007.pdf", "raft-consensus-2014.pdf", "bitcoin-nakamoto-2008.pdf"]
WORDS_PER_CHUNK = 180  # about the chunker's window of 256 word-pieces
SCORE_DRIFT = 0.005  # largest change of a question-chunk cosine allowed


def float32_vectors(texts: list[str]) -> np.ndarray:
    """The oracle: the model itself, no autocast."""
    vectors = get_model().encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)))


@pytest.fixture(scope="module")
def chunks() -> list[str]:
    import pymupdf

    require_corpus()
    found: list[str] = []
    for name in PAPERS:
        with pymupdf.open(DEV_DIR / name) as pdf:
            words = " ".join(page.get_text() for page in pdf).split()
        found.extend(" ".join(words[i : i + WORDS_PER_CHUNK]) for i in range(0, len(words), WORDS_PER_CHUNK))
    return found


@pytest.fixture(scope="module")
def questions() -> list[str]:
    return [q for item in dev_questions() for q in item["queries"]]


@pytest.fixture(scope="module")
def vectors(chunks: list[str], questions: list[str]) -> dict[str, np.ndarray]:
    """Each text embedded once each way: as the product does and by the float32 oracle."""
    return {
        "chunks": embed_texts(chunks), "chunks32": float32_vectors(chunks),
        "questions": embed_queries(questions), "questions32": float32_vectors(questions),
    }  # fmt: skip


def test_chunk_and_question_vectors_are_the_float32_models(chunks: list[str], vectors: dict[str, Any]) -> None:
    assert len(chunks) > 100
    assert row_cosines(vectors["chunks"], vectors["chunks32"]).min() > 1 - 1e-4
    assert row_cosines(vectors["questions"], vectors["questions32"]).min() > 1 - 1e-4
    sentences = [s.strip() + "." for c in chunks[:10] for s in c.split(". ") if len(s.split()) > 3]
    assert row_cosines(embed_texts(sentences, batch_size=8), float32_vectors(sentences)).min() > 1 - 1e-4


def test_each_question_finds_the_same_nearest_chunk(questions: list[str], vectors: dict[str, Any]) -> None:
    fast = vectors["questions"] @ vectors["chunks"].T
    exact = vectors["questions32"] @ vectors["chunks32"].T
    assert np.abs(fast - exact).max() < SCORE_DRIFT
    first, second = np.sort(exact, axis=1)[:, -1], np.sort(exact, axis=1)[:, -2]
    clear = first - second > SCORE_DRIFT  # a lead the drift cannot undo
    assert clear.sum() > len(questions) // 2
    assert (fast.argmax(axis=1) == exact.argmax(axis=1))[clear].all()


def test_bfloat16_runs_where_the_cpu_has_it(vectors: dict[str, Any]) -> None:
    if not embedding.bf16_in_hardware():
        pytest.skip("this CPU has no AVX-512 BF16: the encoder runs in float32 (the next test)")
    # Under autocast the vectors are close to the float32 ones but not equal to them: the path is taken.
    assert not np.array_equal(vectors["chunks"], vectors["chunks32"])


def test_without_bf16_in_hardware_the_vectors_are_float32s(chunks: list[str], monkeypatch: Any) -> None:
    monkeypatch.setattr(embedding, "bf16_in_hardware", lambda: False)
    texts = chunks[:8]
    assert np.array_equal(embed_texts(texts, batch_size=32), float32_vectors(texts))


def test_an_openmp_thread_limit_set_before_torch_starts_leaves_the_vectors_right(
    chunks: list[str], vectors: dict[str, Any]
) -> None:
    """A process started with OMP_THREAD_LIMIT=1 (an operator's setting, or any library setting it
    before torch loads): torch's threads follow the limit, so every product is computed whole."""
    script = (
        "import json, os, sys, django; django.setup();"
        "from documents.embedding import embed_texts;"
        "print(json.dumps(embed_texts(json.loads(sys.stdin.read())).tolist()))"
    )
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "DJANGO_SETTINGS_MODULE": "ragsite.settings",
           "DATABASE_URL": "postgres://unused@localhost/unused"}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(chunks[:40]), env=env,
                          capture_output=True, text=True, check=True, cwd=ROOT, timeout=300)  # fmt: skip
    limited = np.asarray(json.loads(done.stdout.strip().splitlines()[-1]), dtype=np.float32)
    assert row_cosines(limited, vectors["chunks32"][:40]).min() > 1 - 1e-4


def test_the_precision_can_be_forced_either_way_and_otherwise_follows_the_hardware() -> None:
    import torch

    assert isinstance(embedding.encoder_precision(True), torch.autocast)
    assert not isinstance(embedding.encoder_precision(False), torch.autocast)
    hardware = embedding.bf16_in_hardware()
    assert isinstance(embedding.encoder_precision(), torch.autocast) is hardware
