"""Staff screens: folders, documents with their processing state, bulk upload, retry/re-index."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth.admin import GroupAdmin
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from documents.admin_progress import batch_documents, batch_ids, progress_cell, progress_status_view
from documents.forms import DocumentUploadForm
from documents.models import (
    ApiToken,
    Chunk,
    Document,
    DocumentStatus,
    Folder,
    OcrPage,
    Tag,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    webhook_secret_new,
)
from documents.names import InvalidName, NameValidator
from documents.selectors import stale_documents, stale_rule
from documents.services.library import document_delete, folder_delete
from documents.services.metadata import (
    METADATA_FIELDS,
    document_metadata_correct,
    document_metadata_reset,
    documents_tag,
    tag_get_or_create,
)
from documents.services.queueing import documents_requeue
from documents.services.upload import IncomingFile, UploadRejected, document_upload
from documents.webhooks.events import deliveries_resend
from ragsite.caller import request_user


@admin.register(Folder)
class FolderAdmin(admin.ModelAdmin):
    list_display = ("path_label", "is_public", "document_total")
    search_fields = ("name",)
    list_filter = ("is_public",)
    filter_horizontal = ("reader_groups", "reader_users", "writer_groups", "writer_users")
    autocomplete_fields = ("parent",)

    @admin.display(description="Folder")
    def path_label(self, folder: Folder) -> str:
        return folder.path

    # Deleting through the admin goes through the same service as the API, so stored files
    # are removed too (after the transaction commits), never left behind.
    def delete_model(self, request: HttpRequest, obj: Folder) -> None:
        folder_delete(folder=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Folder]) -> None:
        for folder in queryset:
            if Folder.objects.filter(pk=folder.pk).exists():  # a parent deleted earlier took it along
                folder_delete(folder=folder)

    @admin.display(description="Documents")
    def document_total(self, folder: Folder) -> int:
        return folder.documents.count()


class ChunkInline(admin.TabularInline):
    model = Chunk
    fields = ("ordinal", "section", "page_start", "page_end", "char_start", "char_end", "token_count", "preview")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False
    ordering = ("ordinal",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="Content")
    def preview(self, chunk: Chunk) -> str:
        text = chunk.content
        return text if len(text) <= 160 else text[:160] + "…"


class OcrPageInline(admin.TabularInline):
    """The pages read by OCR, with Tesseract's mean word confidence (the word boxes stay hidden)."""

    model = OcrPage
    verbose_name = "page read by OCR"
    verbose_name_plural = "pages read by OCR"
    fields = ("number", "mean_confidence", "word_count")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("number",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class FreshnessFilter(admin.SimpleListFilter):
    title = "index freshness"
    parameter_name = "freshness"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("stale", "Stale (settings changed)"), ("current", "Current")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> QuerySet[Document]:
        if self.value() == "stale":
            return queryset.filter(stale_rule())
        if self.value() == "current":
            return queryset.filter(status=DocumentStatus.INDEXED).exclude(stale_rule())
        return queryset


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    list_display = ("name", "document_total")
    search_fields = ("name",)

    @admin.display(description="Documents")
    def document_total(self, tag: Tag) -> int:
        return tag.documents.count()


class DocumentChangeForm(forms.ModelForm):
    """The document's editable fields; a metadata field saved with a new value counts as corrected."""

    reread = forms.MultipleChoiceField(
        label="Read again from the file",
        choices=[(f, f.capitalize()) for f in METADATA_FIELDS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Drops the correction of the fields ticked: the next indexing reads them from the file again.",
    )

    class Meta:
        model = Document
        fields = ("title", "authors", "published", "tags")
        help_texts = {
            "title": "Read from the file at indexing; a title saved here is kept at every re-index.",
            "authors": "Comma-separated. Read from the file at indexing unless corrected here.",
            "published": "The document's own date. Read from the file at indexing unless corrected here.",
        }


class TagActionForm(forms.Form):
    tag = forms.CharField(max_length=100, label="Tag", help_text="An existing tag's name, or a new one (add only).")


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    form = DocumentChangeForm
    list_display = (
        "title", "tag_names", "folder", "status_badge", "progress", "page_count", "chunk_count", "stamps",
        "failure_reason_short",
        "warnings_short", "attempts", "updated_at",
    )  # fmt: skip
    list_filter = ("status", FreshnessFilter, "folder")
    search_fields = ("title", "original_name", "authors__icontains")
    list_select_related = ("folder",)
    actions = ("retry_failed", "reindex", "add_tag", "remove_tag")
    autocomplete_fields = ("tags",)
    inlines = (OcrPageInline, ChunkInline)
    readonly_fields = (
        "original_name", "file", "content_type", "size", "sha256", "page_count", "status", "progress", "failure_reason",
        "attempts", "extractor", "embedding_model", "embedding_dims", "pipeline", "chunk_count", "indexed_at",
        "status_changed_at", "created_at", "updated_at", "uploaded_by", "warnings_list",
        # The context writer (CONTEXT_WRITER) on the last indexing: failed chunks and cost.
        "context_failures", "context_cache_hits", "context_prompt_tokens", "context_cached_prompt_tokens",
        "context_completion_tokens", "context_seconds",
    )  # fmt: skip
    fields = ("folder", "title", "authors", "published", "metadata_edited", "reread", "tags", *readonly_fields)
    change_list_template = "admin/documents/document/change_list.html"

    class Media:
        # Live progress bars (documents/admin_progress.py) on the list and the document's page.
        js = ("js/admin_progress.js",)
        css = {"all": ("css/admin_progress.css",)}

    def get_urls(self) -> list[Any]:
        upload = self.admin_site.admin_view(self.upload_view)
        return [
            path("upload/", upload, name="documents_document_upload"),
            # Not wrapped in admin_view: anyone but staff gets a 404 there, not the login page.
            path("progress.json", progress_status_view, name="documents_document_progress"),
            *super().get_urls(),
        ]

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        # Documents are created by uploading files, never by typing fields.
        return HttpResponseRedirect(reverse("admin:documents_document_upload"))

    def get_readonly_fields(self, request: HttpRequest, obj: Document | None = None) -> Any:
        # Moving a document between folders is not offered: its permissions would change silently.
        return ("folder", "metadata_edited", *self.readonly_fields) if obj else self.readonly_fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return super().get_queryset(request).prefetch_related("tags")

    @admin.display(description="Tags")
    def tag_names(self, document: Document) -> str:
        return ", ".join(tag.name for tag in document.tags.all())

    def save_model(self, request: HttpRequest, obj: Document, form: Any, change: bool) -> None:
        # Only the metadata is written, through the service that marks it corrected: saving the
        # whole row would also write back the status and stamps a worker may have moved meanwhile.
        changes = {f: form.cleaned_data[f] for f in METADATA_FIELDS if f in form.changed_data}
        corrected = document_metadata_correct(obj.pk, changes)
        reread = [f for f in form.cleaned_data.get("reread") or [] if f not in corrected]
        if reread:
            document_metadata_reset(obj.pk, reread)
            self.message_user(
                request, f"The next indexing reads {', '.join(reread)} from the file again.", messages.INFO
            )

    @admin.display(description="Status", ordering="status")
    def status_badge(self, document: Document) -> str:
        return format_html('<span class="status status-{}">{}</span>', document.status, document.get_status_display())

    @admin.display(description="Progress")
    def progress(self, document: Document) -> str:
        return progress_cell(document)

    @admin.display(description="Stamps")
    def stamps(self, document: Document) -> str:
        if not document.indexed_at:
            return "—"
        return f"{document.extractor} · {document.embedding_model}/{document.embedding_dims} · {document.pipeline}"

    @admin.display(description="Failure reason")
    def failure_reason_short(self, document: Document) -> str:
        reason = document.failure_reason
        return reason if len(reason) < 120 else reason[:120] + "…"

    @admin.display(description="Warnings")
    def warnings_short(self, document: Document) -> str:
        """Pages that could not be read, for an indexed document that is not whole."""
        warnings = document.warnings or []
        if not warnings:
            return ""
        first = warnings[0] if len(warnings[0]) < 120 else warnings[0][:120] + "…"
        return first + (f" (+{len(warnings) - 1} more)" if len(warnings) > 1 else "")

    @admin.display(description="Warnings")
    def warnings_list(self, document: Document) -> str:
        return format_html_join("\n", "<p>{}</p>", ((w,) for w in document.warnings or [])) or "—"

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        document_delete(document=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        for document in queryset:
            document_delete(document=document)

    @admin.action(description="Retry selected failed documents")
    def retry_failed(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        selected = queryset.count()
        count = documents_requeue(queryset, from_={DocumentStatus.FAILED})
        skipped = selected - count  # counted after the move, the retried ones would count too
        self.message_user(request, f"Queued {count} failed document(s) again.", messages.SUCCESS)
        if skipped:
            self.message_user(request, f"Skipped {skipped} document(s) that had not failed.", messages.WARNING)

    @admin.action(description="Re-index selected documents")
    def reindex(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        count = documents_requeue(queryset)
        self.message_user(request, f"Queued {count} document(s) for re-indexing.", messages.SUCCESS)

    @admin.action(description="Add a tag to selected documents")
    def add_tag(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        return self._tag_action(request, queryset, add=True)

    @admin.action(description="Remove a tag from selected documents")
    def remove_tag(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        return self._tag_action(request, queryset, add=False)

    def _tag_action(self, request: HttpRequest, queryset: QuerySet[Document], *, add: bool) -> HttpResponse | None:
        """First a page naming the tag and the documents; the change happens when it is confirmed."""
        form = TagActionForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            name = form.cleaned_data["tag"]
            try:
                tag = tag_get_or_create(name) if add else Tag.objects.filter(name__iexact=name.strip()).first()
            except (InvalidName, ValueError) as exc:
                form.add_error("tag", str(exc))
                tag = None
            if tag is None and not form.errors:
                form.add_error("tag", f"There is no tag named “{name}”.")
            if tag is not None:
                count = documents_tag(queryset, tag, add=add)
                verb = "Added" if add else "Removed"
                where = "to" if add else "from"
                self.message_user(request, f"{verb} tag “{tag.name}” {where} {count} document(s).", messages.SUCCESS)
                return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Add a tag" if add else "Remove a tag",
            "form": form,
            "opts": self.model._meta,
            "documents": queryset,
            "action": "add_tag" if add else "remove_tag",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "tags": Tag.objects.all() if not add else Tag.objects.none(),
        }
        return TemplateResponse(request, "admin/documents/document/tag_action.html", context)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        extra_context = {**(extra_context or {}), "stale_count": stale_documents().count()}
        return super().changelist_view(request, extra_context)

    def upload_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_add_permission(request):
            return HttpResponseRedirect(reverse("admin:index"))
        form = DocumentUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            folder = form.cleaned_data["folder"]
            accepted = 0
            uploaded_ids: list[int] = []
            for uploaded in form.cleaned_data["files"]:
                incoming = IncomingFile(name=uploaded.name or "upload", size=uploaded.size or 0, stream=uploaded)
                try:
                    document = document_upload(folder=folder, incoming=incoming, uploaded_by=request_user(request))
                    uploaded_ids.append(document.pk)
                    accepted += 1
                except UploadRejected as exc:
                    self.message_user(request, exc.message, messages.ERROR)
            if accepted:
                self.message_user(request, f"Queued {accepted} document(s) for processing.", messages.SUCCESS)
            # Back to this page, which follows the batch's progress (documents/admin_progress.py).
            ids = ",".join(str(pk) for pk in uploaded_ids)
            upload_page = reverse("admin:documents_document_upload")
            return HttpResponseRedirect(f"{upload_page}?batch={ids}&folder={folder.pk}")
        batch = batch_documents(batch_ids(request.GET.get("batch", "")))
        context = {
            **self.admin_site.each_context(request),
            "title": "Upload documents",
            "form": form,
            "opts": self.model._meta,
            "batch": [(document, progress_cell(document)) for document in batch],
            "batch_folder": request.GET.get("folder", ""),
        }
        return TemplateResponse(request, "admin/documents/document/upload.html", context)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "name", "created_at", "last_used_at", "revoked")
    list_filter = ("revoked",)
    search_fields = ("user__username", "name", "prefix")
    fields = ("user", "name", "revoked", "prefix", "created_at", "last_used_at")
    readonly_fields = ("prefix", "created_at", "last_used_at")

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        from documents.services.tokens import token_assign

        if change:
            super().save_model(request, obj, form, change)
            return
        raw = token_assign(obj)
        super().save_model(request, obj, form, change)
        self.message_user(
            request,
            f"Token created. Copy it now, it will not be shown again: {raw}",
            messages.WARNING,
        )


# Groups are Django's own model; their screen gains the rule for names (documents/names.py),
# which Folder, Document and ApiToken carry on their fields.
admin.site.unregister(Group)


@admin.register(Group)
class LibraryGroupAdmin(GroupAdmin):
    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> forms.Field | None:
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "name" and field is not None:
            field.validators.append(NameValidator("group name"))
        return field


class WebhookEndpointForm(forms.ModelForm):
    url = forms.URLField(
        max_length=2000, assume_scheme="https", help_text="An http or https URL; deliveries are POSTed to it."
    )
    events = forms.MultipleChoiceField(
        choices=WebhookEvent.choices, widget=forms.CheckboxSelectMultiple, help_text="What it is told of."
    )

    class Meta:
        model = WebhookEndpoint
        fields = ("name", "url", "events", "all_folders", "folders", "is_active")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not cleaned.get("all_folders") and not cleaned.get("folders"):
            raise forms.ValidationError("Choose the folders it hears of, or tick 'All folders'.")
        return cleaned


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    """Endpoints told of document events (README "Webhooks"); the secret is shown to staff here."""

    form = WebhookEndpointForm
    list_display = ("__str__", "url", "events_label", "scope_label", "is_active", "created_at")
    list_filter = ("is_active",)
    search_fields = ("name", "url")
    filter_horizontal = ("folders",)
    readonly_fields = ("secret", "created_at")
    actions = ("new_secret",)

    @admin.display(description="Events")
    def events_label(self, endpoint: WebhookEndpoint) -> str:
        return ", ".join(endpoint.events)

    @admin.display(description="Folders")
    def scope_label(self, endpoint: WebhookEndpoint) -> str:
        return "All folders" if endpoint.all_folders else ", ".join(f.path for f in endpoint.folders.all())

    def get_queryset(self, request: HttpRequest) -> QuerySet[WebhookEndpoint]:
        return super().get_queryset(request).prefetch_related("folders")

    def save_model(self, request: HttpRequest, obj: WebhookEndpoint, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not change:
            self.message_user(
                request,
                f"Endpoint created. Its signing secret (also shown on its page): {obj.secret}",
                messages.WARNING,
            )

    @admin.action(description="Generate a new secret for the selected endpoints")
    def new_secret(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in queryset:
            endpoint.secret = webhook_secret_new()
            endpoint.save(update_fields=["secret"])
        self.message_user(
            request, f"New secrets for {queryset.count()} endpoint(s); deliveries are signed with them from now on."
        )


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The delivery log: read-only, with a way to send again."""

    list_display = (
        "created_at", "event", "document_id", "endpoint", "status", "attempts", "last_response_code",
        "next_attempt_at",
    )  # fmt: skip
    list_filter = ("status", "event", "endpoint")
    search_fields = ("message_id", "document_id")
    list_select_related = ("endpoint",)
    actions = ("send_again",)
    fields = (
        "endpoint", "event", "document_id", "message_id", "status", "attempts", "created_at", "last_attempt_at",
        "next_attempt_at", "delivered_at", "last_response_code", "last_response_body", "last_error", "payload",
    )  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Send the selected deliveries again (not those delivered)")
    def send_again(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        count = deliveries_resend(queryset)
        self.message_user(request, f"Queued {count} delivery(ies) again.", messages.SUCCESS)
