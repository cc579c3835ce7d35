"""`manage.py bench_memory`: peak RSS while ingesting a generated 1,000-page PDF inline.

The PDF is built in a temporary directory (a few paragraphs of text a page), uploaded into a
fresh folder, run through the real pipeline in this process, and everything is deleted
afterwards. RSS is reported after the model is loaded (the baseline a worker sits at) and at
its peak (ru_maxrss), so the difference is what one large document costs.
"""

from __future__ import annotations

import os
import platform
import resource
import tempfile
import time
from argparse import ArgumentParser
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from documents.embedding import embed_texts, get_model
from documents.models import Document, DocumentStatus, Folder
from documents.services.ingest import document_ingest
from documents.services.upload import IncomingFile, document_upload

SENTENCES = [
    "The archive keeps every report that the survey team filed during the spring season.",
    "Each report lists the site, the date, the weather and the instruments that were used.",
    "Readings taken in heavy rain were marked as doubtful and checked again the next morning.",
    "The team leader signed every page before it was copied into the central register.",
    "Missing pages were noted in the margin together with the reason they could not be found.",
    "Later audits compared the register with the original notebooks, line by line.",
]


def build_pdf(path: Path, pages: int, paragraphs: int) -> Path:
    import pymupdf

    doc = pymupdf.open()
    box = pymupdf.Rect(72, 72, 612 - 72, 792 - 72)
    for number in range(pages):
        page = doc.new_page(width=612, height=792)
        body = []
        for index in range(paragraphs):
            n = number * paragraphs + index
            body.append(f"Paragraph {n}. " + " ".join(SENTENCES[(n + i) % len(SENTENCES)] for i in range(4)))
        page.insert_textbox(box, f"Page {number + 1} of the long report\n\n" + "\n\n".join(body), fontsize=10)
    doc.save(path, garbage=1, deflate=True)
    doc.close()
    return path


def rss_now_mb() -> float:
    """Current resident set size (Linux /proc), in MB."""
    try:
        fields = Path("/proc/self/statm").read_text().split()
        return int(fields[1]) * os.sysconf("SC_PAGE_SIZE") / 1_048_576
    except (OSError, ValueError, IndexError):
        return float("nan")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class Command(BaseCommand):
    help = "Measure peak RSS and time for ingesting a generated 1,000-page PDF inline."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--pages", type=int, default=1000)
        parser.add_argument("--paragraphs", type=int, default=3, help="Paragraphs of text on each page.")

    def handle(self, *args: Any, **options: Any) -> None:
        get_model()
        embed_texts(["warm up the encoder before measuring"])
        baseline_now, baseline_peak = rss_now_mb(), peak_rss_mb()
        folder = Folder.objects.create(name=f"__bench_memory__ {time.time():.0f}")
        try:
            with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
                path = build_pdf(Path(tmp) / "long-report.pdf", options["pages"], options["paragraphs"])
                size = path.stat().st_size
                # The builder's own allocations are not the pipeline's: report the peak
                # before ingesting too, so a reader can tell them apart.
                before_now, before_peak = rss_now_mb(), peak_rss_mb()
                started = time.perf_counter()
                with path.open("rb") as stream:
                    incoming = IncomingFile(name=path.name, size=size, stream=stream)
                    uploaded = document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=False)
                document = document_ingest(uploaded.pk)
                elapsed = time.perf_counter() - started
            if document is None or document.status != DocumentStatus.INDEXED:
                reason = document.failure_reason if document else "deleted"
                raise CommandError(f"the benchmark document did not index: {reason}")
            self._report(document, size, elapsed, baseline_now, baseline_peak, before_now, before_peak)
        finally:
            for stored in Document.objects.filter(folder=folder):
                stored.file.delete(save=False)
            folder.delete()

    def _report(
        self,
        document: Document,
        size: int,
        elapsed: float,
        baseline_now: float,
        baseline_peak: float,
        before_now: float,
        before_peak: float,
    ) -> None:
        peak = peak_rss_mb()
        lines = [
            f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, {os.cpu_count()} cores",
            f"document: {document.page_count} pages, {size / 1_048_576:.1f} MB PDF, "
            f"{len(document.canonical_text):,} characters, {document.chunk_count} chunks",
            f"RSS after model load: {baseline_now:.0f} MB (peak so far {baseline_peak:.0f} MB)",
            f"RSS before ingesting (after building the PDF): {before_now:.0f} MB (peak so far {before_peak:.0f} MB)",
            f"peak RSS (ru_maxrss) after ingesting: {peak:.0f} MB; now {rss_now_mb():.0f} MB",
            f"peak growth over the model-loaded baseline: {peak - baseline_peak:.0f} MB",
            f"time (upload + extract + chunk + embed + store): {elapsed:.1f} s "
            f"= {(document.page_count or 0) / elapsed:.1f} pages/s",
        ]
        self.stdout.write("\n".join(lines))
