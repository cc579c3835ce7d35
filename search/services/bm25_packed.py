r"""The lexical leg: exact Okapi BM25 over packed postings, summed by a compiled loop.

    score(chunk) = Σ over query lexemes t in the chunk of
                   idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))
    idf(t)       = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))

tf is the number of positions of t in the chunk's search_vector, dl the chunk's lexeme_count
(both stored in each packed posting). N and avgdl are sums over the documents of the folders
being searched (chunk_count, lexeme_total), which triggers keep per folder in
documents.FolderLength: a few rows, not every document. n(t) is t's posting count in those
folders: the sum of chunk_count over its packed rows (documents.LexemeBlock). So a caller's scores depend
only on text that caller may read. The tests hold a full-scan oracle computed from the chunks'
own lexemes (tests/search/bm25_oracle.py) that this leg must equal, ids and scores.

One SQL statement returns, per query lexeme, the postings of the readable folders as one bytea
(packed rows, 4 bytes a posting, concatenated by string_agg: documents/lexical/reads.py), plus idf and avgdl,
over a binary cursor; a loop compiled by numba (search/services/bm25_kernel.py) decodes each
record, weighs it and adds it to its chunk's total in one pass (~2–3 ns a posting). Reading a
few large values per lexeme instead of one index row per posting, and summing them outside the
executor, is what makes a full exact scan fast enough at a million chunks. The permission
filter (folder_id = ANY(readable folders)) is in that SQL: no unreadable posting leaves the
database. Only the `limit` best chunk ids are returned.

Query text is never parsed as tsquery syntax: its lexemes come from to_tsvector with the
configuration of each language the readable folders hold (documents/lexical/index.py), as the
chunks' lexemes were made, and are compared as plain text values; the caller hands it the
question with the other spellings of its words in the question's language (terms.py `lexical_query`). Any
input — operators, quotes, backslashes, stop words only — therefore yields either lexemes or
nothing. Identifiers tokenise the same way on both sides ('TS-999' → 'ts' and '-999'), so they
match.

A document filter (documents/filters.py) takes one of two exact paths, chosen by what each is
expected to cost (`walk_round`). A filter allowing few chunks masks the postings: the SQL reads
only the blocks the allowed chunks are in (`lexeme_postings` given blocks), and every other chunk's total
is cleared before the best are chosen (`top_chunks`), so a filter matching one document of
thousands still ranks that document's chunks, however low they would rank in the whole library.
Listing and masking costs time per allowed chunk, though (BENCHMARKS.md, filtered searches), so a
filter allowing a large share of the readable chunks is walked instead (`walk_allowed`): every
readable chunk is scored, as without a filter, and the scored chunks are checked against the
filter in SQL best first, in rounds growing 4x, until `limit` allowed ones are found. That walk
follows the full score order and stops only once it holds the `limit` best allowed chunks, so
its result is the masked path's, ids and scores — it is not a cut of an unfiltered top k; should
its checks come to cost more than masking, it masks the totals it already has. Either way N,
avgdl and df stay those of every readable folder: a filter narrows the results, it never changes
a score.

Ties: chunks with equal scores are ordered by chunk id; every chunk's terms are summed in the
same (lexeme) order, so chunks with identical text score identically.
"""

from __future__ import annotations

import math
from functools import cache
from types import ModuleType
from typing import NamedTuple

import numpy as np
from django.db import connection, transaction
from psycopg.rows import scalar_row

from documents.lexical.blocks import BLOCK_BITS, COMPACT_RECORD, postings_decode
from documents.lexical.index import K1, B
from documents.lexical.reads import LexemePostings, lexeme_postings, readable_chunk_count
from ragsite.db import binary_rows

# The allowed documents' chunk ids, ascending, as one value of 8-byte big-endian integers.
ALLOWED_CHUNKS_SQL = """
SELECT string_agg(int8send(c.id), ''::bytea ORDER BY c.id)
  FROM documents_chunk AS c
 WHERE c.document_id = ANY(%(documents)s::bigint[])
"""

# Which of these candidates belong to the allowed documents: a primary-key lookup per candidate.
ALLOWED_AMONG_SQL = """
SELECT c.id
  FROM documents_chunk AS c
 WHERE c.id = ANY(%(ids)s::bigint[]) AND c.document_id = ANY(%(documents)s::bigint[])
"""

