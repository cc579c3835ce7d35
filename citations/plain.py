"""Plain words for the search page: a refusal in a sentence, and a match strength instead of a
cosine distance. The API keeps the numbers (`message`, `distance`, `best_distance`, `threshold`);
the page shows these words and puts the numbers in its "Details" disclosure (templates/search.html).
"""

from __future__ import annotations

import re
from typing import Protocol

from django.utils.html import escape
from django.utils.translation import gettext, gettext_noop

from search.services.answer_type import PHRASES, AnswerType
from search.services.gate import Reason

# Cut points on the cosine distance between the question and a passage (lower is nearer). On the
# dev questions the nearest passage of an answerable question lies between 0.23 and 0.71, median
# 0.45 (docs/EVALUATION.md, "The gate and ANSWER_MAX_DISTANCE"): below 0.40 is the nearer half of
# those, up to 0.55 the usual range of a passage that answers, beyond it a passage that shares
# the topic more than the answer.
STRONG_BELOW = 0.40
GOOD_BELOW = 0.55

NO_CLOSE_PASSAGE = gettext_noop(  # said in the reader's language
    "The library holds no passage close enough to this question to answer it. "
    "Try other words or another folder, or ask someone to add a document that covers it."
)


class Refused(Protocol):
    reasons: list[str]
    message: str


def match_strength(distance: float | None) -> str:
    """ "strong", "good" or "weak"; "keyword" for a passage found by its words alone (no distance)."""
    if distance is None:
        return "keyword"
    if distance < STRONG_BELOW:
        return "strong"
    if distance < GOOD_BELOW:
        return "good"
    return "weak"


def refusal_sentence(answer: Refused) -> str:
    """The refusal as the page says it: the gate's own message, except for the two reasons whose
    message is a score against a threshold, which become one sentence without numbers."""
    first = answer.reasons[0] if answer.reasons else ""
    if first in (Reason.TOO_FAR, Reason.RERANK_LOW):
        return gettext(NO_CLOSE_PASSAGE)
    return answer.message or gettext(NO_CLOSE_PASSAGE)


def reason_label(code: str) -> str:
    """A gate reason as a reader reads it, in the active language; a code the gate no longer
    gives (an old question log's) stays the code."""
    return str(Reason(code).label) if code in Reason.values else code


def fact_kind(code: str) -> str:
    """The kind of fact a question asks for ("year"), as the caveat names it ("a year or date")."""
    try:
        return str(PHRASES[AnswerType(code)])
    except ValueError:
        return code


# A source's own reference numbers as papers print them: "[12]", "[3, 4]", "[1–5]", "[7; 9]".
# Our markers are links built from the answer's parts, never from quoted text, so any bracketed
# number inside a quote or a part's text is the source's own.
SOURCE_REFERENCE = re.compile(r"\[\d{1,4}(?:\s*[,;–-]\s*\d{1,4})*\]")
_SOURCE_REFERENCE_HTML = '<span class="source-ref" title="{}">{}</span>'


def mark_source_references(text: str) -> str:
    """HTML of `text`, escaped, with the source's own bracket numbers set apart from our markers."""
    pieces: list[str] = []
    last = 0
    for found in SOURCE_REFERENCE.finditer(text):
        pieces.append(escape(text[last : found.start()]))
        pieces.append(
            _SOURCE_REFERENCE_HTML.format(escape(gettext("A reference of the source itself")), escape(found.group()))
        )
        last = found.end()
    pieces.append(escape(text[last:]))
    return "".join(pieces)
