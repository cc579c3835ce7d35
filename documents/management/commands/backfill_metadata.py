"""`manage.py backfill_metadata [ID ...]`: read indexed documents' title, authors and date.

Metadata is read at every indexing; this gives it to documents indexed before it existed
without re-indexing them (no extraction of the whole text, no OCR, no embedding: a PDF's first
page, a Word file's properties, a page's head). Fields staff corrected are left as they are.
Safe to run again: it writes what the files say.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from documents.models import Document, DocumentStatus
from documents.services.metadata import document_metadata_backfill


class Command(BaseCommand):
    help = "Read the title, authors and date of indexed documents (all, or the given ids) from their files."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("ids", nargs="*", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        documents = Document.objects.filter(status=DocumentStatus.INDEXED).order_by("pk")
        if options["ids"]:
            documents = documents.filter(pk__in=options["ids"])
        written = total = 0
        for document in documents.iterator(chunk_size=200):
            total += 1
            written += document_metadata_backfill(document)
        self.stdout.write(self.style.SUCCESS(f"metadata written for {written} of {total} indexed document(s)"))
