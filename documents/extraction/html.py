"""Web page (.html) extraction: the main content's text, headings as sections.

lxml parses the page as browsers do (recovering from broken markup) and lxml_html_clean's
Cleaner removes what is never content: scripts, styles, comments, forms, frames, embedded
objects. Navigation, asides, hidden elements and the page's own banner and footer are dropped, and
when the page marks its main content (<main>, role="main", or a single <article>) only that is read.
Of alternatives that are all hidden for a script to reveal one (a switch), one is read.
Navigation that is not marked as such is dropped by its structure, as running headers are for
PDFs: blocks that name themselves navigation (class or id words such as navheader, navbar,
breadcrumb, pagination; a summary or aria-label saying "navigation"), and short link-dense
blocks at the top or bottom of the content ("Prev | Up | Home | Next").

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
# Words of a class or id that name a block as navigation: "navheader", "nav-links", "topNav",
# "breadcrumbs", "pagination".
_NAVIGATION_NAME = re.compile(r"^(nav|navbar|navheader|navfooter|navigation|navpath|navrow|navlinks|nav\w*panel|"
                              r"breadcrumbs?|pagination|pager|skip|skiplink)$")  # fmt: skip
_NAVIGATION_LABEL = re.compile(r"navigation|breadcrumb", re.I)
# A class or id that marks the alternative a switch shows when no other applies: "default",
# "defaultText", "default-case".
_DEFAULT_NAME = re.compile(r"^default", re.I)
_NAME_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*")
# A block named navigation is dropped only when it is short or mostly links, so a wrapper that
# happens to carry such a class never takes the page's content with it.
NAVIGATION_MAX_CHARS = 400
# An unnamed block at the top or bottom of the content is navigation when it is this short, holds
# at least two links, and its links carry most of its letters.
EDGE_MAX_CHARS = 200
EDGE_MIN_LINKS = 2
EDGE_LINK_SHARE = 0.6

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
    _reveal_switch_choices(region)
    for element in list(region.iter()):
        if element is region or not isinstance(element.tag, str):
            continue
        role = (element.get("role") or "").lower()
        hidden = element.get("hidden") is not None or element.get("aria-hidden") == "true"
        page_level = element.tag in ("header", "footer") and not _in_section(element, region)
        if hidden or role in FURNITURE_ROLES or page_level or _named_navigation(element):
            element.drop_tree()
    _drop_edge_navigation(region)
    return region


def _reveal_switch_choices(region: HtmlElement) -> None:
    """Un-hide the one alternative of each switch that a reader is shown.

    Some pages write alternatives (the key for each platform, the menu path in each application) all
    hidden and let a script reveal the one that applies: "<span><span hidden class="MAC">Cmd</span>
    <span hidden id="default">Ctrl</span></span>+Z". Dropping every hidden element would leave "+Z",
    losing the key a reader asks for; reading them all would run the alternatives together.
    """
    for element in list(region.iter()):
        choice = _switch_choice(element) if isinstance(element.tag, str) else None
        if choice is not None:
            del choice.attrib["hidden"]


def _switch_choice(element: HtmlElement) -> HtmlElement | None:
    """The alternative to read when `element` is a switch, else None.

    A switch holds nothing but two or more hidden elements: one hidden element is furniture, and
    a container with text of its own is a paragraph with hidden parts. The alternative marked as
    the default is read, else the last.
    """
    children = [child for child in element if isinstance(child.tag, str)]
    if len(children) < 2 or any(child.get("hidden") is None for child in children):
        return None
    if (element.text or "").strip() or any((child.tail or "").strip() for child in children):
        return None
    defaults = [child for child in children if _marked_default(child)]
    return defaults[0] if defaults else children[-1]


def _marked_default(element: HtmlElement) -> bool:
    names = f"{element.get('class') or ''} {element.get('id') or ''}".split()
    return any(_DEFAULT_NAME.match(name) for name in names)


def _named_navigation(element: HtmlElement) -> bool:
    """Whether the block calls itself navigation (class, id, summary, aria-label, breadcrumb
    microdata) and is short or mostly links."""
    names = f"{element.get('class') or ''} {element.get('id') or ''}"
    named = any(_NAVIGATION_NAME.match(w.lower()) for token in names.split() for w in _name_words(token))
    labelled = _NAVIGATION_LABEL.search(f"{element.get('summary') or ''} {element.get('aria-label') or ''}")
    microdata = "breadcrumblist" in (element.get("itemtype") or "").lower()
    if not (named or labelled or microdata):
        return False
    text = _flat(element.text_content()).strip()
    return len(text) <= NAVIGATION_MAX_CHARS or _link_share(element, text) >= EDGE_LINK_SHARE


def _name_words(token: str) -> list[str]:
    """A class or id token and its parts: "md-nav" → md, nav; "topNav" → top, Nav."""
    return [token, *re.split(r"[-_:.]", token), *_NAME_WORDS.findall(token)]


def _link_share(element: HtmlElement, text: str) -> float:
    letters = sum(c.isalnum() for c in text)
    linked = sum(c.isalnum() for a in element.iter("a") for c in a.text_content())
    return linked / letters if letters else 0.0


def _is_edge_navigation(element: HtmlElement) -> bool:
    text = _flat(element.text_content()).strip()
    links = [a for a in element.iter("a") if a.text_content().strip()]
    return (
        len(text) <= EDGE_MAX_CHARS
        and len(links) >= EDGE_MIN_LINKS
        and _link_share(element, text) >= EDGE_LINK_SHARE
        and not any(d.tag in HEADINGS for d in element.iter())
    )


def _drop_edge_navigation(region: HtmlElement) -> None:
    """Drop short link-dense blocks ("Home | Next") at the top and bottom of the content, going
    into the first (last) block until one holds text that is not such a line. The last block of
    text is never dropped: a page that is only links keeps them."""
    for from_end in (False, True):
        parent = region
        while True:
            children = [c for c in parent if isinstance(c.tag, str) and _flat(c.text_content()).strip()]
            if not children:
                break
            edge = children[-1] if from_end else children[0]
            if edge.tag not in BLOCKS and edge.tag != "table":
                break
            if _is_edge_navigation(edge):
                if len(_flat(region.text_content()).strip()) <= len(_flat(edge.text_content()).strip()):
                    break  # the page holds nothing else
                edge.drop_tree()
                continue
            parent = edge


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
