"""Chunk.embedding_key, filled in for chunks already stored so that their vectors are reusable.

The stored chunks were embedded as "context\\ncontent" (content alone without a context) by the
model their document is stamped with; their key is computed from exactly that, once, here.
"""

import hashlib
from typing import Any

from django.db import migrations, models


def fill_keys(apps: Any, schema_editor: Any) -> None:
    chunk_model = apps.get_model("documents", "Chunk")
    rows = chunk_model.objects.filter(embedding__isnull=False, document__embedding_dims__isnull=False).select_related(
        "document"
    )
    batch: list[Any] = []
    for chunk in rows.only("id", "context", "content", "document__embedding_model", "document__embedding_dims"):
        text = f"{chunk.context}\n{chunk.content}" if chunk.context else chunk.content
        stamp = f"{chunk.document.embedding_model}\n{chunk.document.embedding_dims}\n"
        chunk.embedding_key = hashlib.sha256(stamp.encode() + text.encode()).hexdigest()
        batch.append(chunk)
        if len(batch) >= 1000:
            chunk_model.objects.bulk_update(batch, ["embedding_key"])
            batch.clear()
    chunk_model.objects.bulk_update(batch, ["embedding_key"])


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0003_issue12_ocr"),
    ]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="embedding_key",
            field=models.CharField(blank=True, db_index=True, max_length=64),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop, elidable=True),
    ]
