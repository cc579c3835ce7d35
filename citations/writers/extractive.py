"""The extractive writer: the sources' own sentences that best answer the question, verbatim.

No language model writes anything. Every source the answer shows is cut into sentences where
the layout and the chunker's rules cut them (citations/writers/prose.py: spans found in the
source text itself, so a sentence is always a verbatim substring); only prose is a candidate —
never a reference entry, an acknowledgement, an author line, a caption, a header or a scrap of a
table or of code. Each candidate is scored by how well it answers the question:

- the encoder's cosine similarity of question and sentence (the question's vector is the one the
  search made; the sentences are embedded once, in one pass, at most `MAX_EMBEDDED` of them);
- the share of the question's words it holds, rare words and names counting for more than
  everyday ones (`word_weights`);
- whether it states the kind of fact asked for: a year, an amount, a number, a person, a place
  (search/services/answer_type.py), a name (or a figure: "a 10-to-1 reduction") where the question
  asks "which …" or "what …", a definition where it asks what something is or does, a reason
  where it asks why (`asked_form`);
- how much of the question its passage's section heading names ("5.2 Leader election" for
  "How does Raft elect a leader?").

The best few are written:

- within one source, in the order the source has them, whatever order they scored in: a
  passage's argument read backwards can say the opposite of what it says;
- sentences of one source that are not next to each other in one paragraph are joined by an
  ellipsis, so the reader sees that something was left out between them;
- at most `MAX_PER_SOURCE` sentences come from one source (besides the neighbours below), so
  when the next sources hold good sentences too, they are quoted rather than a fourth sentence
  of the first;
- each source's sentences are followed by its marker; sources are written in the order of their
  best sentence, so a source further down the list that answers better is the one cited first;
- only the sources given are quoted (they are the ones the page lists and the reader may open);
- a sentence next to a quoted one in its paragraph that states the kind of fact asked for is
  quoted too (the figure is often one sentence away from the words of the question, and shares
  none of them), and so is a single sentence left out between two quoted ones of one paragraph.

When no sentence holds a single word of the question, stitching the "most similar" sentences
together would invent a connection the sources do not make: the opening prose of the nearest
passage is quoted instead, as it stands.

`passage_order` gives the same scoring to a language-model writer: it is shown the sources in the
order of their best sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citations.markers import Part
from citations.writers.base import Source
from citations.writers.prose import Unit, sentence_is_prose, units
from search.services.answer_type import (
    AnswerType,
    content_words,
    expected_type,
    holds_fact,
    ordinary_words,
    stem,
    words,
)
from search.services.terms import zipf

if TYPE_CHECKING:
    import numpy as np

MAX_SENTENCES = 4
MAX_PER_SOURCE = 3  # a fourth sentence of one source yields to a good one of the next source
MAX_CHARS = 1200  # total length of the written sentences (the first one is always written)
KEEP_WITHIN = 0.35  # further sentences must score within this of the best one
FOLLOW_WITHIN = 0.35  # the sentence after the best one, if it scores within this
OPENING_CHARS = 400  # how much of the nearest passage's opening is quoted when nothing matches
MAX_EMBEDDED = 40  # sentences embedded for one answer: the encoder's time stays what it was
LEXICAL_WEIGHT = 0.25
FACT_BONUS = 0.1  # for a sentence stating the kind of fact the question asks for
FORM_BONUS = 0.25  # for a name, a definition or a reason where the question asks for one
HEADING_WEIGHT = 0.1  # times the weighted share of the question's words the section heading holds
ELLIPSIS = " … "  # between two sentences of one source that are not next to each other
SENTENCE_BATCH = 8  # sentences per encoder batch: a pool of ~26 sentences is padded per 8, not as one batch
PREFIX_MIN = 4  # a question's stem this long also matches longer words it begins ("elect" in "election")


@dataclass(frozen=True)
class Candidate:
    n: int  # the source's number
    text: str
    order: int  # index among all the source's sentences: reading order
    start: int = 0  # offset of the sentence in the source's text
    paragraph: int = 0  # the paragraph (or line) of the source it sits in: adjacency


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, cut at paragraphs, lines and sentence ends."""
    return [(u.start, u.end) for u in units(text)]


