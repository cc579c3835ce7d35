"""`manage.py bench_ingest DIR`: ingest a folder inline and report throughput (make bench-ingest).

Besides wall-clock rates it reports this process's CPU seconds per chunk (what a worker spends),
end to end and for embedding alone. `--http-server` starts the test suite's embedding server
(tests/embedding_server.py, the installed MiniLM) in a process of its own and runs with
EMBEDDER=http against it and MiniLM's tokenizer, so the chunks are the local run's and the
difference in CPU per chunk is what moving the encoder out of the worker saves.
"""

from __future__ import annotations

import os
import platform
import resource
import socket
import subprocess
import sys
import tempfile
import time
from argparse import ArgumentParser, ArgumentTypeError
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bench.scans import add_scan, ocr_word_accuracy
from bench.worker_runs import worker_runs, worker_runs_lines
from documents import chunking
from documents.embedding import embed_texts, model_path, warm_up
from documents.extraction import ocr
from documents.extraction.language import chunk_languages
from documents.management.commands.ingest import files_under
from documents.models import Chunk, Document, DocumentStatus, Folder
from documents.services.contexts import context_writer_enabled
from documents.services.ingest import document_ingest
from documents.services.upload import IncomingFile, document_upload


class Command(BaseCommand):
    help = "Benchmark ingestion: documents/s and chunks/s end to end, and embedding-only chunks/s."
    cpu = 0.0  # this process's CPU seconds over the ingestion, and over embedding alone
    embed_cpu = 0.0

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--keep", action="store_true", help="Keep the benchmark folder afterwards.")
        parser.add_argument(
            "--scan-pages",
            type=int,
            default=0,
            help="Also ingest an image-only PDF of the first N PDF pages (rendered at 200 dpi) to time OCR.",
        )
        parser.add_argument(
            "--workers",
            type=_counts,
            default=[],
            metavar="1,2",
            help="Also ingest the files through that many Celery worker processes, one run per count "
            "(bench/worker_runs.py), and report their chunks/s and its ratio to the first count's.",
        )
        parser.add_argument(
            "--http-server",
            action="store_true",
            help="Embed with EMBEDDER=http through the test suite's MiniLM server, run in its own process.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["http_server"]:
            self._run(options)
            return
        with embedding_server() as url:
            settings.EMBEDDER, settings.EMBEDDING_URL = "http", url
            settings.EMBEDDING_TOKENIZER = str(model_path("all-MiniLM-L6-v2") / "tokenizer.json")
            self._run(options)

    def _run(self, options: dict[str, Any]) -> None:
        files = files_under(options["paths"])
        if not files:
            raise CommandError("No files to ingest.")
        warm_up()  # load the model before timing: a worker loads it once per process
        folder = Folder.objects.create(name=f"__bench_ingest__ {time.time():.0f}")
        scratch = tempfile.TemporaryDirectory(prefix="bench-ingest-")
        text_layer = ""
        try:
            if options["scan_pages"]:
                scan, text_layer = scanned_copy(files, options["scan_pages"], Path(scratch.name) / SCAN_NAME)
                files.append(scan)
            ocr_before = (ocr.STATS.pages, ocr.STATS.seconds)
            cpu_before = cpu_seconds()
            elapsed, documents = self._ingest(files, folder)
            self.cpu = cpu_seconds() - cpu_before
            ocr_used = (ocr.STATS.pages - ocr_before[0], ocr.STATS.seconds - ocr_before[1])
            chunks = list(Chunk.objects.filter(document__folder=folder).only("document_id", "context", "content"))
            embed_seconds = self._embed_only(chunks)
            self._report(files, documents, chunks, elapsed, embed_seconds)
            self.stdout.write(_detection_line(documents, chunks, embed_seconds))
            self.stdout.write(_ocr_line(*ocr_used))
            scanned = next((d for d in documents if d.original_name == SCAN_NAME), None)
            if scanned is not None:
                self.stdout.write(ocr_accuracy_line(text_layer, scanned.canonical_text))
            if options["workers"]:
                runs = worker_runs(files, options["workers"], Path(scratch.name))
                self.stdout.write("\n".join(worker_runs_lines(runs)))
        finally:
            scratch.cleanup()
            if not options["keep"]:
                for document in Document.objects.filter(folder=folder):
                    document.file.delete(save=False)
                folder.delete()

    def _ingest(self, files: list[Path], folder: Folder) -> tuple[float, list[Document]]:
        started = time.perf_counter()
        ids = []
        for path in files:
            with path.open("rb") as stream:
                incoming = IncomingFile(name=path.name, size=path.stat().st_size, stream=stream)
                document = document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=False)
            document_ingest(document.pk)
            ids.append(document.pk)
        elapsed = time.perf_counter() - started
        return elapsed, list(Document.objects.filter(pk__in=ids))

    def _embed_only(self, chunks: list[Chunk]) -> float:
        texts = [chunking.embedded_text(c.context, c.content) for c in chunks]
        started, cpu_before = time.perf_counter(), cpu_seconds()
        embed_texts(texts)
        self.embed_cpu = cpu_seconds() - cpu_before
        return time.perf_counter() - started

    def _report(
        self, files: list[Path], documents: list[Document], chunks: list[Chunk], elapsed: float, embed_s: float
    ) -> None:
        indexed = sum(1 for d in documents if d.status == DocumentStatus.INDEXED)
        pages = sum(d.page_count or 0 for d in documents)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        lines = [
            f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, {os.cpu_count()} cores, "
            + (f"torch threads {_torch_threads()}" if settings.EMBEDDER == "local" else "no model in this process"),
            f"settings: strategy {chunking.STRATEGY}, target {settings.CHUNK_TARGET_CHARS} chars, "
            f"batch {settings.EMBEDDING_BATCH_SIZE}, embedder {settings.EMBEDDER}"
            + (
                f" ({settings.EMBEDDING_URL}, concurrency {settings.EMBEDDING_CONCURRENCY})"
                if settings.EMBEDDER == "http"
                else ""
            ),
            f"files: {len(files)} ({indexed} indexed), pages: {pages}, chunks: {len(chunks)}",
            f"end to end: {elapsed:.1f} s = {len(files) / elapsed:.2f} documents/s, "
            f"{len(chunks) / elapsed:.1f} chunks/s",
            f"embedding only: {embed_s:.1f} s = {len(chunks) / embed_s:.1f} chunks/s "
            f"({100 * embed_s / elapsed:.0f}% of end to end)",
            f"worker CPU: {self.cpu:.1f} s end to end = {1000 * self.cpu / max(1, len(chunks)):.1f} ms a chunk; "
            f"embedding only {self.embed_cpu:.1f} s = {1000 * self.embed_cpu / max(1, len(chunks)):.1f} ms a chunk",
            f"peak RSS: {rss_mb:.0f} MB",
        ]
        if context_writer_enabled():
            lines.append(_context_totals(documents, elapsed))
        self.stdout.write("\n".join(lines))


