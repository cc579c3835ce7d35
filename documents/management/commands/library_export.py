"""`manage.py library_export DIR [--without-index]`: back up the whole library to a directory."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from documents.services.backup_export import ExportRefused, library_export
from documents.services.backup_format import NOT_EXPORTED


class Command(BaseCommand):
    help = (
        "Export folders (with permissions), accounts, documents, original files and the search index "
        "to a new directory, from one consistent snapshot; safe while the application runs."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("directory", help="A new (or empty) directory to write the export into.")
        parser.add_argument(
            "--without-index",
            action="store_true",
            help="Leave out chunks and vectors (a smaller export; the import re-indexes every document).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            summary = library_export(
                Path(options["directory"]),
                with_index=not options["without_index"],
                show_progress=options["verbosity"] > 0,
            )
        except ExportRefused as exc:
            raise CommandError(str(exc)) from exc
        counts = summary.counts
        self.stdout.write(
            self.style.SUCCESS(
                f"exported to {summary.directory}: {counts['folders']} folders, {counts['documents']} documents, "
                f"{counts.get('chunks', 0)} chunks, {counts['files']} original files "
                f"({counts['file_bytes'] / 1_048_576:.1f} MB), {counts['users']} accounts, {counts['groups']} groups; "
                f"{summary.total_bytes / 1_048_576:.1f} MB in all"
            )
        )
        if "chunks" not in counts:
            self.stdout.write("without the index: the import will re-index every document.")
        self.stdout.write(f"not exported: {NOT_EXPORTED}")
        for skipped in summary.skipped:
            self.stdout.write(
                self.style.WARNING(
                    f"skipped document {skipped['document']} ('{skipped['title']}'): {skipped['reason']}"
                )
            )
