"""Staff screens of the question log: the log itself (filters by state, folder, date, feedback),
the content-gaps report, documents whose answers drew "Not helpful", and the CSV export.

Every one of them answers 404, as a missing page does, to anyone but active staff holding the
log's view permission: a reader learns nothing, not even that the log exists. The texts
(question, feedback comment) need the `view_question_text` permission besides.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from citations.models import Feedback, QuestionLog
from citations.question_reports import content_gaps, csv_lines, not_helpful_documents

VIEW_LOG = "citations.view_questionlog"
VIEW_TEXT = "citations.view_question_text"
HIDDEN = "(hidden: needs the “read question texts” permission)"
PERIODS = {"7": 7, "30": 30, "90": 90}  # the reports' ?days=; anything else: the whole log


def can_read_log(request: HttpRequest) -> bool:
    user: Any = request.user  # a User or an AnonymousUser: both answer these
    return bool(user.is_active and user.is_staff and user.has_perm(VIEW_LOG))


def can_read_texts(request: HttpRequest) -> bool:
    user: Any = request.user
    return can_read_log(request) and bool(user.has_perm(VIEW_TEXT))


def log_or_404(view: Callable[..., Any]) -> Callable[..., Any]:
    """Anyone who may not read the log gets the site's 404, before the admin would redirect to its login."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if not can_read_log(request):
            raise Http404("No such page.")
        return view(request, *args, **kwargs)

    return wrapper


class FeedbackFilter(admin.SimpleListFilter):
    title = "feedback"
    parameter_name = "feedback"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [*Feedback.choices, ("commented", "With a comment"), ("none", "None")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[QuestionLog]) -> QuerySet[QuestionLog]:
        value = self.value()
        if value in Feedback.values:
            return queryset.filter(feedback=value)
        if value == "commented":
            return queryset.exclude(feedback_comment="")
        if value == "none":
            return queryset.filter(feedback="")
        return queryset


@admin.register(QuestionLog)
class QuestionLogAdmin(admin.ModelAdmin):
    list_display = ("asked_at", "question", "asker", "endpoint", "state", "gaps", "folder_label", "documents",
                    "latency_ms", "writer", "feedback_label")  # fmt: skip
    list_filter = ("state", "folder", "asked_at", FeedbackFilter, "endpoint")
    date_hierarchy = "asked_at"
    list_select_related = ("user",)
    list_per_page = 50
    change_list_template = "admin/citations/questionlog/change_list.html"
    TEXT_FIELDS = ("question", "feedback_comment")

    # The log is a record: nobody adds or edits a row by hand (a row may be deleted, e.g. on request).
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_list_display(self, request: HttpRequest) -> Any:
        if can_read_texts(request):
            return self.list_display
        return tuple("question_hidden" if name == "question" else name for name in self.list_display)

    def get_search_fields(self, request: HttpRequest) -> Any:
        return ("question", "feedback_comment") if can_read_texts(request) else ()

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = ["asked_at", "asker", "endpoint", "question", "folder_label", "filters", "state", "reasons",
                  "missing_terms", "unknown_names", "documents", "latency_ms", "writer", "feedback",
                  "feedback_comment", "feedback_at"]  # fmt: skip
        return fields if can_read_texts(request) else [f for f in fields if f not in self.TEXT_FIELDS]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.get_fields(request, obj)

    @admin.display(description="Question")
    def question_hidden(self, row: QuestionLog) -> str:
        return "(hidden)"

    @admin.display(description="Asker", ordering="user__username")
    def asker(self, row: QuestionLog) -> str:
        return row.user.get_username() if row.user else "anonymous"

    @admin.display(description="Missing")
    def gaps(self, row: QuestionLog) -> str:
        return ", ".join(row.gap_terms)

    @admin.display(description="Folder", ordering="folder_name")
    def folder_label(self, row: QuestionLog) -> str:
        return row.folder_name or "All folders"

    @admin.display(description="Top documents")
    def documents(self, row: QuestionLog) -> str:
        return format_html_join(", ", "{} (#{})", ((d["title"], d["id"]) for d in row.top_documents))

    @admin.display(description="Feedback", ordering="feedback")
    def feedback_label(self, row: QuestionLog) -> str:
        if not row.feedback:
            return ""
        note = " 💬" if row.feedback_comment else ""
        return format_html("{}{}", row.get_feedback_display(), note)

    # --- the reports ------------------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        reports = [
            path("gaps/", wrap(self.gaps_view), name="citations_questionlog_gaps"),
            path("not-helpful/", wrap(self.not_helpful_view), name="citations_questionlog_not_helpful"),
            path("export.csv", wrap(self.export_view), name="citations_questionlog_export"),
        ]
        patterns: list[URLPattern] = [*reports, *super().get_urls()]
        for pattern in patterns:
            if isinstance(pattern, URLPattern):
                pattern.callback = log_or_404(pattern.callback)
        return patterns

    def _period(self, request: HttpRequest) -> tuple[QuerySet[QuestionLog], str]:
        days = request.GET.get("days", "")
        rows = QuestionLog.objects.all()
        if days in PERIODS:
            rows = rows.filter(asked_at__gte=timezone.now() - timedelta(days=PERIODS[days]))
        return rows, days if days in PERIODS else ""

    def _context(self, request: HttpRequest, title: str, days: str) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": title,
            "days": days,
            "periods": [("", "Whole log"), *((d, f"Last {d} days") for d in PERIODS)],
            "can_read_texts": can_read_texts(request),
            "log_url": reverse("admin:citations_questionlog_changelist"),
        }

    def gaps_view(self, request: HttpRequest) -> HttpResponse:
        rows, days = self._period(request)
        context = {**self._context(request, "Content gaps", days), "gaps": content_gaps(rows)}
        return TemplateResponse(request, "admin/citations/questionlog/gaps.html", context)

    def not_helpful_view(self, request: HttpRequest) -> HttpResponse:
        rows, days = self._period(request)
        documents = not_helpful_documents(rows)
        context = {**self._context(request, "Documents in answers judged “Not helpful”", days), "documents": documents}
        return TemplateResponse(request, "admin/citations/questionlog/not_helpful.html", context)

    def export_view(self, request: HttpRequest) -> StreamingHttpResponse:
        """The log as CSV, with the list's filters (the same query string)."""
        rows = self.get_changelist_instance(request).get_queryset(request)
        response = StreamingHttpResponse(csv_lines(rows, with_texts=can_read_texts(request)), content_type="text/csv")
        stamp = timezone.now().strftime("%Y%m%d-%H%M")
        response["Content-Disposition"] = f'attachment; filename="question-log-{stamp}.csv"'
        return response
