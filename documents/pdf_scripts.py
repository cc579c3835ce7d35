"""Whether a stored PDF carries scripts, so that its original is served as a download.

Chromium's PDF viewer runs a PDF's JavaScript (an OpenAction's `app.alert` opens a dialog) when
the file is shown inline, and `Content-Security-Policy: sandbox` on the response does not stop
it (tests/citations/test_browser_pdf_scripts.py shows both); only a download keeps the script
out of the browser. So `citations/views.py: document_file` serves a PDF for which
`pdf_carries_scripts` is true with `Content-Disposition: attachment`.

Every object of the file is read through MuPDF and its dictionary searched for the names that
carry a script: `/JS` (a JavaScript action, wherever it hangs: OpenAction, /AA of the catalog,
a page, an annotation or a form field, an outline item, another action's /Next), `/JavaScript`
(the action type and the document-level name tree) and `/XFA` (XFA forms keep their scripts in
XML streams). Scanning every object, reachable or not, is simpler than walking each place an
action may hang and cannot miss a new one. MuPDF prints names decoded (`/J#53` reads `/JS`); strings are
skipped, so a title that mentions "/JS" is no script.
Whenever the answer is unknown (the file does not open, needs a password, or holds more objects
than are read in one request) the verdict is "carries scripts": a download is always safe.

The verdict is cached a day per file sha256 (Django's cache), so a file is read once a day per
cache, not on every click.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from django.core.cache import cache

from documents.file_storage.local import local_copy

if TYPE_CHECKING:
    import pymupdf

    from documents.models import Document

logger = logging.getLogger(__name__)

CACHE_SECONDS = 24 * 60 * 60
CACHE_VERSION = 1  # bump when the detection changes, so old verdicts are not reused
# MuPDF prints an object in ~20 µs: 200,000 objects is ~4 s of one request, and legitimate PDFs
# hold far fewer (a 1,000-page report some tens of thousands). A file with more is a download.
MAX_OBJECTS = 200_000
# A name token ends at whitespace or a delimiter (PDF 32000-1, 7.2.2), so `/JSON` is not `/JS`.
SCRIPT_NAME = re.compile(r"/(?:JS|JavaScript|XFA)(?=[\s/<>\[\]()%{}]|$)")
# A literal string as MuPDF prints it (it escapes every parenthesis inside): removed first, so
# text that merely mentions "/JS" is not taken for the name. Hex strings hold no "/".
LITERAL_STRING = re.compile(r"\((?:[^\\()]|\\.)*\)", re.DOTALL)


def pdf_carries_scripts(document: Document) -> bool:
    """True when the document's stored PDF holds JavaScript or XFA, or cannot be inspected."""
    key = f"pdf-scripts:{CACHE_VERSION}:{document.sha256}"
    verdict = cache.get(key)
    if verdict is None:
        with local_copy(document.file.storage, document.file.name) as path:
            verdict = pdf_file_carries_scripts(str(path))
        cache.set(key, verdict, CACHE_SECONDS)
    return bool(verdict)


def pdf_file_carries_scripts(path: str) -> bool:
    """Reads the file at `path` (no stream is decoded: only the objects' dictionaries)."""
    import pymupdf

    try:
        doc = pymupdf.open(path, filetype="pdf")
    except (RuntimeError, ValueError) as exc:  # MuPDF's errors derive from RuntimeError
        logger.info("%s: not inspected for scripts (%s); served as a download", path, exc)
        return True
    with doc:
        if not doc.is_pdf or doc.needs_pass:
            return True
        count = doc.xref_length()
        if count > MAX_OBJECTS:
            logger.info("%s: %d objects, more than %d read per request; served as a download", path, count, MAX_OBJECTS)
            return True
        return any(_object_names_a_script(doc, xref) for xref in range(1, count))


def _object_names_a_script(doc: pymupdf.Document, xref: int) -> bool:
    try:
        source = doc.xref_object(xref, compressed=True)
    except (RuntimeError, ValueError):  # a damaged object cannot be shown to be harmless
        return True
    return SCRIPT_NAME.search(LITERAL_STRING.sub("()", source)) is not None
