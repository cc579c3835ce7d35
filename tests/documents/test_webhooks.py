"""Webhooks in one process: recording with the change, scope, signatures, the URL checks, the
backoff, and the admin screens. Sending through a real worker: test_webhooks_worker.py."""

from __future__ import annotations

import ipaddress
import socket
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.test import Client
from django.utils import timezone

from documents.models import (
    DocumentStatus,
    WebhookDelivery,
    WebhookDeliveryStatus,
    WebhookEndpoint,
    WebhookEvent,
)
from documents.services.library import document_delete, folder_delete
from documents.services.queueing import documents_requeue
from documents.services.status import document_transition
from documents.webhooks.address import AddressRefused, webhook_target, webhook_url_validate
from documents.webhooks.delivery import delivery_attempt, retry_at
from documents.webhooks.signing import signature, signature_headers, signature_verify
from tests.documents.webhook_receiver import Receiver
from tests.factories import DocumentFactory, FolderFactory, StaffFactory, UserFactory

ALL_EVENTS = [e.value for e in WebhookEvent]


def _endpoint(url: str, *, folders: list[Any] = (), events: list[str] = ALL_EVENTS, **kw: Any) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.create(url=url, events=events, all_folders=not folders, **kw)
    endpoint.folders.set(folders)
    return endpoint


# --- signatures ------------------------------------------------------------------------------


def test_signature_matches_the_standard_webhooks_test_vector() -> None:
    # The example of the Standard Webhooks specification: any receiver library accepts ours.
    assert (
        signature(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            b'{"test": 2432232314}',
        )
        == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )


def test_signature_verifies_and_refuses_tampering_and_replays(db: None) -> None:
    secret = WebhookEndpoint.objects.create(url="https://example.org/", events=ALL_EVENTS, all_folders=True).secret
    assert secret.startswith("whsec_")
    now = int(time.time())
    body = b'{"event":"document.indexed"}'
    headers = signature_headers(secret, "msg_1", now, body)
    assert signature_verify(secret, headers, body, now=now)
    assert not signature_verify(secret, headers, body + b" ", now=now)
    assert not signature_verify("whsec_" + "A" * 44, headers, body, now=now)
    assert not signature_verify(secret, {**headers, "webhook-id": "msg_2"}, body, now=now)
    assert not signature_verify(secret, headers, body, now=now + 3600)  # a replay an hour later


# --- recording: once, in the transaction, in scope ------------------------------------------------


def test_status_moves_record_one_delivery_each_and_only_for_final_states(db: None) -> None:
    endpoint = _endpoint("https://example.org/hook")
    document = DocumentFactory(status=DocumentStatus.EMBEDDING)
    assert document_transition(document.pk, to=DocumentStatus.INDEXED)
    assert not document_transition(document.pk, to=DocumentStatus.INDEXED)  # not from indexed: no second event
    documents_requeue(type(document).objects.filter(pk=document.pk))  # queued: no event
    document_transition(document.pk, to=DocumentStatus.FAILED, failure_reason="The file is damaged.")
    deliveries = list(WebhookDelivery.objects.filter(endpoint=endpoint).order_by("id"))
    assert [d.event for d in deliveries] == ["document.indexed", "document.failed"]
    failed = deliveries[1].payload
    assert failed["event"] == "document.failed"
    assert failed["id"] == deliveries[1].message_id
    assert failed["document"]["failure_reason"] == "The file is damaged."
    assert failed["document"]["status"] == "failed"
    assert failed["document"]["folder"] == {
        "id": document.folder_id,
        "name": document.folder.name,
        "path": document.folder.path,
    }
    assert failed["document"]["type"] == "plaintext"
    assert deliveries[0].payload["document"]["failure_reason"] == ""
    assert all(d.status == WebhookDeliveryStatus.PENDING and d.next_attempt_at for d in deliveries)


def test_a_rolled_back_change_records_nothing(db: None) -> None:
    _endpoint("https://example.org/hook")
    document = DocumentFactory(status=DocumentStatus.EMBEDDING)

    def move_then_fail() -> None:
        with transaction.atomic():
            assert document_transition(document.pk, to=DocumentStatus.INDEXED)
            assert WebhookDelivery.objects.count() == 1
            raise RuntimeError("the caller's transaction fails after the move")

    with pytest.raises(RuntimeError):
        move_then_fail()
    assert WebhookDelivery.objects.count() == 0
    document.refresh_from_db()
    assert document.status == DocumentStatus.EMBEDDING


