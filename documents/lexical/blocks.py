"""Packed postings (search_lexemeblock): the one store of the postings, what BM25 and the coverage check read.

One row per (lexeme, folder, block of 4,096 consecutive chunk ids) holds every posting of that
lexeme among that folder's chunks in that block, packed in chunk id order: 4 bytes a posting
(COMPACT_RECORD), or 10 (WIDE_RECORD) in a block holding a chunk of 4,096 lexemes or more
(migration search/0006 says why; `postings_decode` reads both). A query reads each of its
lexemes' postings as a few large values (~25 rows a lexeme at 100k chunks) instead of one
index row per posting (documents/lexical/reads.py); search/services/bm25_packed.py sums them.

The rows are derived data and never edited in place: the SQL function
search_lexeme_blocks_rebuild(blocks) (migration search/0005) recomputes whole blocks from the
stored chunks' search_vector and lexeme_count. It runs
- at the end of lexical_index_replace, for the blocks of the document's chunks (same
  transaction as the chunks, so a search sees both or neither);
- from a statement trigger after every DELETE on documents_chunk (a document or folder deleted,
  chunks replaced by a re-index), for the blocks the deleted chunks were in.
A block is locked (pg_advisory_xact_lock, held to commit) before it is rewritten, and each
statement of the function reads a fresh snapshot: two ingests whose chunks share a block are
serialised, and the second one's rebuild sees the first one's committed chunks. So the rows
always describe exactly the committed chunks, whatever the order of concurrent writers.

Bulk loads (the search benchmarks) defer the per-document rebuild and call
lexeme_blocks_rebuild_all once at the end, as they do for the other search indexes.
"""

from __future__ import annotations

import numpy as np
from django.db import connection

# A block is 2**12 chunk ids: its offsets fit an int2, and a rebuild reads at most 4,096 chunks.
BLOCK_BITS = 12
# The records search_lexeme_blocks_rebuild writes per posting (int2send/int4send: big-endian).
# Compact: offset << 20 | tf << 12 | dl (tsvector keeps at most 255 positions, so tf < 256);
# wide in a block holding a chunk of 4,096 lexemes or more (dl needs more than 12 bits).
COMPACT_RECORD = np.dtype(">u4")
WIDE_RECORD = np.dtype([("offset", ">i2"), ("tf", ">i4"), ("dl", ">i4")])

Postings = tuple[np.ndarray, np.ndarray, np.ndarray]


def postings_decode(data: bytes, counts: np.ndarray, sizes: np.ndarray) -> Postings:
    """(offset in block, tf, dl) per posting of rows concatenated in `data`.

    `counts` and `sizes` are the rows' postings and bytes: a row is compact when it has 4
    bytes a posting. All compact (the usual case) is decoded in one pass over `data`.
    """
    if len(data) == COMPACT_RECORD.itemsize * int(counts.sum()):
        return _compact_decode(data)
    parts, start = [], 0
    for count, size in zip(counts.tolist(), sizes.tolist(), strict=True):
        row = data[start : start + size]
        parts.append(_compact_decode(row) if size == COMPACT_RECORD.itemsize * count else _wide_decode(row))
        start += size
    offsets, tfs, lengths = zip(*parts, strict=True)
    return np.concatenate(offsets), np.concatenate(tfs), np.concatenate(lengths)


def _compact_decode(data: bytes) -> Postings:
    records = np.frombuffer(data, dtype=COMPACT_RECORD).astype(np.uint32)
    return (records >> 20).astype(np.int64), (records >> 12) & 0xFF, records & 0xFFF


def _wide_decode(data: bytes) -> Postings:
    records = np.frombuffer(data, dtype=WIDE_RECORD)
    return records["offset"].astype(np.int64), records["tf"].astype(np.uint32), records["dl"].astype(np.uint32)


_REBUILD_FOR_DOCUMENTS = f"""
SELECT search_lexeme_blocks_rebuild(
    ARRAY(SELECT DISTINCT (id >> {BLOCK_BITS})::int FROM documents_chunk WHERE document_id = ANY(%s)))
"""


def lexeme_blocks_rebuild_for_documents(document_ids: list[int]) -> None:
    """Recompute the packed postings of the blocks these documents' chunks are in."""
    with connection.cursor() as cursor:
        cursor.execute(_REBUILD_FOR_DOCUMENTS, [document_ids])


def lexeme_blocks_rebuild_all(blocks_per_statement: int = 8) -> int:
    """Recompute every block (after a bulk load); returns how many blocks were rebuilt."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT min(id) >> {BLOCK_BITS}, max(id) >> {BLOCK_BITS} FROM documents_chunk")
        first, last = cursor.fetchone() or (None, None)
        if first is None or last is None:
            cursor.execute("DELETE FROM search_lexemeblock")
            return 0
        for start in range(first, last + 1, blocks_per_statement):
            blocks = list(range(start, min(start + blocks_per_statement, last + 1)))
            cursor.execute("SELECT search_lexeme_blocks_rebuild(%s::int[])", [blocks])
        cursor.execute("ANALYZE search_lexemeblock")
    return last - first + 1


def lexeme_blocks_vacuum() -> None:
    """VACUUM ANALYZE the packed postings after a bulk load (outside a transaction): the
    visibility map lets their index be read without visiting the heap."""
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE search_lexemeblock")
