"""documents_chunk_vector(config, body): a chunk's keyword vector, the names inside its file paths included.

PostgreSQL's parser reads "/etc/apt/sources.list" as one token of type `file`, so a chunk
writing the path holds the lexeme "/etc/apt/sources.list" and none a reader types for it
("sources.list"). documents_path_names(config, body) lists the last component of each file
token that has a slash ("sources.list", "fstab", "dpkg.log"; "DVD-R" of "CD/DVD-R"), and the
chunk's vector is its text's vector followed by those names' vector in the same configuration,
so a question naming the file meets the lexeme its own configuration makes of the name. The
other components are left out: on the dev sets no question names one that the library writes
only inside a path, and "etc", "usr" or "share" alone would be noise.

The chunks already indexed that write a path are given their new vectors, lengths, document
totals and packed postings here; their embeddings are not touched.
"""

from django.db import migrations

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION documents_path_names(config regconfig, body text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(substring(p.token FROM '[^/]+$'), ' '), '')
      FROM pg_ts_config AS c
     CROSS JOIN LATERAL ts_parse(c.cfgparser, body) AS p
     WHERE c.oid = config
       AND p.tokid = (SELECT t.tokid FROM ts_token_type(c.cfgparser) AS t WHERE t.alias = 'file')
       AND position('/' IN p.token) > 0
$$;

CREATE OR REPLACE FUNCTION documents_chunk_vector(config regconfig, body text) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT to_tsvector(config, body) || to_tsvector(config, documents_path_names(config, body))
$$;
"""

DROP_FUNCTIONS = """
DROP FUNCTION IF EXISTS documents_chunk_vector(regconfig, text);
DROP FUNCTION IF EXISTS documents_path_names(regconfig, text);
"""

# Only chunks that write a path change; each statement reads what the one before it wrote.
REINDEX_PATH_CHUNKS = [
    """
CREATE TEMPORARY TABLE path_chunks AS
SELECT ch.id, ch.document_id,
       documents_text_search_config(coalesce(nullif(ch.language, ''), d.language)) AS config,
       coalesce(ch.context, '') || E'\\n' || ch.content AS body
  FROM documents_chunk AS ch
  JOIN documents_document AS d ON d.id = ch.document_id
 WHERE ch.search_vector IS NOT NULL AND (ch.content LIKE '%/%' OR ch.context LIKE '%/%')
""",
    "DELETE FROM path_chunks WHERE documents_path_names(config, body) = ''",
    """
UPDATE documents_chunk AS c
   SET search_vector = v.vector,
       lexeme_count = coalesce(
           (SELECT sum(coalesce(array_length(u.positions, 1), 1)) FROM unnest(v.vector) AS u), 0)
  FROM (SELECT p.id, documents_chunk_vector(p.config, p.body) AS vector FROM path_chunks AS p) AS v
 WHERE c.id = v.id
""",
    """
UPDATE documents_document AS d
   SET lexeme_total = coalesce((SELECT sum(lexeme_count) FROM documents_chunk WHERE document_id = d.id), 0)
 WHERE d.id IN (SELECT document_id FROM path_chunks)
""",
    "SELECT search_lexeme_blocks_rebuild(ARRAY(SELECT DISTINCT (id >> 12)::int FROM path_chunks))",
    "DROP TABLE path_chunks",
]


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0017_text_search_config_function"),
        ("search", "0010_keyword_index_tables_to_documents"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, DROP_FUNCTIONS),
        migrations.RunSQL(REINDEX_PATH_CHUNKS, migrations.RunSQL.noop),
    ]