def test_scope_events_and_inactive_endpoints(db: None) -> None:
    inside, outside, child = FolderFactory(name="Inside"), FolderFactory(name="Outside"), None
    child = FolderFactory(name="Child", parent=inside)
    scoped = _endpoint("https://example.org/scoped", folders=[inside])
    everywhere = _endpoint("https://example.org/all")
    only_deleted = _endpoint("https://example.org/deleted", events=["document.deleted"])
    _endpoint("https://example.org/off", is_active=False)
    for folder in (inside, outside, child):
        document = DocumentFactory(folder=folder, status=DocumentStatus.EMBEDDING)
        document_transition(document.pk, to=DocumentStatus.INDEXED)
    got = {(d.endpoint.url, d.payload["document"]["folder"]["name"]) for d in WebhookDelivery.objects.all()}
    assert got == {
        (scoped.url, "Inside"),  # its folder only: neither Outside nor the subfolder
        (everywhere.url, "Inside"),
        (everywhere.url, "Outside"),
        (everywhere.url, "Child"),
    }
    assert not WebhookDelivery.objects.filter(endpoint=only_deleted).exists()


def test_deletes_record_document_deleted_with_the_document_as_it_was(db: None) -> None:
    folder = FolderFactory(name="Reports")
    sub = FolderFactory(name="2026", parent=folder)
    endpoint = _endpoint("https://example.org/hook", events=["document.deleted"])
    single = DocumentFactory(folder=folder, title="Single", status=DocumentStatus.INDEXED)
    in_sub = [DocumentFactory(folder=sub, title=f"Sub {n}", text=f"Text {n}") for n in range(2)]
    document_delete(document=single)
    assert folder_delete(folder=folder) == 2
    deliveries = WebhookDelivery.objects.filter(endpoint=endpoint)
    assert sorted(d.document_id for d in deliveries) == sorted([single.pk, *(d.pk for d in in_sub)])
    payload = deliveries.get(document_id=single.pk).payload
    assert payload["document"]["title"] == "Single"
    assert payload["document"]["status"] == "deleted"
    assert payload["document"]["folder"]["path"] == "Reports"
    assert payload["document"]["url"] is None


def test_urls_are_absolute_under_site_url(db: None, settings: Any) -> None:
    settings.SITE_URL = "https://library.example.org"
    _endpoint("https://example.org/hook")
    document = DocumentFactory(status=DocumentStatus.EMBEDDING)
    document_transition(document.pk, to=DocumentStatus.INDEXED)
    reference = WebhookDelivery.objects.get().payload["document"]
    assert reference["url"] == f"https://library.example.org/api/documents/{document.pk}"
    assert reference["viewer_url"].startswith("https://library.example.org/")


# --- sending (inline) ------------------------------------------------------------------------------


def _first_delivery(url: str) -> WebhookDelivery:
    """An endpoint at `url`, a document indexed, and the first attempt of the delivery it records."""
    endpoint = _endpoint(url)
    document = DocumentFactory(status=DocumentStatus.EMBEDDING)
    document_transition(document.pk, to=DocumentStatus.INDEXED)
    delivery = delivery_attempt(WebhookDelivery.objects.get(endpoint=endpoint).pk)
    assert delivery is not None
    return delivery


LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"),)

