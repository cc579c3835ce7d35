"""Keeping BM25's statistics current: chunk lexeme vectors, lengths, postings and frequencies.

Called inside the transaction that replaces a document's chunks, so the statistics always
describe exactly the chunks that are stored. Deleting a document removes its rows by cascade.
"""

from __future__ import annotations

from django.db import connection

TEXT_SEARCH_CONFIG = "english"

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
_REPLACE_POSTINGS = """
INSERT INTO search_chunklexeme (document_id, chunk_id, lexeme, tf, dl)
SELECT c.document_id, c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1), c.lexeme_count
  FROM documents_chunk AS c, unnest(c.search_vector) AS u
 WHERE c.document_id = %s
 ORDER BY c.id, u.lexeme
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


def document_statistics_replace(document_id: int) -> None:
    """Recompute the lexical index of one document's chunks and its BM25 statistics."""
    with connection.cursor() as cursor:
        cursor.execute(_SET_VECTORS, [document_id])
        cursor.execute(_SET_LENGTHS, [document_id])
        cursor.execute("DELETE FROM search_chunklexeme WHERE document_id = %s", [document_id])
        cursor.execute(_REPLACE_POSTINGS, [document_id])
        cursor.execute("DELETE FROM search_documentlexeme WHERE document_id = %s", [document_id])
        cursor.execute(_REPLACE_FREQUENCIES, [document_id, document_id])
        cursor.execute(_DOCUMENT_TOTALS, [document_id])
