"""`manage.py embedding_switch`: make the chunk vector column hold EMBEDDING_DIMS-sized vectors.

Changing EMBEDDING_DIMS (another model, another embedding server) needs a column of the new
size. This command, in one transaction, drops the HNSW index, changes the column's type (every
stored vector is cleared: none of them belongs to the new space), builds the index again and
queues every document; the workers then re-embed them with the configured embedder. Until it
has run, searching and ingesting under the new size are refused with a message naming it
(documents/vector_column.py). While documents wait, keyword (BM25) search still finds them.

The table is locked while the column changes, which takes seconds even for large libraries
(the vectors are dropped, not converted).
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from documents.models import Chunk, Document
from documents.services.queueing import documents_requeue
from documents.vector_column import COLUMN, HNSW_MAX_DIMS, INDEX, TABLE, forget_verified, vector_column_dims


class Command(BaseCommand):
    help = "Rebuild the chunk vector column and its HNSW index for EMBEDDING_DIMS, and queue every document."
    # The database check this command answers (documents/vector_column.py) must not stop it.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--no-queue",
            action="store_true",
            help="Rebuild the column only; queue the documents later (`manage.py reindex --all --queue`).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        dims = settings.EMBEDDING_DIMS
        if not 1 <= dims <= HNSW_MAX_DIMS:
            raise CommandError(
                f"EMBEDDING_DIMS={dims}: the HNSW index takes vectors of 1 to {HNSW_MAX_DIMS} dimensions."
            )
        column = vector_column_dims()
        if column is None:
            raise CommandError("The chunk table does not exist yet: run `manage.py migrate` first.")
        if column == dims:
            self.stdout.write(
                f"The vector column already holds {dims}-dimensional vectors; nothing to rebuild. "
                "Documents embedded by another model are re-embedded by `manage.py reindex --stale --queue`."
            )
            return
        index = next(i for i in Chunk._meta.indexes if i.name == INDEX)
        with transaction.atomic():
            with connection.schema_editor(atomic=False) as editor:
                editor.remove_index(Chunk, index)
                editor.execute(f"ALTER TABLE {TABLE} ALTER COLUMN {COLUMN} TYPE vector({int(dims)}) USING NULL")
                editor.add_index(Chunk, index)
            queued = 0 if options["no_queue"] else documents_requeue(Document.objects.all())
        forget_verified()
        self.stdout.write(self.style.SUCCESS(f"vector column rebuilt: {column} -> {dims} dimensions"))
        if options["no_queue"]:
            self.stdout.write("no document queued: run `manage.py reindex --all --queue` to re-embed them")
        else:
            self.stdout.write(self.style.SUCCESS(f"queued {queued} document(s) for re-embedding"))
