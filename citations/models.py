"""The question log: every question asked on the search page, /api/answer and /api/search.

A row keeps what a librarian needs to see what readers looked for and what the library could
not answer: who asked (the user, or nobody: an anonymous reader, or one whose account was
deleted), where (endpoint, folder, filters), the gate's verdict (state, reasons, missing terms
and unknown names), the top documents as they were titled then, latency, writer and the
reader's feedback. The texts (question, feedback comment) are readable only with the
`view_question_text` permission (citations/admin.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from search.services.gate import AnswerState


class Endpoint(models.TextChoices):
    PAGE = "page", "Search page"
    API_ANSWER = "api_answer", "/api/answer"
    API_SEARCH = "api_search", "/api/search"


class Feedback(models.TextChoices):
    HELPFUL = "helpful", "Helpful"
    NOT_HELPFUL = "not_helpful", "Not helpful"


class QuestionLog(models.Model):
    asked_at = models.DateTimeField(default=timezone.now, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # sha256 of a random token kept in an anonymous asker's session: lets that session, and no
    # one else, give feedback on the answer. Empty for signed-in askers and API callers.
    asker_session = models.CharField(max_length=64, blank=True)
    endpoint = models.CharField(max_length=16, choices=Endpoint.choices)
    question = models.CharField(max_length=2000)
    folder = models.ForeignKey("documents.Folder", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    folder_name = models.CharField(max_length=200, blank=True)  # as it was named when asked
    filters = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=16, choices=AnswerState.choices, db_index=True)
    reasons = models.JSONField(default=list, blank=True)
    missing_terms = models.JSONField(default=list, blank=True)
    unknown_names = models.JSONField(default=list, blank=True)
    top_documents = models.JSONField(default=list, blank=True)  # [{"id": 3, "title": "…"}], best first
    latency_ms = models.PositiveIntegerField(default=0)
    writer = models.CharField(max_length=64, blank=True)
    feedback = models.CharField(max_length=16, choices=Feedback.choices, blank=True, db_index=True)
    feedback_comment = models.TextField(blank=True)
    feedback_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-asked_at", "-pk"]
        verbose_name = "question"
        verbose_name_plural = "question log"
        permissions = [("view_question_text", "Can read the texts of questions and feedback comments")]

    def __str__(self) -> str:
        return f"Question {self.pk} ({self.state})"

    @property
    def gap_terms(self) -> list[str]:
        """The words of the question the library lacks: unknown names, then missing terms."""
        seen: dict[str, str] = {}
        for term in [*self.unknown_names, *self.missing_terms]:
            seen.setdefault(str(term).casefold(), str(term))
        return list(seen.values())
