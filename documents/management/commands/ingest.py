"""Bulk loading: `manage.py ingest PATH [PATH ...] --folder NAME [--inline]`."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from documents.extraction.formats import CONTENT_TYPES_BY_SUFFIX
from documents.extraction.sniff import sniff_content_type
from documents.models import Document, DocumentStatus, Folder
from documents.names import InvalidName, name_clean
from documents.services.ingest import document_ingest
from documents.services.upload import IncomingFile, UploadRejected, document_upload


def is_supported(path: Path) -> bool:
    """A known extension, or content recognised as PDF, Word or HTML (files without one)."""
    if path.suffix.lower() in CONTENT_TYPES_BY_SUFFIX:
        return True
    try:
        with path.open("rb") as stream:
            return sniff_content_type(stream) is not None
    except OSError:
        return False


def files_under(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and is_supported(p)))
        elif path.is_file():
            found.append(path)
        else:
            raise CommandError(f"{path} does not exist.")
    return found


class Command(BaseCommand):
    help = "Upload files (or every supported file under folders) into a library folder and index them."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("paths", nargs="+", help="Files or folders to load.")
        parser.add_argument("--folder", required=True, help="Library folder name (created if missing).")
        parser.add_argument("--inline", action="store_true", help="Process here, without a broker or worker.")

    def handle(self, *args: Any, **options: Any) -> None:
        files = files_under(options["paths"])
        if not files:
            raise CommandError("No PDF, Word, HTML, Markdown or text files found under the given paths.")
        try:
            name = name_clean(options["folder"], what="folder name")
        except InvalidName as exc:
            raise CommandError(exc.message) from exc
        if not name:
            raise CommandError("--folder needs a name.")
        folder, _ = Folder.objects.get_or_create(name=name, parent=None)
        inline = options["inline"]
        rejected: list[tuple[str, str]] = []
        documents: list[Document] = []
        for path in tqdm(files, desc="inline ingest" if inline else "queueing", unit="file"):
            document = self._upload(path, folder, inline, rejected)
            if document is not None:
                documents.append(document)
        self._summary(documents, rejected, inline)

    def _upload(self, path: Path, folder: Folder, inline: bool, rejected: list[tuple[str, str]]) -> Document | None:
        try:
            with path.open("rb") as stream:
                incoming = IncomingFile(name=path.name, size=path.stat().st_size, stream=stream)
                # --inline runs the pipeline here, so nothing goes to the broker.
                document = document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=not inline)
        except UploadRejected as exc:
            rejected.append((path.name, exc.message))
            return None
        if inline:
            document_ingest(document.pk)
        return document

    def _summary(self, documents: list[Document], rejected: list[tuple[str, str]], inline: bool) -> None:
        fresh = Document.objects.filter(pk__in=[d.pk for d in documents]).order_by("title")
        indexed = [d for d in fresh if d.status == DocumentStatus.INDEXED]
        failed = [d for d in fresh if d.status == DocumentStatus.FAILED]
        if inline:
            self.stdout.write(
                self.style.SUCCESS(f"indexed: {len(indexed)} ({sum(d.chunk_count for d in indexed)} chunks)")
            )
        else:
            self.stdout.write(self.style.SUCCESS(f"queued: {len(documents)} (a worker indexes them; watch the admin)"))
        if failed:
            self.stdout.write(self.style.WARNING(f"failed: {len(failed)}"))
            for document in failed:
                self.stdout.write(f"  {document.original_name}: {document.failure_reason}")
        if rejected:
            self.stdout.write(self.style.WARNING(f"not stored: {len(rejected)}"))
            for name, reason in rejected:
                self.stdout.write(f"  {name}: {reason}")
