"""The keyword index's writer: its text-search configuration, BM25 parameters, lexemes and statistics.

Ingestion (and a backup import, and the search
benchmarks) calls `lexical_index_replace(document_id)` inside the transaction that replaces a
document's chunks, so the index always describes exactly the chunks that are stored. It writes
each chunk's search_vector and lexeme_count, Document.lexeme_total, and the packed postings of
the blocks the document's chunks are in (documents/lexical/blocks.py): every posting is
stored once, packed. Per-folder sums of chunk_count and lexeme_total (documents.FolderLength)
follow the documents by trigger. Search (search/services/bm25_packed.py, terms.py) and the
ts_rank_cd baseline (bench/peer_lexical.py) read the same K1 and B from here.

Each chunk is read with the text-search configuration of its language (its own, else its
document's; documents/languages.py, and its SQL twin documents_text_search_config, migration
documents/0017). A query is read with the configurations its search reads the question with
(search/services/question_reading.py), its lexemes the union of theirs: a Portuguese
question finds "conexão" by the stem "conexões" shares with it, and an English one is read as
before.

A chunk's vector is its text's, followed by the names inside its file paths read with the same
configuration (documents_chunk_vector, migration documents/0018): the parser reads
"/etc/apt/sources.list" as one lexeme, and a reader asks for "sources.list" or "fstab". The
names count in BM25 like any other lexeme of the chunk (tf and dl read the vector's positions).

Deleting chunks (a re-index, a document or folder deleted) rebuilds the blocks they were in by
trigger, and a document's statistics go with its row: there is no separate removal step.
"""

from __future__ import annotations

from django.db import connection

from documents.languages import UNDETECTED_CONFIG
from documents.lexical.blocks import lexeme_blocks_rebuild_all, lexeme_blocks_rebuild_for_documents
from documents.lexical.folder_lengths import folder_lengths_compact

# How text whose language is not yet detected becomes lexemes (PostgreSQL's text search config),
# in chunks and in queries alike.
TEXT_SEARCH_CONFIG = UNDETECTED_CONFIG
# BM25's term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75

# The lexical index reads the context prefix too (title and section words help ranking);
# the quote shown to readers is always the content alone. One UPDATE writes both columns, so
# each chunk row is rewritten once: lexeme_count (BM25's dl) counts the vector's positions.
_SET_VECTORS = """
UPDATE documents_chunk AS c
   SET search_vector = v.vector,
       lexeme_count = coalesce(
           (SELECT sum(coalesce(array_length(u.positions, 1), 1)) FROM unnest(v.vector) AS u), 0)
  FROM (SELECT ch.id,
               documents_chunk_vector(documents_text_search_config(coalesce(nullif(ch.language, ''), d.language)),
                                      coalesce(ch.context, '') || E'\\n' || ch.content) AS vector
          FROM documents_chunk AS ch
          JOIN documents_document AS d ON d.id = ch.document_id
         WHERE ch.document_id = %s) AS v
 WHERE c.id = v.id
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
        cursor.execute(_DOCUMENT_TOTALS, [document_id])
    if blocks:
        lexeme_blocks_rebuild_for_documents([document_id])


def lexical_index_refolder(document_ids: list[int]) -> None:
    """Follow documents that moved to another folder: their postings are filed under the folder.

    Called in the transaction that changed their `folder_id`, after that UPDATE. The packed rows
    are keyed by folder, so the blocks the documents' chunks are in are rebuilt from the chunks
    (reading the new folder); the per-folder lengths already followed the UPDATE by trigger, and
    the chunks' own lexemes do not depend on the folder.
    """
    if document_ids:
        lexeme_blocks_rebuild_for_documents(document_ids)


def lexical_index_complete() -> None:
    """Complete the index after a bulk load that passed blocks=False: every block of packed
    postings rebuilt, and the load's per-document length rows folded to one per folder."""
    lexeme_blocks_rebuild_all()
    folder_lengths_compact()
