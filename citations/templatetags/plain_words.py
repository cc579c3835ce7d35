"""`{% load plain_words %}`: the filters of citations/plain.py for the search page."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from citations import plain

register = template.Library()


@register.filter
def match_strength(distance: float | None) -> str:
    return plain.match_strength(distance)


@register.filter
def refusal_sentence(answer: plain.Refused) -> str:
    return plain.refusal_sentence(answer)


@register.filter
def reason_label(code: str) -> str:
    return plain.reason_label(code)


@register.filter
def fact_kind(code: str) -> str:
    return plain.fact_kind(code)


@register.filter
def source_references(text: str) -> SafeString:
    """The text escaped, its own bracket numbers ("[12]") styled apart from our markers."""
    return mark_safe(plain.mark_source_references(str(text)))  # escaped there, piece by piece


@register.filter
def source_number(sources: dict[int, int] | None, chunk_id: int) -> int | None:
    """The answer's number [n] of the passage `chunk_id`, if it is one of its sources: the result
    list then points at the source instead of showing the passage a second time."""
    return (sources or {}).get(chunk_id)