def sentences(text: str) -> list[str]:
    """Sentences of `text` as verbatim substrings."""
    return [text[a:b] for a, b in sentence_spans(text)]


def usable(sentence: str) -> bool:
    """A statement worth quoting: prose, not a question, a heading, or a scrap of a table or code."""
    return sentence_is_prose(sentence)


def _candidate(source: Source, unit: Unit) -> Candidate:
    return Candidate(source.n, source.text[unit.start : unit.end], unit.order, unit.start, unit.paragraph)


def candidates(sources: list[Source]) -> list[Candidate]:
    return [_candidate(s, u) for s in sources for u in units(s.text, s.section) if u.prose]


def word_weights(question: str) -> dict[str, float]:
    """Each question word's weight by stem: a rare word ("merkle", zipf 1.6) says more about what
    is asked than an everyday one ("time", zipf 6.0), so it counts for more."""
    weights: dict[str, float] = {}
    for word in words(question):
        weights[stem(word)] = max(weights.get(stem(word), 0.0), max(1.0, 7.0 - zipf(word)))
    return weights


def _holds(wanted: str, held: set[str]) -> bool:
    return wanted in held or (len(wanted) >= PREFIX_MIN and any(w.startswith(wanted) for w in held))


def overlap(weights: dict[str, float], text: str) -> float:
    """The weighted share of the question's words that `text` holds (0..1); a word counts where
    `text` holds it or a longer word it begins ("elect" in "election")."""
    total = sum(weights.values())
    held = content_words(text)  # once, not once for each of the question's words
    return sum(w for s, w in weights.items() if _holds(s, held)) / total if total else 0.0


def nearest(sources: list[Source]) -> Source:
    """The source nearest the question (smallest distance); the first when distances are unknown."""
    known = [s for s in sources if s.distance is not None]
    return min(known, key=lambda s: s.distance or 0.0) if known else sources[0]


def opening(source: Source) -> list[Part]:
    """The source's first prose sentences, adjacent in one paragraph, up to OPENING_CHARS (at
    least one), as one verbatim span; nothing when it holds no prose."""
    prose = [u for u in units(source.text, source.section) if u.prose]
    if not prose:
        return []
    last = prose[0]
    for unit in prose[1:]:
        if (
            unit.paragraph != last.paragraph
            or unit.order != last.order + 1
            or unit.end - prose[0].start > OPENING_CHARS
        ):
            break
        last = unit
    return [Part(source.text[prose[0].start : last.end]), Part(" "), Part.marker(source.n)]


# --- What kind of answer the question asks for, beyond answer_type's facts -----------------------

# What is being defined: "what is (the) X", "what does (the) X (function) do", "define X".
_DEFINED = (
    re.compile(r"^\W*what(?:'s|’s|s|\s+is|\s+are|\s+was|\s+were)\s+(?:a\s+|an\s+|the\s+)?(?P<x>[^?]+)", re.I),
    re.compile(r"\bwhat\s+does\s+(?:a\s+|an\s+|the\s+)?(?P<x>.+?)\s+(?:do|mean|stand\s+for|return|compute)\b", re.I),
    re.compile(r"\b(?:define|meaning\s+of|definition\s+of)\s+(?:a\s+|an\s+|the\s+)?(?P<x>[^?]+)", re.I),
)
_REASON = re.compile(
    r"^\W*(and\s+)?why\b|\bfor what reason\b|\bhow come\b|\bwhat (is|was|'s) the (reason|purpose|point|"
    r"motivation|rationale)\b",
    re.IGNORECASE,
)
# "which hash function does …": the thing a name is asked for ends at the question's verb.
_NAMED_THING = re.compile(
    r"^\W*(?:which|what)\s+(?P<x>(?:(?!(?:is|are|was|were|does|do|did|can|could|should|would|will|has|have|had|"
    r"happens|happened|of)\b)[\w-]+\s+){1,3}?)(?:is|are|was|were|does|do|did|can|could|should|would|will|has|have|had)\b",
    re.IGNORECASE,
)
_BECAUSE = re.compile(
    r"\b(because|since|so that|in order to|to (avoid|prevent|ensure|allow|reduce|guarantee|make|keep)|due to|"
    r"the reason|reasons?|therefore|thus|hence|as a result|this (allows|ensures|means|prevents|avoids))\b",
    re.IGNORECASE,
)
# A name: an acronym, or a word mixing letters and digits or cases ("MD5", "SSTable", "gRPC").
_NAMED = re.compile(r"\b([A-Z]{2,}[A-Za-z]*\d*|[A-Za-z]+\d+[A-Za-z\d]*|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)\b")
# A figure answers "what X" as a name does: "a 10-to-1 reduction", "64KB", "45s", "29%".
_FIGURE = re.compile(r"\d[\d.,]*(?:-to-\d+|[A-Za-z%]*)")
# What a definition says its subject does, within its first words.
_DEFINING = re.compile(
    r"\b(is|are|was|were|means|refers|represents|calculates|computes|returns|gives|provides|produces|"
    r"converts|counts|measures|stores|holds|contains|describes|defines|selects|allows|lets|consists|acts)\b",
    re.IGNORECASE,
)
_GENERIC = frozenset(
    {"function", "command", "option", "flag", "setting", "term", "word", "operator", "method", "field",
     "parameter", "thing", "purpose", "role", "point", "idea", "main", "difference"}
)  # fmt: skip
_LEADING_WORDS = 4  # a definition names its subject within this many words …
_DEFINING_WORDS = 10  # … and says what it is or does within this many
_NEAR_NAME = 3  # a name answers "which X" within this many words of X


