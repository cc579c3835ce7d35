"""POST /api/answer: a cited answer from the folders the caller may read.

Authentication is the API's default (set where the router is mounted); the caller is
`request.auth` when that is a user, else the session user.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest
from ninja import Router
from ninja.errors import HttpError

from citations.schemas import AnswerIn, AnswerOut, ErrorOut
from citations.services.answer import Answer, answer_question
from documents.selectors import folders_readable_by

router = Router(tags=["answers"])


def request_user(request: HttpRequest) -> Any:
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, AbstractBaseUser) else getattr(request, "user", None)


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
    if payload.folder is not None and not folders_readable_by(user).filter(pk=payload.folder).exists():
        raise HttpError(404, f"Folder {payload.folder} does not exist or you may not read it.")
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
