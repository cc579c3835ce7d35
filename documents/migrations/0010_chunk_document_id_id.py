"""Chunks indexed by (document, id): a filtered search reads its allowed chunk ids from the index
alone. The index is built before the foreign key's own one-column index, which it makes
redundant, is dropped."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0009_document_progress"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="chunk",
            index=models.Index(fields=["document", "id"], name="chunk_document_id_id"),
        ),
        migrations.AlterField(
            model_name="chunk",
            name="document",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="chunks",
                to="documents.document",
            ),
        ),
    ]
