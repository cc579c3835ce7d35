"""Whether the search page leads with the result list: a keyword search, or one naming a title or
a section heading, is looking for documents more than for an answer.

The page then puts the documents first, under one short line saying whether the library holds a
passage that answers the words (`status_line`); a question keeps its answer first. Either way a
refusal is never a banner over matching documents: with a result list, it is that line."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.utils.translation import gettext

from search.services.gate import Reason

# Words that open a question (or a request for one) in English.
QUESTION_OPENERS = frozenset({
    "what", "how", "why", "who", "whom", "whose", "when", "where", "which", "is", "are", "was", "were", "do",
    "does", "did", "can", "could", "should", "would", "will", "has", "have", "had", "may", "might", "must",
    "shall", "explain", "describe", "define", "list", "compare", "tell", "give", "show",
})  # fmt: skip
# A keyword search is this many words or fewer, with no question mark and no question word first.
KEYWORD_MAX_WORDS = 4
# A heading or title is named when the query holds at most this many words and all of them stand
# together in it ("hinted handoff" in "4.6 Handling Failures: Hinted Handoff").
HEADING_MAX_WORDS = 10
_WORDS = re.compile(r"[^\W_]+")


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORDS.findall(text)]


def question_shaped(query: str) -> bool:
    words = _words(query)
    return query.rstrip().endswith("?") or bool(words and words[0] in QUESTION_OPENERS)


def names_a_heading(query: str, headings: Iterable[str]) -> bool:
    """Whether the query's words stand together, in order, in one of `headings`."""
    words = _words(query)
    if not words or len(words) > HEADING_MAX_WORDS:
        return False
    wanted = " " + " ".join(words) + " "
    return any(wanted in " " + " ".join(_words(heading)) + " " for heading in headings)


def results_first(query: str, headings: Iterable[str]) -> bool:
    """A few words without a question's shape, or the words of a title or a section heading."""
    short = len(_words(query)) <= KEYWORD_MAX_WORDS
    return (short and not question_shaped(query)) or names_a_heading(query, headings)


# Refusals whose message is a score against a threshold: said as the short line below instead.
_SCORE_REASONS = frozenset({Reason.TOO_FAR, Reason.RERANK_LOW})


def status_line(state: str, reasons: list[str], message: str) -> str:
    """The one line above a result list: whether a passage answers the words, and if not, why in
    plain words (a name no document mentions, another language), never a score."""
    if state != "refused":
        return gettext("The library holds passages that answer this: the answer is below the documents.")
    if not reasons or reasons[0] in _SCORE_REASONS or reasons[0] == Reason.NOTHING_TO_SEARCH:
        return gettext("No passage answers this as a question; these documents hold its words.")
    return gettext("No passage answers this as a question. %(message)s") % {"message": message}
