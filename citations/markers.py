"""Citation markers: parsing writer output into parts, validating them against the sources.

An answer is a list of parts: plain text, or a marker `[n]` pointing at source n. Writers
that produce free text (a language model) are parsed with `parse_markers`; groups such as
`[1, 3]` become one marker per number. The extractive writer builds parts directly, so a
bracketed reference inside a quoted sentence ("consistent hashing [10]") stays plain text
and is never mistaken for a marker.

`validate` then keeps markers whose number matches a source, removes the others (reported in
`removed`), and the answer is `uncited` when no valid marker is left.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

# "[3]", "[1, 2]", "[1;2]", "[ 4 ]": one bracketed group of source numbers, with the blanks before it.
MARKER_GROUP = re.compile(r"[ \t]*\[\s*(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\s*\]")
# Markdown links "[text](target)": the target goes, the text stays (writers may not emit links).
_MARKDOWN_LINK = re.compile(r"\[([^\[\]]*)\]\((?:[^()\s]|\([^()]*\))*\)")
_SPACE_BEFORE_PUNCT = re.compile(r"^[ \t]+(?=[.,;:!?])")


@dataclass(frozen=True)
class Part:
    """A piece of answer text: plain text (`n` is None) or the marker of source `n`."""

    text: str
    n: int | None = None

    @staticmethod
    def marker(n: int) -> Part:
        return Part(f"[{n}]", n)


@dataclass
class Validated:
    parts: list[Part]
    cited: list[int] = field(default_factory=list)  # valid numbers, in order of first use
    removed: list[int] = field(default_factory=list)  # numbers that matched no source, in order seen

    @property
    def uncited(self) -> bool:
        return not self.cited

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.parts).strip()


def strip_links(text: str) -> str:
    """Drop markdown link targets: `[1](http://x)` becomes `[1]`, `[docs](x)` becomes `docs`."""
    return _MARKDOWN_LINK.sub(lambda m: f"[{m.group(1)}]" if m.group(1).strip().isdigit() else m.group(1), text)


def parse_markers(text: str) -> list[Part]:
    """Free text (from a model) into parts; every number in a bracket group becomes a marker."""
    text = strip_links(text)
    parts: list[Part] = []
    last = 0
    for match in MARKER_GROUP.finditer(text):
        if match.start() > last:
            parts.append(Part(text[last : match.start()]))
        blank = match.group(0)[: len(match.group(0)) - len(match.group(0).lstrip(" \t"))]
        if blank:
            parts.append(Part(blank))
        numbers = (int(n) for n in re.split(r"\s*[,;]\s*", match.group(1).strip()))
        parts.extend(Part.marker(n) for n in numbers)
        last = match.end()
    if last < len(text):
        parts.append(Part(text[last:]))
    return parts


def validate(parts: list[Part], valid: Collection[int]) -> Validated:
    """Keep markers whose number is in `valid`; remove and report the others."""
    result = Validated(parts=[])
    previous: Part | None = None
    for part in parts:
        if part.n is None:
            result.parts.append(part)
        elif part.n not in valid:
            result.removed.append(part.n)
            _drop_trailing_blank(result.parts)
        elif previous is not None and previous.n == part.n:
            continue  # "[2][2]" is one citation
        else:
            result.parts.append(part)
            if part.n not in result.cited:
                result.cited.append(part.n)
        previous = part
    result.parts = _tidy(result.parts)
    return result


def _drop_trailing_blank(parts: list[Part]) -> None:
    """A removed marker takes the blanks that separated it from the preceding text with it."""
    if parts and parts[-1].n is None and not parts[-1].text.strip():
        parts.pop()


def _tidy(parts: list[Part]) -> list[Part]:
    """Merge neighbouring text parts and drop blanks left before punctuation by removed markers."""
    merged: list[Part] = []
    for part in parts:
        if part.n is None and merged and merged[-1].n is None:
            merged[-1] = Part(merged[-1].text + part.text)
        else:
            merged.append(part)
    if merged and merged[-1].n is None and not merged[-1].text.strip():
        merged.pop()
    return [Part(_SPACE_BEFORE_PUNCT.sub("", p.text)) if p.n is None else p for p in merged if p.text]
