"""What the answer says: each shown query's answer, written as /api/answer writes it, checked
against the needle and for quoted non-prose.

- *fact shown*: the content of one of the sources the answer shows (the first
  `ANSWER_TOP_SOURCES` passages) holds the whole needle;
- *fact stated*: the answer's own text holds the whole needle. Both compare after
  `normalise_for_match` (NFKC, whitespace collapsed) and case folding, on both sides; markers are
  left out of the answer's text, and the stretches the writer joined with an ellipsis are matched
  one by one, so a needle is never "stated" across a gap the answer leaves;
- *non-prose*: a quoted stretch that is a reference-list entry, an acknowledgement, an author or
  affiliation line, a figure or table caption, a running header, or text that is not in its
  source in one piece (sentences the writer joined across a paragraph break: a caption spliced
  into a sentence). These rules are the evaluation's own and share no code with the writer's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citations.services.answer import answer_from_search, write_answer
from citations.writers.extractive import quoted_pieces
from evaluation.textnorm import normalise_for_match
from search.services.gate import AnswerState
from search.services.hydration import SearchHit
from search.services.retrieval import SearchResult

_BACK_MATTER = re.compile(r"\b(references|bibliography|works cited|acknowledge?ments?)\s*$", re.IGNORECASE)
_REFERENCE_ENTRY = re.compile(r"^\s*\[\d+\]\s+\S")
_REFERENCE_SIGNS = (
    re.compile(r"\bIn (Proc\.|Proceedings)\b"),
    re.compile(r"\bpp?\.\s*\d+"),
    re.compile(r"\b(vol|no)\.?\s*\d+", re.IGNORECASE),
    re.compile(r"\b(pages|volume)\s+\d+"),
    re.compile(r"(^|[,;]\s*)([A-Z]\.\s*){1,3}[A-Z][a-z]+,"),  # "W. Dai," "J.-J. Quisquater,"
    re.compile(r"\bet al\.,"),
    re.compile(r"https?://\S+,\s*(19|20)\d\d"),
)
_ACKNOWLEDGEMENT = re.compile(
    r"\b(we|I)\s+(would\s+(also\s+)?like\s+to\s+)?(also\s+)?thank\b|\bgrateful\s+to\b|\bthanks\s+(go\s+)?to\b"
    r"|\b(supported|funded)\s+(in\s+part\s+)?by\b[^.]*\b(grant|NSF|DARPA|foundation|award)",
    re.IGNORECASE,
)
# A caption opens its stretch; "the property in Figure 3: if any server …" mid-sentence is prose, and a
# caption joined to the sentence before it is caught as "spliced".
_CAPTION = re.compile(r"^\s*(Figure|Fig\.|Table)\s*\d+[a-z]?\s*[:.]\s", re.IGNORECASE)
_AFFILIATION = re.compile(r"\S+@\S+\.\w+|\bUniversity of\b|\b(Inc|Corp)\.,?\s*$|\{[\w,\s.]+\}@")
_HEADER = re.compile(r"^\s*(page\s+)?\d+\s*$|^\s*(Proceedings of|To appear in)\b", re.IGNORECASE)


# Whitespace inside one paragraph: spaces, tabs, single line breaks; never a blank line.
_SAME_PARAGRAPH_SPACE = r"(?:[^\S\n]|\n(?![^\S\n]*\n))+"


def in_one_piece(piece: str, content: str) -> bool:
    """Whether `piece` is in `content` with only its whitespace differing, and within one
    paragraph: sentences of two paragraphs joined by a space are not."""
    pattern = _SAME_PARAGRAPH_SPACE.join(re.escape(word) for word in piece.split())
    return bool(pattern) and re.search(pattern, content) is not None


def non_prose_kind(piece: str, hit: SearchHit) -> str | None:
    """What non-prose `piece` (a stretch the answer quotes from `hit`) is, or None for prose."""
    if not in_one_piece(piece, hit.content):
        return "spliced"
    section = (hit.section or "").split(">")[-1]
    back = _BACK_MATTER.search(section)
    if back:
        return "acknowledgement" if back.group(1).lower().startswith("ack") else "reference"
    if _REFERENCE_ENTRY.search(piece) or sum(bool(p.search(piece)) for p in _REFERENCE_SIGNS) >= 2:
        return "reference"
    if _ACKNOWLEDGEMENT.search(piece):
        return "acknowledgement"
    if _CAPTION.search(piece):
        return "caption"
    if _AFFILIATION.search(piece):
        return "author"
    if _HEADER.search(piece):
        return "header"
    return None


def _folded(text: str) -> str:
    return normalise_for_match(text).casefold()


@dataclass(frozen=True)
class AnswerCheck:
    state: str  # the answer's state: the gate's, or refused when a writer declined
    shown: bool | None = None  # a shown source holds the needle (None: no needle, or nothing shown)
    stated: bool | None = None  # the answer's text holds it
    non_prose: list[str] = field(default_factory=list)  # "kind: quoted text" per non-prose stretch
    text: str = ""  # the answer as written (markers as "[n]")

    def payload(self) -> dict[str, object]:
        return {"state": self.state, "shown": self.shown, "stated": self.stated, "non_prose": self.non_prose,
                "text": self.text}  # fmt: skip


def check_answer(result: SearchResult, needle: str | None) -> AnswerCheck:
    """Write the answer `result` leads to (as /api/answer would) and check it."""
    answer, sources = answer_from_search(result)
    if not sources:
        return AnswerCheck(answer.state)
    write_answer(answer, sources)
    if answer.state == AnswerState.REFUSED:
        return AnswerCheck(answer.state, text=answer.text)
    hits = {c.n: c.hit for c in answer.citations}
    stretches = quoted_pieces(answer.parts)
    non_prose = []
    for text, n in stretches:
        kind = non_prose_kind(text, hits[n]) if n in hits else None
        if kind:
            non_prose.append(f"{kind}: {text[:160]}")
    shown = stated = None
    if needle:
        wanted = _folded(needle)
        shown = any(wanted in _folded(c.hit.content) for c in answer.citations)
        stated = any(wanted in _folded(text) for text, _ in stretches)
    return AnswerCheck(answer.state, shown, stated, non_prose, answer.text)


def summarise(checks: list[AnswerCheck]) -> dict[str, dict[str, int]]:
    """Per answer state: how many, how many show the fact, state it, state it where a source
    shows it, and quote non-prose."""
    out: dict[str, dict[str, int]] = {}
    for state in AnswerState.values:
        picked = [c for c in checks if c.state == state]
        out[state] = {
            "n": len(picked),
            "fact_shown": sum(bool(c.shown) for c in picked),
            "fact_stated": sum(bool(c.stated) for c in picked),
            "stated_where_shown": sum(bool(c.stated and c.shown) for c in picked),
            "non_prose": sum(bool(c.non_prose) for c in picked),
        }
    return out
