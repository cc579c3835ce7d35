"""Citation markers: parsing writer output into parts, validating them against the sources.

An answer is a list of parts: plain text, or a marker `[n]` pointing at source n. Writers
that produce free text (a language model) are parsed with `parse_markers`; groups such as
`[1, 3]` become one marker per number. The extractive writer builds parts directly, so a
bracketed reference inside a quoted sentence ("consistent hashing [10]") stays plain text
and is never mistaken for a marker.

`validate` then keeps markers whose number matches a source, removes the others (reported in
`removed`), and the answer is `uncited` when no valid marker is left.

The marker rule of the `answer` string: an ASCII `[n]` (or a group `[n, m]`) is always one of
ours. A source's own bracketed numbers ("KDB+ [22]", "C-Store [1, 34]", "[3-5]") are written
there with U+27E6/U+27E7 white square brackets, "⟦22⟧", so that any regex for `[n]` finds our
markers and nothing else. (A backslash escape, "\\[22]", would still match the obvious regex;
full-width brackets would turn back into "[22]" under NFKC normalisation; these do neither.)
The parts keep every text verbatim: they are what the page renders, and what integrations
should render from.

A language model may copy a source's own reference into its reply. A bracket group of the
reply that occurs, with the same numbers, among the sources' own bracketed references and
names a number that is not a source (`quoted_references`) is that copy: it stays text rather
than being removed as a marker that points at nothing.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

# "[3]", "[1, 2]", "[1;2]", "[ 4 ]": one bracketed group of source numbers, with the blanks before it.
MARKER_GROUP = re.compile(r"[ \t]*\[\s*(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\s*\]")
# Any bracket holding only numbers, blanks and separators: what could pass for one of our markers.
BRACKETED_NUMBERS = re.compile(r"\[(\s*\d[\d\s,;\u2013-]*)\]")
OWN_OPEN, OWN_CLOSE = "\u27e6", "\u27e7"  # ⟦ ⟧: a source's own reference in the `answer` string
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
        return answer_text(self.parts)


def escape_references(text: str) -> str:
    """A source's own "[22]" written as "⟦22⟧", so that only our markers look like `[n]`."""
    return BRACKETED_NUMBERS.sub(lambda m: f"{OWN_OPEN}{m.group(1)}{OWN_CLOSE}", text)


def answer_text(parts: list[Part]) -> str:
    """The `answer` string: markers as `[n]`, text with its bracketed numbers escaped."""
    return "".join(part.text if part.n is not None else escape_references(part.text) for part in parts).strip()


def reference_groups(text: str) -> set[tuple[int, ...]]:
    """The numbers of every bracket group in `text` that `parse_markers` would read as markers."""
    return {_numbers(match) for match in MARKER_GROUP.finditer(text)}


def quoted_references(texts: Iterable[str], valid: Collection[int]) -> set[tuple[int, ...]]:
    """The sources' own bracket groups that name a number which is not a source (see above)."""
    return {group for text in texts for group in reference_groups(text) if not set(group) <= set(valid)}


def _numbers(match: re.Match[str]) -> tuple[int, ...]:
    return tuple(int(n) for n in re.split(r"\s*[,;]\s*", match.group(1).strip()))


def strip_links(text: str) -> str:
    """Drop markdown link targets: `[1](http://x)` becomes `[1]`, `[docs](x)` becomes `docs`."""
    return _MARKDOWN_LINK.sub(lambda m: f"[{m.group(1)}]" if m.group(1).strip().isdigit() else m.group(1), text)


def parse_markers(text: str, quoted: Collection[tuple[int, ...]] = ()) -> list[Part]:
    """Free text (from a model) into parts; every number in a bracket group becomes a marker,
    except in groups listed in `quoted` (a source's own references copied by the model)."""
    text = strip_links(text)
    parts: list[Part] = []
    last = 0
    for match in MARKER_GROUP.finditer(text):
        if _numbers(match) in quoted:
            continue  # stays text: the next part runs from `last` over it
        if match.start() > last:
            parts.append(Part(text[last : match.start()]))
        blank = match.group(0)[: len(match.group(0)) - len(match.group(0).lstrip(" \t"))]
        if blank:
            parts.append(Part(blank))
        parts.extend(Part.marker(n) for n in _numbers(match))
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
