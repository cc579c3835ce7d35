"""Web page (.html) extraction: the main content's text, headings as sections.

lxml parses the page as browsers do (recovering from broken markup) and lxml_html_clean's
Cleaner removes what is never content: scripts, styles, comments, forms, frames, embedded
objects. Navigation, asides and the page's own banner and footer are dropped, and when the page
marks its main content (<main>, role="main", or a single <article>) only that is read.

trafilatura was tried first (it guesses the main content of any page) and left out: on short
pages it dropped the leading <h1> and whole lists, and merged headings into paragraphs, while a
document library must keep every sentence of what staff saved.
"""

from __future__ import annotations

import codecs
import re
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

from documents.extraction import versions
from documents.extraction.blocks import Block, assemble
from documents.extraction.plaintext import decode_text, read_bytes
from documents.extraction.types import ExtractedText, ExtractionError

if TYPE_CHECKING:
    from lxml.html import HtmlElement, HTMLParser

NO_TEXT = "The web page has no readable text: it holds only scripts, styles, navigation or markup."
# libxml2 reads at most this many levels of nested elements even in huge-tree mode, and stops reading
# the page where it meets a deeper one; the rest of the page, shallow paragraphs included, is lost.
MAX_DEPTH = 2048
TOO_DEEP = (
    f"The web page nests its elements more than {MAX_DEPTH:,} levels deep (unclosed tags, most likely), "
    "deeper than the HTML parser reads, so the text past that depth could not be read. "
    "Close its tags (save it again from a browser or editor) and upload it again."
)
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# Elements that start a new block of text (a paragraph boundary for the chunkers).
BLOCKS = {
    *("address", "article", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl", "dt"),
    *("fieldset", "figcaption", "figure", "hgroup", "hr", "li", "main", "ol", "p", "pre", "section"),
    *("summary", "ul", "tr", "th", "td", "tbody", "thead", "tfoot", "center", "header", "footer"),
}
FURNITURE_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
SECTIONING = {"main", "article", "section"}

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_WHITESPACE = re.compile(r"\s+")


def extractor_stamp() -> str:
    return f"lxml-{version('lxml')}+{versions.HTML}"


def extract_html(path: Path) -> ExtractedText:
    root = parse_html(decode_html(read_bytes(path)))
    blocks: list[Block] = []
    _walk(main_region(root), blocks, [])
    return assemble(blocks, extractor=extractor_stamp(), empty_reason=NO_TEXT)


def decode_html(data: bytes) -> str:
    """A byte-order mark, else the page's declared charset, else UTF-8 or detection.

    A declaration naming an encoding Python does not know, or one the bytes do not decode
    with, is ignored rather than trusted: pages saved by old tools often lie about it.
    """
    if data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return decode_text(data)
    declared = _META_CHARSET.search(data[:4096])
    if declared:
        name = declared.group(1).decode("ascii", "ignore").lower()
        # The HTML standard reads a page labelled Latin-1 or ASCII as Windows-1252.
        name = "cp1252" if name in {"iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii"} else name
        try:
            return data.decode(codecs.lookup(name).name)
        except (LookupError, UnicodeDecodeError):
            pass
    return decode_text(data)


def parse_html(text: str) -> HtmlElement:
    import lxml.html
    from lxml.etree import ParserError
    from lxml_html_clean import Cleaner

    # Huge-tree mode lifts libxml2's limit of 256 nested levels (to MAX_DEPTH) and its limit on one
    # text node; the file's size is already bounded by INGEST_MAX_TEXT_CHARS before it is read.
    parser = lxml.html.HTMLParser(huge_tree=True)
    try:
        # lxml refuses a str that still carries an XML encoding declaration (XHTML).
        root = lxml.html.document_fromstring(_XML_DECLARATION.sub("", text, count=1) or " ", parser=parser)
    except ParserError as exc:
        raise ExtractionError(NO_TEXT) from exc
    if _stopped_at_depth_limit(parser):
        raise ExtractionError(TOO_DEEP)
    cleaner = Cleaner(
        scripts=True, javascript=True, comments=True, style=True, inline_style=False, links=True, meta=True,
        processing_instructions=True, embedded=True, frames=True, forms=True, annoying_tags=True,
        page_structure=False, safe_attrs_only=False, remove_unknown_tags=False,
        kill_tags=["nav", "aside", "noscript", "template", "svg", "canvas", "button", "select", "textarea"],
    )  # fmt: skip
    cleaned: HtmlElement = cleaner.clean_html(root)
    return cleaned


def _stopped_at_depth_limit(parser: HTMLParser) -> bool:
    """Whether libxml2 gave up on nesting too deep: it reports that and silently drops the rest."""
    from lxml.etree import ErrorTypes

    return any(
        error.type == ErrorTypes.ERR_RESOURCE_LIMIT or "excessive depth" in error.message.lower()
        for error in parser.error_log
    )


def main_region(root: HtmlElement) -> HtmlElement:
    """The element the page marks as its main content, else the body with furniture removed."""
    marked = root.xpath("//main | //*[@role='main']")
    if len(marked) == 1:
        return _without_furniture(marked[0])
    articles = root.xpath("//article")
    if len(articles) == 1:
        return _without_furniture(articles[0])
    body = root.find("body")
    return _without_furniture(body if body is not None else root)


def _without_furniture(region: HtmlElement) -> HtmlElement:
    for element in list(region.iter()):
        if element is region or not isinstance(element.tag, str):
            continue
        role = (element.get("role") or "").lower()
        hidden = element.get("hidden") is not None or element.get("aria-hidden") == "true"
        page_level = element.tag in ("header", "footer") and not _in_section(element, region)
        if hidden or role in FURNITURE_ROLES or page_level:
            element.drop_tree()
    return region


def _in_section(element: HtmlElement, region: HtmlElement) -> bool:
    """Whether a header or footer belongs to an article or section (kept) rather than the page."""
    for ancestor in element.iterancestors():
        if ancestor is region:
            return region.tag != "body"
        if ancestor.tag in SECTIONING:
            return True
    return False


def _walk(region: HtmlElement, blocks: list[Block], inline: list[str]) -> None:
    """Append `region`'s text to `blocks` in reading order; `inline` collects the open paragraph.

    A stack instead of recursion: a page may nest elements thousands of levels deep.
    """
    stack: list[tuple[HtmlElement, bool]] = [(region, False)]  # (element, leaving it)
    while stack:
        element, leaving = stack.pop()
        tag = element.tag if isinstance(element.tag, str) else ""
        if leaving:
            if tag in BLOCKS:
                _flush(blocks, inline)
        elif tag in HEADINGS:
            _flush(blocks, inline)
            blocks.append(Block(_flat(element.text_content()), heading_level=HEADINGS[tag]))
        elif tag == "table":
            _flush(blocks, inline)
            blocks.append(Block(_table_text(element)))
        elif tag == "pre":
            _flush(blocks, inline)
            blocks.append(Block(element.text_content()))  # line breaks are the content here
        elif tag == "br":
            inline.append("\n")
        elif tag:
            if tag in BLOCKS:
                _flush(blocks, inline)
            inline.append(_flat(element.text or ""))
            stack.append((element, True))  # its tail is read after its children, when leaving it
            stack.extend((child, False) for child in reversed(element))
            continue
        if element.tail:
            inline.append(_flat(element.tail))


def _flush(blocks: list[Block], inline: list[str]) -> None:
    text = "".join(inline)
    inline.clear()
    if text.strip():
        blocks.append(Block(text))


def _flat(text: str) -> str:
    """Source line breaks and indentation are layout, not content: one space each."""
    return _WHITESPACE.sub(" ", text)


def _table_text(table: HtmlElement) -> str:
    rows = []
    for row in table.iter("tr"):
        cells = [_flat(cell.text_content()).strip() for cell in row if cell.tag in ("td", "th")]
        cells = [c for c in cells if c]
        if cells:
            rows.append(" | ".join(cells))
    return "\n".join(rows)
