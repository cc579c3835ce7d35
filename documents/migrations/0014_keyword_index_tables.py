"""The keyword index's models, declared in documents/lexical/models.py on their existing tables.

State only: search/0010 removed them from the search app's state; the tables keep their names
and rows, so nothing is copied or rebuilt.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0013_h29_workers_run_id"),
        ("search", "0010_keyword_index_tables_to_documents"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LexemeBlock",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("block", models.IntegerField(help_text="chunk id >> 12")),
                        ("lexeme", models.TextField()),
                        (
                            "chunk_count",
                            models.PositiveIntegerField(help_text="Postings in this row: chunks holding the lexeme."),
                        ),
                        ("postings", models.BinaryField()),
                        (
                            "folder",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="documents.folder"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "search_lexemeblock",
                        "indexes": [models.Index(fields=["block"], name="lexeme_block_block")],
                        "constraints": [
                            models.UniqueConstraint(fields=("lexeme", "folder", "block"), name="lexeme_block_unique")
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="FolderLength",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("folder_id", models.BigIntegerField()),
                        ("chunks", models.BigIntegerField()),
                        ("lexemes", models.BigIntegerField()),
                    ],
                    options={
                        "db_table": "search_folderlength",
                        "indexes": [
                            models.Index(
                                fields=["folder_id"], include=("chunks", "lexemes"), name="folder_length_folder"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
