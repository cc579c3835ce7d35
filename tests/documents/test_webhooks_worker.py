"""Webhooks end to end: uploads processed by a real Celery worker, deliveries POSTed by it to a real
HTTP receiver in the test process, signatures verified as a receiver would."""

from __future__ import annotations

import io
import time
from typing import Any

import pytest
from django.db import transaction

from documents.models import Document, DocumentStatus, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint
from documents.services.status import document_transition
from documents.services.upload import IncomingFile, document_upload
from documents.webhooks.signing import signature_verify
from tests.conftest import bearer, wait_for
from tests.documents.webhook_receiver import Receiver
from tests.factories import FolderFactory, StaffFactory

pytestmark = [pytest.mark.worker, pytest.mark.slow]

SITE_URL = "https://library.example.org"
CORRUPT_PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not really a pdf\n%%EOF"


@pytest.fixture
def worker_env() -> dict[str, str]:
    # The receiver listens on 127.0.0.1, which is refused unless allowed; retries come after 1 s, 2 s, …
    return {"WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8", "WEBHOOK_RETRY_BASE_SECONDS": "1", "SITE_URL": SITE_URL}


def _upload(folder: Any, name: str, data: bytes) -> Document:
    return document_upload(
        folder=folder, incoming=IncomingFile(name=name, size=len(data), stream=io.BytesIO(data)), uploaded_by=None
    )


def _endpoint(url: str, events: list[str], folders: list[Any] = ()) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.create(url=url, events=events, all_folders=not folders)
    endpoint.folders.set(folders)
    return endpoint


def _verified(receiver: Receiver, path: str, endpoint: WebhookEndpoint) -> list[dict[str, Any]]:
    """The payloads the receiver accepted on `path`, each with a signature that verifies."""
    payloads = []
    for received in receiver.on(path):
        assert received.headers["Content-Type"] == "application/json"
        assert signature_verify(endpoint.secret, received.headers, received.body, now=time.time()), received.headers
        if received.code == 200:
            payloads.append(received.json)
    return payloads


def test_events_reach_a_real_receiver_signed_in_scope_and_retried(
    celery_worker_process: Any, receiver: Receiver, client: Any
) -> None:
    inside, outside = FolderFactory(name="Contracts"), FolderFactory(name="Elsewhere")
    every_event = ["document.indexed", "document.failed", "document.deleted"]
    scoped = _endpoint(receiver.url("/scoped"), every_event, [inside])
    elsewhere = _endpoint(receiver.url("/elsewhere"), every_event, [outside])
    flaky = _endpoint(receiver.url("/flaky"), ["document.indexed"])  # all folders, down twice at first
    receiver.answers["/flaky"] = [500, 500]

    # An upload whose transaction rolls back, after its document was even marked failed: nothing sent.
    def upload_then_fail() -> None:
        with transaction.atomic():
            ghost = _upload(inside, "ghost.md", b"# Ghost\n\nThis upload never commits.")
            document_transition(ghost.pk, to=DocumentStatus.FAILED, failure_reason="never seen")
            raise RuntimeError("the request fails after the upload")

    with pytest.raises(RuntimeError):
        upload_then_fail()
    assert not WebhookDelivery.objects.exists()

    good = _upload(inside, "lease.md", b"# Lease\n\nThe tenant pays the rent on the first day of each month.")
    bad = _upload(inside, "scan.pdf", CORRUPT_PDF)

    def log() -> str:
        return f"{list(WebhookDelivery.objects.values())}\n{celery_worker_process.log()}"

    wait_for(lambda: len(_verified(receiver, "/scoped", scoped)) == 2, what=lambda: f"two events\n{log()}")
    by_event = {p["event"]: p for p in _verified(receiver, "/scoped", scoped)}
    indexed, failed = by_event["document.indexed"], by_event["document.failed"]
    assert indexed["document"] == {
        "id": good.pk,
        "title": "Lease",  # the first heading, read by extraction
        "folder": {"id": inside.pk, "name": "Contracts", "path": "Contracts"},
        "type": "markdown",
        "content_type": "text/markdown",
        "status": "indexed",
        "failure_reason": "",
        "url": f"{SITE_URL}/api/documents/{good.pk}",
        "viewer_url": f"{SITE_URL}/documents/{good.pk}/view",
    }
    assert indexed["time"].endswith("+00:00")
    assert failed["document"]["id"] == bad.pk
    assert "PDF" in failed["document"]["failure_reason"]
    assert failed["document"]["failure_reason"] == Document.objects.get(pk=bad.pk).failure_reason

    # Down twice, then up: the third attempt is delivered, with the same webhook-id every time.
    wait_for(lambda: _verified(receiver, "/flaky", flaky), what=lambda: f"the retried delivery\n{log()}")
    attempts = receiver.on("/flaky")
    assert [a.code for a in attempts] == [500, 500, 200]
    assert len({a.headers["webhook-id"] for a in attempts}) == 1
    # The receiver answers before the worker records its answer: wait for the row, then check it.
    wait_for(
        lambda: WebhookDelivery.objects.get(endpoint=flaky).status != "pending",
        what=lambda: f"the delivery recorded\n{log()}",
    )
    delivery = WebhookDelivery.objects.get(endpoint=flaky)
    assert (delivery.status, delivery.attempts, delivery.last_response_code) == ("delivered", 3, 200)
    assert delivery.document_id == good.pk

    # Deleted through the API: the scoped endpoint hears of it.
    response = client.delete(f"/api/documents/{good.pk}", **bearer(StaffFactory(username="librarian")))
    assert response.status_code == 204, response.content
    wait_for(lambda: len(_verified(receiver, "/scoped", scoped)) == 3, what=lambda: f"the delete\n{log()}")
    deleted = _verified(receiver, "/scoped", scoped)[-1]
    assert deleted["event"] == "document.deleted"
    assert (deleted["document"]["id"], deleted["document"]["status"]) == (good.pk, "deleted")

    # Nothing of the other folder's endpoint, nothing of the rolled-back upload, each event once.
    assert receiver.on("/elsewhere") == []
    assert not WebhookDelivery.objects.filter(endpoint=elsewhere).exists()
    assert all(b"ghost" not in r.body and b"never seen" not in r.body for r in receiver.requests)
    assert len(receiver.on("/scoped")) == 3
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {WebhookDeliveryStatus.DELIVERED}
