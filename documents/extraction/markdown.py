"""Markdown extraction: the text a reader of the rendered page sees, headings as sections.

markdown-it-py parses the source (CommonMark, plus GitHub's tables and strikethrough) and the
syntax tree is read back as plain blocks: link and image text kept, their targets dropped;
heading marks, emphasis marks, code backticks, HTML tags and comments, and reference-link
definitions gone; a list item per line and a table row per line with its cells joined by
" | "; code blocks kept line for line, since they are content. Front matter (YAML between
`---` lines at the top) is metadata, not body text, and is left out.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

from documents.extraction import versions
from documents.extraction.blocks import Block, assemble
from documents.extraction.plaintext import read_text
from documents.extraction.types import ExtractedText

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

EXTRACTOR = versions.MARKDOWN
CELL_SEPARATOR = " | "
BULLET = "• "
INDENT = "  "  # per level of list nesting

# Jekyll/Hugo front matter: a first line of exactly `---`, closed by a line `---` or `...`.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_BR = re.compile(r"<br\s*/?>", re.I)


def extract_markdown(path: Path) -> ExtractedText:
    return assemble(markdown_blocks(read_text(path)), extractor=EXTRACTOR)


def without_front_matter(text: str) -> str:
    return _FRONT_MATTER.sub("", text, count=1)


def markdown_blocks(text: str) -> list[Block]:
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    blocks: list[Block] = []
    for node in SyntaxTreeNode(parser.parse(without_front_matter(text))).children:
        _block(node, blocks)
    return blocks


def _block(node: SyntaxTreeNode, blocks: list[Block]) -> None:
    if node.type == "heading":
        blocks.append(Block(_inline(node), heading_level=int(node.tag[1:])))
    elif node.type == "paragraph":
        blocks.append(Block(_inline(node)))
    elif node.type in ("fence", "code_block"):
        blocks.append(Block(node.content, preformatted=True))
    elif node.type in ("bullet_list", "ordered_list"):
        blocks.append(Block("\n".join(_list_lines(node, depth=0)), preformatted=True))
    elif node.type == "table":
        blocks.append(Block("\n".join(_table_rows(node))))
    elif node.type == "html_block":
        blocks.append(Block(_html_text(node.content)))
    else:  # blockquote and anything that only holds blocks; hr holds nothing
        for child in node.children:
            _block(child, blocks)


def _inline(node: SyntaxTreeNode) -> str:
    """The visible text of a block's inline content (a heading's, a paragraph's, a cell's)."""
    parts: list[str] = []
    for child in node.children:
        if child.type == "inline":
            _inline_parts(child, parts)
    return "".join(parts)


def _inline_parts(node: SyntaxTreeNode, parts: list[str]) -> None:
    for child in node.children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")  # a line wrap in the source, not in the text
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "html_inline":
            # Tags and comments are markup; the text between a pair of tags is its own token.
            parts.append("\n" if _BR.fullmatch(child.content.strip()) else "")
        else:  # link, image (its children are the alt text), em, strong, s
            _inline_parts(child, parts)


def _list_lines(node: SyntaxTreeNode, depth: int) -> list[str]:
    """One line per item ("• " or its number first), nested lists and later paragraphs indented."""
    lines: list[str] = []
    for item in node.children:
        marker = f"{item.info}{item.markup} " if node.type == "ordered_list" else BULLET
        first = INDENT * depth + marker
        rest = INDENT * depth + " " * len(marker)
        item_lines: list[str] = []
        for child in item.children:
            if child.type in ("bullet_list", "ordered_list"):
                lines.extend(_prefixed(item_lines, first, rest))
                item_lines = []
                first = rest  # the item's text after a nested list is not a new item
                lines.extend(_list_lines(child, depth + 1))
            else:
                item_lines.extend(_item_lines(child))
        lines.extend(_prefixed(item_lines, first, rest))
    return lines


def _item_lines(node: SyntaxTreeNode) -> list[str]:
    """Lines of one block inside a list item: its text kept, its own line breaks kept."""
    blocks: list[Block] = []
    _block(node, blocks)
    lines: list[str] = []
    for block in blocks:
        for line in block.text.split("\n"):
            lines.append(line.rstrip() if block.preformatted else " ".join(line.split()))
    return [line for line in lines if line.strip()]


def _prefixed(lines: list[str], first: str, rest: str) -> list[str]:
    return [(first if i == 0 else rest) + line for i, line in enumerate(lines)]


def _table_rows(node: SyntaxTreeNode) -> list[str]:
    rows = []
    for section in node.children:  # thead, tbody
        for row in section.children:
            cells = [" ".join(_inline(cell).split()) for cell in row.children]
            if any(cells):
                rows.append(CELL_SEPARATOR.join(cell for cell in cells if cell))
    return rows


class _TextOnly(HTMLParser):
    """The text of a raw HTML block: tags and comments dropped, scripts and styles skipped."""

    SKIPPED = ("script", "style")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag in ("br", "p", "div", "li", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED:
            self.skipping = max(0, self.skipping - 1)

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def _html_text(html: str) -> str:
    parser = _TextOnly()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)
