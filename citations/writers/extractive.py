"""The extractive writer: the sources' own sentences that best answer the question, verbatim.

No language model writes anything. Each source is cut into sentences (the chunker's sentence
rules, spans found in the source text itself, so a sentence is always a verbatim substring).
Sentences are scored by cosine similarity to the question (the same encoder as retrieval), plus
the share of the question's words they hold, rare words counting for more than everyday ones, plus
a bonus for stating the kind of fact the question asks for (a year, an amount, a number …:
search/services/answer_type.py). The best few are written:

- within one source, in the order the source has them, whatever order they scored in: a
  passage's argument read backwards can say the opposite of what it says;
- sentences of one source that are not next to each other are joined by an ellipsis, so the
  reader sees that something was left out between them;
- at most `MAX_PER_SOURCE` sentences come from one source, so when the next sources hold good
  sentences too, they are quoted rather than a third sentence of the first;
- each source's sentences are followed by its marker; sources are written in the order of their
  best sentence;
- only the sources given are quoted (they are the ones the page lists and the reader may open).

When no sentence holds a single word of the question, stitching the "most similar" sentences
together would invent a connection the sources do not make: the opening of the nearest passage
is quoted instead, as it stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citations.markers import Part
from citations.writers.base import Source
from search.services.answer_type import AnswerType, content_words, expected_type, holds_fact, stem, words
from search.services.terms import zipf

if TYPE_CHECKING:
    import numpy as np

MAX_SENTENCES = 3
MAX_PER_SOURCE = 2  # a third sentence of one source yields to a good one of the next source
MAX_CHARS = 900  # total length of the written sentences (the first one is always written)
KEEP_WITHIN = 0.12  # further sentences must score within this of the best one
FOLLOW_WITHIN = 0.35  # the sentence after the best one, if it scores within this
OPENING_CHARS = 400  # how much of the nearest passage's opening is quoted when nothing matches
MIN_WORDS = 4
LEXICAL_WEIGHT = 0.25
FACT_BONUS = 0.1  # for a sentence stating the kind of fact the question asks for
ELLIPSIS = " … "  # between two sentences of one source that are not next to each other
SENTENCE_BATCH = 8  # sentences per encoder batch: a pool of ~26 sentences is padded per 8, not as one batch
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!:;)\]\"'”’]\s*$")


@dataclass(frozen=True)
class Candidate:
    n: int  # the source's number
    text: str
    order: int  # index among all the source's sentences: adjacency and reading order
    start: int = 0  # offset of the sentence in the source's text


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`: split at paragraphs, then at sentence ends."""
    from documents.chunking_text import Level, split_units

    found: list[tuple[int, int]] = []
    for start, end in split_units(text, 0, len(text), Level.PARAGRAPH):
        found.extend(split_units(text, start, end, Level.SENTENCE))
    return found


def sentences(text: str) -> list[str]:
    """Sentences of `text` as verbatim substrings."""
    return [text[a:b] for a, b in sentence_spans(text)]


def usable(sentence: str) -> bool:
    """A statement worth quoting: not a question, a heading, or a scrap of a table."""
    found = _WORD.findall(sentence)
    if len(found) < MIN_WORDS or sum(c.isalpha() for c in sentence) < len(sentence) // 3:
        return False
    if sentence.rstrip().endswith("?"):
        return False
    return bool(_SENTENCE_END.search(sentence)) or len(found) >= 12


def candidates(sources: list[Source]) -> list[Candidate]:
    result = []
    for source in sources:
        for order, (a, b) in enumerate(sentence_spans(source.text)):
            if usable(source.text[a:b]):
                result.append(Candidate(source.n, source.text[a:b], order, a))
    return result


def word_weights(question: str) -> dict[str, float]:
    """Each question word's weight by stem: a rare word ("merkle", zipf 1.6) says more about what
    is asked than an everyday one ("time", zipf 6.0), so it counts for more."""
    weights: dict[str, float] = {}
    for word in words(question):
        weights[stem(word)] = max(weights.get(stem(word), 0.0), max(1.0, 7.0 - zipf(word)))
    return weights


def overlap(weights: dict[str, float], text: str) -> float:
    """The weighted share of the question's words that `text` holds (0..1)."""
    total = sum(weights.values())
    held = content_words(text)  # once, not once for each of the question's words
    return sum(w for s, w in weights.items() if s in held) / total if total else 0.0


def nearest(sources: list[Source]) -> Source:
    """The source nearest the question (smallest distance); the first when distances are unknown."""
    known = [s for s in sources if s.distance is not None]
    return min(known, key=lambda s: s.distance or 0.0) if known else sources[0]


def opening(source: Source) -> list[Part]:
    """The source's first sentences, up to OPENING_CHARS (at least one), as one verbatim span."""
    spans = sentence_spans(source.text) or [(0, len(source.text.strip()))]
    end = spans[0][1]
    for _a, b in spans[1:]:
        if b - spans[0][0] > OPENING_CHARS:
            break
        end = b
    return [Part(source.text[spans[0][0] : end]), Part(" "), Part.marker(source.n)]


