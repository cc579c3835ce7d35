"""`manage.py detect_languages [--all | ID ...]`: detect documents' languages and re-read their keywords.

Each indexed document's chunks are read with py3langid (documents/extraction/language.py), and
the keyword index is rewritten with each chunk's text-search configuration. Nothing is
re-embedded: the chunks' vectors and embedding keys stay as they are. Without arguments, only
documents whose language is not detected yet.
"""

from __future__ import annotations

import time
from argparse import ArgumentParser
from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand
from tqdm import tqdm

from documents.models import Document
from documents.services.language_detect import document_languages_detect


class Command(BaseCommand):
    help = "Detect the languages of indexed documents (not yet detected ones, --all, or given ids); re-embeds nothing."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("ids", nargs="*", type=int)
        parser.add_argument("--all", action="store_true", help="Every indexed document, detected before or not.")

    def handle(self, *args: Any, **options: Any) -> None:
        documents = Document.objects.filter(indexed_at__isnull=False)
        if options["ids"]:
            documents = documents.filter(pk__in=options["ids"])
        elif not options["all"]:
            documents = documents.filter(language="")
        ids = list(documents.order_by("pk").values_list("pk", flat=True))
        started, found = time.perf_counter(), Counter[str]()
        # The raw stream: Django's wrapper would end every "\r" redraw of the bar with a newline.
        for document_id in tqdm(ids, desc="detecting", unit="doc", file=self.stderr._out):
            language = document_languages_detect(document_id)
            if language is not None:
                found[language or "none"] += 1
        languages = ", ".join(f"{code} {count}" for code, count in found.most_common()) or "no document"
        seconds = time.perf_counter() - started
        self.stdout.write(self.style.SUCCESS(f"{sum(found.values())} document(s) in {seconds:.1f} s: {languages}"))
