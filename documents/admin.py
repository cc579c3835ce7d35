"""Staff screens: folders, documents with their processing state, bulk upload; bulk actions in admin_bulk.py."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.contrib.auth.admin import GroupAdmin
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from documents.admin_bulk import DocumentBulkActions
from documents.admin_progress import batch_documents, batch_ids, progress_cell, progress_status_view
from documents.extraction.formats import FORMATS, format_column_label
from documents.forms import DocumentUploadForm
from documents.locators import file_url
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
from documents.names import NameValidator
from documents.selectors import is_stale, stale_documents, stale_rule, visible_folder_paths
from documents.services.library import document_delete, folder_delete
from documents.services.metadata import METADATA_FIELDS, document_metadata_correct, document_metadata_reset
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

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
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


class TypeFilter(admin.SimpleListFilter):
    """The file's format, named as the list names it ("PDF", "Markdown"), whatever its media type alias."""

    title = "type"
    parameter_name = "type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [(f.key, format_column_label(f.media_type)) for f in FORMATS]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> QuerySet[Document]:
        chosen = next((f for f in FORMATS if f.key == self.value()), None)
        return queryset.filter(content_type__in=chosen.media_types) if chosen else queryset


class FolderFilter(admin.RelatedFieldListFilter):
    """Folders named by their paths, read in one query (Folder.path walks the parents one by one)."""

    def field_choices(self, field: Any, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        ids = Folder.objects.values_list("pk", flat=True)
        paths = visible_folder_paths(user=request_user(request), folder_ids=ids)
        return sorted(((str(pk), path) for pk, path in paths.items()), key=lambda choice: choice[1].casefold())


class UploadedFilter(admin.DateFieldListFilter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = "uploaded"


class IndexedFilter(admin.DateFieldListFilter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = "indexed"


# Where the list keeps each row's folder path: set per page by DocumentChangeList, read by the column.
FOLDER_PATH = "_folder_path"
SHORT_TEXT = 90  # characters of a failure reason shown in its cell; the whole reason is in the tooltip


class DocumentChangeList(ChangeList):
    """The document list, each row knowing its folder's path (one query for the page)."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        folder_ids = [document.folder_id for document in self.result_list]
        paths = visible_folder_paths(user=request_user(request), folder_ids=folder_ids)
        for document in self.result_list:
            setattr(document, FOLDER_PATH, paths.get(document.folder_id, ""))


def _shortened(text: str) -> str:
    """`text` cut to SHORT_TEXT characters, the whole in its title attribute."""
    shown = text if len(text) <= SHORT_TEXT else text[:SHORT_TEXT].rstrip() + "…"
    return format_html('<span class="cell-text" title="{}">{}</span>', text, shown)


# The change page's read-only fields, by fieldset.
FILE_FIELDS = ("original_name", "stored_as", "content_type", "size_label", "sha256", "uploaded_by", "created_at")
PROCESSING_FIELDS = (
    "status", "progress", "failure_reason", "attempts", "warnings_list", "page_count", "chunk_count", "indexed_at",
    "status_changed_at", "updated_at",
)  # fmt: skip
VERSION_FIELDS = ("extractor", "embedding_model", "embedding_dims", "pipeline", "freshness")
# The context writer (CONTEXT_WRITER) on the last indexing: failed chunks and cost.
CONTEXT_WRITER_FIELDS = (
    "context_failures", "context_cache_hits", "context_prompt_tokens", "context_cached_prompt_tokens",
    "context_completion_tokens", "context_seconds",
)  # fmt: skip


@admin.register(Document)
class DocumentAdmin(DocumentBulkActions):
    form = DocumentChangeForm
    # One column a line, so a column added or moved is a one-line change.
    list_display = (
        "title",
        "folder_path",
        "type_label",
        "status_badge",
        "progress",
        "pages",
        "chunks",
        "size_label",
        "warnings_short",
        "failure_reason_short",
        "tag_names",
    )
    list_filter = (
        "status",
        TypeFilter,
        ("folder", FolderFilter),
        "tags",
        ("created_at", UploadedFilter),
        ("indexed_at", IndexedFilter),
        FreshnessFilter,
    )
    date_hierarchy = "created_at"
    search_fields = ("title", "original_name", "authors__icontains")
    actions = ("retry_failed", "reindex", "move_to_folder", "add_tag", "remove_tag")
    autocomplete_fields = ("tags",)
    inlines = (OcrPageInline, ChunkInline)
    readonly_fields = (*FILE_FIELDS, *PROCESSING_FIELDS, *VERSION_FIELDS, *CONTEXT_WRITER_FIELDS)
    fieldsets = (
        (None, {"fields": ("folder", "title", "authors", "published", "metadata_edited", "reread", "tags")}),
        ("File", {"fields": FILE_FIELDS}),
        ("Processing", {"fields": PROCESSING_FIELDS}),
        # What indexed it: the list leaves these out, a document whose stamps differ from the settings is stale.
        ("Versions", {"fields": VERSION_FIELDS}),
        ("Context writer", {"fields": CONTEXT_WRITER_FIELDS, "classes": ("collapse",)}),
    )
    change_list_template = "admin/documents/document/change_list.html"

    class Media:
        # Live progress bars (documents/admin_progress.py) on the list and the document's page.
        css = {"all": ("css/admin-documents.css", "css/admin_progress.css")}
        js = ("js/admin_progress.js",)

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
        # A document changes folder only through the "Move" bulk action, whose confirmation says
        # that readers change with it and which moves its index along.
        return ("folder", "metadata_edited", *self.readonly_fields) if obj else self.readonly_fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        # The list never shows the text: leave the largest columns unread.
        documents = super().get_queryset(request).prefetch_related("tags")
        return documents.defer("canonical_text", "page_starts")

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return DocumentChangeList

    @admin.display(description="Folder", ordering="folder__name")
    def folder_path(self, document: Document) -> str:
        return getattr(document, FOLDER_PATH, "")

    @admin.display(description="Type", ordering="content_type")
    def type_label(self, document: Document) -> str:
        return format_column_label(document.content_type)

    @admin.display(description="Pages", ordering="page_count")
    def pages(self, document: Document) -> int | None:
        return document.page_count

    @admin.display(description="Chunks", ordering="chunk_count")
    def chunks(self, document: Document) -> int:
        return document.chunk_count

    @admin.display(description="File")
    def stored_as(self, document: Document) -> str:
        # The access-checked view, not the storage's URL: originals are never served directly
        # (under MEDIA_URL, or from a bucket), and a database or s3 storage has no URL to give.
        return format_html('<a href="{}">{}</a>', file_url(document.pk), document.file.name)

    @admin.display(description="Size", ordering="size")
    def size_label(self, document: Document) -> str:
        return filesizeformat(document.size)

    @admin.display(description="Tags")
    def tag_names(self, document: Document) -> str:
        return ", ".join(tag.name for tag in document.tags.all())

    @admin.display(description="Index")
    def freshness(self, document: Document) -> str:
        if not document.indexed_at:
            return "Not indexed yet"
        return "Stale: indexed with other settings; re-index it" if is_stale(document) else "Current"

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

    @admin.display(description="Failure reason")
    def failure_reason_short(self, document: Document) -> str:
        return _shortened(document.failure_reason) if document.failure_reason else ""

    @admin.display(description="Warnings")
    def warnings_short(self, document: Document) -> str:
        """Pages that could not be read: how many in the cell (it stays narrow), each in words in the tooltip."""
        warnings = [str(w) for w in document.warnings or []]
        if not warnings:
            return ""
        label = f"{len(warnings)} warning{'' if len(warnings) == 1 else 's'}"
        return format_html('<span class="cell-text" title="{}">{}</span>', "\n".join(warnings), label)

    @admin.display(description="Warnings")
    def warnings_list(self, document: Document) -> str:
        return format_html_join("\n", "<p>{}</p>", ((w,) for w in document.warnings or [])) or "—"

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        document_delete(document=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        # Django's "Delete selected" confirmation comes first; then each goes through the service.
        for document in queryset:
            document_delete(document=document)

    def get_deleted_objects(
        self, objs: Any, request: HttpRequest
    ) -> tuple[list[str], dict[str, int], set[str], list[str]]:
        """The delete confirmation names the documents, not each of their thousands of chunks.

        Deleting a document takes its chunks, OCR pages and index along (documents.services.library),
        so the document's own delete permission is the only one asked for.
        """
        documents = list(objs)
        paths = visible_folder_paths(user=request_user(request), folder_ids=[d.folder_id for d in documents])
        listed = [f"{d.title} ({paths.get(d.folder_id, '')}, {d.get_status_display()})" for d in documents]
        chunks = Chunk.objects.filter(document__in=[d.pk for d in documents]).count()
        counts = {"documents": len(documents), "chunks": chunks}
        refused = set() if self.has_delete_permission(request) else {"document"}
        return listed, counts, refused, []

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # The site menu beside the list would leave the columns too little room at 1280 px; the
        # breadcrumbs still lead home.
        extra_context = {
            **(extra_context or {}),
            "stale_count": stale_documents().count(),
            "is_nav_sidebar_enabled": False,
        }
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
    """Endpoints told of document events (docs/api.md "Webhooks"); the secret is shown to staff here."""

    form = WebhookEndpointForm
    list_display = ("__str__", "url", "events_label", "scope_label", "is_active", "created_at")
    list_filter = ("is_active",)
    search_fields = ("name", "url")
    filter_horizontal = ("folders",)
    readonly_fields = ("secret", "created_at")
    actions = ("new_secret",)

    def get_fields(self, request: HttpRequest, obj: WebhookEndpoint | None = None) -> Any:
        # The secret is made when the endpoint is saved: the add form shows none rather than one
        # that would not be the saved one; the saved secret is shown once created.
        fields = super().get_fields(request, obj)
        return fields if obj is not None else [f for f in fields if f not in ("secret", "created_at")]

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
        "next_attempt_at", "delivered_at", "resent_at", "resends", "last_response_code", "last_error", "payload",
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
