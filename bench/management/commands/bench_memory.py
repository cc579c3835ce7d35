"""`manage.py bench_memory`: peak RSS of ingesting large generated documents inline, one per process.

Cases: `pdf` (a 1,000-page PDF), `text-one-line` and `text-lines` (text files of
`--small-text-mb` and `--text-mb` MB of distinct sentences, in one line or in short lines and
paragraphs), `text-over-limit` (a one-line text file of `--over-mb` MB, refused by
INGEST_MAX_TEXT_CHARS) and `docx` (a Word file whose body unpacks to `--docx-mb` MB of heavily
formatted runs). Each file is built
in a temporary directory, uploaded into a fresh folder, run through the real pipeline, and
deleted afterwards. Each case runs in a child process of its own, so its peak RSS (ru_maxrss)
is its own; the baseline is the RSS after the model is loaded (what a worker sits at), and the
growth over it is what one document costs; each text case runs at two sizes, and the slope
between them is the peak RSS one MB of text adds.
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


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# Words of distinct generated sentences: every chunk differs, so no vector is reused.
WORDS = (  # noqa: SIM905 (41 words read better as one string)
    "archive report survey team filed spring season site date weather instrument reading rain doubtful "
    "checked morning leader signed page copied central register missing noted margin reason audit "
    "compared original notebook line river valley station sample depth pressure north south east west"
).split()
CASES = ("pdf", "text-one-line", "text-lines", "text-over-limit", "docx")
TEXT_SHAPES = ("text-one-line", "text-lines")  # run at two sizes: the slope is the cost per MB


_DOCX_RUN = (  # a run with the formatting Word writes: ~330 bytes of XML for three characters
    '<w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:cs="Calibri"/><w:b/><w:i/>'
    '<w:color w:val="333333"/><w:sz w:val="24"/><w:szCs w:val="24"/><w:lang w:val="en-GB"/></w:rPr>'
    '<w:t xml:space="preserve">{word} </w:t></w:r>'
)


def build_docx(path: Path, unpacked_mb: float) -> Path:
    """A .docx whose document.xml unpacks to `unpacked_mb` MB of heavily formatted short runs."""
    import io
    import zipfile

    import docx

    blank = io.BytesIO()
    docx.Document().save(blank)
    target = int(unpacked_mb * 1_048_576)
    with zipfile.ZipFile(blank) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in source.infolist():
            if item.filename != "word/document.xml":
                archive.writestr(item, source.read(item))
                continue
            xml = source.read(item).decode()
            head, tail = xml.split("<w:body>")[0] + "<w:body>", "<w:sectPr" + xml.split("<w:sectPr", 1)[1]
            with archive.open("word/document.xml", "w", force_zip64=True) as part:
                written = part.write(head.encode()) + len(tail)
                number = 0
                while written < target:
                    runs = "".join(_DOCX_RUN.format(word=WORDS[(number + i) % len(WORDS)][:2]) for i in range(12))
                    paragraph = f"<w:p><w:r><w:t>{number}. </w:t></w:r>{runs}</w:p>".encode()
                    written += part.write(paragraph)
                    number += 1
                part.write(tail.encode())
    return path


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
        parser.add_argument("--text-mb", type=float, default=4.0, help="Size of the text-file cases, in MB.")
        parser.add_argument(
            "--small-text-mb", type=float, default=1.0, help="The smaller size each text case also runs at."
        )
        parser.add_argument(
            "--over-mb", type=float, default=49.0, help="Size of the over-the-limit text file (uploads stop at 50 MB)."
        )
        parser.add_argument(
            "--docx-mb",
            type=float,
            default=199.0,
            help="Unpacked MB of the Word case.",
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON line (used between processes).")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["case"]:
            result = self._run_case(options["case"], options)
            self.stdout.write(json.dumps(result) if options["json"] else _table([result]))
            return
        results = []
        for case in CASES:
            sizes = [options["small_text_mb"], options["text_mb"]] if case in TEXT_SHAPES else [options["text_mb"]]
            for size in sizes:
                results.append(self._child(case, {**options, "text_mb": size}))
                self.stderr.write(json.dumps(results[-1]))  # progress, and what a later failure would lose
        self.stdout.write(
            f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {platform.machine()}, {os.cpu_count()} cores; "
            f"INGEST_MAX_TEXT_CHARS {settings.INGEST_MAX_TEXT_CHARS:,}\n"
        )
        self.stdout.write(_table(results))
        self.stdout.write("\n" + _slopes(results))

    def _child(self, case: str, options: dict[str, Any]) -> dict[str, Any]:
        command = [sys.executable, "manage.py", "bench_memory", "--case", case, "--json"]
        for name in ("pages", "paragraphs", "text_mb", "small_text_mb", "over_mb", "docx_mb"):
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
    if case == "docx":
        return build_docx(directory / "formatted.docx", options["docx_mb"])
    if case == "text-over-limit":
        return build_text(directory / "over-limit.txt", options["over_mb"], lines=False)
    return build_text(directory / f"{case}.txt", options["text_mb"], lines=case == "text-lines")


def _slopes(results: list[dict[str, Any]]) -> str:
    """Peak RSS per MB of text: the peaks' difference over the texts' difference, per text shape.

    A single run's growth over the baseline is mostly the encoder's working buffers, the same for
    any document of more than a few hundred chunks; the slope between two sizes is what the text
    itself costs.
    """
    lines = []
    for shape in TEXT_SHAPES:
        runs = sorted((r for r in results if r["case"] == shape and r["chars"]), key=lambda r: r["chars"])
        if len(runs) == 2:
            small, large = runs
            text_mb = (large["chars"] - small["chars"]) / 1_048_576
            slope = (large["peak_mb"] - small["peak_mb"]) / text_mb
            lines.append(
                f"- {shape}: peak RSS {slope:+.0f} MB per MB of text ({small['file_mb']} → {large['file_mb']} MB)"
            )
    return "\n".join(lines)


def _table(results: list[dict[str, Any]]) -> str:
    rows = [
        "| case | file | characters | chunks | status | RSS after model load | peak RSS | growth | time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        chars = f"{r['chars']:,}" if r["chars"] is not None else "–"
        status = r["status"] if r["status"] != DocumentStatus.FAILED else f"failed: {r['reason']}"
        rows.append(
            f"| {r['case']} | {r['file_mb']} MB | {chars} | {r['chunks'] or 0:,} | {status} | {r['baseline_mb']} MB "
            f"| {r['peak_mb']} MB | {r['growth_mb']} MB | {r['seconds']} s |"
        )
    return "\n".join(rows)
