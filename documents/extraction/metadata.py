"""A document's own title, authors and date, read from the stored file.

One entry point, `extract_metadata`, for every format; the pipeline calls it after extraction and
`manage.py backfill_metadata` calls it alone. Each format reads only what it needs (a PDF's first
page and information dictionary, a Word file's docProps/core.xml, an HTML page's head, a Markdown
file's front matter), so it is cheap next to extraction. It is honest rather than complete: an
author list or a date that does not look like one is left empty, never guessed.
"""

from __future__ import annotations

import re
import unicodedata
import zipfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from documents.extraction.formats import FORMAT_BY_MEDIA_TYPE
from documents.extraction.pdf_title import first_page_facts, metadata_date, metadata_title_is_junk
from documents.extraction.people import as_date, clean_name, date_from_text, people
from documents.extraction.types import ExtractedText

MAX_TITLE = 500  # Document.title's length
MAX_AUTHORS = 50
MAX_HEAD_BYTES = 512 * 1024  # an HTML page's head and first heading are near its start
MAX_CORE_BYTES = 256 * 1024  # docProps/core.xml is a few hundred bytes; more is not metadata
MAX_FRONT_MATTER = 64 * 1024


@dataclass(frozen=True)
class DocumentMetadata:
    title: str
    authors: list[str] = field(default_factory=list)
    published: date | None = None


def extract_metadata(
    path: Path,
    content_type: str,
    *,
    fallback_title: str,
    extracted: ExtractedText | None = None,
    collection: str = "",
) -> DocumentMetadata:
    """The file's title, authors and date; `fallback_title` (the file name's) when it names no title.

    `extracted` (the pipeline passes it) lends the Markdown headings and a scanned first page's
    OCR'd words; without it the headings are read again. `collection` (the folder's name) names the
    documentation set a Markdown page belongs to when its front matter does not.
    """
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    fmt = FORMAT_BY_MEDIA_TYPE.get(media_type)
    found = DocumentMetadata(title="")
    key = fmt.key if fmt else ""
    if key == "markdown":
        found = _markdown(Path(path), extracted, collection)
    elif (reader := _READERS.get(key)) is not None:
        found = reader(Path(path), extracted)
    title = clean_name(found.title)[:MAX_TITLE].strip() or fallback_title
    return DocumentMetadata(title=title, authors=found.authors[:MAX_AUTHORS], published=found.published)


# --- PDF ---------------------------------------------------------------------------------


def _pdf(path: Path, extracted: ExtractedText | None) -> DocumentMetadata:
    import pymupdf

    try:
        doc = pymupdf.open(path)
    except (RuntimeError, ValueError):
        return DocumentMetadata(title="")
    with doc:
        info: dict[str, Any] = doc.metadata or {}
        facts = first_page_facts(doc, clean_name(info.get("title") or ""), _first_page_ocr_words(extracted))
    title = facts.title
    # Authors the first page names under the title; else the dictionary's, when the page confirms them.
    authors = facts.authors or [a for a in people(info.get("author") or "") if facts.mentions(a)]
    published = _publication_date(facts.stated_date, info)
    return DocumentMetadata(title=title, authors=authors, published=published)


def _first_page_ocr_words(extracted: ExtractedText | None) -> list[Any] | None:
    """The first page's words as OCR read them, when it was a scan."""
    pages = extracted.ocr_pages if extracted is not None else []
    return next((page.words for page in pages if page.number == 1), None)


_YEAR_IN_NAME = re.compile(r"(?<![\d])(1[89]\d\d|20\d\d)(?![\d])")


def _publication_date(stated: date | None, info: dict[str, Any]) -> date | None:
    """What the first page states, to the file's day when the file was made that year; with no
    statement, a year the producing file's name carries ("ISMIR-2003-paper.doc": tools record it
    as the title) when it is not after the file's date, else the file's date. A file's date is when
    it was made, often years after the paper (an archive copy, a scan), so it never overrides the page."""
    created = metadata_date(info.get("creationDate") or "")
    if stated is not None:
        return created if created is not None and created.year == stated.year else stated
    named = _YEAR_IN_NAME.search(clean_name(info.get("title") or "")) if _is_file_name(info) else None
    if named is not None and (created is None or int(named.group(1)) <= created.year):
        year = int(named.group(1))
        return created if created is not None and created.year == year else date(year, 1, 1)
    return created


def _is_file_name(info: dict[str, Any]) -> bool:
    title = clean_name(info.get("title") or "")
    return bool(title) and metadata_title_is_junk(title)


# --- Word --------------------------------------------------------------------------------

_CORE_PART = "docProps/core.xml"
_NS = {
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
    "cp": "http://schemas.openxmlformats.org/package/2006/metadata/core-properties",
}
# Names Word and libraries write when nobody typed one: not an author.
_PLACEHOLDER_CREATORS = {"python-docx", "administrator", "user", "owner", "author", "unknown", "windows user"}


def _docx(path: Path, extracted: ExtractedText | None) -> DocumentMetadata:
    core = _docx_core(path)
    title = core.get("title", "")
    if not title:
        title = _docx_title_paragraph(path)
    creator = core.get("creator", "")
    authors = [] if creator.strip().lower() in _PLACEHOLDER_CREATORS else people(creator)
    return DocumentMetadata(title=title, authors=authors, published=date_from_text(core.get("created", "")))


