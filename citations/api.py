"""POST /api/answer: a cited answer from the folders the caller may read; POST
/api/answers/{id}/feedback: the asker's verdict on it.

Authentication is the API's default (set where the routers are mounted).
"""

from __future__ import annotations

import time
from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from ninja import Router

from citations import event_stream
from citations.models import Endpoint
from citations.schemas import AnswerIn, AnswerOut, FeedbackIn, FeedbackOut
from citations.serialisers import serialise
from citations.services import question_log
from citations.services.answer import answer_question
from documents.access import access_folder_readable
from documents.filters import Filters
from documents.schemas import ErrorOut
from ragsite.caller import request_user

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
