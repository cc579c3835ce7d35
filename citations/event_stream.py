"""The streamed answer as server-sent events (text/event-stream), for POST /api/answer and the
search page's POST /answers/stream. Every payload is serialised by the JSON answer's own
functions (citations/serialisers.py) and shapes (citations/schemas.py), so a streamed citation or
answer is the JSON endpoint's, field for field.

    event: sources   data: {"citations": [...]}         once, first (empty when refused)
    event: part      data: {"text": "..."} | {"cite": n} as written; append in order
    event: done      data: the whole answer, as the JSON endpoint returns it (with `id`)
    event: error     data: {"detail": "..."}            instead of `done`: nothing was kept

The search page's stream (`page_event_response`) adds `sources_html` to `sources` and `done`: the
sources block rendered by the template the page's own answer uses (templates/citations/_sources.html),
so a streamed source is drawn exactly as an answered one and static/js/answer_stream.js only puts
it in place. The first leaves out whether each source is cited (not known while writing); the
one in `done` says it. The API's events carry no HTML.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from citations.schemas import AnswerOut, CitationOut
from citations.serialisers import serialise, serialise_citation, serialise_part
from citations.services.answer import Citation
from citations.services.answer_stream import Done, Event, Failed, Piece, Sources
from citations.unavailable import unavailable_message
from documents.references import references
from ragsite.errors import ServiceUnavailable
from search.schemas import hit_folder_ids

logger = logging.getLogger(__name__)
MEDIA_TYPE = "text/event-stream"
BROKEN = gettext_noop("The answer could not be finished; the error has been logged. Ask again.")


def wants_events(request: HttpRequest) -> bool:
    """Whether the caller named text/event-stream in Accept (a bare */* keeps JSON)."""
    accepted = (item.split(";", 1)[0].strip().lower() for item in request.headers.get("Accept", "").split(","))
    return MEDIA_TYPE in accepted


def event_response(events: Iterator[Event], request: HttpRequest) -> StreamingHttpResponse:
    """The events as a response; URLs in them are absolute for `request` (as in the JSON answer)."""
    return _response(events, request, page=False)


def page_event_response(events: Iterator[Event], request: HttpRequest) -> StreamingHttpResponse:
    """The events for the search page: with the sources block as the page renders it (`sources_html`)."""
    return _response(events, request, page=True)


def _response(events: Iterator[Event], request: HttpRequest, *, page: bool) -> StreamingHttpResponse:
    response = StreamingHttpResponse(_encoded(events, request, page), content_type=f"{MEDIA_TYPE}; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy (nginx) passes each event on at once
    return response


def _encoded(events: Iterator[Event], request: HttpRequest, page: bool) -> Iterator[bytes]:
    # The server closes this iterator when the reader goes away; closing `events` then closes
    # the model request (citations/services/answer_stream.py). The body runs after the view has
    # returned, so the reader's language (LocaleMiddleware's) is set again for what it renders.
    with translation.override(getattr(request, "LANGUAGE_CODE", None)):
        yield from _events_encoded(events, request, page)


def _events_encoded(events: Iterator[Event], request: HttpRequest, page: bool) -> Iterator[bytes]:
    try:
        for event in events:
            name, data = _payload(event, request)
            if page and isinstance(event, Sources | Done):
                data["sources_html"] = _sources_html(event, request)
            yield _message(name, data)
    except ServiceUnavailable as exc:  # e.g. the embedding server, gone while the writer embedded
        yield _message("error", {"detail": unavailable_message(request, exc)})
    except Exception:
        logger.exception("streamed answer failed")
        yield _message("error", {"detail": gettext(BROKEN)})
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()


def _payload(event: Event, request: HttpRequest) -> tuple[str, dict[str, Any]]:
    if isinstance(event, Sources):
        references(request).prime(hit_folder_ids(c.hit for c in event.citations))  # their folders in one query
        citations = [
            CitationOut.model_validate(serialise_citation(c, request)).model_dump(mode="json") for c in event.citations
        ]
        return "sources", {"citations": citations}
    if isinstance(event, Piece):
        return "part", serialise_part(event.part)
    if isinstance(event, Done):
        return "done", AnswerOut.model_validate(serialise(event.answer, request)).model_dump(mode="json")
    assert isinstance(event, Failed)
    return "error", {"detail": event.message}


def _sources_html(event: Sources | Done, request: HttpRequest) -> str:
    citations: list[Citation] = event.citations if isinstance(event, Sources) else event.answer.citations
    context = {"citations": citations, "writing": isinstance(event, Sources)}
    return render_to_string("citations/_sources.html", context, request=request)


def _message(name: str, data: dict[str, Any]) -> bytes:
    # NaN and Infinity are not JSON: a client's JSON.parse would throw on the event. Refusing them
    # here (ValueError) ends the stream with the `error` event instead (`_encoded`).
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, allow_nan=False)}\n\n".encode()
