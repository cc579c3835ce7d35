"""`{% load plain_words %}`: the filters of citations/plain.py for the search page."""

from __future__ import annotations

from django import template

from citations import plain

register = template.Library()


@register.filter
def match_strength(distance: float | None) -> str:
    return plain.match_strength(distance)


@register.filter
def refusal_sentence(answer: plain.Refused) -> str:
    return plain.refusal_sentence(answer)
