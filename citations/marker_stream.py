"""Validated parts from a reply that arrives in pieces (a streamed model reply).

Each new piece re-reads the settled part of the reply with the same `parse_markers` and
`validate` as a whole reply (citations/markers.py), and hands back only what was added since
the last call: text to append, or a marker. A marker is released once its bracket closes, and
only if it names a source; one naming no source is dropped, as in a whole reply. What is not
settled yet stays back:

- an open bracket, "[2" or "[docs": it may become a marker, a group "[2, 3]", or a link;
- a closed bracket at the very end, or followed by an open "(": "[1](http://…)" loses its link;
- blanks at the end: a removed marker takes the blanks before it with it.

`hold` keeps everything back while it says so (a reply that may still be a refusal). If a later
reading ever disagrees with what was sent (it should not), nothing more is sent piecemeal and the
caller's final, whole parts stand alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from citations.markers import Part, parse_markers, validate

Hold = Callable[[str, list[Part]], bool]


def settled_length(text: str) -> int:
    """How much of `text` can no longer change how it is read, whatever follows it."""
    cut = len(text)
    start = text.rfind("[")
    if start >= 0:
        close = text.find("]", start)
        after = text[close + 1 :] if close >= 0 else ""
        if close < 0 or not after or (after.startswith("(") and ")" not in after):
            cut = start
    return len(text[:cut].rstrip(" \t"))


def continuation(sent: list[Part], now: list[Part]) -> list[Part] | None:
    """What `now` adds after `sent`, as pieces to append; None when `now` does not extend `sent`."""
    if not sent:
        return list(now)
    head, last = sent[:-1], sent[-1]
    if len(now) < len(sent) or now[: len(head)] != head:
        return None
    current = now[len(head)]
    if current == last:
        return now[len(sent) :]
    if last.n is None and current.n is None and current.text.startswith(last.text):
        return [Part(current.text[len(last.text) :]), *now[len(sent) :]]
    return None


class MarkerStream:
    def __init__(
        self, valid: Collection[int], quoted: Collection[tuple[int, ...]] = (), *, limit: int, hold: Hold | None = None
    ) -> None:
        self.valid, self.quoted, self.limit, self.hold = set(valid), quoted, limit, hold
        self.text = ""  # the reply so far, cut at `limit` (as a whole reply is)
        self.sent: list[Part] = []  # everything handed out, merged as `validate` merges it
        self.diverged = False

    @property
    def full(self) -> bool:
        return len(self.text) >= self.limit

    def feed(self, piece: str) -> list[Part]:
        """Add a piece of the reply; the parts (or text) that are now settled and not yet sent."""
        self.text = (self.text + piece)[: self.limit]
        settled = self.text[: settled_length(self.text)].lstrip()
        parts = parse_markers(settled, self.quoted)
        if self.hold is not None and self.hold(settled, parts):
            return []
        return self._advance(validate(parts, self.valid).parts)

    def finish(self, parts: list[Part]) -> list[Part]:
        """The final parts (from the whole reply): whatever of them was not sent yet."""
        return self._advance(parts)

    def _advance(self, parts: list[Part]) -> list[Part]:
        if self.diverged:
            return []
        added = continuation(self.sent, parts)
        if added is None:
            self.diverged = True
            return []
        self.sent = list(parts)
        return [part for part in added if part.text]
