"""The lexical index: its text-search configuration, BM25 parameters, postings and statistics.

The one owner of everything BM25 reads. Ingestion (and a backup import, and the search
benchmarks) calls `lexical_index_replace(document_id)` inside the transaction that replaces a
document's chunks, so the index always describes exactly the chunks that are stored; it
writes the chunks' search_vector and lexeme_count, the postings (search_chunklexeme), the
per-document lexeme frequencies (search_documentlexeme), Document.lexeme_total and the packed
postings of the document's blocks (search_lexemeblock, documents/lexical_blocks.py). Search
(search/services/bm25.py, terms.py) and the ts_rank_cd baseline (bench/peer_lexical.py) read
the same TEXT_SEARCH_CONFIG, K1 and B from here, so a query is tokenised and scored exactly
as the chunks were indexed.

It lives in the documents app, beside the columns it writes, so that the dependency between
the apps goes one way (search reads documents; documents never imports search). The postings
tables are declared in search/models.py (their schema and migrations stay there); this
module is the only writer of their rows, and refers to them by table name only.

Deleting a document removes its rows by cascade (postings and their impacts included; a
folder's deletion cascades to its documents): there is no separate removal step.

Impacts (ChunkLexeme.impact, what bm25_topk orders postings by) depend on one number only, the
reference avgdl in search_bm25impactbasis. Ingestion reads it under FOR SHARE, so a refresh —
which takes the row FOR UPDATE and rewrites every impact in its own transaction — waits for
ingests in flight and ingests wait for it: the stored impacts always share one reference.
N, df and the readable folders' avgdl change with every ingest and delete, but impacts do not
depend on them; bm25_topk's bounds hold for any reference (a stale one only costs speed).
"""

from __future__ import annotations

from django.db import connection, transaction

from documents.lexical_blocks import lexeme_blocks_rebuild_for_documents

# How text becomes lexemes, for chunks and for queries alike (PostgreSQL's text search config).
TEXT_SEARCH_CONFIG = "english"
# BM25's term-frequency saturation and length normalisation; stored impacts are computed with them.
K1 = 1.2
B = 0.75
# The library's average chunk length, or a neutral 100 lexemes for an empty library.
_GLOBAL_AVGDL = "coalesce(sum(lexeme_total)::float8 / nullif(sum(chunk_count), 0), 100.0)"
_ENSURE_BASIS = f"""
INSERT INTO search_bm25impactbasis (id, avgdl, refreshed_at)
SELECT 1, {_GLOBAL_AVGDL}, now() FROM documents_document
ON CONFLICT (id) DO NOTHING
"""
IMPACT_SQL = f"({{tf}} * ({K1} + 1) / ({{tf}} + {K1} * (1 - {B} + {B} * {{dl}} / b.avgdl)))"

# The lexical index reads the context prefix too (title and section words help ranking);
# the quote shown to readers is always the content alone.
_SET_VECTORS = f"""
UPDATE documents_chunk
   SET search_vector = to_tsvector('{TEXT_SEARCH_CONFIG}', coalesce(context, '') || E'\\n' || content)
 WHERE document_id = %s
"""

_SET_LENGTHS = """
UPDATE documents_chunk AS c
   SET lexeme_count = coalesce(
       (SELECT sum(coalesce(array_length(u.positions, 1), 1)) FROM unnest(c.search_vector) AS u), 0)
 WHERE c.document_id = %s
"""

# One row per (chunk, lexeme): what search.services.bm25 scores from, without reading vectors.
_REPLACE_POSTINGS = f"""
INSERT INTO search_chunklexeme (document_id, chunk_id, lexeme, tf, dl, impact)
SELECT p.document_id, p.chunk_id, p.lexeme, p.tf, p.dl, {IMPACT_SQL.format(tf="p.tf", dl="p.dl")}
  FROM (SELECT c.document_id, c.id AS chunk_id, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf,
               c.lexeme_count AS dl
          FROM documents_chunk AS c, unnest(c.search_vector) AS u
         WHERE c.document_id = %s) AS p
 CROSS JOIN (SELECT avgdl FROM search_bm25impactbasis WHERE id = 1 FOR SHARE) AS b
 ORDER BY p.chunk_id, p.lexeme
"""

_REPLACE_FREQUENCIES = """
INSERT INTO search_documentlexeme (document_id, lexeme, chunk_frequency)
SELECT %s, p.lexeme, count(*)
  FROM search_chunklexeme AS p
 WHERE p.document_id = %s
 GROUP BY p.lexeme
 ORDER BY p.lexeme
"""

_DOCUMENT_TOTALS = """
UPDATE documents_document AS d
   SET lexeme_total = coalesce((SELECT sum(lexeme_count) FROM documents_chunk WHERE document_id = d.id), 0)
 WHERE d.id = %s
"""


def lexical_index_replace(document_id: int, *, blocks: bool = True) -> None:
    """Recompute the lexical index of one document's stored chunks and its BM25 statistics.

    Called inside the transaction that wrote the chunks. `blocks=False` (bulk loads only) leaves
    the packed postings to one lexeme_blocks_rebuild_* call after the load, in the same transaction.
    """
    with connection.cursor() as cursor:
        cursor.execute(_SET_VECTORS, [document_id])
        cursor.execute(_SET_LENGTHS, [document_id])
        cursor.execute("DELETE FROM search_chunklexeme WHERE document_id = %s", [document_id])
        cursor.execute("SELECT 1 FROM search_bm25impactbasis WHERE id = 1 FOR SHARE")  # held until commit
        if cursor.fetchone() is None:
            # No reference length (a new install, or the row was removed): set one and rewrite
            # every stored impact under it, so impacts never outlive the reference they used.
            impact_basis_refresh()
        cursor.execute(_REPLACE_POSTINGS, [document_id])
        cursor.execute("DELETE FROM search_documentlexeme WHERE document_id = %s", [document_id])
        cursor.execute(_REPLACE_FREQUENCIES, [document_id, document_id])
        cursor.execute(_DOCUMENT_TOTALS, [document_id])
    if blocks:
        lexeme_blocks_rebuild_for_documents([document_id])


_SET_IMPACTS = f"""
UPDATE search_chunklexeme AS p SET impact = {IMPACT_SQL.format(tf="p.tf", dl="p.dl")}
  FROM search_bm25impactbasis AS b
 WHERE b.id = 1
"""


def impact_basis_refresh() -> float:
    """Re-base every posting's impact on the library's current average chunk length.

    Only search speed depends on this (bounds are tighter when the reference is close to the
    readable folders' avgdl); run it after the library has grown or shrunk a lot. One
    transaction: searches see either all old or all new impacts, never a mix.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_ENSURE_BASIS)
        cursor.execute("SELECT avgdl FROM search_bm25impactbasis WHERE id = 1 FOR UPDATE")
        cursor.execute(f"UPDATE search_bm25impactbasis SET avgdl = (SELECT {_GLOBAL_AVGDL} FROM documents_document), "
                       "refreshed_at = now() WHERE id = 1 RETURNING avgdl")  # fmt: skip
        row = cursor.fetchone()
        assert row is not None
        cursor.execute(_SET_IMPACTS)
    return float(row[0])