_OFFSET_MASK = (1 << BLOCK_BITS) - 1

# Checking one candidate against a filter (a primary-key lookup in ALLOWED_AMONG_SQL, a few µs)
# is taken to cost as much as listing and masking this many allowed chunks (~0.17 µs each: the
# half-library filter's 50,000 added ~8.6 ms to the leg at 100k chunks, BENCHMARKS.md, filtered
# searches). An estimate, not a measurement: it only decides which of two exact paths runs.
CHECK_COST = 16
# The walk's first round checks this many times the candidates expected to hold `limit` allowed
# chunks (allowed documents' chunks cluster in the score order; a second round costs a query).
WALK_MARGIN = 1.5
# Each further round checks this many times the candidates of the one before.
WALK_GROWTH = 4


# The rows' index (lexeme, folder, block) already holds them in the order the aggregates want.
# At a million chunks the planner still prefers a bitmap scan and then sorts ~2,500 rows of
# ~4 MB (~5 ms); without bitmap scans it reads them in index order and sorts nothing.
# SET LOCAL semantics (set_config(..., true)): it ends with this transaction.
READ_IN_INDEX_ORDER = "SELECT set_config('enable_bitmapscan', 'off', true)"


class KeywordLeg(NamedTuple):
    """The BM25 leg of one search: its hits and how much a passage could score at most (`ceiling`),
    the scale fusion reads the best hit's score on (search/services/fusion.py, `keyword_match`)."""

    hits: list[tuple[int, float]]  # (chunk id, BM25 score), best first
    ceiling: float


def bm25_packed(
    query: str,
    folder_ids: list[int],
    limit: int,
    documents: list[int] | None = None,
    chunk_count: int = 0,
    *,
    configs: list[str],
) -> KeywordLeg:
    """(chunk id, BM25 score) of the `limit` best readable chunks, best first, ties by chunk id, with
    the question's ceiling (`KeywordLeg`).

    `query`: the keyword query text, as `lexical_query` writes it from the question and its
    reading's variants (search/services/terms.py). `documents`: only chunks of these documents
    (None: no filter; the statistics are the readable folders' either way); `chunk_count`: how
    many chunks they hold, which picks the filter's path (`walk_round`; 0, unknown, masks).
    `configs`: the text-search configurations the query is read with (the search's
    `QuestionReading`, search/services/question_reading.py).
    """
    if not folder_ids or limit <= 0 or not query or documents == []:
        return KeywordLeg([], 0.0)
    first_round = 0 if documents is None else walk_round(limit, chunk_count, folder_ids)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(READ_IN_INDEX_ORDER)
        if documents is None:
            rows = _matched(lexeme_postings(query, folder_ids, configs=configs))
            return KeywordLeg(top_chunks(rows, limit) if rows else [], ceiling(rows))
        if first_round:
            rows = _matched(lexeme_postings(query, folder_ids, configs=configs))
            return KeywordLeg(
                walk_allowed(rows, limit, documents, first_round, chunk_count) if rows else [], ceiling(rows)
            )
        allowed = _allowed_chunks(documents)
        rows = _matched(lexeme_postings(query, folder_ids, np.unique(allowed >> BLOCK_BITS).tolist(), configs=configs))
        return KeywordLeg(top_chunks(rows, limit, allowed) if rows else [], ceiling(rows))


def ceiling(rows: list[LexemePostings]) -> float:
    """What a passage that holds every lexeme of the question found in scope approaches and never
    reaches: the sum of idf·(k1 + 1) over them (each term's tf·(k1 + 1) / (tf + k1·(…)) stays below
    k1 + 1). A lexeme no readable, allowed chunk holds adds nothing: no passage could match it."""
    return sum(_term_scale(row) for row in rows if row.postings is not None)


def _term_scale(row: LexemePostings) -> float:
    """idf·(k1 + 1): what one lexeme's term is scaled by, and the most it can add to a chunk's score."""
    return float(row.idf) * (K1 + 1)


def _matched(rows: list[LexemePostings]) -> list[LexemePostings]:
    """The rows with postings to sum: none when no lexeme matched (a filtered row may hold no
    allowed block) or no readable document counts a chunk (avgdl NULL)."""
    rows = [row for row in rows if row.blocks is not None]
    return rows if rows and rows[0].avgdl is not None else []


