"""The extractive writer: the sources' own sentences that best answer the question, verbatim.

No language model writes anything. Each source is cut into sentences (the chunker's sentence
rules, spans found in the source text itself, so a sentence is always a verbatim substring);
sentences are scored by cosine similarity to the question (the same encoder as retrieval)
plus a small bonus for sharing the question's words; the best few are written, each followed
by the marker of the source it came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citations.markers import Part
from citations.writers.base import Source

if TYPE_CHECKING:
    import numpy as np

MAX_SENTENCES = 3
MAX_CHARS = 900  # total length of the written sentences (the first one is always written)
KEEP_WITHIN = 0.12  # further sentences must score within this of the best one
FOLLOW_WITHIN = 0.35  # the sentence after the best one, if it scores within this
MIN_WORDS = 4
LEXICAL_WEIGHT = 0.25
NUMBER_BONUS = 0.1  # for a sentence holding a number when the question asks for a quantity
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_QUANTITY_QUESTION = re.compile(
    r"\b(how (much|many|long|often|fast|large|big|small|far)|what (fraction|percentage|proportion|share|"
    r"number|rate|speed|size)|by how)\b",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
_SENTENCE_END = re.compile(r"[.!:;)\]\"'”’]\s*$")
_STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "has", "have",
        "how", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when",
        "where", "which", "who", "why", "will", "with", "you", "your", "i", "my", "me", "we", "our", "they",
        "their", "there", "these", "those", "into", "than", "then", "also", "about", "after", "before",
        "between", "during", "over", "under", "much", "many", "more", "most",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    n: int
    text: str
    order: int  # position in the source, to break ties in reading order


def stem(word: str) -> str:
    """A crude suffix strip, enough to match "keys"/"key", "applies"/"apply", "hashing"/"hash"."""
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + replacement
    return word


def content_words(text: str) -> set[str]:
    words = (m.group(0).casefold() for m in _WORD.finditer(text))
    return {stem(w) for w in words if len(w) > 2 and w not in _STOPWORDS}


def sentences(text: str) -> list[str]:
    """Sentences of `text` as verbatim substrings: split at paragraphs, then at sentence ends."""
    from documents.chunking_text import Level, split_units

    found: list[str] = []
    for start, end in split_units(text, 0, len(text), Level.PARAGRAPH):
        found.extend(text[a:b] for a, b in split_units(text, start, end, Level.SENTENCE))
    return found


def usable(sentence: str) -> bool:
    """A statement worth quoting: not a question, a heading, or a scrap of a table."""
    words = _WORD.findall(sentence)
    if len(words) < MIN_WORDS or sum(c.isalpha() for c in sentence) < len(sentence) // 3:
        return False
    if sentence.rstrip().endswith("?"):
        return False
    return bool(_SENTENCE_END.search(sentence)) or len(words) >= 12


def candidates(sources: list[Source]) -> list[Candidate]:
    result = []
    for source in sources:
        for order, sentence in enumerate(sentences(source.text)):
            if usable(sentence):
                result.append(Candidate(source.n, sentence, order))
    return result


class ExtractiveWriter:
    name = "extractive"

    def __init__(self, embed: Callable[[list[str]], Any] | None = None) -> None:
        self._embed = embed

    def embed(self, texts: list[str]) -> np.ndarray:
        if self._embed is not None:
            return self._embed(texts)
        from documents.embedding import embed_texts

        return embed_texts(texts)

    def write(self, question: str, sources: list[Source]) -> list[Part]:
        pool = candidates(sources)
        if not pool:  # sources without a single proper sentence: quote the first source whole
            return [Part(sources[0].text.strip()), Part(" "), Part.marker(sources[0].n)] if sources else []
        ranked = self.rank(question, pool)
        return self.compose(self.choose(ranked))

    def rank(self, question: str, pool: list[Candidate]) -> list[tuple[float, Candidate]]:
        vectors = self.embed([question, *(c.text for c in pool)])
        query, rows = vectors[0], vectors[1:]
        asked = content_words(question)
        quantity = bool(_QUANTITY_QUESTION.search(question))
        scored = []
        for candidate, vector in zip(pool, rows, strict=True):
            overlap = len(asked & content_words(candidate.text)) / len(asked) if asked else 0.0
            score = float(query @ vector) + LEXICAL_WEIGHT * overlap
            if quantity and _DIGIT.search(candidate.text):
                score += NUMBER_BONUS
            scored.append((score, candidate))
        scored.sort(key=lambda item: (-item[0], item[1].n, item[1].order))
        return scored

    def choose(self, ranked: list[tuple[float, Candidate]]) -> list[Candidate]:
        """The best sentence, the one after it (it often holds the figure the best one leads up
        to), then further sentences scoring close to the best, within the length budget."""
        best = ranked[0][0]
        by_place = {(c.n, c.order): (score, c) for score, c in ranked}
        follower = by_place.get((ranked[0][1].n, ranked[0][1].order + 1))
        order = [ranked[0]]
        if follower is not None and follower[0] >= best - FOLLOW_WITHIN:
            order.append(follower)
        order.extend(item for item in ranked[1:] if item[0] >= best - KEEP_WITHIN)
        chosen: list[Candidate] = []
        seen: set[str] = set()
        used = 0
        for _score, candidate in order:
            key = " ".join(candidate.text.split()).casefold()
            if key in seen or (chosen and used + len(candidate.text) > MAX_CHARS):
                continue  # overlapping chunks may repeat a sentence
            chosen.append(candidate)
            seen.add(key)
            used += len(candidate.text)
            if len(chosen) == MAX_SENTENCES:
                break
        return chosen

    @staticmethod
    def compose(chosen: list[Candidate]) -> list[Part]:
        parts: list[Part] = []
        for candidate in chosen:
            if parts:
                parts.append(Part(" "))
            parts.extend([Part(candidate.text), Part(" "), Part.marker(candidate.n)])
        return parts