# URLs no webhook may reach: each is refused when saved and when sent.
REFUSED_URLS = [
    "ftp://example.org/hook",
    "file:///etc/passwd",
    "http://127.0.0.1:8000/",
    "http://127.0.0.1:8199\\@8.8.8.8/hook",  # urlsplit reads 8.8.8.8; an HTTP client connects to 127.0.0.1
    "http://user:pass@8.8.8.8/hook",  # userinfo: parsers disagree about where the host starts
    "http://8.8.8.8@127.0.0.1/hook",
    "http://%31%32%37.0.0.1/hook",  # a percent-encoded host
    "http://[::ffff:127.0.0.1]/hook",  # IPv4-mapped IPv6
    "http://[::ffff:7f00:1]/hook",
    "http://[2002:7f00:1::]/hook",  # 6to4 carrying 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/hook",  # NAT64 carrying 169.254.169.254
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata
    "http://10.0.0.7/",
    "http://[::1]/",
    "http://localhost/",  # a name resolving to 127.0.0.1
    "http://localhost:6379/",
    "http://2130706433/",  # 127.0.0.1 written as one number: resolved, then refused
    "http://0x7f.1/",
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_a_url_outside_the_public_internet_is_refused_to_send(url: str) -> None:
    with pytest.raises(AddressRefused):
        webhook_target(url)


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_a_url_outside_the_public_internet_is_refused_to_save(db: None, url: str) -> None:
    endpoint = WebhookEndpoint(name="probe", url=url, events=ALL_EVENTS, all_folders=True)
    with pytest.raises(ValidationError):
        endpoint.full_clean()


@pytest.mark.parametrize("url", ["http://127.0.0.1:8199\\@8.8.8.8/hook", "http://[::ffff:127.0.0.1]:8199/"])
def test_a_parser_confusion_stays_refused_when_the_network_is_allowed(settings: Any, url: str) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    with pytest.raises(AddressRefused):
        webhook_target(url)


def test_allowed_networks_admit_an_internal_receiver(settings: Any) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    target = webhook_target("http://localhost:8199/hook?x=1")
    assert target.address == ipaddress.ip_address("127.0.0.1") or target.address.is_loopback
    assert target.url.request_target == "/hook?x=1"
    assert target.url.host_header == "localhost:8199"
    with pytest.raises(AddressRefused):
        webhook_target("http://169.254.169.254/")  # only the listed networks


def test_a_public_url_is_accepted() -> None:
    target = webhook_target("https://93.184.215.14/hook")
    assert str(target.address) == "93.184.215.14"
    webhook_url_validate("https://93.184.215.14/hook")


def test_a_refused_address_fails_at_once_and_reaches_nobody(db: None, receiver: Receiver) -> None:
    # The receiver listens on 127.0.0.1; the URL's other reading names a public address.
    port = receiver.base_url.rsplit(":", 1)[1]
    for url in (receiver.url("/hook"), f"http://127.0.0.1:{port}\\@8.8.8.8/hook"):
        WebhookDelivery.objects.all().delete()
        WebhookEndpoint.objects.all().delete()
        # Written around the form's check, as an old row or an import would be.
        delivery = _first_delivery(url)
        assert delivery.status == WebhookDeliveryStatus.FAILED  # at once: no day of retries
        assert delivery.next_attempt_at is None
        assert delivery.last_error.startswith("Not sent: ")
        assert delivery.last_response_code is None
    assert receiver.requests == []


def test_the_name_is_resolved_once_and_the_checked_address_is_reached(
    db: None, settings: Any, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A name that resolves to an allowed address when checked and elsewhere later (DNS rebinding)
    # is reached at the checked address: the sender never resolves the name again.
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    port = int(receiver.base_url.rsplit(":", 1)[1])
    real_getaddrinfo = socket.getaddrinfo
    lookups: list[str] = []

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.example.org":
            lookups.append(host)
            address = "127.0.0.1" if len(lookups) == 1 else "10.9.9.9"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    delivery = _first_delivery(f"http://hooks.example.org:{port}/hook")
    assert delivery.status == WebhookDeliveryStatus.DELIVERED
    assert lookups == ["hooks.example.org"]
    (received,) = receiver.on("/hook")
    assert received.headers["Host"] == f"hooks.example.org:{port}"


def test_nothing_of_the_reply_is_kept_but_its_status(db: None, settings: Any, receiver: Receiver) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    receiver.answers["/secret"] = [500]
    delivery = _first_delivery(receiver.url("/secret"))
    assert delivery.last_response_code == 500
    assert delivery.last_error == "The receiver answered 500 (Internal Server Error)."
    assert "maintenance" not in str(WebhookDelivery.objects.filter(pk=delivery.pk).values().get())


def test_a_receiver_that_is_not_listening_gets_one_plain_sentence(db: None, settings: Any) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    delivery = _first_delivery(f"http://127.0.0.1:{port}/hook")
    assert delivery.last_error == "The receiver refused the connection."
    assert delivery.status == WebhookDeliveryStatus.PENDING  # retried: a receiver may come back


def test_backoff_doubles_then_gives_up_after_the_day(db: None, settings: Any, receiver: Receiver) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    settings.WEBHOOK_RETRY_BASE_SECONDS = 30
    receiver.answers["/down"] = [500] * 10
    _endpoint(receiver.url("/down"))
    document = DocumentFactory(status=DocumentStatus.EMBEDDING)
    document_transition(document.pk, to=DocumentStatus.INDEXED)
    pk = WebhookDelivery.objects.get().pk
    waits = []
    for _ in range(3):
        before = timezone.now()
        delivery = delivery_attempt(pk)
        assert delivery is not None
        assert delivery_attempt(pk) is None  # not due again yet: a second run sends nothing
        waits.append(round((delivery.next_attempt_at - before).total_seconds()))
        WebhookDelivery.objects.filter(pk=pk).update(next_attempt_at=timezone.now())
    assert waits == [30, 60, 120]
    assert delivery.attempts == 3
    assert delivery.last_response_code == 500
    assert delivery.last_error == "The receiver answered 500 (Internal Server Error)."
    WebhookDelivery.objects.filter(pk=pk).update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
    delivery = delivery_attempt(pk)
    assert delivery.status == WebhookDeliveryStatus.FAILED
    assert delivery.next_attempt_at is None
    assert len(receiver.on("/down")) == 4


def test_a_redirect_is_not_followed(db: None, settings: Any, receiver: Receiver) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    receiver.answers["/moved"] = [302]
    delivery = _first_delivery(receiver.url("/moved"))
    assert delivery.last_response_code == 302
    assert "redirects are not followed" in delivery.last_error
    assert delivery.status == WebhookDeliveryStatus.PENDING


# --- admin -----------------------------------------------------------------------------------------


def test_admin_registers_an_endpoint_and_shows_its_secret_and_log(client: Client, db: None) -> None:
    folder = FolderFactory(name="Contracts")
    client.force_login(StaffFactory(username="librarian"))
    add_form = client.get("/admin/documents/webhookendpoint/add/").content.decode()
    assert "whsec_" not in add_form  # no secret is shown that would not be the one saved
    internal = client.post(
        "/admin/documents/webhookendpoint/add/",
        {"name": "CRM", "url": "http://169.254.169.254/hook", "events": ["document.indexed"], "all_folders": "on"},
    )
    assert "This URL cannot receive webhooks" in internal.content.decode()
    refused = client.post(
        "/admin/documents/webhookendpoint/add/",
        {"name": "CRM", "url": "ftp://crm.example.org/hook", "events": ["document.indexed"], "folders": [folder.pk]},
    )
    assert refused.status_code == 200
    assert "Enter a valid URL." in refused.content.decode()
    unscoped = client.post(
        "/admin/documents/webhookendpoint/add/",
        {"name": "CRM", "url": "https://crm.example.org/hook", "events": ["document.indexed"]},
    )
    assert "or tick" in unscoped.content.decode()
    assert not WebhookEndpoint.objects.exists()
    created = client.post(
        "/admin/documents/webhookendpoint/add/",
        {
            "name": "CRM",
            "url": "https://crm.example.org/hook",
            "events": ["document.indexed"],
            "folders": [folder.pk],
            "is_active": "on",
        },
        follow=True,
    )
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.events == ["document.indexed"]
    assert list(endpoint.folders.all()) == [folder]
    assert endpoint.secret in created.content.decode()
    change = client.get(f"/admin/documents/webhookendpoint/{endpoint.pk}/change/")
    assert change.status_code == 200
    assert endpoint.secret in change.content.decode()
    document = DocumentFactory(folder=folder, status=DocumentStatus.EMBEDDING)
    document_transition(document.pk, to=DocumentStatus.INDEXED)
    delivery = WebhookDelivery.objects.get()
    log = client.get("/admin/documents/webhookdelivery/")
    assert log.status_code == 200
    assert "document.indexed" in log.content.decode()
    detail = client.get(f"/admin/documents/webhookdelivery/{delivery.pk}/change/")
    assert detail.status_code == 200
    assert delivery.message_id in detail.content.decode()
    assert client.get("/admin/documents/webhookendpoint/").status_code == 200
    assert client.get("/admin/documents/webhookdelivery/add/").status_code == 403


def test_send_again_makes_a_given_up_delivery_due(client: Client, db: None) -> None:
    _endpoint("https://example.org/hook")
    document = DocumentFactory(status=DocumentStatus.EMBEDDING)
    document_transition(document.pk, to=DocumentStatus.INDEXED)
    delivery = WebhookDelivery.objects.get()
    event_time = timezone.now() - timedelta(hours=30)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=WebhookDeliveryStatus.FAILED, next_attempt_at=None, created_at=event_time
    )
    client.force_login(StaffFactory(username="librarian"))
    response = client.post(
        "/admin/documents/webhookdelivery/", {"action": "send_again", "_selected_action": [delivery.pk]}
    )
    assert response.status_code == 302
    delivery.refresh_from_db()
    assert delivery.status == WebhookDeliveryStatus.PENDING
    assert delivery.next_attempt_at is not None
    assert delivery.created_at == event_time  # the event's time is kept
    assert delivery.resends == 1
    assert delivery.resent_at is not None
    assert delivery.resent_at > event_time
    assert retry_at(delivery) is not None  # a new day of retries from the resend


def test_admin_webhook_pages_are_closed_to_non_staff(client: Client, db: None) -> None:
    endpoint = _endpoint("https://example.org/hook")
    client.force_login(UserFactory(username="reader"))
    for path in (
        "/admin/documents/webhookendpoint/",
        f"/admin/documents/webhookendpoint/{endpoint.pk}/change/",
        "/admin/documents/webhookdelivery/",
    ):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")
        assert endpoint.secret not in response.content.decode()


def test_the_readme_verification_snippet_verifies_our_signature(db: None) -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    section = readme.split("### Webhooks", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(snippet, namespace)
    secret = WebhookEndpoint.objects.create(url="https://example.org/", events=ALL_EVENTS, all_folders=True).secret
    body = b'{"event":"document.deleted"}'
    headers = signature_headers(secret, "msg_readme", int(time.time()), body)
    assert namespace["verify"](secret, headers, body)
    assert not namespace["verify"](secret, headers, body.replace(b"deleted", b"indexed"))
