"""Recording document events for the endpoints that asked for them, in the caller's transaction.

One `WebhookDelivery` row per (event, endpoint) is written beside the change that caused it, and
its first attempt is queued once that transaction commits: a rolled-back change leaves no row
and sends nothing, and a committed one is sent even if the message is lost (the sweep in
documents/webhooks/delivery.py finds the row). The payload is frozen here, while the document
still exists: a deleted one is gone by the time its event is sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import F, QuerySet
from django.urls import reverse
from django.utils import timezone

from documents.locators import viewer_url
from documents.models import (
    Document,
    DocumentStatus,
    WebhookDelivery,
    WebhookDeliveryStatus,
    WebhookEndpoint,
    WebhookEvent,
)
from documents.references import document_ref, folder_ref
from documents.webhooks.tasks import webhook_deliver_task
from ragsite.site_url import absolute_url

EVENT_FOR_STATUS = {
    DocumentStatus.INDEXED: WebhookEvent.DOCUMENT_INDEXED,
    DocumentStatus.FAILED: WebhookEvent.DOCUMENT_FAILED,
}


def document_reference(document: Document, event: WebhookEvent) -> dict[str, Any]:
    # The worker has no request to take a host from: URLs are under SITE_URL (site-relative without).
    folder = document.folder
    gone = event == WebhookEvent.DOCUMENT_DELETED
    return {
        **document_ref(
            document.pk, document.title, folder_ref(folder.pk, folder.name, folder.path), document.content_type
        ),
        "content_type": document.content_type,
        "status": "deleted" if gone else document.status,
        "failure_reason": document.failure_reason if event == WebhookEvent.DOCUMENT_FAILED else "",
        "url": None if gone else absolute_url(reverse("api:document_detail", kwargs={"document_id": document.pk})),
        "viewer_url": None if gone else absolute_url(viewer_url(document.pk)),
    }


def _covers(endpoint: WebhookEndpoint, folder_id: int) -> bool:
    # The scope is the folders chosen, each by itself (folder permissions do not inherit either).
    return endpoint.all_folders or any(f.pk == folder_id for f in endpoint.folders.all())


def webhook_events_record(event: WebhookEvent, documents: Iterable[Document]) -> list[int]:
    """Deliveries of `event` about `documents` to every active endpoint whose events and scope
    include it; returns their ids. Call it inside the transaction that makes the change."""
    endpoints = list(
        WebhookEndpoint.objects.filter(is_active=True, events__contains=[event.value]).prefetch_related("folders")
    )
    if not endpoints:
        return []
    now = timezone.now()
    rows: list[WebhookDelivery] = []
    for document in documents:
        message = {"event": event.value, "time": now.isoformat(), "document": document_reference(document, event)}
        for endpoint in endpoints:
            if _covers(endpoint, document.folder_id):
                message_id = f"msg_{uuid.uuid4().hex}"
                rows.append(
                    WebhookDelivery(
                        endpoint=endpoint,
                        message_id=message_id,
                        event=event.value,
                        document_id=document.pk,
                        payload={"id": message_id, **message},
                        next_attempt_at=now,
                    )
                )
    ids = [row.pk for row in WebhookDelivery.objects.bulk_create(rows)]
    for delivery_id in ids:
        transaction.on_commit(partial(webhook_deliver_task.delay, delivery_id))
    return ids


def document_status_event(document_id: int, status: DocumentStatus) -> None:
    """The event of a document that just moved to `status`, if that status has one."""
    event = EVENT_FOR_STATUS.get(status)
    if event is None or not WebhookEndpoint.objects.filter(is_active=True, events__contains=[event.value]).exists():
        return
    document = Document.objects.select_related("folder").filter(pk=document_id).first()
    if document is not None:
        webhook_events_record(event, [document])


def documents_deleted_event(documents: Iterable[Document]) -> None:
    """`document.deleted` for documents about to be deleted (call it before the DELETE)."""
    webhook_events_record(WebhookEvent.DOCUMENT_DELETED, documents)


def deliveries_resend(deliveries: QuerySet[WebhookDelivery]) -> int:
    """Make deliveries due now (a given-up one pending again, its day of retries starting over) and queue
    them; each keeps the time of its event and counts the resend."""
    with transaction.atomic():
        ids = list(deliveries.exclude(status=WebhookDeliveryStatus.DELIVERED).values_list("pk", flat=True))
        now = timezone.now()
        WebhookDelivery.objects.filter(pk__in=ids).update(
            status=WebhookDeliveryStatus.PENDING, next_attempt_at=now, resent_at=now, resends=F("resends") + 1
        )
        for delivery_id in ids:
            transaction.on_commit(partial(webhook_deliver_task.delay, delivery_id))
    return len(ids)