def walk_round(limit: int, chunk_count: int, folder_ids: list[int]) -> int:
    """How many candidates the walk's first round checks for a filter allowing `chunk_count`
    chunks, or 0 when listing and masking them is expected to cost less.

    If the allowed chunks are a share `chunk_count / readable` of the readable ones, spread
    through the score order like the rest, the best `limit · readable / chunk_count` candidates
    hold about `limit` allowed ones. The readable count costs one small query, asked only when
    the walk could win at all (it checks `limit` candidates at the very least).
    """
    if _first_round(limit, 1.0) * CHECK_COST > chunk_count:
        return 0
    first = _first_round(limit, readable_chunk_count(folder_ids) / chunk_count)
    return first if first * CHECK_COST <= chunk_count else 0


def _first_round(limit: int, share_inverse: float) -> int:
    return math.ceil(limit * max(share_inverse, 1.0) * WALK_MARGIN)


def walk_allowed(
    rows: list[LexemePostings], limit: int, documents: list[int], first_round: int, chunk_count: int
) -> list[tuple[int, float]]:
    """The `limit` best chunks of `documents` (rows as `lexeme_postings` returns them, unfiltered).

    Every scored chunk in score order (ties by chunk id), checked in SQL in rounds: the best
    `first_round` candidates, then 4x as many, each round checking only those not checked yet,
    until `limit` allowed ones are found or every scored chunk was checked. Once the next round
    would cost more than listing and masking the `chunk_count` allowed chunks, the totals in
    hand are masked instead (a filter whose documents rank low). Both give the masked path's
    result, ids and scores.
    """
    present, totals = _totals(rows)
    kept_ids: list[np.ndarray] = []
    kept_scores: list[np.ndarray] = []
    checked, size = 0, first_round
    while True:
        ids, scores = _ranked(present, totals, size)
        fresh = ids[checked:]
        allowed = np.isin(fresh, _allowed_among(fresh, documents))
        kept_ids.append(fresh[allowed])
        kept_scores.append(scores[checked:][allowed])
        checked = len(ids)
        if sum(len(k) for k in kept_ids) >= limit or checked < size:
            break
        size *= WALK_GROWTH
        if size * CHECK_COST > chunk_count:
            return _pairs(*_masked(present, totals, limit, _allowed_chunks(documents)))
    return _pairs(np.concatenate(kept_ids)[:limit], np.concatenate(kept_scores)[:limit])


def _allowed_among(chunk_ids: np.ndarray, documents: list[int]) -> np.ndarray:
    """Those of `chunk_ids` that belong to `documents` (one query; none asked for, none run)."""
    if not len(chunk_ids):
        return chunk_ids
    with connection.cursor() as cursor:
        cursor.execute(ALLOWED_AMONG_SQL, {"ids": chunk_ids.tolist(), "documents": documents})
        return np.array([pk for (pk,) in cursor.fetchall()], dtype=np.int64)


def _allowed_chunks(documents: list[int]) -> np.ndarray:
    packed = binary_rows(ALLOWED_CHUNKS_SQL, {"documents": documents}, scalar_row)[0]
    return np.frombuffer(packed or b"", dtype=">i8").astype(np.int64)


