"""Extractor stamps, importable without loading PyMuPDF.

A document records the extractor that produced its text (`Document.extractor`). When an
extractor's output changes, its version here goes up, and documents stamped with an older
one count as stale: `reindex --stale` extracts them again.
"""

from __future__ import annotations

from django.db.models import Q

# 2: a sentence or hyphenated word running over a page break is rejoined instead of becoming
# a paragraph break.
# 3: e-mail and web addresses set large in an author block are not section headings.
# 4: pages without a text layer are read by OCR; unreadable pages fail the file or become warnings.
PDF_LAYOUT = "ragsite-extract-4"
# Markdown 2: the text a reader of the rendered page sees (markdown-it-py), no longer the source
# with its markup; front matter left out.
MARKDOWN = "ragsite-markdown-2"
PLAINTEXT = "ragsite-plaintext-1"
# Word and HTML stamps also name the library that parsed the file ("python-docx-1.2.0+ragsite-docx-1").
DOCX = "ragsite-docx-1"
# HTML 2: pages nested up to 2,048 levels deep are read whole (libxml2's huge-tree mode), not cut
# off at 256 levels.
# HTML 3: navigation blocks that are not marked <nav> (navheader, breadcrumb, "Prev | Home | Next"
# lines) are dropped.
# HTML 4: of alternatives that are all hidden for a script to reveal one (a switch), the default
# one, else the last, is read instead of none.
HTML = "ragsite-html-4"
_LIBRARY_SUFFIXED = (PDF_LAYOUT, DOCX, HTML)
# Title, authors and date (documents/extraction/metadata.py) carry no stamp: they are read at every
# indexing, and `manage.py backfill_metadata` reads them alone, cheaply, for documents indexed before
# they existed or after their extraction improves, so no change to them makes documents stale.


def extractor_is_current(extractor: str) -> bool:
    # The PDF stamp also names the PyMuPDF binding ("pymupdf-<version>+ragsite-extract-N"), and the
    # OCR engine when pages were OCR'd ("pymupdf-<v>+tesseract-<v>+ragsite-extract-N"). A Tesseract
    # upgrade alone does not make documents stale: re-index the OCR'd ones by hand if wanted.
    return extractor.endswith(tuple("+" + s for s in _LIBRARY_SUFFIXED)) or extractor in (MARKDOWN, PLAINTEXT)


def current_extractor_rule() -> Q:
    """`extractor_is_current` as a query filter."""
    rule = Q(extractor__in=[MARKDOWN, PLAINTEXT])
    for stamp in _LIBRARY_SUFFIXED:
        rule |= Q(extractor__endswith="+" + stamp)
    return rule
