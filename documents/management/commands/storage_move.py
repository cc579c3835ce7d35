"""`manage.py storage_move --to filesystem|database|s3 [--delete-source]`: move the originals.

Copies every document's original from the storage FILE_STORAGE names to the one `--to` names
(its settings read from the environment as FILE_STORAGE would read them), verifying each copy's
sha256 (documents/services/storage_move.py). Run it again after an interruption, or to pick up
uploads made meanwhile: what is verified already is skipped. Then set FILE_STORAGE to the new
storage and restart web and workers (docs/operations.md "Where originals live").
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files.storage import default_storage, storages
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from documents.models import Document, Folder
from documents.selectors import folder_with_descendants
from documents.services.storage_move import originals_move
from ragsite.file_storages import FILE_STORAGE_KINDS, file_storage_backend


class Command(BaseCommand):
    help = (
        "Copy every document's original from the current FILE_STORAGE to another, verifying its sha256; "
        "resumable. Then set FILE_STORAGE to the new storage and restart web and workers."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--to", required=True, choices=FILE_STORAGE_KINDS, help="The storage to move to.")
        parser.add_argument(
            "--delete-source",
            action="store_true",
            help="Delete each original from the current storage once its copy is verified.",
        )
        parser.add_argument(
            "--folder",
            type=int,
            help="Only the originals in this folder and its subfolders (to try a move on part of the library).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["to"] == settings.FILE_STORAGE:
            raise CommandError(f"The originals are in {settings.FILE_STORAGE} storage already (FILE_STORAGE).")
        try:
            target = storages.create_storage(file_storage_backend(options["to"]))
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from exc
        folder_ids = None
        if options["folder"] is not None:
            if not Folder.objects.filter(pk=options["folder"]).exists():
                raise CommandError(f"There is no folder {options['folder']}.")
            folder_ids = folder_with_descendants(options["folder"])
        documents = Document.objects.all() if folder_ids is None else Document.objects.filter(folder_id__in=folder_ids)
        show = options["verbosity"] > 0
        with tqdm(total=documents.count(), desc="originals", unit="doc", disable=not show) as bar:
            summary = originals_move(
                default_storage, target, delete_source=options["delete_source"], folder_ids=folder_ids,
                on_document=lambda: bar.update(),
            )  # fmt: skip
        for problem in summary.problems:
            self.stderr.write(problem)
        deleted = (
            f", {summary.sources_deleted} deleted from {settings.FILE_STORAGE}" if options["delete_source"] else ""
        )
        self.stdout.write(
            f"{summary.copied} originals copied to {options['to']} and verified, "
            f"{summary.already} verified there already{deleted}."
        )
        if summary.problems:
            raise CommandError(
                f"{len(summary.problems)} originals could not be moved (listed above); keep FILE_STORAGE="
                f"{settings.FILE_STORAGE} until they are resolved, then run this again."
            )
        if folder_ids is None:
            self.stdout.write(f"Every original is in {options['to']}: set FILE_STORAGE={options['to']} and restart.")
