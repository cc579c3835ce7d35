r"""The lexical leg: exact Okapi BM25 over packed postings, summed by a compiled loop.

    score(chunk) = Σ over query lexemes t in the chunk of
                   idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))
    idf(t)       = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))

tf is the number of positions of t in the chunk's search_vector, dl the chunk's lexeme_count
(both stored in each packed posting). N and avgdl are sums over the documents of the folders
being searched (chunk_count, lexeme_total), which triggers keep per folder in
search.FolderLength: a few rows, not every document. n(t) is t's posting count in those
folders: the sum of chunk_count over its search_lexemeblock rows. So a caller's scores depend
only on text that caller may read. The tests hold a full-scan oracle computed from the chunks'
own lexemes (tests/search/bm25_oracle.py) that this leg must equal, ids and scores.

One SQL statement returns, per query lexeme, the postings of the readable folders as one bytea
(search_lexemeblock rows, 4 bytes a posting, concatenated by string_agg), plus idf and avgdl,
over a binary cursor; a loop compiled by numba (search/services/bm25_kernel.py) decodes each
record, weighs it and adds it to its chunk's total in one pass (~2–3 ns a posting). Reading a
few large values per lexeme instead of one index row per posting, and summing them outside the
executor, is what makes a full exact scan fast enough at a million chunks. The permission
filter (folder_id = ANY(readable folders)) is in that SQL: no unreadable posting leaves the
database. Only the `limit` best chunk ids are returned.

Query text is never parsed as tsquery syntax: its lexemes come from to_tsvector('english',
query), exactly as the chunks' lexemes were made, and are compared as plain text values. Any
input — operators, quotes, backslashes, stop words only — therefore yields either lexemes or
nothing. Identifiers tokenise the same way on both sides ('TS-999' → 'ts' and '-999'), so they
match.

A document filter (documents/filters.py) masks the postings to the allowed documents' chunks:
the SQL reads only the blocks those chunks are in (PACKED_FILTERED_SQL), and every other chunk's
total is cleared before the best are chosen (`top_chunks`), so a filter matching one document of
thousands still ranks that document's chunks, however low they would rank in the whole library.
N, avgdl and df stay those of every readable folder: a filter narrows the results, it never
changes a score.

Ties: chunks with equal scores are ordered by chunk id; every chunk's terms are summed in the
same (lexeme) order, so chunks with identical text score identically.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import Any

import numpy as np
from django.db import connection, transaction

from documents.lexical_blocks import BLOCK_BITS, COMPACT_RECORD, postings_decode
from documents.lexical_index import K1, TEXT_SEARCH_CONFIG, B
from ragsite.db import binary_rows

PACKED_SQL = f"""
WITH q AS (
    SELECT array_agg(u.lexeme) AS lexemes FROM unnest(to_tsvector('{TEXT_SEARCH_CONFIG}', %(query)s::text)) AS u
),
stats AS (
    SELECT sum(s.chunks)::float8 AS n_chunks, sum(s.lexemes)::float8 / nullif(sum(s.chunks), 0) AS avgdl
      FROM search_folderlength AS s
     WHERE s.folder_id = ANY(%(folders)s::bigint[])
),
per_lexeme AS (
    SELECT b.lexeme, sum(b.chunk_count)::float8 AS df,
           array_agg(b.block ORDER BY b.folder_id, b.block) AS blocks,
           array_agg(b.chunk_count ORDER BY b.folder_id, b.block) AS counts,
           array_agg(octet_length(b.postings) ORDER BY b.folder_id, b.block) AS sizes,
           string_agg(b.postings, ''::bytea ORDER BY b.folder_id, b.block) AS postings
      FROM search_lexemeblock AS b
     WHERE b.lexeme = ANY((SELECT lexemes FROM q)::text[]) AND b.folder_id = ANY(%(folders)s::bigint[])
     GROUP BY b.lexeme
)
SELECT p.lexeme, ln(1 + (st.n_chunks - p.df + 0.5) / (p.df + 0.5)) AS idf, st.avgdl,
       p.blocks, p.counts, p.sizes, p.postings
  FROM per_lexeme AS p
 CROSS JOIN stats AS st
 ORDER BY p.lexeme
