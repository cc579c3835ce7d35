"""Locators: where a document (or a citation into it) is shown, as URLs into the viewer, the page
view and the file. They are the one source of these URLs: the documents and search APIs and the
answer service all build links here (the pages themselves are `citations.views`).

`#char=a,b` addresses the half-open range [a, b) of a document's canonical text, counted in
Unicode code points (Python string indices); the viewer's script converts them to the
browser's UTF-16 offsets. `#page=N` (1-based) is the PDF viewer's standard page fragment.
"""

from __future__ import annotations

import re

from django.urls import reverse

_CHAR_RANGE = re.compile(r"^\s*(\d{1,10})\s*,\s*(\d{1,10})\s*$")


def parse_char_range(value: str | None, length: int | None = None) -> tuple[int, int] | None:
    """`"a,b"` as (a, b) with a < b (clipped to `length` when given); None when malformed or empty."""
    match = _CHAR_RANGE.match(value or "")
    if not match:
        return None
    start, end = int(match.group(1)), int(match.group(2))
    if length is not None:
        start, end = min(start, length), min(end, length)
    return (start, end) if start < end else None


def char_fragment(start: int, end: int) -> str:
    return f"#char={start},{end}"


def viewer_url(document_id: int, start: int | None = None, end: int | None = None) -> str:
    url = reverse("citations:document_view", args=[document_id])
    return url + char_fragment(start, end) if start is not None and end is not None else url


def page_url(document_id: int, page: int, start: int | None = None, end: int | None = None) -> str:
    """The page view; with a range, at "#passage", the anchor placed on the highlight."""
    url = reverse("citations:document_page", args=[document_id, page])
    return f"{url}?char={start},{end}#passage" if start is not None and end is not None else url


def page_image_url(document_id: int, page: int, start: int | None = None, end: int | None = None) -> str:
    url = reverse("citations:document_page_image", args=[document_id, page])
    return f"{url}?char={start},{end}" if start is not None and end is not None else url


def file_url(document_id: int, page: int | None = None) -> str:
    url = reverse("citations:document_file", args=[document_id])
    return f"{url}#page={page}" if page else url


def page_span(page_starts: list[int], page: int, length: int) -> tuple[int, int]:
    """[start, end) of 1-based `page` in the canonical text (the whole text if there are no pages)."""
    if not page_starts:
        return 0, length
    start = page_starts[page - 1]
    end = page_starts[page] if page < len(page_starts) else length
    return start, end


def clip(span: tuple[int, int], bounds: tuple[int, int]) -> tuple[int, int] | None:
    """The part of `span` inside `bounds`, or None when they do not overlap."""
    start, end = max(span[0], bounds[0]), min(span[1], bounds[1])
    return (start, end) if start < end else None
