"""A Word document's body read as a stream of blocks, in memory bounded by one run of text.

python-docx builds the whole of `word/document.xml` as a tree before giving the first paragraph:
a 200 MB part (what `DOCX_MAX_UNPACKED_BYTES` lets through) peaks above 3 GB. This walks the part
with lxml's `iterparse` instead, keeps only the paragraph, table row and run being read, and
drops every element once its text is taken. What it reads is what python-docx's `Paragraph.text`,
`paragraph.style` and `table.rows[i].cells` give (tests/documents/test_docx_stream.py compares the
two): body paragraphs and tables in order, runs directly in a paragraph or in its hyperlinks, a
cell's own paragraphs (not a nested table's), a horizontally merged cell once per row, a
vertically merged one repeated in every row it spans.

A part that declares a document type is refused: Word never writes one (the Open Packaging
Conventions forbid it), and entities, defined there, are how an XML file reaches outside itself
or hides text from a reader that does not expand them. Parts this reader never opens (headers,
footers, pictures) cannot change the text and are not checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from documents.extraction.blocks import Block
from documents.extraction.limits import check_text_length
from documents.extraction.types import ExtractionError

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
CT = "{http://schemas.openxmlformats.org/package/2006/content-types}"
WORD_MAIN_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_HEADING_STYLE = re.compile(r"^heading ([1-9])$", re.I)
_RUN_PIECES = {f"{W}t", f"{W}tab", f"{W}ptab", f"{W}br", f"{W}cr", f"{W}noBreakHyphen"}
MAX_GRID_COLUMNS = 1_000  # Word allows 63; merges are followed this far, no further
_MAX_BASE_CHAIN = 10  # base-style chains are short; a cycle must not hang us

Opener = Callable[[str], IO[bytes]]


def _iterparse(stream: IO[bytes], events: tuple[str, ...], part: str) -> Iterator[tuple[str, Any]]:
    """lxml's iterparse with nothing fetched or expanded, and no document type allowed."""
    from lxml import etree

    checked = False
    for event, element in etree.iterparse(
        stream, events=events, resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True
    ):
        if not checked:
            docinfo = element.getroottree().docinfo
            if docinfo.doctype or docinfo.internalDTD is not None:
                raise ExtractionError(
                    f"The Word document's part /{part} declares an XML document type (DOCTYPE), where XML "
                    "entities are defined; Word never writes one, and text that uses entities cannot be read "
                    "faithfully, so the file was refused rather than indexed with text missing. Save it again "
                    "from Word and upload that."
                )
            checked = True
        yield event, element


def _drop(element: Any) -> None:
    """Free a finished element and the finished siblings before it (the iterparse idiom)."""
    element.clear(keep_tail=True)
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


CONTENT_TYPES_PART = "[Content_Types].xml"


def main_part_is_a_word_document(open_part: Opener) -> bool:
    """[Content_Types].xml gives word/document.xml Word's main content type (not a template, macros)."""
    with open_part(CONTENT_TYPES_PART) as stream:
        for _, element in _iterparse(stream, ("end",), CONTENT_TYPES_PART):
            if element.tag == f"{CT}Override" and element.get("PartName", "").lower() == "/word/document.xml":
                return element.get("ContentType") == WORD_MAIN_CONTENT_TYPE
            _drop(element)
    return False


@dataclass(frozen=True)
class _Style:
    kind: str
    name: str
    base_id: str | None


@dataclass
class Styles:
    """Paragraph styles by id, and the one used when a paragraph names none (or an unknown one)."""

    by_id: dict[str, _Style] = field(default_factory=dict)
    default_id: str | None = None

    def heading_level(self, style_id: str | None) -> int:
        """1-9 for Title/Heading N or a style based on one of them; 0 for body text."""
        style = self.by_id.get(style_id or "")
        if style is None or style.kind != "paragraph":
            style = self.by_id.get(self.default_id or "")
        for _ in range(_MAX_BASE_CHAIN):
            if style is None:
                return 0
            if style.name.lower() == "title":
                return 1
            match = _HEADING_STYLE.match(style.name)
            if match:
                return int(match.group(1))
            style = self.by_id.get(style.base_id or "")
        return 0


def read_styles(stream: IO[bytes], part: str) -> Styles:
    styles = Styles()
    name: str = ""
    base_id: str | None = None
    for event, element in _iterparse(stream, ("start", "end"), part):
        tag = element.tag
        if event == "start":
            if tag == f"{W}style":
                name, base_id = "", None
            continue
        if tag == f"{W}name":
            name = element.get(f"{W}val", "")
        elif tag == f"{W}basedOn":
            base_id = element.get(f"{W}val")
        elif tag == f"{W}style":
            style_id = element.get(f"{W}styleId", "")
            kind = element.get(f"{W}type", "paragraph")
            styles.by_id[style_id] = _Style(kind=kind, name=name.strip(), base_id=base_id)
            if kind == "paragraph" and element.get(f"{W}default") in ("1", "true", "on"):
                styles.default_id = style_id
        _drop(element)
    return styles


@dataclass
class _Paragraph:
    style_id: str | None = None
    runs: list[str] = field(default_factory=list)


@dataclass
class _Cell:
    span: int = 1
    merge: str | None = None  # None, "restart" or "continue" (w:vMerge without a value)
    paragraphs: list[str] = field(default_factory=list)


