"""`{% load library %}`: how the result list and the browse pages name formats and mark snippets."""

from __future__ import annotations

from collections.abc import Sequence

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from documents.extraction.formats import format_column_label

register = template.Library()


@register.filter
def format_label(content_type: str) -> str:
    """ "PDF", "Word", "Markdown"…: the format as a person names it."""
    return format_column_label(content_type)


def highlight(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` escaped, with each [start, end) of `spans` (sorted, disjoint) in <mark>."""
    pieces: list[str] = []
    at = 0
    for start, end in spans:
        if start < at or end <= start:  # overlapping or empty: not a span ts_headline gives
            continue
        pieces += [escape(text[at:start]), "<mark>", escape(text[start:end]), "</mark>"]
        at = end
    pieces.append(escape(text[at:]))
    return "".join(pieces)


@register.filter
def highlighted(passage: object) -> SafeString:
    """A result passage's snippet (a search.services.hydration.SearchHit with its snippet), its matched words marked."""
    return mark_safe(highlight(getattr(passage, "snippet", ""), getattr(passage, "highlights", [])))  # escaped above
