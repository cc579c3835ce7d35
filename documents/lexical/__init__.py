"""The keyword (BM25) index: the one package that names its tables, SQL function and triggers.

What it owns:
- the tables: packed postings (`LexemeBlock`, table search_lexemeblock) and per-folder length
  rows (`FolderLength`, table search_folderlength), declared in documents/lexical/models.py;
- the SQL function search_lexeme_blocks_rebuild and the triggers on documents_chunk and
  documents_document that keep those rows in step with the chunks (their definitions are in
  the migrations that created them; a change to them is a new migration of the documents app);
- the writers: documents/lexical/index.py (`lexical_index_replace`, `lexical_index_refolder`),
  documents/lexical/blocks.py (the block rebuilds and the posting format) and
  documents/lexical/folder_lengths.py (compaction);
- the readers: documents/lexical/reads.py (the packed postings of a query's lexemes, the
  readable chunk count, where terms occur).

It sits inside the documents app, the floor ingestion runs on, so ingest calls the writers
without importing upwards, and search (one floor up) calls the readers. No module outside this
package names the tables (tests/test_lexical_owner.py).
"""
