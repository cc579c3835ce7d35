"""The compiled inner loop of the packed BM25 leg against the same sums written in numpy.

Pure tests (no database): random packed rows, compact and wide, decoded and weighed in numpy
the way the leg did before the loop was compiled, then summed per slot with bincount. The
loop must give the same totals, and importing the leg must not import numba.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from documents.lexical.blocks import BLOCK_BITS, COMPACT_RECORD, WIDE_RECORD, postings_decode
from documents.lexical.index import K1, B
from search.services.bm25_kernel import add_compact_terms, add_decoded_terms


def random_rows(rng: np.random.Generator, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(first slots, counts, offsets, tfs, dls) of `rows` rows of sorted distinct offsets."""
    counts = rng.integers(1, 400, size=rows)
    offsets = np.concatenate([np.sort(rng.choice(1 << BLOCK_BITS, size=c, replace=False)) for c in counts])
    tfs = rng.integers(1, 256, size=offsets.size)
    tfs[rng.random(offsets.size) < 0.7] = 1  # most postings occur once
    lengths = rng.integers(1, 4096, size=offsets.size)
    return counts, offsets, tfs, lengths


def numpy_totals(
    slots: np.ndarray, tfs: np.ndarray, lengths: np.ndarray, scale: float, avgdl: float, size: int
) -> np.ndarray:
    tf = tfs.astype(np.float64)
    weight = lengths * (K1 * B / avgdl) + K1 * (1 - B) + tf
    return np.bincount(slots, weights=tf / weight * scale, minlength=size)


def test_compact_records_sum_as_numpy_sums_them() -> None:
    rng = np.random.default_rng(11)
    counts, offsets, tfs, lengths = random_rows(rng, 60)
    records = (offsets.astype(np.uint32) << 20) | (tfs.astype(np.uint32) << 12) | lengths.astype(np.uint32)
    data = records.astype(COMPACT_RECORD).tobytes()
    first_slots = rng.permutation(60).astype(np.int64) << BLOCK_BITS  # rows of blocks in any order
    size = 60 << BLOCK_BITS
    totals = np.zeros(size)
    for scale, avgdl in ((4.4, 180.0), (0.37, 12.5)):  # two lexemes into the same totals
        add_compact_terms(
            totals, np.frombuffer(data, dtype="<u4"), first_slots, counts, scale, K1 * (1 - B), K1 * B / avgdl
        )
    decoded = postings_decode(data, counts, counts * COMPACT_RECORD.itemsize)
    assert np.array_equal(decoded[0], offsets)
    slots = np.repeat(first_slots, counts) + offsets
    want = numpy_totals(slots, tfs, lengths, 4.4, 180.0, size) + numpy_totals(slots, tfs, lengths, 0.37, 12.5, size)
    np.testing.assert_allclose(totals, want, rtol=1e-12, atol=0)
    assert np.count_nonzero(totals) == offsets.size


def test_wide_records_sum_as_numpy_sums_them() -> None:
    rng = np.random.default_rng(5)
    counts, offsets, tfs, lengths = random_rows(rng, 3)
    lengths[::7] = 70_000  # a chunk too long for 12 bits: why a block keeps wide records
    wide = np.zeros(offsets.size, dtype=WIDE_RECORD)
    wide["offset"], wide["tf"], wide["dl"] = offsets, tfs, lengths
    data = wide.tobytes()
    offset, tf, dl = postings_decode(data, counts, counts * WIDE_RECORD.itemsize)
    slots = np.repeat(np.array([0, 2, 1], dtype=np.int64) << BLOCK_BITS, counts) + offset
    totals = np.zeros(3 << BLOCK_BITS)
    add_decoded_terms(totals, slots, tf, dl, 2.5, K1 * (1 - B), K1 * B / 95.0)
    np.testing.assert_allclose(
        totals, numpy_totals(slots, tfs, lengths, 2.5, 95.0, 3 << BLOCK_BITS), rtol=1e-12, atol=0
    )


def test_importing_the_leg_compiles_and_imports_nothing_heavy() -> None:
    code = (
        "import sys, django; django.setup(); import search.services.bm25_packed, search.services.retrieval; "
        "assert 'numba' not in sys.modules, 'numba imported'"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "ragsite.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_warming_compiles_both_loops_for_the_types_searches_pass() -> None:
    from search.services import bm25_kernel
    from search.services.bm25_packed import kernel_warm

    kernel_warm()
    for loop in (bm25_kernel.add_compact_terms, bm25_kernel.add_decoded_terms):
        assert loop.signatures, loop  # compiled once, by the warm-up, for search's argument types
    assert any(not sig[1].mutable for sig in bm25_kernel.add_compact_terms.signatures)  # bytes: read-only