def _docx_core(path: Path) -> dict[str, str]:
    from lxml import etree

    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(_CORE_PART)
            if info.file_size > MAX_CORE_BYTES:
                return {}
            with archive.open(info) as stream:
                data = stream.read(MAX_CORE_BYTES + 1)
        # No entities, no network: core.xml is a flat list of elements.
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
        root = etree.fromstring(data, parser)
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, etree.XMLSyntaxError):
        return {}
    found = {}
    for key, xpath in (("title", "dc:title"), ("creator", "dc:creator"), ("created", "dcterms:created")):
        element = root.find(xpath, _NS)
        if element is not None and element.text:
            found[key] = element.text.strip()
    return found


def _docx_title_paragraph(path: Path) -> str:
    """The first paragraph styled Title (or a first-level heading) among the body's opening blocks."""
    from documents.extraction.docx import MAIN_PART, _styles
    from documents.extraction.docx_body import body_blocks

    try:
        with zipfile.ZipFile(path) as archive, archive.open(MAIN_PART) as body:
            for number, block in enumerate(body_blocks(body, _styles(archive), MAIN_PART)):
                if block.heading_level == 1:
                    return block.text
                if number >= 10:
                    break
    except Exception:
        return ""
    return ""


# --- HTML --------------------------------------------------------------------------------

_AUTHOR_META = ("author", "citation_author", "dc.creator", "dcterms.creator", "article:author")
_DATE_META = (
    "citation_publication_date", "citation_date", "article:published_time", "dc.date", "dcterms.created",
    "dcterms.date", "date", "pubdate",
)  # fmt: skip


def _html(path: Path, extracted: ExtractedText | None) -> DocumentMetadata:
    import lxml.html
    from lxml.etree import ParserError

    from documents.extraction.html import decode_html

    with path.open("rb") as stream:
        data = stream.read(MAX_HEAD_BYTES)
    try:
        root = lxml.html.document_fromstring(re.sub(r"^\s*<\?xml[^>]*\?>", "", decode_html(data), count=1) or " ")
    except ParserError:
        return DocumentMetadata(title="")
    page_title = " ".join((root.findtext(".//title") or "").split())
    h1s = root.xpath("//h1")
    h1 = " ".join(h1s[0].text_content().split()) if h1s else ""
    # "<h1> | Site name" in <title>: the heading is the document's own name.
    title = h1 if h1 and (not page_title or h1.casefold() in page_title.casefold()) else page_title or h1
    metas: dict[str, list[str]] = {}
    for meta in root.xpath("//meta[@content]"):
        key = (meta.get("name") or meta.get("property") or "").strip().lower()
        metas.setdefault(key, []).append(meta.get("content") or "")
    authors: list[str] = []
    for key in _AUTHOR_META:
        for value in metas.get(key, []):
            authors.extend(a for a in people(value) if a not in authors)
    published = next((d for key in _DATE_META for v in metas.get(key, []) if (d := date_from_text(v))), None)
    return DocumentMetadata(title=title, authors=authors, published=published)


# --- Markdown ----------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)


# Front matter keys static-site generators and documentation tools use for the site a page belongs to.
_SET_KEYS = ("product", "project", "docset", "site", "collection")


def _markdown(path: Path, extracted: ExtractedText | None, collection: str = "") -> DocumentMetadata:
    from documents.extraction.markdown import extract_markdown
    from documents.extraction.plaintext import read_text

    # The file itself, not the canonical text: that need not keep the front matter's markup.
    text = read_text(path)
    front = front_matter(text)
    title = _text(front.get("title"))
    if title:
        # A page with front matter is one page of a site: "Storage" alone does not say of what.
        title = documentation_set_title(next((s for k in _SET_KEYS if (s := _text(front.get(k)))), collection), title)
    else:
        sections = (extracted if extracted is not None else extract_markdown(path)).sections
        title = sections[0].title if sections else ""
    raw_authors = front.get("authors", front.get("author"))
    names = raw_authors if isinstance(raw_authors, list) else [raw_authors]
    authors: list[str] = []
    for value in names:
        authors.extend(a for a in people(_text(value)) if a not in authors)
    return DocumentMetadata(title=title, authors=authors, published=as_date(front.get("date")))


def documentation_set_title(set_name: str, page_title: str) -> str:
    """ "Set: Page" ("Prometheus: Storage"), or the page's title alone when it names its set already
    ("Prometheus 3.0 migration guide") or no set is known."""
    set_name = " ".join(set_name.split())
    if not set_name or set_name.casefold() in page_title.casefold():
        return page_title
    return f"{set_name}: {page_title}"


def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter opening a Markdown file (the static-site convention), or {}."""
    import yaml

    match = _FRONT_MATTER.match(text[: MAX_FRONT_MATTER + 16])
    if not match:
        return {}
    try:
        loaded = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _text(value: object) -> str:
    return unicodedata.normalize("NFKC", value).strip() if isinstance(value, str) else ""


_READERS = {"pdf": _pdf, "docx": _docx, "html": _html}
