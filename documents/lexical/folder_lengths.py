"""Per-folder BM25 length statistics (documents.FolderLength): read by the packed leg, compacted here.

Triggers append a row per folder per statement that changes its documents' chunk_count or
lexeme_total sums (migration search/0008). Reading sums those rows, so its cost grows with the
changes since the last compaction; folding them keeps it to about one row per folder. Called by
search's beat task and after bulk loads (documents/bulk_indexes.py).
"""

from __future__ import annotations

from django.db import connection, transaction

# One statement, so one snapshot: it deletes exactly the rows it sums. Rows a concurrent
# transaction appends meanwhile are not in that snapshot and stay; a second compaction running
# at once skips the rows this one deleted (they are gone when its DELETE reaches them). A reader
# sees either all the old rows or the folded ones, whose sums are equal.
_COMPACT = """
WITH gone AS (DELETE FROM search_folderlength RETURNING folder_id, chunks, lexemes)
INSERT INTO search_folderlength (folder_id, chunks, lexemes)
SELECT folder_id, sum(chunks), sum(lexemes) FROM gone GROUP BY folder_id
HAVING sum(chunks) <> 0 OR sum(lexemes) <> 0
"""


def folder_lengths_compact() -> int:
    """Fold the rows into one per folder (none for a folder whose sums are zero); rows left."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_COMPACT)
        return cursor.rowcount