"""

# The same, with only the allowed chunks' blocks aggregated: df still counts every readable block.
_ONLY_ALLOWED = " FILTER (WHERE b.block = ANY(%(blocks)s::int[]))"
PACKED_FILTERED_SQL = PACKED_SQL
for _column in ("blocks", "counts", "sizes", "postings"):
    PACKED_FILTERED_SQL = PACKED_FILTERED_SQL.replace(f") AS {_column}", f"){_ONLY_ALLOWED} AS {_column}")
assert PACKED_FILTERED_SQL.count(_ONLY_ALLOWED) == 4

# The allowed documents' chunk ids, ascending, as one value of 8-byte big-endian integers.
ALLOWED_CHUNKS_SQL = """
SELECT string_agg(int8send(c.id), ''::bytea ORDER BY c.id)
  FROM documents_chunk AS c
 WHERE c.document_id = ANY(%(documents)s::bigint[])
"""

_OFFSET_MASK = (1 << BLOCK_BITS) - 1


# The rows' index (lexeme, folder, block) already holds them in the order the aggregates want.
# At a million chunks the planner still prefers a bitmap scan and then sorts ~2,500 rows of
# ~4 MB (~5 ms); without bitmap scans it reads them in index order and sorts nothing.
# SET LOCAL semantics (set_config(..., true)): it ends with this transaction.
READ_IN_INDEX_ORDER = "SELECT set_config('enable_bitmapscan', 'off', true)"


def bm25_packed(
    query: str, folder_ids: list[int], limit: int, documents: list[int] | None = None
) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the `limit` best readable chunks, best first, ties by chunk id.

    `documents`: only chunks of these documents (None: no filter; the statistics are the
    readable folders' either way).
    """
    if not folder_ids or limit <= 0 or not query or documents == []:
        return []
    allowed = None
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(READ_IN_INDEX_ORDER)
        if documents is None:
            rows = binary_rows(PACKED_SQL, {"query": query, "folders": folder_ids})
        else:
            allowed = _allowed_chunks(documents)
            blocks = np.unique(allowed >> BLOCK_BITS).tolist()
            params = {"query": query, "folders": folder_ids, "blocks": blocks}
            rows = [row for row in binary_rows(PACKED_FILTERED_SQL, params) if row[3] is not None]
    if not rows or rows[0][2] is None:  # no lexeme matched, or no readable document counts a chunk
        return []
    return top_chunks(rows, limit, allowed)


def _allowed_chunks(documents: list[int]) -> np.ndarray:
    (packed,) = binary_rows(ALLOWED_CHUNKS_SQL, {"documents": documents})[0]
    return np.frombuffer(packed or b"", dtype=">i8").astype(np.int64)


def top_chunks(rows: list[tuple[Any, ...]], limit: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Score the fetched postings and keep the best `limit` (rows as PACKED_SQL returns them).

    Every chunk of a block present gets a slot, (rank of its block) · 4096 + offset, and the
    compiled loop adds each posting's term to its slot (search/services/bm25_kernel.py).
    `allowed` (sorted chunk ids): only those may be chosen; every other slot is cleared first.
    """
    kernel = _kernel()
    avgdl = float(rows[0][2])
    present = np.unique(np.concatenate([np.asarray(row[3], dtype=np.int64) for row in rows]))
    totals = np.zeros(len(present) << BLOCK_BITS, dtype=np.float64)
    c0, c1 = K1 * (1 - B), K1 * B / avgdl
    for _, idf, _, blocks, counts, sizes, postings in rows:
        per_row = np.asarray(counts, dtype=np.int64)
        first_slots = np.searchsorted(present, np.asarray(blocks, dtype=np.int64)) << BLOCK_BITS
        scale = float(idf) * (K1 + 1)
        if len(postings) == COMPACT_RECORD.itemsize * int(per_row.sum()):
            kernel.add_compact_terms(totals, np.frombuffer(postings, dtype="<u4"), first_slots, per_row, scale, c0, c1)
        else:  # a block with a chunk too long for 12 bits keeps wide records
            offset, tfs, lengths = postings_decode(postings, per_row, np.asarray(sizes, dtype=np.int64))
            slots = np.repeat(first_slots, per_row) + offset
            kernel.add_decoded_terms(totals, slots, tfs, lengths, scale, c0, c1)
    if allowed is not None:
        kernel.keep_slots(totals, _slots_of(present, allowed))
    matched = _best_slots(totals, limit)
    chunk_ids = (present[matched >> BLOCK_BITS] << BLOCK_BITS) + (matched & _OFFSET_MASK)
    scores = totals[matched]
    order = np.lexsort((chunk_ids, -scores))[:limit]
    return [(int(chunk_ids[i]), float(scores[i])) for i in order]


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
    rows = [("warm", 1.0, 10.0, [0], [1], [4], record), ("wide", 1.0, 10.0, [0], [1], [10], bytes(10))]
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