class Form:
    DEFINITION = "definition"
    REASON = "reason"
    NAME = "name"


@dataclass(frozen=True)
class Asked:
    """The kind of answer a question asks for that answer_type does not cover, and its subject."""

    form: str
    subject: frozenset[str]  # stems: what is defined, or the thing a name is asked for


def asked_form(question: str, wanted: AnswerType | None) -> Asked | None:
    """A reason ("why …"), a definition ("what is …", "what does … do"), or a name ("which hash
    function …"), when answer_type has no kind of fact for the question."""
    if wanted is not None:
        return None
    if _REASON.search(question):
        return Asked(Form.REASON, frozenset())
    for pattern in _DEFINED:
        match = pattern.search(question)
        if match:
            subject = [w for w in words(match.group("x")) if w not in _GENERIC][:2]
            if subject:
                return Asked(Form.DEFINITION, frozenset(stem(w) for w in subject))
    match = _NAMED_THING.search(question)
    if match:
        thing = [w for w in words(match.group("x")) if w not in _GENERIC] or words(match.group("x"))
        if thing:
            return Asked(Form.NAME, frozenset(stem(w) for w in thing))
    return None


def _stems(tokens: list[str]) -> list[str]:
    return [stem(m.casefold()) for t in tokens for m in re.findall(r"[^\W_]+", t)]


def states_form(sentence: str, asked: Asked, question_words: set[str]) -> bool:
    """Whether `sentence` gives the kind of answer asked for: a reason says why; a definition names
    its subject among its first words and says what it is or does; a name the question does not
    hold stands next to the thing it names ("a MD5 hash")."""
    if asked.form == Form.REASON:
        return bool(_BECAUSE.search(sentence))
    tokens = sentence.split()
    if asked.form == Form.DEFINITION:
        leading = _stems(tokens[:_LEADING_WORDS])
        said = " ".join(tokens[:_DEFINING_WORDS])
        return any(_holds(s, set(leading)) for s in asked.subject) and bool(_DEFINING.search(said))
    stems = [{stem(w.casefold()) for w in re.findall(r"[^\W_]+", t)} for t in tokens]
    for i, token in enumerate(tokens):
        name = _NAMED.search(token) or _FIGURE.search(token)
        if name is None or name.group(0).casefold() in question_words:
            continue
        near = set().union(*stems[max(0, i - _NEAR_NAME) : i + _NEAR_NAME + 1])
        if any(_holds(s, near) for s in asked.subject):
            return True
    return False


