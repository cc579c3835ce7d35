"""Phrases every layer's messages share, in the active language."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext


def alternatives(items: Sequence[str]) -> str:
    """ "a", "a or b", "a, b or c": how a message offers several things, in the active language."""
    if len(items) == 1:
        return items[0]
    return gettext("%(words)s or %(last)s") % {"words": ", ".join(items[:-1]), "last": items[-1]}
