"""A cited answer as it is written: the sources first, then the parts, then the whole answer.

Retrieval and the gate run when `answer_stream` is called, so their errors (a folder the caller
may not read) are raised before anything is sent. The returned iterator then yields:

1. `Sources`: the numbered citations (none when the gate refused);
2. `Piece`s: the answer's parts as the writer produces them. A language-model writer that can
   stream (`stream` on the writer, citations/writers/openai_compat.py) has its text forwarded as
   the tokens arrive, its markers released once they close and only when they name a source
   (citations/marker_stream.py); a reply that may still be a refusal is held back until it
   cannot be. Any other writer (the extractive one) gives its parts at once;
3. `Done`: the finished answer, exactly as the non-streamed path builds it (the same
   validation, refusals, caveats and fallback), kept in the question log.

A writer that fails before any part was sent falls back to the extractive writer, as the
non-streamed answer does. One that fails after parts were sent ends the stream with `Failed`
instead: the parts sent cannot be taken back, and the question log keeps no row for a broken
answer (its states are answered, caveat and refused; a half-written answer is none of them).

Closing the iterator (the reader went away) closes the writer's request to the model.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext

from citations.marker_stream import MarkerStream
from citations.markers import Part
from citations.services import question_log
from citations.services.answer import Answer, Citation, decline, fall_back, finish, retrieve_answer, write_answer
from citations.writers import Source, WriterDeclined, WriterError, get_writer

if TYPE_CHECKING:
    from citations.services.question_log import Asker
    from citations.writers.openai_compat import OpenAICompatibleWriter
    from documents.filters import Filters
    from documents.selectors import AnyUser

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sources:
    citations: list[Citation]


@dataclass(frozen=True)
class Piece:
    part: Part  # text to append to what was sent, or a marker


@dataclass(frozen=True)
class Done:
    answer: Answer


@dataclass(frozen=True)
class Failed:
    message: str


Event = Sources | Piece | Done | Failed


def answer_stream(*, user: AnyUser, question: str, asker: Asker, filters: Filters | None = None) -> Iterator[Event]:
    """Retrieve now; the events of writing the answer when iterated (see the module's text)."""
    started = time.perf_counter()
    answer, sources = retrieve_answer(user=user, question=question, filters=filters)
    return _events(answer, sources, asker, started)


def _events(answer: Answer, sources: list[Source], asker: Asker, started: float) -> Iterator[Event]:
    yield Sources(list(answer.citations))
    if sources:
        try:
            yield from _write(answer, sources)
        except WriterError as exc:
            logger.warning("streamed answer broke off after parts were sent: %s", exc)
            yield Failed(
                gettext("The language model stopped midway (%(error)s); the answer was not kept. Ask again.")
                % {"error": exc}
            )
            return
    answer.id = question_log.log_answer(asker, answer, (time.perf_counter() - started) * 1000)
    yield Done(answer)


def _write(answer: Answer, sources: list[Source]) -> Iterator[Piece]:
    """The writer's parts as they come; leaves `answer` finished as `write_answer` would."""
    from citations.writers.openai_compat import OpenAICompatibleWriter

    try:
        writer = get_writer()
    except WriterError:
        writer = None  # write_answer meets the same error and falls back, as the JSON answer does
    if not isinstance(writer, OpenAICompatibleWriter):  # the extractive writer: its parts at once
        write_answer(answer, sources)
        if not answer.refused:  # a declined answer sends no parts: `done` carries the refusal
            yield from (Piece(part) for part in answer.parts)
        return
    yield from _streamed(answer, sources, writer)


def _at_once(answer: Answer, parts: list[Part], name: str) -> Iterator[Piece]:
    finish(answer, parts, name)
    yield from (Piece(part) for part in answer.parts)


def _streamed(answer: Answer, sources: list[Source], writer: OpenAICompatibleWriter) -> Iterator[Piece]:
    from citations.writers.openai_compat import MAX_REPLY_CHARS, may_decline, quoted_markers

    markers = MarkerStream(
        {s.n for s in sources}, quoted_markers(sources), limit=MAX_REPLY_CHARS, hold=may_decline
    )  # fmt: skip
    tokens = writer.stream(answer.question, sources)
    sent = False
    try:
        for token in tokens:
            for part in markers.feed(token):
                sent = True
                yield Piece(part)
            if markers.full:
                break  # as a whole reply is cut at MAX_REPLY_CHARS: the rest is not needed
        if not markers.text.strip():  # as ragsite.llm.reply_text says of a whole reply
            raise WriterError("the language model endpoint sent an empty answer")
        parts = writer.reply_parts(markers.text, sources)
    except WriterDeclined as exc:
        decline(answer, exc)
        return
    except WriterError as exc:
        if sent:
            raise
        parts, name = fall_back(answer, sources, exc)
        yield from _at_once(answer, parts, name)
        return
    finally:
        tokens.close()  # the reader left, or the reply is long enough: the model stops writing
    finish(answer, parts, writer.name)
    yield from (Piece(part) for part in markers.finish(answer.parts))
