"""Statistics that BM25 needs, kept per document so they follow deletes and folder permissions.

For a caller, N, the average chunk length and each lexeme's document frequency are sums over
the documents of the folders the caller may read, so scores never depend on text the caller
cannot see. Rows disappear with their document (ON DELETE CASCADE).
"""

from __future__ import annotations

from django.db import models

from documents.models import Chunk, Document, Folder


class DocumentLexeme(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="lexeme_stats")
    lexeme = models.TextField()
    chunk_frequency = models.PositiveIntegerField(help_text="Chunks of this document containing the lexeme.")

    class Meta:
        constraints = [
            # INCLUDE: BM25 sums a lexeme's chunk_frequency over the readable documents from this
            # index alone (index-only scan), instead of one heap page per row (issue 11).
            models.UniqueConstraint(
                fields=["lexeme", "document"], include=["chunk_frequency"], name="document_lexeme_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.lexeme} in {self.document_id}: {self.chunk_frequency}"


class ChunkLexeme(models.Model):
    """A posting: one lexeme of one chunk, with what BM25 needs to score it without the chunk.

    `tf` is the lexeme's position count in the chunk's search_vector and `dl` the chunk's
    lexeme_count (copied, so a query reads only the covering index of its lexemes). Rows are
    written by lexical_index_replace in the transaction that replaces the chunks, and go
    with their document by cascade. `chunk` has no database constraint (and no index of its
    own): the rows are always replaced per document, never per chunk.
    """

    pk = models.CompositePrimaryKey("document", "chunk", "lexeme")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+", db_index=False)
    chunk = models.ForeignKey(Chunk, on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False)
    lexeme = models.TextField()
    tf = models.PositiveIntegerField(help_text="Occurrences of the lexeme in the chunk.")
    dl = models.PositiveIntegerField(help_text="The chunk's lexeme_count (BM25 document length).")
    impact = models.FloatField(
        help_text="tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl_ref)): BM25's tf part under Bm25ImpactBasis.avgdl."
    )

    class Meta:
        indexes = [
            # Postings of a lexeme, best impact first: the full scan reads them all (lexeme = …),
            # the bounded top-k reads a prefix (bm25_topk in search/services/bm25.py).
            models.Index(
                fields=["lexeme", "-impact"], include=["chunk", "document", "tf", "dl"], name="chunk_lexeme_impacts"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.lexeme} in chunk {self.chunk_id}: {self.tf}"


class Bm25ImpactBasis(models.Model):
    """The one reference average chunk length every stored ChunkLexeme.impact was computed with.

    A single row (id 1). Ingestion reads it under a share lock while writing postings;
    documents.lexical_index.impact_basis_refresh takes it FOR UPDATE and rewrites every
    impact in the same transaction, so the stored impacts and this value never disagree.
    Exactness of search does not depend on how current it is (see bm25_topk), only speed.
    """

    avgdl = models.FloatField(help_text="Reference average chunk length (lexemes) of the stored impacts.")
    refreshed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"BM25 impacts under avgdl {self.avgdl:.1f}"


class LexemeBlock(models.Model):
    """Packed postings: every posting of one lexeme among one folder's chunks in one block of chunk ids.

    A block is 4,096 consecutive chunk ids (documents.lexical_blocks.BLOCK_BITS). `postings`
    holds, per chunk in id order, a 4-byte record (offset in the block, tf, dl; 10 bytes in a
    block with a chunk too long for 12 bits; documents.lexical_blocks decodes both), so a query
    reads a lexeme's postings as a few large values instead of one row each, and a compiled
    loop sums them (search/services/bm25_packed.py). Rows are derived data, rebuilt per block by the
    SQL function search_lexeme_blocks_rebuild: at the end of lexical_index_replace, and by a
    trigger after any DELETE of chunks, so they always describe exactly the stored chunks
    (documents/lexical_blocks.py says why that is safe under concurrent ingests). Partitioned
    by folder so that the permission filter stays in SQL.
    """

    folder = models.ForeignKey(Folder, on_delete=models.CASCADE, related_name="+")
    block = models.IntegerField(help_text="chunk id >> 12")
    lexeme = models.TextField()
    chunk_count = models.PositiveIntegerField(help_text="Postings in this row: chunks holding the lexeme.")
    postings = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["lexeme", "folder", "block"], name="lexeme_block_unique")]
        indexes = [models.Index(fields=["block"], name="lexeme_block_block")]

    def __str__(self) -> str:
        return f"{self.lexeme} in folder {self.folder_id}, block {self.block}: {self.chunk_count}"


class FolderLength(models.Model):
    """One change to a folder's BM25 length statistics: its chunks and their lexemes.

    The packed BM25 leg needs N and avgdl over the readable folders, as the reference computes
    them from the documents (sum of chunk_count and lexeme_total). Summing 10,000 document rows
    cost ~5 ms a search at a million chunks; summing these rows costs a few index entries.
    Triggers on documents_document (migration search/0008) append one row per folder per
    statement that changes those sums, in that statement's transaction, so a search's snapshot
    sees exactly the documents' sums: never a locked counter, so concurrent ingests into one
    folder never wait for each other. documents.folder_lengths.folder_lengths_compact
    folds the rows into one per folder (beat, and after bulk loads). No foreign key: a deleted
    folder's rows net to zero and the next compaction removes them.
    """

    folder_id = models.BigIntegerField()
    chunks = models.BigIntegerField()
    lexemes = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["folder_id"], include=["chunks", "lexemes"], name="folder_length_folder")]

    def __str__(self) -> str:
        return f"folder {self.folder_id}: {self.chunks:+} chunks, {self.lexemes:+} lexemes"
