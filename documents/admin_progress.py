"""Live progress in the admin: the bar a document's row and page show, and the JSON it is refreshed from.

The document list, a document's page and the upload page render `progress_cell` for each
document; static/js/admin_progress.js polls `progress_status_view` every two seconds while any
of them is queued or processing, and redraws the bar, its text, the estimate and the status
word, so staff watch a long OCR job move without reloading. The JSON is for staff only: anyone
else gets the site's 404, like a page that does not exist.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.cache import never_cache

from documents.models import PROCESSING_STATUSES, Document, DocumentStatus
from documents.progress import progress_of

# Statuses a page keeps polling for: a queued document is about to start.
UNFINISHED = frozenset({DocumentStatus.QUEUED, *PROCESSING_STATUSES})
# Ids one request may ask about: a page of the list (up to a few hundred rows) or one upload batch.
MAX_IDS = 500
PROGRESS_FIELDS = (
    "status", "failure_reason", "progress_stage", "progress_done", "progress_total", "progress_started_at",
    "progress_updated_at",
)  # fmt: skip


def document_state(document: Document, now: datetime) -> dict[str, Any]:
    """What the page redraws of one document: its status word and its progress (or null)."""
    found = progress_of(document, document.status in PROCESSING_STATUSES, now)
    return {
        "id": document.pk,
        "status": document.status,
        "status_label": document.get_status_display(),
        "unfinished": document.status in UNFINISHED,
        "failure_reason": document.failure_reason,
        "progress": found.as_dict() if found else None,
    }


def progress_cell(document: Document) -> str:
    """The progress bar of one document (templates/admin/documents/document/progress_cell.html)."""
    context = {"state": document_state(document, timezone.now())}
    return render_to_string("admin/documents/document/progress_cell.html", context)


def batch_ids(raw: str) -> list[int]:
    """The ids of `?batch=3,4,5` (the upload page's last batch), at most MAX_IDS, junk ignored."""
    ids = [int(part) for part in raw.split(",") if part.strip().isdigit()]
    return list(dict.fromkeys(ids))[:MAX_IDS]


def batch_documents(ids: list[int]) -> list[Document]:
    return list(Document.objects.filter(pk__in=ids).select_related("folder").order_by("pk"))


def can_watch(request: HttpRequest) -> bool:
    user: Any = request.user  # a User or an AnonymousUser: both answer these
    return bool(user.is_active and user.is_staff and user.has_perm("documents.view_document"))


@never_cache
def progress_status_view(request: HttpRequest) -> JsonResponse:
    """`?id=3&id=4`: those documents' status and progress, for staff who may view documents."""
    if not can_watch(request):
        raise Http404("No such page.")
    ids = [int(value) for value in request.GET.getlist("id") if value.isdigit()][:MAX_IDS]
    now = timezone.now()
    documents = Document.objects.filter(pk__in=ids).only(*PROGRESS_FIELDS).order_by("pk")
    states = [document_state(document, now) for document in documents]
    return JsonResponse({"documents": states, "unfinished": any(s["unfinished"] for s in states)})
