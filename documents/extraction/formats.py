"""The file formats the library reads: the one list that uploads, extraction and the docs follow.

Upload (documents/services/upload.py) maps a file's extension to a media type with
`CONTENT_TYPES_BY_SUFFIX` and names what is supported with `supported_description`;
content sniffing (sniff.py) names the types it recognises with the media types here; the
dispatcher (dispatch.py) has one extractor per format key; the admin upload form's help and the
docs/staff.md's "Supported formats" table are checked against this list by tests. Adding a format
here without an extractor fails those tests.

This module imports nothing of the project (Django's translation only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy, pgettext_lazy

from ragsite.wording import alternatives

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise

# The labels are written for sentences ("a web page"); a list, a column or a filter names them shorter,
# in the reader's language (lazily: this list is built before any request picks one).
_SHORT_LABELS = {
    "html": pgettext_lazy("a file format", "Web page"),
    "plaintext": pgettext_lazy("a file format", "Text"),
}


@dataclass(frozen=True)
class FileFormat:
    key: str  # the dispatcher's extractor for it
    label: str | StrPromise  # how a person names it, in messages (lazily, in the language where it is said)
    media_types: tuple[str, ...]  # the first is the one stored on a document
    suffixes: tuple[str, ...]

    @property
    def media_type(self) -> str:
        return self.media_types[0]

    @property
    def short_label(self) -> str | StrPromise:
        """How a list, a column or a filter names it: "Web page", not "a web page" (lazily, in the
        language active where it is shown)."""
        return _SHORT_LABELS.get(self.key, self.label)

    @property
    def described(self) -> str:
        return f"{self.label} ({', '.join(self.suffixes)})"


PDF = FileFormat("pdf", "PDF", ("application/pdf", "application/x-pdf"), (".pdf",))
DOCX = FileFormat(
    "docx", "Word", ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",), (".docx",)
)
HTML = FileFormat(
    "html", gettext_lazy("a web page"), ("text/html", "application/xhtml+xml"), (".html", ".htm", ".xhtml")
)
MARKDOWN = FileFormat("markdown", "Markdown", ("text/markdown", "text/x-markdown"), (".md", ".markdown"))
PLAINTEXT = FileFormat("plaintext", gettext_lazy("plain text"), ("text/plain",), (".txt", ".text"))

FORMATS = (PDF, DOCX, HTML, MARKDOWN, PLAINTEXT)

CONTENT_TYPES_BY_SUFFIX = {suffix: f.media_type for f in FORMATS for suffix in f.suffixes}
FORMAT_BY_MEDIA_TYPE = {media_type: f for f in FORMATS for media_type in f.media_types}


def supported_description() -> str:
    """ "PDF (.pdf), Word (.docx), a web page (.html, .htm, .xhtml), Markdown (.md, .markdown) or
    plain text (.txt, .text)", in the active language."""
    return alternatives([f.described for f in FORMATS])


def format_column_label(content_type: str) -> str:
    """ "PDF", "Word", "Web page", "Markdown", "Text": a stored media type as a list names it."""
    found = FORMAT_BY_MEDIA_TYPE.get(content_type)
    return content_type if found is None else str(found.short_label)
