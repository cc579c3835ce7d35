"""The keyword index's tables: packed postings and per-folder lengths, the rows BM25 reads.

Both are derived from the stored chunks and documents (documents/lexical/index.py owns the
writes) and are sums over the folders a caller may read, so scores never depend on text the
caller cannot see. The table names predate this package and are kept (no data is copied).
"""

from __future__ import annotations

from django.db import models


class LexemeBlock(models.Model):
    """Packed postings: every posting of one lexeme among one folder's chunks in one block of chunk ids.

    A block is 4,096 consecutive chunk ids (documents.lexical.blocks.BLOCK_BITS). `postings`
    holds, per chunk in id order, a 4-byte record (offset in the block, tf, dl; 10 bytes in a
    block with a chunk too long for 12 bits; documents.lexical.blocks decodes both), so a query
    reads a lexeme's postings as a few large values instead of one row each, and a compiled
    loop sums them (search/services/bm25_packed.py). Rows are derived data, rebuilt per block by the
    SQL function search_lexeme_blocks_rebuild: at the end of lexical_index_replace, and by a
    trigger after any DELETE of chunks, so they always describe exactly the stored chunks
    (documents/lexical/blocks.py says why that is safe under concurrent ingests). Partitioned
    by folder so that the permission filter stays in SQL.
    """

    folder = models.ForeignKey("documents.Folder", on_delete=models.CASCADE, related_name="+")
    block = models.IntegerField(help_text="chunk id >> 12")
    lexeme = models.TextField()
    chunk_count = models.PositiveIntegerField(help_text="Postings in this row: chunks holding the lexeme.")
    postings = models.BinaryField()

    class Meta:
        db_table = "search_lexemeblock"
        constraints = [models.UniqueConstraint(fields=["lexeme", "folder", "block"], name="lexeme_block_unique")]
        indexes = [models.Index(fields=["block"], name="lexeme_block_block")]

    def __str__(self) -> str:
        return f"{self.lexeme} in folder {self.folder_id}, block {self.block}: {self.chunk_count}"


class FolderLength(models.Model):
    """One change to a folder's BM25 length statistics: its chunks and their lexemes.

    The BM25 leg needs N and avgdl over the readable folders: the sums of their documents'
    chunk_count and lexeme_total. Summing 10,000 document rows
    cost ~5 ms a search at a million chunks; summing these rows costs a few index entries.
    Triggers on documents_document (migration search/0008) append one row per folder per
    statement that changes those sums, in that statement's transaction, so a search's snapshot
    sees exactly the documents' sums: never a locked counter, so concurrent ingests into one
    folder never wait for each other. documents.lexical.folder_lengths.folder_lengths_compact
    folds the rows into one per folder (beat, and after bulk loads). No foreign key: a deleted
    folder's rows net to zero and the next compaction removes them.
    """

    folder_id = models.BigIntegerField()
    chunks = models.BigIntegerField()
    lexemes = models.BigIntegerField()

    class Meta:
        db_table = "search_folderlength"
        indexes = [models.Index(fields=["folder_id"], include=["chunks", "lexemes"], name="folder_length_folder")]

    def __str__(self) -> str:
        return f"folder {self.folder_id}: {self.chunks:+} chunks, {self.lexemes:+} lexemes"
