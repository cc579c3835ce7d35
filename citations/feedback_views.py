"""POST /answers/<id>/feedback: the search page's "Helpful" / "Not helpful" form.

Works without JavaScript (the reply is a small page); static/js/feedback.js posts the same form
and asks for JSON, so the answer stays on screen. Only the asker (signed in, or the same
anonymous browser session) may judge an answer: anyone else gets the 404 of a missing one.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from citations.services import question_log
from ragsite.caller import request_user
from ragsite.errors import InvalidInput, NotFoundOrForbidden

CHOICES = {"yes": True, "no": False}


@require_POST
def answer_feedback(request: HttpRequest, answer_id: int) -> HttpResponse:
    wants_json = request.headers.get("Accept", "") == "application/json"
    helpful = CHOICES.get(request.POST.get("helpful", ""))
    try:
        if helpful is None:
            raise InvalidInput(gettext("Choose “Helpful” or “Not helpful”."))
        row = question_log.answer_feedback(
            answer_id=answer_id,
            user=request_user(request),
            session_token=question_log.session_asker_token(request, create=False),
            helpful=helpful,
            comment=request.POST.get("comment", ""),
        )
    except NotFoundOrForbidden as exc:
        raise Http404(exc.message) from exc
    except InvalidInput as exc:
        if wants_json:
            return JsonResponse({"detail": exc.message}, status=400)
        return render(request, "feedback/thanks.html", {"error": exc.message}, status=400)
    if wants_json:
        return JsonResponse({"id": row.pk, "feedback": row.feedback})
    return render(request, "feedback/thanks.html", {"row": row})
