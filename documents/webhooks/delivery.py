"""Sending a recorded delivery: one signed POST per attempt, retried with exponential backoff.

An attempt first claims the row with a guarded UPDATE (pending and due), pushing its next
attempt past the request's timeout, so two runs (a retry message and the sweep) never send
it twice at once, and a worker killed mid-request leaves it due again a minute later. Failed
attempts are retried after WEBHOOK_RETRY_BASE_SECONDS × 2^(attempts − 1), the last one when
WEBHOOK_RETRY_HOURS have passed since the event; then the delivery is given up ("failed").

What is checked of the URL, once when it is saved and again when it is sent:
documents/webhooks/address.py. The request goes to the address checked there, redirects are not
followed, and nothing of the receiver's reply is kept but its status code. A delivery refused for
its address fails at once; other failures are retried.
"""

from __future__ import annotations

import http
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from documents.models import WebhookDelivery, WebhookDeliveryStatus
from documents.webhooks.address import AddressRefused, HostUnresolved, WebhookTarget, webhook_target
from documents.webhooks.signing import signature_headers

logger = logging.getLogger(__name__)

S = WebhookDeliveryStatus
# A message arriving a moment before the row says it is due still counts as due.
DUE_SLACK = timedelta(seconds=2)


@dataclass(frozen=True)
class AttemptResult:
    code: int | None = None
    error: str = ""
    final: bool = False  # no later attempt can succeed (the address is refused)

    @property
    def ok(self) -> bool:
        return self.code is not None and 200 <= self.code < 300


def _post(delivery: WebhookDelivery) -> AttemptResult:
    endpoint = delivery.endpoint
    try:
        target = webhook_target(endpoint.url)
    except AddressRefused as exc:
        return AttemptResult(error=f"Not sent: {exc}.", final=True)
    except HostUnresolved as exc:
        return AttemptResult(error=f"Not sent: {exc}.")
    body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()
    headers = {
        "Host": target.url.host_header,
        "Content-Type": "application/json",
        "User-Agent": "ragsite-webhooks/1",
        **signature_headers(endpoint.secret, delivery.message_id, int(time.time()), body),
    }
    try:
        code = _send(target, body, headers)
    except Exception as exc:  # the HTTP client's many errors, told as one plain sentence each
        return AttemptResult(error=send_error_sentence(exc))
    if 200 <= code < 300:
        return AttemptResult(code=code)
    error = f"The receiver answered {code} ({status_phrase(code)})"
    if 300 <= code < 400:
        error += "; redirects are not followed"
    return AttemptResult(code=code, error=error + ".")


def _send(target: WebhookTarget, body: bytes, headers: dict[str, str]) -> int:
    """POST to the checked address (the name is not resolved again) and return the status code;
    the reply's body is never read."""
    import certifi
    import urllib3  # lazily: only the worker sends

    timeout = urllib3.Timeout(connect=settings.WEBHOOK_TIMEOUT_SECONDS, read=settings.WEBHOOK_TIMEOUT_SECONDS)
    options: dict[str, Any] = {"timeout": timeout, "retries": False, "maxsize": 1}
    pool: urllib3.HTTPConnectionPool
    if target.url.scheme == "https":
        name = None if target.url.host == str(target.address) else target.url.host
        pool = urllib3.HTTPSConnectionPool(
            str(target.address), target.url.port, server_hostname=name, assert_hostname=name or False,
            cert_reqs="CERT_REQUIRED", ca_certs=certifi.where(), **options,
        )  # fmt: skip
    else:
        pool = urllib3.HTTPConnectionPool(str(target.address), target.url.port, **options)
    with pool:
        response = pool.urlopen(
            "POST", target.url.request_target, body=body, headers=headers, redirect=False,
            assert_same_host=False, preload_content=False,
        )  # fmt: skip
        response.release_conn()
        return int(response.status)


def send_error_sentence(exc: Exception) -> str:
    """One plain sentence for a failed request, never the HTTP client's own text."""
    import urllib3.exceptions as errors

    seconds = f"{settings.WEBHOOK_TIMEOUT_SECONDS:g} s"
    # urllib3's NewConnectionError is a ConnectTimeoutError too: ask for it first.
    if isinstance(exc, errors.NewConnectionError | ConnectionRefusedError):
        return "The receiver refused the connection."
    if isinstance(exc, errors.ConnectTimeoutError):
        return f"The receiver did not accept a connection within {seconds}."
    if isinstance(exc, errors.ReadTimeoutError | TimeoutError):
        return f"The receiver did not answer within {seconds}."
    if isinstance(exc, errors.SSLError):
        return "The receiver's TLS certificate could not be verified."
    if isinstance(exc, errors.ProtocolError):
        return "The connection was closed before the receiver answered."
    return f"The request could not be sent ({type(exc).__name__})."


def status_phrase(code: int) -> str:
    try:
        return http.HTTPStatus(code).phrase
    except ValueError:
        return "an unknown status"


def _claim(delivery_id: int) -> bool:
    now = timezone.now()
    lease = now + timedelta(seconds=2 * settings.WEBHOOK_TIMEOUT_SECONDS + 60)
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=S.PENDING, next_attempt_at__lte=now + DUE_SLACK
    ).update(next_attempt_at=lease, attempts=F("attempts") + 1, last_attempt_at=now)
    return bool(claimed)


def retry_at(delivery: WebhookDelivery) -> datetime | None:
    """When the next attempt is due after the delivery's failed attempts; None once the day is over.

    The day starts at the event, or at the last time staff sent the delivery again."""
    now = timezone.now()
    give_up_at = (delivery.resent_at or delivery.created_at) + timedelta(hours=settings.WEBHOOK_RETRY_HOURS)
    if now >= give_up_at:
        return None
    delay = timedelta(seconds=settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** max(0, delivery.attempts - 1))
    return min(now + delay, give_up_at)


def delivery_attempt(delivery_id: int) -> WebhookDelivery | None:
    """Send a due delivery once and record the outcome; None when it was not due."""
    if not _claim(delivery_id):
        return None
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    if not delivery.endpoint.is_active:
        result = AttemptResult(error="The endpoint was deactivated before this delivery was sent.", final=True)
    else:
        result = _post(delivery)
    delivery.next_attempt_at = None if result.ok or result.final else retry_at(delivery)
    delivery.last_response_code = result.code
    delivery.last_error = result.error
    if result.ok:
        delivery.status, delivery.delivered_at = S.DELIVERED, timezone.now()
    elif delivery.next_attempt_at is None:
        delivery.status = S.FAILED
    if not result.ok:
        logger.warning("webhook delivery %s, attempt %s: %s", delivery.pk, delivery.attempts, result.error)
    delivery.save(
        update_fields=[
            "status", "delivered_at", "next_attempt_at", "last_response_code", "last_error",
        ]
    )  # fmt: skip
    return delivery


def deliveries_due(limit: int = 1000) -> list[int]:
    """Pending deliveries whose next attempt is due, oldest first."""
    due = WebhookDelivery.objects.filter(status=S.PENDING, next_attempt_at__lte=timezone.now())
    return list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:limit])
