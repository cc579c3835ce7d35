"""Per-folder BM25 length statistics kept beside the documents by triggers.

The packed BM25 leg summed chunk_count and lexeme_total over every document of the readable
folders: a scan of 10,000 rows (~5 ms) per search at a million chunks. These rows carry the
same sums as changes: a statement-level trigger per event appends, per folder the statement
touched, how much that statement changed the folder's sums (nothing when they did not change,
as for most status updates). The rows are written in the changing statement's transaction, so
any snapshot sees sums equal to its documents' sums; they are appended, never updated, so no
two ingests ever wait on a shared counter. The initial rows are the current sums.
"""

from django.db import migrations, models

TRACK_FUNCTION = """
CREATE FUNCTION search_folder_lengths_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO search_folderlength (folder_id, chunks, lexemes)
        SELECT folder_id, sum(chunk_count), sum(lexeme_total) FROM new_documents GROUP BY folder_id
        HAVING sum(chunk_count) <> 0 OR sum(lexeme_total) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO search_folderlength (folder_id, chunks, lexemes)
        SELECT folder_id, -sum(chunk_count), -sum(lexeme_total) FROM old_documents GROUP BY folder_id
        HAVING sum(chunk_count) <> 0 OR sum(lexeme_total) <> 0;
    ELSE
        INSERT INTO search_folderlength (folder_id, chunks, lexemes)
        SELECT folder_id, sum(chunks), sum(lexemes)
          FROM (SELECT folder_id, chunk_count::bigint AS chunks, lexeme_total::bigint AS lexemes FROM new_documents
                UNION ALL
                SELECT folder_id, -chunk_count::bigint, -lexeme_total::bigint FROM old_documents) AS change
         GROUP BY folder_id
        HAVING sum(chunks) <> 0 OR sum(lexemes) <> 0;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER search_folder_lengths_inserted AFTER INSERT ON documents_document
    REFERENCING NEW TABLE AS new_documents FOR EACH STATEMENT EXECUTE FUNCTION search_folder_lengths_track();
CREATE TRIGGER search_folder_lengths_updated AFTER UPDATE ON documents_document
    REFERENCING OLD TABLE AS old_documents NEW TABLE AS new_documents
    FOR EACH STATEMENT EXECUTE FUNCTION search_folder_lengths_track();
CREATE TRIGGER search_folder_lengths_deleted AFTER DELETE ON documents_document
    REFERENCING OLD TABLE AS old_documents FOR EACH STATEMENT EXECUTE FUNCTION search_folder_lengths_track();
"""

DROP_TRACKING = """
DROP TRIGGER search_folder_lengths_inserted ON documents_document;
DROP TRIGGER search_folder_lengths_updated ON documents_document;
DROP TRIGGER search_folder_lengths_deleted ON documents_document;
DROP FUNCTION search_folder_lengths_track();
"""

INITIAL_LENGTHS = """
INSERT INTO search_folderlength (folder_id, chunks, lexemes)
SELECT folder_id, sum(chunk_count), sum(lexeme_total) FROM documents_document GROUP BY folder_id
"""


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0005_issue11_hnsw_ef_construction"),
        ("search", "0007_issue11_postings_inline"),
    ]

    operations = [
        migrations.CreateModel(
            name="FolderLength",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("folder_id", models.BigIntegerField()),
                ("chunks", models.BigIntegerField()),
                ("lexemes", models.BigIntegerField()),
            ],
            options={
                "indexes": [
                    models.Index(fields=["folder_id"], include=("chunks", "lexemes"), name="folder_length_folder")
                ],
            },
        ),
        migrations.RunSQL(TRACK_FUNCTION, DROP_TRACKING),
        migrations.RunSQL(INITIAL_LENGTHS, migrations.RunSQL.noop),
    ]
