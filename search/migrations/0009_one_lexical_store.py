"""One lexical store: drop the row-per-posting tables the default BM25 leg never reads.

The packed postings (search_lexemeblock) and the per-folder lengths (search_folderlength) give
BM25 everything it needs, document frequencies included, and the coverage check in
search/services/terms.py reads the packed rows too. Dropped: search_chunklexeme (a row per
posting, with impacts and its impact-ordered index), search_documentlexeme (per-document
lexeme frequencies) and search_bm25impactbasis (the impacts' reference length). Reversing
this migration recreates them empty; nothing writes them any more.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0008_issue11_folder_lengths"),
    ]

    operations = [
        migrations.DeleteModel(name="Bm25ImpactBasis"),
        migrations.DeleteModel(name="ChunkLexeme"),
        migrations.DeleteModel(name="DocumentLexeme"),
    ]
