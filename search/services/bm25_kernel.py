"""The packed BM25 leg's inner loop, compiled: decode, weigh and sum each posting in one pass.

In numpy the same work takes about ten passes over a question's postings (decode the records,
expand the block of each, weigh, bincount): ~20 ms for the million postings of a heavy question
at a million chunks, more than the SQL that fetched them. Here each 4-byte record is read once
and its term added to its chunk's total. The arithmetic is numpy's, in the same order per
posting (dl·c1 + c0 + tf, then tf over that, times idf·(k1+1)), and terms are added in the rows'
order, so every chunk sums its terms in the same (lexeme) order and identical texts still
score identically.

numba compiles these on first call and caches the machine code on disk (NUMBA_CACHE_DIR, set
under VAR_DIR below). Importing this module compiles nothing, and only the packed leg
imports it, on its first search (search.services.bm25_packed._kernel).
"""

from __future__ import annotations

import os

import numpy as np
from django.conf import settings

# numba reads its cache folder when it is imported: under VAR_DIR, not beside the sources, so a
# read-only checkout works and a clean one compiles once. A folder the operator named wins.
os.environ.setdefault("NUMBA_CACHE_DIR", str(settings.VAR_DIR / "numba-cache"))

import numba


@numba.njit(cache=True, nogil=True)
def add_compact_terms(
    totals: np.ndarray,
    records: np.ndarray,
    first_slots: np.ndarray,
    counts: np.ndarray,
    scale: float,
    c0: float,
    c1: float,
) -> None:
    """Add one lexeme's term to totals[first slot of the row + offset] for every posting.

    `records`: the rows' 4-byte big-endian records (offset << 20 | tf << 12 | dl) read as
    little-endian uint32 (the byte order of the machines we run on), row after row; swapping the
    bytes here, one load a record, is ~30 % faster than assembling them from four byte loads.
    `counts[r]` postings in row r. `scale` is idf·(k1+1); c0 = k1·(1−b), c1 = k1·b/avgdl.
    """
    position = 0
    for row in range(counts.shape[0]):
        first = first_slots[row]
        for _ in range(counts[row]):
            stored = np.int64(records[position])
            position += 1
            record = (
                ((stored & 0xFF) << 24) | ((stored & 0xFF00) << 8) | ((stored >> 8) & 0xFF00) | ((stored >> 24) & 0xFF)
            )
            tf = np.float64((record >> 12) & 0xFF)
            weight = np.float64(record & 0xFFF) * c1 + c0 + tf
            totals[first + (record >> 20)] += tf / weight * scale


@numba.njit(cache=True, nogil=True)
def add_decoded_terms(
    totals: np.ndarray,
    slots: np.ndarray,
    tfs: np.ndarray,
    lengths: np.ndarray,
    scale: float,
    c0: float,
    c1: float,
) -> None:
    """The same for postings already decoded (rows of wide records): one slot, tf and dl each."""
    for i in range(slots.shape[0]):
        tf = np.float64(tfs[i])
        weight = np.float64(lengths[i]) * c1 + c0 + tf
        totals[slots[i]] += tf / weight * scale


@numba.njit(cache=True, nogil=True)
def keep_slots(totals: np.ndarray, kept: np.ndarray) -> None:
    """Clear every total but those at `kept` (a document filter's allowed chunks), in place."""
    saved = np.empty(kept.shape[0], dtype=totals.dtype)
    for i in range(kept.shape[0]):
        saved[i] = totals[kept[i]]
    totals[:] = 0.0
    for i in range(kept.shape[0]):
        totals[kept[i]] = saved[i]
