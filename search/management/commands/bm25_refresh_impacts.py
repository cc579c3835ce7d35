"""`python manage.py bm25_refresh_impacts`: re-base BM25 posting impacts on the current avgdl.

Search results never depend on it (search/services/bm25.py proves its bounds for any reference
length); run it after the library grew or shrank a lot, or nightly, to keep pruning tight.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from documents.lexical_index import impact_basis_refresh


class Command(BaseCommand):
    help = "Recompute every BM25 posting impact under the library's current average chunk length."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        avgdl = impact_basis_refresh()
        self.stdout.write(f"impacts now under avgdl {avgdl:.2f} ({time.perf_counter() - started:.1f} s)")
