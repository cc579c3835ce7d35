"""Bulk actions on the admin's document list, each shown on a confirmation page first.

Django's intermediate-page pattern: choosing an action renders a page naming the documents and
what will happen to them; that page posts the same selection back with `apply`, and only then
does a service (documents/services/) change anything. Actions parse and call, nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from documents.models import Document, DocumentStatus, Folder, Tag
from documents.names import InvalidName
from documents.selectors import folders_writable_by, visible_folder_paths
from documents.services.library import documents_move
from documents.services.metadata import documents_tag, tag_get_or_create
from documents.services.queueing import documents_requeue
from ragsite.caller import request_user
from ragsite.errors import Conflict

APPLY = "apply"  # posted by the confirmation page only: the one signal to change anything
LISTED = 200  # documents named on a confirmation page; a larger selection is counted


class TagActionForm(forms.Form):
    tag = forms.CharField(max_length=100, label="Tag", help_text="An existing tag's name, or a new one (add only).")


class MoveForm(forms.Form):
    folder = forms.ModelChoiceField(queryset=Folder.objects.none(), label="Move to folder")

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only folders the user may write; named by the path they may see, sorted by it.
        writable = folders_writable_by(user)
        paths = visible_folder_paths(user=user, folder_ids=writable.values_list("pk", flat=True))
        chosen = self.fields["folder"]
        assert isinstance(chosen, forms.ModelChoiceField)
        chosen.queryset = writable
        chosen.choices = [("", "---------"), *sorted(((pk, path) for pk, path in paths.items()), key=lambda c: c[1])]


@dataclass
class Confirmation:
    """What a confirmation page says: the documents an action changes, and those it leaves."""

    action: str
    title: str
    intro: str
    submit: str
    affected: Sequence[Document]
    skipped: list[tuple[Document, str]] = field(default_factory=list)  # (document, why it is left)
    form: forms.Form | None = None


def confirmed(request: HttpRequest) -> bool:
    return request.method == "POST" and APPLY in request.POST


class DocumentBulkActions(admin.ModelAdmin):
    """The document list's bulk actions; DocumentAdmin lists them in `actions`."""

    @admin.action(description="Retry selected failed documents", permissions=["change"])
    def retry_failed(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        if not confirmed(request):
            failed = queryset.filter(status=DocumentStatus.FAILED)
            others = queryset.exclude(status=DocumentStatus.FAILED)
            return self.confirmation_page(
                request,
                queryset,
                Confirmation(
                    action="retry_failed",
                    title="Retry failed documents",
                    intro="These failed documents are queued again, their failure reason cleared:",
                    submit="Retry them",
                    affected=list(failed[:LISTED]),
                    skipped=[(d, f"{d.get_status_display()}, not failed") for d in others[:LISTED]],
                ),
            )
        count = documents_requeue(queryset, from_={DocumentStatus.FAILED})
        self.message_user(request, f"Queued {count} failed document(s) again.", messages.SUCCESS)
        return None

    @admin.action(description="Re-index selected documents", permissions=["change"])
    def reindex(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        if not confirmed(request):
            return self.confirmation_page(
                request,
                queryset,
                Confirmation(
                    action="reindex",
                    title="Re-index documents",
                    intro="These documents are read, chunked and embedded again; readers keep finding "
                    "each one by its current index until the new one replaces it:",
                    submit="Re-index them",
                    affected=list(queryset[:LISTED]),
                ),
            )
        count = documents_requeue(queryset)
        self.message_user(request, f"Queued {count} document(s) for re-indexing.", messages.SUCCESS)
        return None

    @admin.action(description="Move selected documents to a folder", permissions=["change"])
    def move_to_folder(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        user = request_user(request)
        form = MoveForm(request.POST if confirmed(request) else None, user=user)
        writable = folders_writable_by(user).values("pk")
        movable = queryset.filter(folder__in=writable)
        if form.is_valid():
            self._move(request, movable, form.cleaned_data["folder"])
            return None
        confirmation = Confirmation(
            action="move_to_folder",
            title="Move documents to a folder",
            intro="These documents move, with their index, to the folder chosen below. From then on its "
            "readers find them, and readers of their present folder who cannot read it no longer do:",
            submit="Move them",
            affected=list(movable[:LISTED]),
            skipped=[(d, "you may not change its folder") for d in queryset.exclude(folder__in=writable)[:LISTED]],
            form=form,
        )
        return self.confirmation_page(request, queryset, confirmation)

    def _move(self, request: HttpRequest, documents: QuerySet[Document], folder: Folder) -> None:
        try:
            outcome = documents_move(documents, folder=folder)
        except Conflict as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return
        path = visible_folder_paths(user=request_user(request), folder_ids=[folder.pk]).get(folder.pk, folder.name)
        self.message_user(request, f"Moved {len(outcome.moved)} document(s) to “{path}”.", messages.SUCCESS)
        if outcome.duplicates:
            titles = ", ".join(outcome.duplicates)
            self.message_user(
                request, f"Left where they were, as “{path}” already holds the same file: {titles}.", messages.WARNING
            )
        if outcome.already_there:
            self.message_user(request, f"{len(outcome.already_there)} document(s) were already there.", messages.INFO)

    @admin.action(description="Add a tag to selected documents", permissions=["change"])
    def add_tag(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        return self._tag_action(request, queryset, add=True)

    @admin.action(description="Remove a tag from selected documents", permissions=["change"])
    def remove_tag(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        return self._tag_action(request, queryset, add=False)

    def _tag_action(self, request: HttpRequest, queryset: QuerySet[Document], *, add: bool) -> HttpResponse | None:
        """First a page naming the documents and asking for the tag; the change happens when it is confirmed."""
        form = TagActionForm(request.POST if confirmed(request) else None)
        tag = _chosen_tag(form, add=add) if form.is_valid() else None
        if tag is not None:
            count = documents_tag(queryset, tag, add=add)
            verb, where = ("Added", "to") if add else ("Removed", "from")
            self.message_user(request, f"{verb} tag “{tag.name}” {where} {count} document(s).", messages.SUCCESS)
            return None
        confirmation = Confirmation(
            action="add_tag" if add else "remove_tag",
            title="Add a tag" if add else "Remove a tag",
            intro="The tag is added to these documents:" if add else "The tag is removed from these documents:",
            submit="Add the tag" if add else "Remove the tag",
            affected=list(queryset[:LISTED]),
            form=form,
        )
        extra = {"tags": Tag.objects.none() if add else Tag.objects.all()}
        return self.confirmation_page(request, queryset, confirmation, extra)

    def confirmation_page(
        self,
        request: HttpRequest,
        queryset: QuerySet[Document],
        confirmation: Confirmation,
        extra: dict[str, Any] | None = None,
    ) -> TemplateResponse:
        """The page that names the documents and posts the same selection back with `apply`."""
        shown = [*confirmation.affected, *(d for d, _ in confirmation.skipped)]
        paths = visible_folder_paths(user=request_user(request), folder_ids=[d.folder_id for d in shown])
        select_across = request.POST.get("select_across") == "1"
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": confirmation.title,
            "confirmation": confirmation,
            "affected": [(d, paths.get(d.folder_id, "")) for d in confirmation.affected],
            "skipped": [(d, paths.get(d.folder_id, ""), why) for d, why in confirmation.skipped],
            "total": queryset.count(),
            "form": confirmation.form,
            # The ticked ids go back as they came (Django runs a confirmed action only with some),
            # and with them "select all", which makes the action take the whole filtered list.
            "select_across": select_across,
            "selected_ids": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "apply": APPLY,
            **(extra or {}),
        }
        return TemplateResponse(request, "admin/documents/document/bulk_action.html", context)


def _chosen_tag(form: TagActionForm, *, add: bool) -> Tag | None:
    """The tag the form names (created when adding), or None with the reason added to the form."""
    name = form.cleaned_data["tag"]
    try:
        tag = tag_get_or_create(name) if add else Tag.objects.filter(name__iexact=name.strip()).first()
    except (InvalidName, ValueError) as exc:
        form.add_error("tag", str(exc))
        return None
    if tag is None:
        form.add_error("tag", f"There is no tag named “{name}”.")
    return tag