class ExtractiveWriter:
    name = "extractive"

    def __init__(self, embed: Callable[[list[str]], Any] | None = None) -> None:
        self._embed = embed

    def embed(self, texts: list[str]) -> np.ndarray:
        """The sentences' vectors, as the chunks' are made (EMBEDDING_DOCUMENT_PREFIX added)."""
        if self._embed is not None:
            return self._embed(texts)
        from documents.embedding import embed_texts

        # Sorted by length, a batch is padded to its longest sentence: small batches keep one
        # long sentence from padding thirty short ones to its length.
        return embed_texts(texts, batch_size=SENTENCE_BATCH)

    def embed_question(self, question: str) -> np.ndarray:
        """The question's vector, in the sentences' space.

        With the same prefix for questions and chunks (the default: none), that is the vector the
        search has just made for this question (search.services.query_embedding caches it): it is
        not computed twice. Otherwise the question is embedded as the sentences are."""
        from django.conf import settings

        if self._embed is None and settings.EMBEDDING_QUERY_PREFIX == settings.EMBEDDING_DOCUMENT_PREFIX:
            from search.services.query_embedding import query_vector

            return query_vector(question)[0]
        return self.embed([question])[0]

    def write(self, question: str, sources: list[Source]) -> list[Part]:
        sources = [s for s in sources if s.text.strip()]
        if not sources:
            return []
        pool = candidates(sources)
        asked = content_words(question)
        if not any(asked & content_words(c.text) for c in pool):
            # Nothing shares a word with the question: quote where the nearest passage begins
            # rather than stitch unrelated sentences into something that reads like an answer.
            return opening(nearest(sources))
        ranked = self.rank(question, pool)
        return self.compose(self.choose(ranked, asked))

    def rank(self, question: str, pool: list[Candidate]) -> list[tuple[float, Candidate]]:
        # A sentence that two sources share (overlapping chunks, copies of a file) is embedded once.
        texts = list(dict.fromkeys(c.text for c in pool))
        rows = dict(zip(texts, self.embed(texts), strict=True))
        query = self.embed_question(question)
        weights = word_weights(question)
        wanted: AnswerType | None = expected_type(question)
        scored = []
        for candidate in pool:
            score = float(query @ rows[candidate.text]) + LEXICAL_WEIGHT * overlap(weights, candidate.text)
            if wanted is not None and holds_fact(candidate.text, wanted):
                score += FACT_BONUS
            scored.append((score, candidate))
        scored.sort(key=lambda item: (-item[0], item[1].n, item[1].order))
        return scored

    def choose(self, ranked: list[tuple[float, Candidate]], asked: set[str] | None = None) -> list[Candidate]:
        """The best sentence, the one after it (it often holds the figure the best one leads up
        to), then further sentences holding a word of the question and scoring close to the best,
        at most MAX_PER_SOURCE a source, within the length budget."""
        best = ranked[0][0]
        by_place = {(c.n, c.order): (score, c) for score, c in ranked}
        follower = by_place.get((ranked[0][1].n, ranked[0][1].order + 1))
        order = [ranked[0]]
        if follower is not None and follower[0] >= best - FOLLOW_WITHIN:
            order.append(follower)
        order.extend(
            item
            for item in ranked[1:]
            if item[0] >= best - KEEP_WITHIN and (asked is None or asked & content_words(item[1].text))
        )
        chosen: list[Candidate] = []
        seen: set[str] = set()
        used = 0
        for _score, candidate in order:
            key = " ".join(candidate.text.split()).casefold()
            if key in seen or (chosen and used + len(candidate.text) > MAX_CHARS):
                continue  # overlapping chunks may repeat a sentence
            if sum(c.n == candidate.n for c in chosen) >= MAX_PER_SOURCE:
                continue
            chosen.append(candidate)
            seen.add(key)
            used += len(candidate.text)
            if len(chosen) == MAX_SENTENCES:
                break
        return chosen

    @staticmethod
    def compose(chosen: list[Candidate]) -> list[Part]:
        """Per source (in the order of its best sentence), its sentences in the source's order,
        an ellipsis between ones that are not adjacent, then its marker."""
        parts: list[Part] = []
        for n in dict.fromkeys(c.n for c in chosen):
            group = sorted((c for c in chosen if c.n == n), key=lambda c: c.order)
            if parts:
                parts.append(Part(" "))
            for i, candidate in enumerate(group):
                if i:
                    parts.append(Part(" " if candidate.order == group[i - 1].order + 1 else ELLIPSIS))
                parts.append(Part(candidate.text))
            parts.extend([Part(" "), Part.marker(n)])
        return parts


def quoted_pieces(parts: list[Part]) -> list[tuple[str, int]]:
    """(quoted text, source number) for each stretch between ellipses and markers: each is a
    verbatim substring of its source. For checks of the writer's output."""
    pieces: list[tuple[str, int]] = []
    pending = ""
    for part in parts:
        if part.n is None:
            pending += part.text
            continue
        pieces.extend((piece.strip(), part.n) for piece in pending.split(ELLIPSIS.strip()) if piece.strip())
        pending = ""
    return pieces
