"""POST /answers/stream: the search page's answer as server-sent events (citations/event_stream.py).

static/js/answer_stream.js posts the search form's fields here (with the page's session and CSRF
token) and shows the answer as it is written. The question is read, limited and kept exactly as
the search page reads, limits and keeps it: the same form, the answer budget, the page's entry
in the question log (so the asker's feedback works as on the page).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_POST

from citations import event_stream
from citations.filter_panel import readable_tag_names
from citations.forms import SearchForm
from citations.models import Endpoint
from citations.services import question_log
from citations.services.answer_stream import answer_stream
from citations.unavailable import unavailable_json
from documents.selectors import folders_readable_by, visible_folder_paths
from ragsite import ratelimit
from ragsite.caller import request_user
from ragsite.errors import NotFoundOrForbidden, ServiceUnavailable


@require_POST
def answer_stream_page(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    user = request_user(request)
    folders = folders_readable_by(user)
    paths = visible_folder_paths(user=user, folder_ids=folders.values_list("pk", flat=True))
    form = SearchForm(request.POST, folders=folders, paths=paths, tags=readable_tag_names(user))
    if not form.is_valid():
        detail = " ".join(str(message) for messages in form.errors.values() for message in messages)
        return JsonResponse({"detail": detail}, status=400)
    refused = ratelimit.page_limit(request, ratelimit.ANSWER)
    if refused:
        return refused
    filters = form.filters
    asker = question_log.asker_for(request, Endpoint.PAGE, folder=form.cleaned_data["folder"], filters=filters.params())
    try:
        events = answer_stream(user=user, question=form.cleaned_data["q"], asker=asker, filters=filters)
    except NotFoundOrForbidden as exc:  # a folder or document of the form this reader may not read
        return JsonResponse({"detail": exc.message}, status=404)
    except ServiceUnavailable as exc:  # the embedding server, or a vector column awaiting embedding_switch
        return unavailable_json(request, exc)
    return event_stream.page_event_response(events, request)
