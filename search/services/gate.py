"""The answer gate: one decision, three states, and the message a person reads.

`decide(GateInputs)` is the only place that says whether a question is answered. Retrieval calls
it, the API and the page show its state and message, and the evaluation sweep calls it with other
thresholds. Its rules, in order:

**refused** (no answer is written, no passage is shown):
- nothing to search: no readable folder, no indexed passage, a blank question;
- the nearest passage is farther than the distance threshold (`ANSWER_MAX_DISTANCE`); or, for a
  question in a language the embedding model does not read (`EMBEDDING_LANGUAGES`), whose
  distances say little, none of the top passages holds a word of the question (`words_shared`);
- the question names something no readable document mentions (`unknown_names`: capitalised or
  mixed-case names, letter+digit identifiers, words in no everyday vocabulary however they are
  typed, "etcd", "dynamodb": terms.names_something; configuration keys and flags, "tls_config",
  "--query.timeout", and capitalised names of several words, "Bitcoin Core", that no readable
  document holds as a phrase; `ANSWER_REFUSE_UNKNOWN_NAMES`);
- a reader (reranker) is configured and no passage scores at least `RERANK_MIN_SCORE`;
- (at the answer stage) the language-model writer replies that the sources do not hold the answer.

**caveat** (the answer and its sources are shown, with a plain warning above them): the question
holds jargon, a year or a version that no readable document contains (`missing_terms`, see
terms.py), or a year, a version, a configuration key or flag that the library holds but none of
the top passages does, or a capitalised name of several words that none of their documents holds
(`unseen_terms`: "how many jobs ran in 2008" answered from a passage about 2004, "what came in
prometheus 3.1" from passages on 3.0, a `tls_config` question from passages without it), or it
asks for a kind of fact — a year, an amount of money, a number, a percentage, a version, a person,
a place — that none of the top passages states where it mentions the question's subject
(`unmet_answer_type`, see answer_type.py: "What year was Satoshi Nakamoto born?" answered from
"4.2MB per year").

**other language**: a question surely in a language none of the readable documents is in
(`language`, search/services/question_reading.py) is told so in one sentence naming the languages
the library holds, first: refused, that sentence is its message instead of "check the spelling";
otherwise it is a caveat.

**answered**: none of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import models
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext

from search.services.answer_type import unmet_message
from search.services.query_help import language_sentence
from search.services.terms import quoted_list

# The messages are said in the active language (the reader's, on a page); the reasons stay codes.
NOTHING_TO_SEARCH_MESSAGE = gettext_noop("Nothing to search: no indexed passage in the folders you may read.")


class AnswerState(models.TextChoices):
    ANSWERED = "answered", gettext_lazy("Answered")
    CAVEAT = "caveat", gettext_lazy("Answered with a caveat")
    REFUSED = "refused", gettext_lazy("Refused")


class Reason(models.TextChoices):
    NOTHING_TO_SEARCH = "nothing_to_search", gettext_lazy("No indexed passage in the folders you may read")
    TOO_FAR = "too_far", gettext_lazy("No passage is close enough")
    UNKNOWN_NAMES = "unknown_names", gettext_lazy("The question names something no readable document mentions")
    RERANK_LOW = "rerank_low", gettext_lazy("The reader found no passage that answers the question")
    WRITER_DECLINED = "writer_declined", gettext_lazy("The language model found no answer in the sources")
    MISSING_TERMS = "missing_terms", gettext_lazy("Words of the question occur in no readable document")
    UNSEEN_TERMS = (
        "unseen_terms",
        gettext_lazy("A year, version or identifier of the question occurs in none of the top passages"),
    )
    UNMET_ANSWER_TYPE = (
        "unmet_answer_type",
        gettext_lazy("None of the top passages states the kind of fact the question asks for"),
    )
    OTHER_LANGUAGE = "other_language", gettext_lazy("The question is in a language the library holds no document in")


@dataclass(frozen=True)
class GateInputs:
    best_distance: float | None  # nearest current-model passage in the readable folders
    threshold: float
    unknown_names: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    unseen_terms: tuple[str, ...] = ()  # years, versions, identifiers the library holds, but no top passage
    rerank_score: float | None = None  # best reader score among the candidates, when a reader ran
    rerank_min_score: float | None = None
    unmet_answer_type: str | None = None  # the kind of fact asked for that no top passage states
    answer_type_words: tuple[str, ...] = ()  # the question's words such a fact had to stand beside
    language: str | None = None  # the question's language, when the library holds no document in it
    languages_held: tuple[str, ...] = ("en",)  # the readable library's languages, main first
    # The question's words the top passages hold; counted only when the encoder does not read the
    # question's language (None otherwise), where it stands in for the distance.
    words_shared: int | None = None


@dataclass
class GateDecision:
    state: AnswerState
    reasons: list[Reason] = field(default_factory=list)
    message: str = ""  # what a person reads: why refused, or the caveat; empty when answered

    @property
    def refused(self) -> bool:
        return self.state == AnswerState.REFUSED


def decide(inputs: GateInputs) -> GateDecision:
    """The gate's one rule (module docstring). Refusal reasons are listed before caveats."""
    refusals = _refusal_reasons(inputs)
    if refusals and inputs.language:
        return GateDecision(AnswerState.REFUSED, [Reason.OTHER_LANGUAGE, *refusals], _language_sentence(inputs))
    if refusals:
        return GateDecision(AnswerState.REFUSED, refusals, refusal_message(refusals[0], inputs))
    caveats = [
        r
        for r, present in (
            (Reason.OTHER_LANGUAGE, inputs.language),
            (Reason.MISSING_TERMS, inputs.missing_terms),
            (Reason.UNSEEN_TERMS, inputs.unseen_terms),
            (Reason.UNMET_ANSWER_TYPE, inputs.unmet_answer_type),
        )
        if present
    ]
    if caveats:
        message = (
            caveat_message(
                list(inputs.missing_terms),
                list(inputs.unseen_terms),
                inputs.unmet_answer_type,
                inputs.answer_type_words,
            )
            if caveats != [Reason.OTHER_LANGUAGE]
            else gettext("The passages below are the closest the library holds.")
        )
        if inputs.language:
            message = f"{_language_sentence(inputs)} {message}"
        return GateDecision(AnswerState.CAVEAT, caveats, message)
    return GateDecision(AnswerState.ANSWERED)


