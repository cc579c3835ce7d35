"""`manage.py reindex --stale | --all | ID ...`: re-index documents, showing progress.

Each document is extracted and chunked again; a chunk whose embedded text was embedded before
by the current model reuses that vector, so only changed chunks reach the encoder. The command
ends with a summary: documents indexed and failed, vectors reused and computed, time taken.
"""

from __future__ import annotations

import time
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from documents.models import Document, DocumentStatus
from documents.selectors import stale_documents
from documents.services import vector_reuse
from documents.services.ingest import document_ingest
from documents.services.queueing import documents_requeue


class Command(BaseCommand):
    help = "Re-index documents whose stamps differ from the current settings (--stale), all, or given ids."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("ids", nargs="*", type=int)
        parser.add_argument("--stale", action="store_true", help="Only documents indexed with other settings.")
        parser.add_argument("--all", action="store_true", help="Every document.")
        parser.add_argument("--queue", action="store_true", help="Queue for the workers instead of running here.")
        parser.add_argument(
            "--no-reuse", action="store_true", help="Embed every chunk again, even when a stored vector matches."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        ids = self._selected_ids(options)
        if options["queue"]:
            count = documents_requeue(Document.objects.filter(pk__in=ids))
            self.stdout.write(self.style.SUCCESS(f"queued {count} document(s)"))
            return
        reuse = settings.EMBEDDING_REUSE
        settings.EMBEDDING_REUSE = reuse and not options["no_reuse"]
        try:
            self._reindex(ids)
        finally:
            settings.EMBEDDING_REUSE = reuse

    def _reindex(self, ids: list[int]) -> None:
        started, before = time.perf_counter(), vector_reuse.ReuseTally(**vars(vector_reuse.TALLY))
        outcomes: dict[str, int] = {DocumentStatus.INDEXED: 0, DocumentStatus.FAILED: 0}
        # The raw stream: Django's wrapper would end every "\r" redraw of the bar with a newline.
        with tqdm(ids, desc="re-indexing", unit="doc", file=self.stderr._out) as bar:
            for document_id in bar:
                document = document_ingest(document_id)
                if document is not None:
                    outcomes[document.status] = outcomes.get(document.status, 0) + 1
                tally = vector_reuse.TALLY
                bar.set_postfix(reused=tally.reused - before.reused, embedded=tally.embedded - before.embedded)
        self._summary(outcomes, before, time.perf_counter() - started)

    def _selected_ids(self, options: dict[str, Any]) -> list[int]:
        if options["stale"]:
            documents = stale_documents()
        elif options["all"]:
            documents = Document.objects.all()
        elif options["ids"]:
            documents = Document.objects.filter(pk__in=options["ids"])
        else:
            raise CommandError("Say what to re-index: --stale, --all, or document ids.")
        return list(documents.order_by("pk").values_list("pk", flat=True))

    def _summary(self, outcomes: dict[str, int], before: vector_reuse.ReuseTally, seconds: float) -> None:
        reused = vector_reuse.TALLY.reused - before.reused
        embedded = vector_reuse.TALLY.embedded - before.embedded
        self.stdout.write(
            self.style.SUCCESS(
                f"re-indexed {outcomes[DocumentStatus.INDEXED]}, failed {outcomes[DocumentStatus.FAILED]} "
                f"in {seconds:.1f} s; vectors reused {reused}, embedded {embedded}"
            )
        )
