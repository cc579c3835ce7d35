"""`manage.py bench_memory`: peak RSS of ingesting large generated documents inline, one per process.

Cases: `pdf` (a 1,000-page PDF), `text-one-line` and `text-lines` (a text file of `--text-mb`
MB of distinct sentences, in one line or in short lines and paragraphs) and `text-over-limit`
(a one-line text file of `--over-mb` MB, refused by INGEST_MAX_TEXT_CHARS). Each file is built
in a temporary directory, uploaded into a fresh folder, run through the real pipeline, and
deleted afterwards. Each case runs in a child process of its own, so its peak RSS (ru_maxrss)
is its own; the baseline is the RSS after the model is loaded (what a worker sits at), and the
growth over it is what one document costs, also given per MB of text.
"""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from argparse import ArgumentParser
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
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


# Words of distinct generated sentences: every chunk differs, so no vector is reused.
WORDS = (  # noqa: SIM905 (41 words read better as one string)
    "archive report survey team filed spring season site date weather instrument reading rain doubtful "
    "checked morning leader signed page copied central register missing noted margin reason audit "
    "compared original notebook line river valley station sample depth pressure north south east west"
).split()
CASES = ("pdf", "text-one-line", "text-lines", "text-over-limit")


def build_text(path: Path, megabytes: float, *, lines: bool, seed: int = 7) -> Path:
    """A UTF-8 text file of distinct generated sentences, written in pieces (never held whole).

    `lines`: about 80 characters a line and a blank line every dozen lines; else one line.
    """
    rng = random.Random(seed)
    target = int(megabytes * 1_048_576)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        line_chars = 0
        line_count = 0
        while written < target:
            sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + f" {written}."
            gap = " "
            line_chars += len(sentence) + 1
            if lines and line_chars > 80:
                line_count += 1
                gap = "\n\n" if line_count % 12 == 0 else "\n"
                line_chars = 0
            out.write(sentence + gap)
            written += len(sentence) + len(gap)
    return path


class Command(BaseCommand):
    help = "Measure peak RSS of ingesting large generated documents inline (each case in its own process)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--case", choices=CASES, help="Run one case in this process (default: all, one child each)."
        )
        parser.add_argument("--pages", type=int, default=1000)
        parser.add_argument("--paragraphs", type=int, default=3, help="Paragraphs of text on each PDF page.")
        parser.add_argument("--text-mb", type=float, default=2.0, help="Size of the text-file cases, in MB.")
        parser.add_argument("--over-mb", type=float, default=50.0, help="Size of the over-the-limit text file.")
        parser.add_argument("--json", action="store_true", help="Print one JSON line (used between processes).")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["case"]:
            result = self._run_case(options["case"], options)
            self.stdout.write(json.dumps(result) if options["json"] else _table([result]))
            return
        results = [self._child(case, options) for case in CASES]
        self.stdout.write(
            f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, {os.cpu_count()} cores; "
            f"INGEST_MAX_TEXT_CHARS {settings.INGEST_MAX_TEXT_CHARS:,}\n"
        )
        self.stdout.write(_table(results))

    def _child(self, case: str, options: dict[str, Any]) -> dict[str, Any]:
        command = [sys.executable, "manage.py", "bench_memory", "--case", case, "--json"]
        for name in ("pages", "paragraphs", "text_mb", "over_mb"):
            command += [f"--{name.replace('_', '-')}", str(options[name])]
        done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=settings.BASE_DIR)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode or not lines:
            raise CommandError(f"case {case} failed:\n{done.stderr[-3000:]}")
        return dict(json.loads(lines[-1]))

    def _run_case(self, case: str, options: dict[str, Any]) -> dict[str, Any]:
        get_model()
        embed_texts(["warm up the encoder before measuring"])
        baseline = peak_rss_mb()
        folder = Folder.objects.create(name=f"__bench_memory__ {case} {time.time():.0f}")
        try:
            with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
                path = _build(case, Path(tmp), options)
                size = path.stat().st_size
                built = peak_rss_mb()
                started = time.perf_counter()
                with path.open("rb") as stream:
                    incoming = IncomingFile(name=path.name, size=size, stream=stream)
                    uploaded = document_upload(folder=folder, incoming=incoming, uploaded_by=None, enqueue=False)
                document = document_ingest(uploaded.pk)
                elapsed = time.perf_counter() - started
            if document is None:
                raise CommandError("the benchmark document was deleted")
            peak = peak_rss_mb()
            chars = len(document.canonical_text) if document.status == DocumentStatus.INDEXED else None
            return {
                "case": case,
                "file_mb": round(size / 1_048_576, 2),
                "chars": chars,
                "pages": document.page_count,
                "chunks": document.chunk_count,
                "status": document.status,
                "reason": document.failure_reason[:160],
                "baseline_mb": round(baseline),
                "built_mb": round(built),
                "peak_mb": round(peak),
                "growth_mb": round(peak - max(baseline, built)),
                "seconds": round(elapsed, 1),
            }
        finally:
            for stored in Document.objects.filter(folder=folder):
                stored.file.delete(save=False)
            folder.delete()


def _build(case: str, directory: Path, options: dict[str, Any]) -> Path:
    if case == "pdf":
        return build_pdf(directory / "long-report.pdf", options["pages"], options["paragraphs"])
    if case == "text-over-limit":
        return build_text(directory / "over-limit.txt", options["over_mb"], lines=False)
    return build_text(directory / f"{case}.txt", options["text_mb"], lines=case == "text-lines")


def _table(results: list[dict[str, Any]]) -> str:
    rows = [
        "| case | file | characters | chunks | status | RSS after model load | peak RSS | growth "
        "| growth per MB of text | time |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        text_mb = (r["chars"] or 0) / 1_048_576
        per_mb = f"{r['growth_mb'] / text_mb:.0f} MB" if text_mb else "–"
        chars = f"{r['chars']:,}" if r["chars"] is not None else "–"
        status = r["status"] if r["status"] != DocumentStatus.FAILED else f"failed: {r['reason']}"
        rows.append(
            f"| {r['case']} | {r['file_mb']} MB | {chars} | {r['chunks'] or 0:,} | {status} | {r['baseline_mb']} MB "
            f"| {r['peak_mb']} MB | {r['growth_mb']} MB | {per_mb} | {r['seconds']} s |"
        )
    return "\n".join(rows)
