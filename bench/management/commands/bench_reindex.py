"""`manage.py bench_reindex [--folder NAME]`: re-indexing with stored vectors reused vs a full re-embed.

Simulates an extractor change that alters few chunks: every document is stamped with an older
extractor (so `reindex --stale` picks it up) and the extractor, wrapped for this run, appends one
sentence to each document's text, which changes only the chunks at its end. The same stale
re-index then runs twice in this process: first with vector reuse (the default), then with
`--no-reuse`, which sends every chunk to the encoder. Both runs extract and chunk alike, so
the ratio is the encoder work saved. Run it on an indexed library (e.g. the dev corpus).
"""

from __future__ import annotations

import io
import time
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from documents.embedding import embed_texts
from documents.extraction.types import ExtractedText
from documents.models import Chunk, Document, DocumentStatus
from documents.progress import ProgressReport, no_progress
from documents.services import ingest

OLD_STAMP = "bench-reindex-older-extractor"
# The sentence names this run, so that no earlier run's vectors match the changed chunks.
APPENDED = "\n\nThis sentence was added by simulated extractor change {run} to alter the last chunk."


class Command(BaseCommand):
    help = "Time `reindex --stale` with vector reuse against a full re-embed after a small extractor change."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--folder", default="", help="Only documents in this top-level folder (default: all).")

    def handle(self, *args: Any, **options: Any) -> None:
        documents = Document.objects.filter(status=DocumentStatus.INDEXED)
        if options["folder"]:
            documents = documents.filter(folder__name=options["folder"], folder__parent=None)
        ids = list(documents.values_list("pk", flat=True))
        if not ids:
            raise CommandError("No indexed documents to re-index; ingest a corpus first.")
        chunks = Chunk.objects.filter(document_id__in=ids).count()
        self.stdout.write(f"{len(ids)} documents, {chunks} chunks")
        real_extract = ingest.extract_document
        appended = APPENDED.format(run=time.strftime("%Y%m%d%H%M%S"))

        def changed_extractor(path: Path, content_type: str, report: ProgressReport = no_progress) -> ExtractedText:
            extracted = real_extract(path, content_type, report)
            extracted.text += appended
            return extracted

        embed_texts(["load the encoder before timing"])  # neither run pays for loading the model
        ingest.extract_document = changed_extractor
        try:
            reuse = self._timed_stale_reindex(ids, [])
            full = self._timed_stale_reindex(ids, ["--no-reuse"])
        finally:
            ingest.extract_document = real_extract
        ratio = full[0] / reuse[0] if reuse[0] else float("inf")
        self.stdout.write(f"with reuse:  {reuse[0]:.1f} s  ({reuse[1]})")
        self.stdout.write(f"full re-embed: {full[0]:.1f} s  ({full[1]})")
        self.stdout.write(self.style.SUCCESS(f"speed-up: {ratio:.1f}x"))

    def _timed_stale_reindex(self, ids: list[int], extra: list[str]) -> tuple[float, str]:
        # Each run starts from documents stamped with an older extractor, as after a release.
        Document.objects.filter(pk__in=ids).update(extractor=OLD_STAMP)
        out = io.StringIO()
        started = time.perf_counter()
        call_command("reindex", "--stale", *extra, stdout=out, stderr=io.StringIO())
        return time.perf_counter() - started, out.getvalue().strip()
