"""Markdown extraction: the source text is the canonical text; ATX headings are sections."""

from __future__ import annotations

import re
from pathlib import Path

from documents.extraction import versions
from documents.extraction.plaintext import NO_TEXT, read_text
from documents.extraction.types import ExtractedText, ExtractionError, Section

EXTRACTOR = versions.MARKDOWN
MAX_LEVEL = 3  # the design makes `#`..`###` sections; deeper headings stay plain text

# CommonMark ATX heading: up to 3 spaces of indent, 1-6 '#', then a space (or end of line),
# optionally closed by a run of '#' preceded by a space.
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def extract_markdown(path: Path) -> ExtractedText:
    text = read_text(path)
    if not text.strip():
        raise ExtractionError(NO_TEXT)
    return ExtractedText(
        text=text, page_starts=[], sections=markdown_sections(text), page_count=None, extractor=EXTRACTOR
    )


def markdown_sections(text: str) -> list[Section]:
    """Sections for `#`, `##`, `###` headings outside fenced code blocks.

    `start` is the offset of the title text itself (after the '#'s), so that
    `text[start:start + len(title)] == title`.
    """
    sections: list[Section] = []
    fence: str | None = None  # the opening fence while inside a fenced block
    offset = 0
    for line in text.split("\n"):
        line_start, offset = offset, offset + len(line) + 1
        fence_match = _FENCE.match(line)
        if fence is not None:
            # A closing fence uses the same character and is at least as long as the opening.
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
                and not line[fence_match.end() :].strip()
            ):
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            continue
        heading = _ATX.match(line)
        if not heading or not heading.group(2) or len(heading.group(1)) > MAX_LEVEL:
            continue
        title = heading.group(2).strip()
        if title:
            sections.append(Section(start=line_start + heading.start(2), level=len(heading.group(1)), title=title))
    return sections
