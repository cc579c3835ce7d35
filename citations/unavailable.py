"""The pages' answer when searching cannot run: 503, in words for whoever asked.

A search needs the question's vector. With EMBEDDER=http and the embedding server down, or a
vector column of another size than EMBEDDING_DIMS (documents/vector_column.py), the search
raises ServiceUnavailable with a message naming the cause and its fix. Staff can act on it
(start the server, run `manage.py embedding_switch`), so they read it; a reader cannot, so they
read that searching is unavailable for now, and the cause goes to the log. The search page
(citations/views.py) answers with templates/503.html, its streamed answer
(citations/stream_views.py) with the same words as JSON, which static/js/answer_stream.js shows;
when the service goes away after the answer began streaming (the extractive writer embeds the
sources' sentences), the same words end the stream as its `error` event (citations/event_stream.py).
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_noop

from documents.selectors import user_reads_everything
from ragsite.caller import request_user
from ragsite.errors import ServiceUnavailable

logger = logging.getLogger(__name__)

READER_MESSAGE = gettext_noop(  # said in the reader's language
    "Searching is unavailable at the moment: the library cannot read questions right now. "
    "Try again in a few minutes; if it lasts, tell an administrator."
)


def unavailable_detail(request: HttpRequest, exc: ServiceUnavailable) -> str | None:
    """The cause, for staff (and superusers) only, None for anyone else; logged either way."""
    logger.warning("search unavailable: %s", exc.message)
    return exc.message if user_reads_everything(request_user(request)) else None


def unavailable_page(request: HttpRequest, exc: ServiceUnavailable) -> HttpResponse:
    """templates/503.html: the plain sentence, and the cause for staff."""
    context = {"reader_message": gettext(READER_MESSAGE), "detail": unavailable_detail(request, exc)}
    return render(request, "503.html", context, status=503)


def unavailable_message(request: HttpRequest, exc: ServiceUnavailable) -> str:
    """What the page says, with the cause in brackets for staff."""
    detail = unavailable_detail(request, exc)
    message = gettext(READER_MESSAGE)
    return f"{message} ({detail})" if detail else message


def unavailable_json(request: HttpRequest, exc: ServiceUnavailable) -> JsonResponse:
    """The same answer for a script: `detail` is what the page would say, the cause for staff."""
    return JsonResponse({"detail": unavailable_message(request, exc), "errors": []}, status=503)