def _detection_line(documents: list[Document], chunks: list[Chunk], embed_seconds: float) -> str:
    """The cost of naming each chunk's and document's language (`chunk_languages`, run once per
    document at indexing), beside embedding the same chunks: it should be a small share of it."""
    by_document: dict[int, list[str]] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document_id, []).append(chunk.content)
    started = time.perf_counter()
    for texts in by_document.values():
        chunk_languages(texts)
    seconds = time.perf_counter() - started
    return (
        f"language detection: {seconds:.2f} s = {1000 * seconds / max(1, len(chunks)):.2f} ms a chunk "
        f"({100 * seconds / embed_seconds:.1f}% of embedding the same chunks; {len(documents)} documents)"
    )


def cpu_seconds() -> float:
    """User and system CPU of this process, all its threads (torch's included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def embedding_server() -> Iterator[str]:
    """tests/embedding_server.py on a free local port, in a process of its own; yields its URL."""
    import requests

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = Path(settings.BASE_DIR)
    server = subprocess.Popen([sys.executable, "-m", "tests.embedding_server", "--port", str(port)], cwd=root)
    try:
        deadline = time.monotonic() + 180  # it loads the model before it listens
        while True:
            try:
                requests.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except requests.RequestException:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise CommandError("the embedding server did not start") from None
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(timeout=30)


def _context_totals(documents: list[Document], elapsed: float) -> str:
    """What the context writer cost over the run, as the server reported it (CONTEXT_WRITER=openai)."""
    seconds = sum(d.context_seconds for d in documents)
    return (
        f"context writer: {settings.CONTEXT_LLM_MODEL} at {settings.CONTEXT_LLM_BASE_URL}; "
        f"{seconds:.1f} s ({100 * seconds / elapsed:.0f}% of end to end); "
        f"prompt tokens {sum(d.context_prompt_tokens for d in documents)} "
        f"(cached {sum(d.context_cached_prompt_tokens for d in documents)}), "
        f"completion tokens {sum(d.context_completion_tokens for d in documents)}; "
        f"failed chunks {sum(d.context_failures for d in documents)}, "
        f"reused from cache {sum(d.context_cache_hits for d in documents)}"
    )


SCAN_NAME = "scanned-pages.pdf"


def scanned_copy(files: list[Path], pages: int, target: Path) -> tuple[Path, str]:
    """An image-only PDF of the first `pages` pages of the PDFs among `files` (OCR's workload), and
    the text layer of those pages, to measure what OCR recovers of it."""
    import pymupdf

    text_layer = []
    with pymupdf.open() as out:
        for path in (p for p in files if p.suffix.lower() == ".pdf"):
            with pymupdf.open(path) as source:
                for page in source.pages(0, min(source.page_count, pages - out.page_count)):
                    add_scan(out, page)
                    text_layer.append(page.get_text())
            if out.page_count >= pages:
                break
        out.save(target, garbage=3, deflate=True)
    return target, "\n".join(text_layer)


def ocr_accuracy_line(text_layer: str, ocr_text: str) -> str:
    accuracy = ocr_word_accuracy(text_layer, ocr_text)
    return (
        f"OCR words against the pages' text layer: {accuracy.truth_words} words, OCR read "
        f"{accuracy.read_words}; in order recall {accuracy.recall:.3f}, precision {accuracy.precision:.3f}"
    )


def _ocr_line(pages: int, seconds: float) -> str:
    if not pages:
        return "OCR: no page needed it"
    return f"OCR: {pages} pages in {seconds:.1f} s = {pages / seconds:.2f} pages/s ({seconds / pages:.1f} s a page)"


def _counts(value: str) -> list[int]:
    """`--workers 1,2`: positive process counts."""
    try:
        counts = [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise ArgumentTypeError(f"--workers takes positive counts separated by commas (1,2), not {value!r}")
    return counts


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())
