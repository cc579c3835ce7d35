"""`{% load document_metadata %}`: a document's authors and date in one short line."""

from __future__ import annotations

from datetime import date

from django import template
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext

from documents.filters import language_label

register = template.Library()

SHOWN_AUTHORS = 3  # a 26-author paper's byline would fill the viewer's header


@register.filter
def authors_short(authors: list[str] | None) -> str:
    """ "A, B and C", or "A, B, C et al." past three authors; "" when none is known."""
    names = list(authors or [])
    if len(names) > SHOWN_AUTHORS:
        return gettext("%(names)s et al.") % {"names": ", ".join(names[:SHOWN_AUTHORS])}
    if len(names) > 1:
        return gettext("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}
    return names[0] if names else ""


@register.filter
def byline(authors: list[str] | None, published: date | None = None) -> str:
    """Authors and date joined by " · " ("Satoshi Nakamoto · 24 March 2009"), leaving out what is unknown."""
    parts = [authors_short(authors), date_format(published, "j F Y") if published else ""]
    return " · ".join(part for part in parts if part)


@register.filter
def language_name(code: str | None) -> str:
    """The English name of a document's language ("Portuguese" for pt); "" while it is not detected."""
    return language_label(code) if code else ""