@dataclass
class _Table:
    """A table read a cell at a time: each row becomes one line, "a | b | c"."""

    lines: list[str] = field(default_factory=list)
    cell: _Cell = field(default_factory=_Cell)
    row: int = 0
    offset: int = 0  # the grid column the next cell starts at
    texts: list[str] = field(default_factory=list)
    continued: set[tuple[int, int]] = field(default_factory=set)  # roots a merge repeated in this row
    # The cell holding the text at each grid column, (row, column) and text, for the rows a
    # vertical merge continues into.
    roots: dict[int, tuple[tuple[int, int], str]] = field(default_factory=dict)

    def start_row(self, grid_before: int) -> None:
        self.offset = grid_before

    def finish_cell(self) -> None:
        cell, self.cell = self.cell, _Cell()
        root = self.roots.get(self.offset) if cell.merge == "continue" else None
        if root is None:
            root = ((self.row, self.offset), " ".join("\n".join(cell.paragraphs).split()))
        elif root[0] in self.continued:
            root = None  # a wide merged cell continued by narrower ones: written once a row
        else:
            self.continued.add(root[0])
        span = min(cell.span, MAX_GRID_COLUMNS)
        if root is not None:
            for column in range(self.offset, min(self.offset + span, MAX_GRID_COLUMNS)):
                self.roots[column] = root
            if root[1]:
                self.texts.append(root[1])
        self.offset += span

    def finish_row(self) -> None:
        if self.texts:
            self.lines.append(" | ".join(self.texts))
        self.texts, self.continued, self.offset, self.row = [], set(), 0, self.row + 1


def _run_text(run: Any) -> str:
    pieces = []
    for child in run:
        tag = child.tag
        if tag == f"{W}t":
            pieces.append(child.text or "")
        elif tag in (f"{W}tab", f"{W}ptab"):
            pieces.append("\t")
        elif tag == f"{W}br":
            pieces.append("\n" if child.get(f"{W}type", "textWrapping") == "textWrapping" else "")
        elif tag == f"{W}cr":
            pieces.append("\n")
        elif tag == f"{W}noBreakHyphen":
            pieces.append("-")
    return "".join(pieces)


def _number(element: Any, *, default: int) -> int:
    try:
        return int(element.get(f"{W}val", default))
    except ValueError as exc:
        raise ExtractionError(
            f"The Word document is damaged (a table's {element.tag[len(W) :]} is not a number); "
            "save it again from Word and upload it."
        ) from exc


def _local_parent(element: Any) -> str:
    parent = element.getparent()
    return "" if parent is None else str(parent.tag)


def body_blocks(stream: IO[bytes], styles: Styles, part: str) -> Iterator[Block]:
    """The body's paragraphs and tables as blocks, in reading order."""
    reader = _BodyReader(styles)
    for event, element in _iterparse(stream, ("start", "end"), part):
        if event == "start":
            reader.on_start(element.tag)
        elif element.tag not in _RUN_PIECES:  # those are read with their run
            block = reader.on_end(element)
            if block is not None:
                yield block
            _drop(element)


class _BodyReader:
    """What is open while the body streams past: paragraphs (nested in cells) and tables."""

    def __init__(self, styles: Styles) -> None:
        self.styles = styles
        self.paragraphs: list[_Paragraph] = []
        self.tables: list[_Table] = []
        self.characters = 0  # read so far: a document past INGEST_MAX_TEXT_CHARS stops here

    def on_start(self, tag: str) -> None:
        if tag == f"{W}p":
            self.paragraphs.append(_Paragraph())
        elif tag == f"{W}tbl":
            self.tables.append(_Table())

    def on_end(self, element: Any) -> Block | None:
        tag, parent = element.tag, _local_parent(element)
        if tag == f"{W}r":
            self._run(element, parent)
        elif tag == f"{W}pStyle" and parent == f"{W}pPr" and _local_parent(element.getparent()) == f"{W}p":
            self.paragraphs[-1].style_id = element.get(f"{W}val")
        elif tag == f"{W}p":
            return self._paragraph(parent)
        elif self.tables:
            return self._table_part(element, tag, parent)
        return None

    def _run(self, run: Any, parent: str) -> None:
        in_paragraph = parent == f"{W}p" or (parent == f"{W}hyperlink" and _local_parent(run.getparent()) == f"{W}p")
        if in_paragraph and self.paragraphs:
            text = _run_text(run)
            self.characters += len(text)
            check_text_length(self.characters)
            self.paragraphs[-1].runs.append(text)

    def _paragraph(self, parent: str) -> Block | None:
        paragraph = self.paragraphs.pop()
        text = "".join(paragraph.runs)
        if parent == f"{W}body":
            return Block(text, heading_level=self.styles.heading_level(paragraph.style_id))
        if parent == f"{W}tc" and len(self.tables) == 1:
            self.tables[0].cell.paragraphs.append(text)
        return None

    def _table_part(self, element: Any, tag: str, parent: str) -> Block | None:
        table = self.tables[-1]
        if tag == f"{W}gridSpan":
            table.cell.span = max(1, _number(element, default=1))
        elif tag == f"{W}vMerge":
            table.cell.merge = element.get(f"{W}val", "continue")
        elif tag == f"{W}gridBefore":
            table.start_row(max(0, _number(element, default=0)))
        elif tag == f"{W}tc":
            table.finish_cell()
        elif tag == f"{W}tr":
            table.finish_row()
        elif tag == f"{W}tbl":
            self.tables.pop()
            if parent == f"{W}body":
                return Block("\n".join(table.lines))
        return None
