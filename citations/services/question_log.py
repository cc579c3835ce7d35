"""Keeping questions (the question log), readers' feedback on answers, and retention.

Logging never slows or breaks an answer: the row is written after the answer is built, in its
own savepoint under a short lock timeout, and any failure is logged and swallowed (the answer
then carries no `id`, so it takes no feedback). `QUESTION_LOG` off writes nothing at all.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection, transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext

from citations.models import Endpoint, Feedback, QuestionLog
from ragsite.caller import request_user
from ragsite.errors import InvalidInput, NotFoundOrForbidden

if TYPE_CHECKING:
    from citations.services.answer import Answer
    from documents.selectors import AnyUser
    from search.services.retrieval import SearchResult

logger = logging.getLogger(__name__)

TOP_DOCUMENTS = 5
LOCK_TIMEOUT = "250ms"  # a write that waits longer for a lock gives up: the answer does not wait
SESSION_KEY = "question_log_asker"
MAX_COMMENT_CHARS = 2000


@dataclass(frozen=True)
class Asker:
    """Who asked, and through which door."""

    user: AnyUser
    endpoint: str
    session_token: str = ""  # an anonymous page reader's token (`session_asker_token`)
    folder: Any = None  # the Folder asked within, if any
    filters: dict[str, Any] = field(default_factory=dict)


def asker_for(request: HttpRequest, endpoint: Endpoint, *, folder: Any = None, **filters: Any) -> Asker:
    user = request_user(request)
    token = "" if user.is_authenticated or endpoint != Endpoint.PAGE else session_asker_token(request)
    return Asker(user=user, endpoint=endpoint.value, session_token=token, folder=folder, filters=filters)


def session_asker_token(request: HttpRequest, *, create: bool = True) -> str:
    """A random token kept in this browser's session: an anonymous reader's proof of authorship."""
    token = str(request.session.get(SESSION_KEY, ""))
    if not token and create and settings.QUESTION_LOG:
        token = secrets.token_urlsafe(24)
        request.session[SESSION_KEY] = token
    return token


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest() if token else ""


def log_answer(asker: Asker, answer: Answer, latency_ms: float) -> int | None:
    """Keep an answered (or refused) question; the row's id, or None when nothing was kept."""
    hits = [c.hit for c in answer.citations] or answer.passages
    documents = [(h.document_id, h.document_title) for h in hits]
    return _record(
        asker,
        question=answer.question,
        state=answer.state,
        reasons=answer.reasons,
        missing_terms=answer.missing_terms,
        unknown_names=answer.unknown_names,
        documents=documents,
        writer=answer.writer or "",
        latency_ms=latency_ms,
    )


def log_search(asker: Asker, result: SearchResult, latency_ms: float) -> int | None:
    return _record(
        asker,
        question=result.query,
        state=result.state,
        reasons=result.reasons,
        missing_terms=result.missing_terms,
        unknown_names=result.unknown_names,
        documents=[(h.document_id, h.document_title) for h in result.hits],
        writer="",
        latency_ms=latency_ms,
    )


def on_search_served(
    sender: Any, *, request: HttpRequest, result: SearchResult, folder: Any, filters: dict[str, Any],
    latency_ms: float, **kwargs: Any,
) -> int | None:  # fmt: skip
    """Keeps a GET /api/search (search.signals.search_served)."""
    return log_search(asker_for(request, Endpoint.API_SEARCH, folder=folder, **filters), result, latency_ms)


def _top_documents(documents: list[tuple[int, str]]) -> list[dict[str, Any]]:
    titles: dict[int, str] = {}
    for document_id, title in documents:
        titles.setdefault(document_id, title)
    return [{"id": pk, "title": title} for pk, title in list(titles.items())[:TOP_DOCUMENTS]]


def _record(
    asker: Asker,
    *,
    question: str,
    state: str,
    reasons: list[str],
    missing_terms: list[str],
    unknown_names: list[str],
    documents: list[tuple[int, str]],
    writer: str,
    latency_ms: float,
) -> int | None:
    if not settings.QUESTION_LOG:
        return None
    row = QuestionLog(
        user=asker.user if asker.user.is_authenticated else None,
        asker_session=_digest(asker.session_token),
        endpoint=asker.endpoint,
        question=question,
        folder=asker.folder,
        folder_name=asker.folder.name if asker.folder is not None else "",
        filters=asker.filters,
        state=state,
        reasons=list(reasons),
        missing_terms=list(missing_terms),
        unknown_names=list(unknown_names),
        top_documents=_top_documents(documents),
        latency_ms=max(0, round(latency_ms)),
        writer=writer,
    )
    try:
        with transaction.atomic():
            # Rolled back with the savepoint on failure; restored by hand on success (a test's, or
            # a caller's, enclosing transaction keeps its own timeout).
            with connection.cursor() as cursor:
                cursor.execute("SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
                               [LOCK_TIMEOUT])  # fmt: skip
                previous = (cursor.fetchone() or ("0",))[0]
            row.save(force_insert=True)
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('lock_timeout', %s, true)", [previous])
    except Exception:
        # Whatever went wrong (a locked table, a value too long, the database gone), the reader
        # still gets the answer; the loss is logged for the operator.
        logger.exception("question log: could not keep a question from %s", asker.endpoint)
        return None
    return row.pk


# --- feedback ------------------------------------------------------------------------------------


def answer_feedback(
    *, answer_id: int, user: AnyUser, session_token: str, helpful: bool, comment: str = ""
) -> QuestionLog:
    """Record (or change) the asker's verdict on their answer; anyone else is told it does not exist."""
    row = _own_answer(answer_id=answer_id, user=user, session_token=session_token)
    comment = comment.replace("\x00", "").strip()
    if len(comment) > MAX_COMMENT_CHARS:
        message = gettext("The comment is %(length)d characters long; at most %(most)d are kept.")
        raise InvalidInput(message % {"length": len(comment), "most": MAX_COMMENT_CHARS})
    row.feedback = Feedback.HELPFUL if helpful else Feedback.NOT_HELPFUL
    row.feedback_comment = comment
    row.feedback_at = timezone.now()
    row.save(update_fields=["feedback", "feedback_comment", "feedback_at"])
    return row


def _own_answer(*, answer_id: int, user: AnyUser, session_token: str) -> QuestionLog:
    answers = QuestionLog.objects.exclude(endpoint=Endpoint.API_SEARCH)
    row = answers.filter(pk=answer_id, user=user).first() if user.is_authenticated else None
    if row is None and session_token:  # an answer asked anonymously in this same session
        row = answers.filter(pk=answer_id, user=None, asker_session=_digest(session_token)).first()
    if row is None:
        raise NotFoundOrForbidden(gettext("Answer %(answer)s does not exist or is not yours.") % {"answer": answer_id})
    return row


# --- retention -----------------------------------------------------------------------------------


def question_log_prune(now: Any = None) -> int:
    """Delete rows older than QUESTION_LOG_DAYS; how many were deleted."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.QUESTION_LOG_DAYS)
    deleted, _ = QuestionLog.objects.filter(asked_at__lt=cutoff).delete()
    return deleted
