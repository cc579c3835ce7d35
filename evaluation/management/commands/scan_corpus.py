"""`manage.py scan_corpus SRC DST --scan a.pdf,b.pdf`: a copy of a corpus in which the named PDFs
are image-only scans of themselves (same file names), to evaluate retrieval over OCR'd documents:
`manage.py evaluate --corpus DST --questions …` then finds (or misses) needles on OCR'd pages."""

from __future__ import annotations

import shutil
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from bench.scans import SCAN_DPI, scanned_pdf


class Command(BaseCommand):
    help = "Copy a corpus folder, turning the named PDFs into image-only scans (for evaluating OCR)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("source", type=Path)
        parser.add_argument("target", type=Path, help="A new or empty folder.")
        parser.add_argument("--scan", required=True, help="Comma-separated PDF file names to scan.")
        parser.add_argument("--dpi", type=int, default=SCAN_DPI)

    def handle(self, *args: Any, **options: Any) -> None:
        source, target = options["source"], options["target"]
        names = {name.strip() for name in options["scan"].split(",") if name.strip()}
        missing = sorted(name for name in names if not (source / name).is_file())
        if missing:
            raise CommandError(f"not in {source}: {', '.join(missing)}")
        if target.exists() and any(target.iterdir()):
            raise CommandError(f"{target} is not empty")
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted(p for p in source.iterdir() if p.is_file()):
            if path.name in names:
                (target / path.name).write_bytes(scanned_pdf(path, dpi=options["dpi"]))
                self.stdout.write(f"scanned {path.name}")
            else:
                shutil.copy2(path, target / path.name)