def _language_sentence(inputs: GateInputs) -> str:
    return language_sentence(inputs.language or "", inputs.languages_held)


def _refusal_reasons(inputs: GateInputs) -> list[Reason]:
    reasons: list[Reason] = []
    if inputs.best_distance is None:
        reasons.append(Reason.NOTHING_TO_SEARCH)
    elif inputs.best_distance > inputs.threshold or inputs.words_shared == 0:
        reasons.append(Reason.TOO_FAR)
    if inputs.unknown_names:
        reasons.append(Reason.UNKNOWN_NAMES)
    if (
        inputs.rerank_min_score is not None
        and inputs.rerank_score is not None
        and inputs.rerank_score < inputs.rerank_min_score
    ):
        reasons.append(Reason.RERANK_LOW)
    # A named thing the library never mentions says more than a distance: lead with it.
    reasons.sort(key=lambda r: r != Reason.UNKNOWN_NAMES)
    return reasons


def refusal_message(reason: Reason, inputs: GateInputs) -> str:
    if reason == Reason.UNKNOWN_NAMES:
        names = list(inputs.unknown_names)
        return ngettext(
            "No document you may read mentions %(names)s, so the library cannot answer a question about it. "
            "Check the spelling, or ask someone to add a document that covers it.",
            "No document you may read mentions %(names)s, so the library cannot answer a question about them. "
            "Check the spelling, or ask someone to add a document that covers it.",
            len(names),
        ) % {"names": quoted_list(names)}
    if reason == Reason.NOTHING_TO_SEARCH:
        return gettext(NOTHING_TO_SEARCH_MESSAGE)
    if reason == Reason.RERANK_LOW:
        return gettext(
            "No passage answers the question: the reader's best score is %(score).3f, below the "
            "minimum %(minimum).3f. The library does not hold an answer."
        ) % {"score": inputs.rerank_score, "minimum": inputs.rerank_min_score}
    return gettext(
        "No passage is close enough to the question: the nearest is at cosine distance "
        "%(distance).3f, above the threshold %(threshold).3f. The library does not hold an answer."
    ) % {"distance": inputs.best_distance, "threshold": inputs.threshold}


def writer_declined_message(reply: str) -> str:
    return gettext("The sources do not contain the answer, says the language model that read them: %(reply)s") % {
        "reply": reply.strip()
    }


def caveat_message(
    missing: list[str],
    unseen: list[str] | None = None,
    unmet_answer_type: str | None = None,
    answer_type_words: tuple[str, ...] = (),
) -> str:
    said = []
    if missing:
        said.append(gettext("No document you may read mentions %(terms)s") % {"terms": quoted_list(missing)})
    if unseen:
        none = (
            gettext("none of the closest passages mentions %(terms)s")
            if missing
            else gettext("None of the closest passages mentions %(terms)s")
        )
        said.append(none % {"terms": quoted_list(unseen)})
    if unmet_answer_type:
        unmet = unmet_message(unmet_answer_type, answer_type_words)
        said.append(unmet[0].lower() + unmet[1:] if said else unmet)
    return "; ".join(said) + gettext("; the passages below are the closest the library holds.")
