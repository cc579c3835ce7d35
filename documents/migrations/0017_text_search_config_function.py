"""documents_text_search_config(language): the text-search configuration a chunk is read with.

The SQL twin of documents.languages.text_search_config, so the keyword index and the snippets
read a chunk by its language column in SQL: "" (not yet detected) reads as `english`, as every
chunk was read before languages were detected; a code without a stemmer reads as `simple`.
tests/documents/test_language_detection.py checks it agrees with the Python mapping.
"""

from django.db import migrations

from documents.languages import FALLBACK_CONFIG, TEXT_SEARCH_CONFIGS


def _function_sql() -> str:
    cases = "\n".join(f"        WHEN '{code}' THEN '{config}'" for code, config in sorted(TEXT_SEARCH_CONFIGS.items()))
    return f"""
CREATE OR REPLACE FUNCTION documents_text_search_config(language text) RETURNS regconfig
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (CASE lower(split_part(replace(language, '_', '-'), '-', 1))
        WHEN '' THEN 'english'
{cases}
        ELSE '{FALLBACK_CONFIG}'
    END)::regconfig
$$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0016_document_and_chunk_language"),
    ]

    operations = [
        migrations.RunSQL(_function_sql(), "DROP FUNCTION IF EXISTS documents_text_search_config(text)"),
    ]