def top_chunks(rows: list[LexemePostings], limit: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Score the fetched postings and keep the best `limit` (rows as `lexeme_postings` returns them).

    `allowed` (sorted chunk ids): only those may be chosen; every other slot is cleared first.
    """
    present, totals = _totals(rows)
    if allowed is None:
        return _pairs(*_ranked(present, totals, limit))
    return _pairs(*_masked(present, totals, limit, allowed))


def _totals(rows: list[LexemePostings]) -> tuple[np.ndarray, np.ndarray]:
    """(blocks present, sorted; every chunk's BM25 total by slot).

    Every chunk of a block present gets a slot, (rank of its block) · 4096 + offset, and the
    compiled loop adds each posting's term to its slot (search/services/bm25_kernel.py).
    """
    kernel = _kernel()
    avgdl = float(rows[0].avgdl or 0)  # `_matched` keeps rows only when it is known
    present = np.unique(np.concatenate([np.asarray(row.blocks, dtype=np.int64) for row in rows]))
    totals = np.zeros(len(present) << BLOCK_BITS, dtype=np.float64)
    c0, c1 = K1 * (1 - B), K1 * B / avgdl
    for row in rows:
        postings = row.postings or b""
        per_row = np.asarray(row.counts, dtype=np.int64)
        first_slots = np.searchsorted(present, np.asarray(row.blocks, dtype=np.int64)) << BLOCK_BITS
        scale = _term_scale(row)
        if len(postings) == COMPACT_RECORD.itemsize * int(per_row.sum()):
            kernel.add_compact_terms(totals, np.frombuffer(postings, dtype="<u4"), first_slots, per_row, scale, c0, c1)
        else:  # a block with a chunk too long for 12 bits keeps wide records
            offset, tfs, lengths = postings_decode(postings, per_row, np.asarray(row.sizes, dtype=np.int64))
            slots = np.repeat(first_slots, per_row) + offset
            kernel.add_decoded_terms(totals, slots, tfs, lengths, scale, c0, c1)
    return present, totals


def _masked(present: np.ndarray, totals: np.ndarray, limit: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The `limit` best of the `allowed` chunks (sorted ids); every other total is cleared, in place."""
    _kernel().keep_slots(totals, _slots_of(present, allowed))
    return _ranked(present, totals, limit)


def _ranked(present: np.ndarray, totals: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids, scores) of the `limit` best scored chunks, best first, ties by chunk id."""
    matched = _best_slots(totals, limit)
    chunk_ids = (present[matched >> BLOCK_BITS] << BLOCK_BITS) + (matched & _OFFSET_MASK)
    scores = totals[matched]
    order = np.lexsort((chunk_ids, -scores))[:limit]
    return chunk_ids[order], scores[order]


def _pairs(chunk_ids: np.ndarray, scores: np.ndarray) -> list[tuple[int, float]]:
    return [(int(pk), float(score)) for pk, score in zip(chunk_ids.tolist(), scores.tolist(), strict=True)]


def _slots_of(present: np.ndarray, chunk_ids: np.ndarray) -> np.ndarray:
    """The slots of those `chunk_ids` whose block is present (sorted, as `present` is)."""
    blocks = chunk_ids >> BLOCK_BITS
    rank = np.searchsorted(present, blocks)
    inside = rank < len(present)
    inside[inside] = present[rank[inside]] == blocks[inside]
    return (rank[inside] << BLOCK_BITS) + (chunk_ids[inside] & _OFFSET_MASK)


@cache
def _kernel() -> ModuleType:
    """The compiled loop's module, imported (numba with it) on the first search, not at import."""
    from search.services import bm25_kernel

    return bm25_kernel


def kernel_warm() -> None:
    """Compile the loop for the argument types searches pass and cache it on disk (`make run` and
    `make test` call this before serving), so a process's first search loads it (~0.5 s)
    instead of compiling it (~2 s)."""
    record = (1 << 12 | 10).to_bytes(4, "big")  # offset 0, tf 1, dl 10, as stored (read-only bytes)
    rows = [
        LexemePostings("warm", 1.0, 10.0, [0], [1], [4], record),
        LexemePostings("wide", 1.0, 10.0, [0], [1], [10], bytes(10)),
    ]
    top_chunks(rows, 1)
    top_chunks(rows, 1, np.zeros(1, dtype=np.int64))  # a filtered search's mask


# Slots per group when bounding the limit-th best score from below (divides 4096).
_GROUP = 64


def _best_slots(totals: np.ndarray, limit: int) -> np.ndarray:
    """Slots of every chunk scoring at least the limit-th best score (ties at the border included).

    The limit-th best of the group maxima is a lower bound of the limit-th best score (those
    maxima are `limit` distinct chunks scoring at least that much), so a single comparison
    keeps a few candidates, and only they are partitioned: cheaper than partitioning every
    matched chunk (~600k of them for a question at a million chunks).
    """
    # Groups of slots j, j + n/64, j + 2n/64, …: any split into disjoint groups bounds the same
    # way, and a maximum across rows is one vectorised pass (~4x faster than within rows).
    maxima = totals.reshape(_GROUP, -1).max(axis=0)
    floor = 0.0
    if len(maxima) >= limit:
        floor = float(np.partition(maxima, len(maxima) - limit)[len(maxima) - limit])
    matched = np.flatnonzero(totals >= floor) if floor > 0 else np.flatnonzero(totals)
    if len(matched) > limit:
        border = np.partition(totals[matched], len(matched) - limit)[len(matched) - limit]
        matched = matched[totals[matched] >= border]
    return matched
