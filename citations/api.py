"""POST /api/answer: a cited answer from the folders the caller may read; POST
/api/answers/{id}/feedback: the asker's verdict on it.

Authentication is the API's default (set where the routers are mounted).
"""

from __future__ import annotations

import time
from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from ninja import Router

from citations.markers import Part
from citations.models import Endpoint
from citations.schemas import AnswerIn, AnswerOut, FeedbackIn, FeedbackOut
from citations.services import question_log
from citations.services.answer import Answer, Citation, answer_question
from documents.access import access_folder_readable
from documents.filters import Filters
from documents.references import references
from documents.schemas import ErrorOut
from ragsite.caller import request_user
from search.schemas import copy_out, hit_document, hit_folder_ids

router = Router(tags=["answers"])
feedback_router = Router(tags=["answers"])  # not rate-limited as answers are: mounted on its own


EVENT_STREAM_RESPONSE = {
    "description": (
        "The answer as JSON; with `Accept: text/event-stream`, server-sent events: `sources` (once, first: "
        '`{"citations": [...]}`, each as in the JSON answer), `part` (each piece as written: '
        '`{"text": ...}` to append or `{"cite": n}`), then `done` (the whole JSON answer, with `id`) '
        'or `error` (`{"detail": ...}`: the answer broke off and was not kept).'
    ),
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}


@router.post(
    "/answer",
    response={200: AnswerOut, 404: ErrorOut},
    operation_id="answerQuestion",
    summary="Answer a question with citations",
    openapi_extra={"responses": {200: EVENT_STREAM_RESPONSE}},
)
def answer(request: HttpRequest, payload: AnswerIn) -> dict[str, Any] | StreamingHttpResponse:
    """Retrieve, gate, and answer; every `[n]` in `answer` is described by `citations[n-1]`.

    `state` is answered, caveat (shown, with `message` naming the question's words no readable
    document contains) or refused (no answer, `citations` empty, `message` says why).

    Render from `parts` (`{"text": …}` verbatim, `{"cite": n}` for source n), as the search page
    does. In the `answer` string, a source's own bracketed reference numbers are written with
    white square brackets, "⟦22⟧", so an ASCII `[n]` there is always one of the answer's markers.

    **Streaming.** Send `Accept: text/event-stream` to receive the answer as it is written, as
    server-sent events (`event:` name, `data:` one JSON line):

    - `sources`: first, once: `{"citations": [...]}`, each citation exactly as in the JSON answer
      (empty when the answer is refused);
    - `part`: each piece as it is written, in order: `{"text": "..."}` (append it) or
      `{"cite": n}` (a marker of `citations[n-1]`). A language model's markers are sent once
      their bracket closes, and only when they name a source;
    - `done`: last: the whole answer exactly as the JSON response (`state`, complete `parts`,
      `id` for feedback). Render the final answer from its `parts`: they are authoritative (a
      refusal by the model, for one, arrives here with `state` refused);
    - `error`: instead of `done` when the language model broke off midway: `{"detail": "..."}`.
      Nothing of that answer is kept; ask again.

    Closing the connection stops the model. Without that Accept header the answer is JSON.
    """
    user = request_user(request)
    folder = access_folder_readable(user=user, folder_id=payload.folder) if payload.folder is not None else None
    asker = question_log.asker_for(request, Endpoint.API_ANSWER, folder=folder, folder_id=payload.folder)
    from citations import event_stream  # it serialises with the functions below

    if event_stream.wants_events(request):
        from citations.services.answer_stream import answer_stream

        filters = Filters(folder=payload.folder)
        events = answer_stream(user=user, question=payload.question, asker=asker, filters=filters)
        return event_stream.event_response(events, request)
    started = time.perf_counter()
    result = answer_question(user=user, question=payload.question, filters=Filters(folder=payload.folder))
    result.id = question_log.log_answer(asker, result, (time.perf_counter() - started) * 1000)
    return serialise(result, request)


@feedback_router.post(
    "/answers/{answer_id}/feedback",
    response={200: FeedbackOut, 400: ErrorOut, 404: ErrorOut},
    operation_id="sendAnswerFeedback",
    summary="Say whether an answer helped",
)
def feedback(request: HttpRequest, answer_id: int, payload: FeedbackIn) -> dict[str, Any]:
    """The asker's verdict on one of their own answers (the `id` of the answer's response); sent
    again, it replaces the earlier one. Any other caller's answer is 404, like one that does not exist."""
    row = question_log.answer_feedback(
        answer_id=answer_id, user=request_user(request), session_token="", helpful=payload.helpful,
        comment=payload.comment,
    )  # fmt: skip
    return {"id": row.pk, "feedback": row.feedback, "comment": row.feedback_comment}


def serialise(result: Answer, request: HttpRequest) -> dict[str, Any]:
    """The one serialiser of an answer (AnswerOut), its URLs absolute for `request`."""
    refs = references(request)
    refs.prime(hit_folder_ids(c.hit for c in result.citations))  # every folder path in one query
    return {
        "id": result.id,
        "answer": result.text,
        "state": result.state,
        "parts": [serialise_part(p) for p in result.parts],
        "refused": result.refused,
        "reasons": result.reasons,
        "message": result.message,
        "unknown_names": result.unknown_names,
        "missing_terms": result.missing_terms,
        "unseen_terms": result.unseen_terms,
        "answer_type": result.answer_type,
        "unmet_answer_type": result.unmet_answer_type,
        "threshold": result.threshold,
        "best_distance": result.best_distance,
        "writer": result.writer,
        "uncited": result.uncited,
        "removed_markers": result.removed_markers,
        "notice": result.notice,
        "citations": [serialise_citation(c, request) for c in result.citations],
    }


def serialise_part(part: Part) -> dict[str, Any]:
    return {"text": part.text} if part.n is None else {"cite": part.n}


def serialise_citation(citation: Citation, request: HttpRequest) -> dict[str, Any]:
    """The one serialiser of a source (CitationOut), its URLs absolute for `request`."""
    hit, refs = citation.hit, references(request)
    document = hit_document(hit, refs)
    return {
        "n": citation.n,
        "cited": citation.cited,
        "document": document,
        "document_id": hit.document_id,
        "document_title": hit.document_title,
        "document_authors": hit.document_authors,
        "document_published": hit.document_published,
        "folder": document["folder"],
        "section": hit.section,
        "page_start": hit.page_start,
        "page_end": hit.page_end,
        "char_start": hit.char_start,
        "char_end": hit.char_end,
        "quote": hit.content,
        "distance": hit.distance,
        "url": refs.url(hit.url),
        "page_url": refs.url(hit.page_url) if hit.page_url is not None else None,
        "file_url": refs.url(hit.file_url),
        "also_in": [copy_out(copy, refs) for copy in hit.also_in],
    }
