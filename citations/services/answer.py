"""Cited answers: retrieve, gate, number the top sources, let a writer answer, validate markers.

The writer sees only the question and the numbered source texts. Everything a citation shows
(document, folder, section, pages, locators, quote) is the search hit itself, as the search's
one hydration query fetched it (search/services/hydration.py). When the gate refuses, no writer
is called.

The answer has the gate's state (search/services/gate.py): `refused` (no writer runs), `caveat`
(the answer is written and shown under the gate's message) or `answered`. A language-model writer
that replies that the sources do not hold the answer turns the answer into `refused` too.

If the configured writer fails (the language model endpoint is down, slow or malformed), the
answer falls back to the extractive writer: `writer` then says "extractive" and `notice`
explains why, so a reader is never left without the sources' own words.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils.translation import gettext

from citations.markers import Part, answer_text, validate
from citations.writers import Source, WriterDeclined, WriterError, get_writer
from search.services.gate import NOTHING_TO_SEARCH_MESSAGE, AnswerState, Reason, writer_declined_message
from search.services.retrieval import search_chunks

if TYPE_CHECKING:
    from documents.filters import Filters
    from documents.selectors import AnyUser
    from search.services.dense import DenseLeg
    from search.services.hydration import SearchHit
    from search.services.retrieval import SearchResult

logger = logging.getLogger(__name__)
PASSAGES_SHOWN = 10


@dataclass
class Citation:
    """A source of the answer: the search hit the writer saw as [n]."""

    n: int
    hit: SearchHit
    cited: bool = False  # the answer's text cites [n]


@dataclass
class Answer:
    question: str
    threshold: float
    best_distance: float | None
    state: str = AnswerState.REFUSED.value  # answered | caveat | refused
    reasons: list[str] = field(default_factory=list)
    message: str = ""  # the gate's refusal or caveat, as a person reads it
    unknown_names: list[str] = field(default_factory=list)
    missing_terms: list[str] = field(default_factory=list)
    unseen_terms: list[str] = field(default_factory=list)
    answer_type: str | None = None  # the kind of fact asked for (search/services/answer_type.py)
    unmet_answer_type: str | None = None  # that kind, when none of the sources states it: a caveat
    text: str = ""  # the parts joined, a source's own "[22]" written "⟦22⟧" (citations.markers)
    parts: list[Part] = field(default_factory=list)  # verbatim text and markers: what the page renders
    writer: str | None = None
    uncited: bool = False
    removed_markers: list[int] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)  # the first ANSWER_TOP_SOURCES passages
    passages: list[SearchHit] = field(default_factory=list)  # as search ranked them
    notice: str = ""
    reranker: str | None = None  # the reader that reordered the passages, if one ran
    timings_ms: dict[str, float] = field(default_factory=dict)
    id: int | None = None  # the question log's row (citations/models.py), once kept: feedback names it
    filter_matches: int | None = None  # with filters: readable documents passing them
    dense_leg: DenseLeg | None = None  # the search's dense ranking: the page's grouped list reuses it
    suggestion: str | None = None  # the question respelt with library words (search/services/query_help.py)
    language: str | None = None  # the question's language, when the index does not read it

    @property
    def refused(self) -> bool:
        return self.state == AnswerState.REFUSED


def refusal_text(message: str) -> str:
    return gettext("No answer: %(sentence)s") % {"sentence": message}


def answer_question(*, user: AnyUser, question: str, filters: Filters | None = None) -> Answer:
    """Answer `question` from what `user` may read, narrowed by `filters` (a folder: it and its
    subfolders): the gate and the writer see only the filtered passages."""
    answer, sources = retrieve_answer(user=user, question=question, filters=filters)
    if sources:
        write_answer(answer, sources)
    return answer


def source_count() -> int:
    """How many of the ranked passages the writer sees, numbered [1]…[n]."""
    return settings.ANSWER_TOP_SOURCES


def passage_count() -> int:
    """How many passages an answer's search ranks (its `k`): the sources and the ranked list the
    page shows. The streamed page (citations/views.py) searches with the same `k`."""
    return max(source_count(), PASSAGES_SHOWN)


def retrieve_answer(*, user: AnyUser, question: str, filters: Filters | None = None) -> tuple[Answer, list[Source]]:
    """Retrieval and the gate: the answer before a writer runs, and the numbered sources it is
    to be written from (none when the gate refused: that answer is complete). The streamed
    answer (citations/services/answer_stream.py) shares this step and the finishing ones below."""
    result = search_chunks(user=user, query=question, k=passage_count(), filters=filters)
    return answer_from_search(result)


def answer_from_search(result: SearchResult) -> tuple[Answer, list[Source]]:
    """The answer a search result leads to before a writer runs, and its numbered sources (none
    when the gate refused). The evaluation (evaluation/answers.py) writes its answers from here."""
    answer = _answer_from(result)
    answer.filter_matches, answer.dense_leg = result.filter_matches, result.dense_leg
    if result.refused or not result.hits:
        _refuse(answer, answer.message or gettext(NOTHING_TO_SEARCH_MESSAGE))
        return answer, []
    answer.passages = result.hits
    answer.citations = [Citation(n, hit) for n, hit in enumerate(result.hits[: source_count()], start=1)]
    return answer, [Source(c.n, c.hit.content, c.hit.distance, c.hit.section) for c in answer.citations]


def _answer_from(result: SearchResult) -> Answer:
    return Answer(
        question=result.query,
        threshold=result.threshold,
        best_distance=result.best_distance,
        state=result.state,
        reasons=list(result.reasons),
        message=result.message,
        unknown_names=list(result.unknown_names),
        missing_terms=list(result.missing_terms),
        unseen_terms=list(result.unseen_terms),
        answer_type=result.answer_type,
        unmet_answer_type=result.unmet_answer_type,
        notice=result.notice,
        reranker=result.reranker,
        timings_ms=dict(result.timings_ms),
        suggestion=result.suggestion,
        language=result.language,
    )


def _refuse(answer: Answer, message: str, reason: Reason | None = None) -> None:
    answer.state, answer.message = AnswerState.REFUSED.value, message
    if reason is not None:
        answer.reasons.append(reason.value)
    # The refusal may quote the question: a "[3]" typed in it is escaped like any source's own.
    answer.parts = [Part(refusal_text(message))]
    answer.text = answer_text(answer.parts)
    answer.citations, answer.passages, answer.writer = [], [], None


def write_answer(answer: Answer, sources: list[Source]) -> None:
    """Run the configured writer (falling back to the extractive one) and validate its markers."""
    try:
        writer = get_writer()
        parts = writer.write(answer.question, sources)
        name = writer.name
    except WriterDeclined as exc:
        decline(answer, exc)
        return
    except WriterError as exc:
        parts, name = fall_back(answer, sources, exc)
    finish(answer, parts, name)


def decline(answer: Answer, exc: WriterDeclined) -> None:
    """The writer says the sources do not hold the answer: the answer is refused."""
    _refuse(answer, writer_declined_message(str(exc)), Reason.WRITER_DECLINED)


def fall_back(answer: Answer, sources: list[Source], exc: WriterError) -> tuple[list[Part], str]:
    """The configured writer failed: the extractive writer's parts and name, and a notice why."""
    logger.warning("answer writer failed, falling back to extractive: %s", exc)
    answer.notice = " ".join(
        filter(
            None,
            [
                answer.notice,
                gettext("The language model could not answer (%(error)s); these are the sources' own sentences.")
                % {"error": exc},
            ],
        )
    )
    writer = get_writer("extractive")
    return writer.write(answer.question, sources), writer.name


def finish(answer: Answer, parts: list[Part], writer_name: str) -> None:
    """Keep the written parts whose markers name a source, and mark the sources they cite."""
    checked = validate(parts, {c.n for c in answer.citations if c.n is not None})
    answer.writer = writer_name
    answer.parts = checked.parts
    answer.text = checked.text
    answer.uncited = checked.uncited
    answer.removed_markers = checked.removed
    for citation in answer.citations:
        citation.cited = citation.n in checked.cited
