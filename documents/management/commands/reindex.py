"""`manage.py reindex --stale | --all | ID ...`: re-embed documents, showing progress."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from documents.models import Document, DocumentStatus
from documents.selectors import stale_documents
from documents.services.ingest import document_ingest
from documents.services.queueing import documents_requeue


class Command(BaseCommand):
    help = "Re-index documents whose stamps differ from the current settings (--stale), all, or given ids."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("ids", nargs="*", type=int)
        parser.add_argument("--stale", action="store_true", help="Only documents indexed with other settings.")
        parser.add_argument("--all", action="store_true", help="Every document.")
        parser.add_argument("--queue", action="store_true", help="Queue for the workers instead of running here.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["stale"]:
            documents = stale_documents()
        elif options["all"]:
            documents = Document.objects.all()
        elif options["ids"]:
            documents = Document.objects.filter(pk__in=options["ids"])
        else:
            raise CommandError("Say what to re-index: --stale, --all, or document ids.")
        ids = list(documents.order_by("pk").values_list("pk", flat=True))
        if options["queue"]:
            count = documents_requeue(Document.objects.filter(pk__in=ids))
            self.stdout.write(self.style.SUCCESS(f"queued {count} document(s)"))
            return
        outcomes = {DocumentStatus.INDEXED: 0, DocumentStatus.FAILED: 0}
        for document_id in tqdm(ids, desc="re-indexing", unit="doc"):
            document = document_ingest(document_id)
            if document is not None:
                outcomes[DocumentStatus(document.status)] = outcomes.get(DocumentStatus(document.status), 0) + 1
        self.stdout.write(
            self.style.SUCCESS(
                f"re-indexed {outcomes[DocumentStatus.INDEXED]}, failed {outcomes[DocumentStatus.FAILED]}"
            )
        )