@dataclass(frozen=True)
class Evidence:
    """What a question lets the writer look for in a sentence, worked out once per answer."""

    weights: dict[str, float]
    wanted: AnswerType | None
    asked: Asked | None
    question_words: set[str]  # the question's words, case-folded
    ordinary: frozenset[str]  # words the sources write in lower case: no name is made of them
    question: str
    said: dict[str, tuple[bool, bool]] = field(default_factory=dict, compare=False, repr=False)  # by `says`

    @classmethod
    def of(cls, question: str, sources: list[Source]) -> Evidence:
        wanted = expected_type(question)
        return cls(
            weights=word_weights(question),
            wanted=wanted,
            asked=asked_form(question, wanted),
            question_words={m.casefold() for m in re.findall(r"[^\W_]+", question)},
            ordinary=frozenset().union(*(ordinary_words(s.text) for s in sources)),
            question=question,
        )

    def says(self, text: str) -> tuple[bool, bool]:
        """Whether `text` states the kind of fact answer_type says the question asks for, and
        whether it gives the name, definition or reason asked for; worked out once a sentence."""
        said = self.said.get(text)
        if said is None:
            fact = self.wanted is not None and holds_fact(text, self.wanted, self.ordinary, self.question)
            form = self.asked is not None and states_form(text, self.asked, self.question_words)
            said = self.said[text] = (fact, form)
        return said

    def states(self, text: str) -> bool:
        """Whether `text` states what the question asks for: its kind of fact, or its form."""
        return any(self.says(text))

    def score(self, text: str, heading: str) -> float:
        """Everything but the encoder's similarity."""
        score = LEXICAL_WEIGHT * overlap(self.weights, text)
        fact, form = self.says(text)
        if fact:
            score += FACT_BONUS
        if form:
            score += FORM_BONUS
        if heading:
            score += HEADING_WEIGHT * overlap(self.weights, heading)
        return score


