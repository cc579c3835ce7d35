"""Packed postings in 4 bytes instead of 10, and every block repacked.

Made on the guess that at a million chunks the BM25 leg's time went into the ~5 MB a question
read out of TOAST; measured afterwards, it halves the storage (750 → 350 MB) and the bytes
(5.1 → 2.0 MB), but not the leg's time in `retrieve`, which is per row (migration 0007 and
BENCHMARKS.md).

A posting needs 12 bits of offset (a block is 4,096 chunk ids), 8 bits of tf (PostgreSQL keeps
at most 255 positions per lexeme in a tsvector, so tf <= 255) and the chunk's length, which the
encoder window keeps in the low hundreds: one big-endian uint32, offset << 20 | tf << 12 | dl.

A block holding any chunk of 4,096 lexemes or more keeps the 10-byte records for all its rows
(dl would not fit); a reader tells the two apart by the row's bytes per posting
(documents/lexical_blocks.py decodes both). The rebuild function keeps its signature, its
locking and its callers (lexical_index_replace and the chunk DELETE trigger).
"""

from importlib import import_module

from django.db import migrations

# bit(32) keeps the low 32 bits of the bigint, and ::int4 reads them as int4send expects.
COMPACT_REBUILD_FUNCTION = r"""
CREATE OR REPLACE FUNCTION search_lexeme_blocks_rebuild(blocks int[]) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    b int;
    wide int[];
BEGIN
    FOR b IN SELECT DISTINCT x FROM unnest(blocks) AS x ORDER BY x LOOP
        PERFORM pg_advisory_xact_lock(1100, b);  -- 1100: this table's lock class; block order: no deadlock
    END LOOP;
    DELETE FROM search_lexemeblock WHERE block = ANY(blocks);
    wide := ARRAY(SELECT DISTINCT bl.x::int
                    FROM (SELECT DISTINCT x::bigint AS x FROM unnest(blocks) AS x) AS bl
                    JOIN documents_chunk AS c ON c.id >= bl.x << 12 AND c.id < (bl.x + 1) << 12
                   WHERE c.lexeme_count > 4095);
    INSERT INTO search_lexemeblock (folder_id, block, lexeme, chunk_count, postings)
    SELECT d.folder_id, (c.id >> 12)::int, u.lexeme, count(*),
           string_agg(CASE WHEN (c.id >> 12)::int = ANY(wide)
                           THEN int2send((c.id & 4095)::int2) || int4send(coalesce(array_length(u.positions, 1), 1))
                                || int4send(c.lexeme_count)
                           ELSE int4send((((c.id & 4095) << 20) | (coalesce(array_length(u.positions, 1), 1)::bigint << 12)
                                          | c.lexeme_count)::bit(32)::int4)
                      END, ''::bytea ORDER BY c.id)
      FROM (SELECT DISTINCT x::bigint AS x FROM unnest(blocks) AS x) AS bl
      JOIN documents_chunk AS c ON c.id >= bl.x << 12 AND c.id < (bl.x + 1) << 12
      JOIN documents_document AS d ON d.id = c.document_id
     CROSS JOIN LATERAL unnest(c.search_vector) AS u
     GROUP BY 1, 2, 3;
END
$$;
"""

# Undoing this migration restores 0005's function (10-byte records everywhere) and repacks.
WIDE_REBUILD_FUNCTION = import_module("search.migrations.0005_issue11_packed_lexeme_blocks").REBUILD_FUNCTION.replace(
    "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1
)

REPACK_ALL = "SELECT search_lexeme_blocks_rebuild(ARRAY(SELECT DISTINCT (id >> 12)::int FROM documents_chunk))"


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0005_issue11_packed_lexeme_blocks"),
    ]

    operations = [
        migrations.RunSQL(COMPACT_REBUILD_FUNCTION, [WIDE_REBUILD_FUNCTION, REPACK_ALL]),
        migrations.RunSQL(REPACK_ALL, migrations.RunSQL.noop),
    ]
