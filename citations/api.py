"""POST /api/answer: a cited answer from the folders the caller may read.

Authentication is the API's default (set where the router is mounted).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from citations.schemas import AnswerIn, AnswerOut
from citations.services.answer import Answer, answer_question
from documents.access import access_folder_readable
from documents.schemas import ErrorOut
from ragsite.caller import request_user

router = Router(tags=["answers"])


@router.post("/answer", response={200: AnswerOut, 404: ErrorOut}, summary="Answer a question with citations")
def answer(request: HttpRequest, payload: AnswerIn) -> dict[str, Any]:
    """Retrieve, gate, and answer; every `[n]` in `answer` is described by `citations[n-1]`.

    `state` is answered, caveat (shown, with `message` naming the question's words no readable
    document contains) or refused (no answer, `citations` empty, `message` says why).

    Render from `parts` (`{"text": …}` verbatim, `{"cite": n}` for source n), as the search page
    does. In the `answer` string, a source's own bracketed reference numbers are written with
    white square brackets, "⟦22⟧", so an ASCII `[n]` there is always one of the answer's markers.
    """
    user = request_user(request)
    if payload.folder is not None:
        access_folder_readable(user=user, folder_id=payload.folder)
    return serialise(answer_question(user=user, question=payload.question, folder_id=payload.folder))


def serialise(result: Answer) -> dict[str, Any]:
    return {
        "answer": result.text,
        "state": result.state,
        "parts": [{"text": p.text} if p.n is None else {"cite": p.n} for p in result.parts],
        "refused": result.refused,
        "reasons": result.reasons,
        "message": result.message,
        "unknown_names": result.unknown_names,
        "missing_terms": result.missing_terms,
        "unseen_terms": result.unseen_terms,
        "threshold": result.threshold,
        "best_distance": result.best_distance,
        "writer": result.writer,
        "uncited": result.uncited,
        "removed_markers": result.removed_markers,
        "notice": result.notice,
        "citations": [
            {
                "n": c.n,
                "cited": c.cited,
                "document_id": c.document_id,
                "document_title": c.document_title,
                "document_authors": c.document_authors,
                "document_published": c.document_published,
                "folder": c.folder,
                "section": c.section,
                "page_start": c.page_start,
                "page_end": c.page_end,
                "char_start": c.char_start,
                "char_end": c.char_end,
                "quote": c.quote,
                "distance": c.distance,
                "url": c.url,
                "page_url": c.page_url,
                "file_url": c.file_url,
                "also_in": [
                    {"document_id": o.document_id, "folder_id": o.folder_id, "folder": o.folder_name} for o in c.also_in
                ],
            }
            for c in result.citations
        ],
    }