def heading_of(source: Source) -> str:
    """The source's own section heading: the last part of its section path."""
    return source.section.split(">")[-1].strip()


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
            # Nothing shares a word with the question: quote where the nearest passage's prose
            # begins rather than stitch unrelated sentences into something that reads like an answer.
            with_prose = [s for s in sources if any(c.n == s.n for c in pool)]
            return opening(nearest(with_prose)) if with_prose else []
        evidence = Evidence.of(question, sources)
        ranked = self.rank(question, pool, sources, evidence)
        stating = {c for _score, c in ranked if evidence.states(c.text)}
        return self.compose(self.choose(ranked, asked, stating))

    def rank(
        self, question: str, pool: list[Candidate], sources: list[Source], evidence: Evidence | None = None
    ) -> list[tuple[float, Candidate]]:
        """Candidates best first. The cheap evidence (words, kind of fact, heading) picks the
        `MAX_EMBEDDED` sentences the encoder reads; a sentence two sources share (overlapping
        chunks, copies of a file) is embedded once."""
        evidence = evidence or Evidence.of(question, sources)
        headings = {s.n: heading_of(s) for s in sources}
        cheap = {c: evidence.score(c.text, headings[c.n]) for c in pool}
        likely = list(dict.fromkeys(c.text for c in sorted(pool, key=lambda c: (-cheap[c], c.n, c.order))))
        read = set(likely[:MAX_EMBEDDED])
        texts = [t for t in dict.fromkeys(c.text for c in pool) if t in read]  # in the sources' order
        rows = dict(zip(texts, self.embed(texts), strict=True))
        query = self.embed_question(question)
        scored = [(float(query @ rows[c.text]) + cheap[c], c) for c in pool if c.text in read]
        scored.sort(key=lambda item: (-item[0], item[1].n, item[1].order))
        return scored

    def passage_order(self, question: str, sources: list[Source]) -> list[Source]:
        """`sources` in the order of their best sentence (a source without prose last): the order
        a language-model writer reads them in."""
        pool = candidates([s for s in sources if s.text.strip()])
        best: dict[int, float] = {}
        for score, candidate in self.rank(question, pool, sources) if pool else []:
            best.setdefault(candidate.n, score)
        return sorted(sources, key=lambda s: (s.n not in best, -best.get(s.n, 0.0), s.n))

    def choose(
        self,
        ranked: list[tuple[float, Candidate]],
        asked: set[str] | None = None,
        stating: set[Candidate] | frozenset[Candidate] = frozenset(),
    ) -> list[Candidate]:
        """The best sentence, the one after it in its paragraph (it often holds the figure the best
        one leads up to), then further sentences scoring close to the best that hold a word of the
        question or state what it asks for (`stating`: a figure often shares no word with the
        question), at most MAX_PER_SOURCE a source, within the length budget; then `fill_in`."""
        best = ranked[0][0]
        by_place = {(c.n, c.order): (score, c) for score, c in ranked}
        top = ranked[0][1]
        follower = by_place.get((top.n, top.order + 1))
        order = [ranked[0]]
        if follower is not None and follower[1].paragraph == top.paragraph and follower[0] >= best - FOLLOW_WITHIN:
            order.append(follower)
        order.extend(
            item
            for item in ranked[1:]
            if item[0] >= best - KEEP_WITHIN
            and (asked is None or asked & content_words(item[1].text) or item[1] in stating)
        )
        chosen: list[Candidate] = []
        seen: set[str] = set()
        used = 0
        for _score, candidate in order:
            key = _key(candidate.text)
            if key in seen or (chosen and used + len(candidate.text) > MAX_CHARS):
                continue  # overlapping chunks may repeat a sentence
            if sum(c.n == candidate.n for c in chosen) >= MAX_PER_SOURCE:
                continue
            chosen.append(candidate)
            seen.add(key)
            used += len(candidate.text)
            if len(chosen) == MAX_SENTENCES:
                break
        return self.fill_in(chosen, ranked, stating)

    @staticmethod
    def fill_in(
        chosen: list[Candidate], ranked: list[tuple[float, Candidate]], stating: set[Candidate] | frozenset[Candidate]
    ) -> list[Candidate]:
        """`chosen` and, within the length budget, the neighbours a chosen sentence needs: one
        sentence next to a chosen one in its paragraph that states the kind of fact asked for (the
        figure a sentence leads up to: "… does surprisingly well." then "The scheme achieved a
        10-to-1 reduction in space."), and a single sentence left out between two chosen ones of
        one paragraph, so the quote reads on instead of skipping it behind an ellipsis."""
        by_place = {(c.n, c.order): c for _score, c in ranked}
        placed = {(c.n, c.order) for c in chosen}
        seen = {_key(c.text) for c in chosen}
        used = sum(len(c.text) for c in chosen)
        filled = list(chosen)

        def fits(neighbour: Candidate | None, paragraph: int) -> bool:
            return (
                neighbour is not None
                and neighbour.paragraph == paragraph
                and (neighbour.n, neighbour.order) not in placed
                and used + len(neighbour.text) <= MAX_CHARS
            )

        def take(neighbour: Candidate) -> None:
            nonlocal used
            filled.append(neighbour)
            placed.add((neighbour.n, neighbour.order))
            seen.add(_key(neighbour.text))
            used += len(neighbour.text)

        fact_added = False
        for candidate in chosen:
            for step in (1, -1):
                neighbour = by_place.get((candidate.n, candidate.order + step))
                if fact_added or not fits(neighbour, candidate.paragraph) or neighbour not in stating:
                    continue
                if neighbour is not None and _key(neighbour.text) not in seen:
                    take(neighbour)
                    fact_added = True
            gap = by_place.get((candidate.n, candidate.order + 1))
            if (candidate.n, candidate.order + 2) in placed and fits(gap, candidate.paragraph) and gap is not None:
                take(gap)
        return filled

    @staticmethod
    def compose(chosen: list[Candidate]) -> list[Part]:
        """Per source (in the order of its best sentence), its sentences in the source's order,
        an ellipsis between ones that are not next to each other in one paragraph, then its marker."""
        parts: list[Part] = []
        for n in dict.fromkeys(c.n for c in chosen):
            group = sorted((c for c in chosen if c.n == n), key=lambda c: c.order)
            if parts:
                parts.append(Part(" "))
            for i, candidate in enumerate(group):
                if i:
                    before = group[i - 1]
                    adjacent = candidate.order == before.order + 1 and candidate.paragraph == before.paragraph
                    parts.append(Part(" " if adjacent else ELLIPSIS))
                parts.append(Part(candidate.text))
            parts.extend([Part(" "), Part.marker(n)])
        return parts


def _key(text: str) -> str:
    """A sentence as overlapping chunks may repeat it: whitespace and case aside."""
    return " ".join(text.split()).casefold()


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
