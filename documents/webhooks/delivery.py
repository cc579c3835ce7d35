"""Sending a recorded delivery: one signed POST per attempt, retried with exponential backoff.

An attempt first claims the row with a guarded UPDATE (pending and due), pushing its next
attempt past the request's timeout, so two runs (a retry message and the sweep) never send
it twice at once, and a worker killed mid-request leaves it due again a minute later. Failed
attempts are retried after WEBHOOK_RETRY_BASE_SECONDS × 2^(attempts − 1), the last one when
WEBHOOK_RETRY_HOURS have passed since the event; then the delivery is given up ("failed").

What is checked of the URL (README "Webhooks"): the scheme is http or https; redirects are not
followed; unless WEBHOOK_ALLOW_PRIVATE_ADDRESSES, every address the host name resolves to must be
a public one (no loopback, private, link-local such as cloud metadata, or reserved address).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from documents.models import WebhookDelivery, WebhookDeliveryStatus
from documents.webhooks.signing import signature_headers

logger = logging.getLogger(__name__)

S = WebhookDeliveryStatus
BODY_EXCERPT_CHARS = 1000
# A message arriving a moment before the row says it is due still counts as due.
DUE_SLACK = timedelta(seconds=2)


class AddressRefused(Exception):
    """The URL may not be sent to (scheme, or an address outside the public internet)."""


@dataclass(frozen=True)
class AttemptResult:
    code: int | None = None
    body: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.code is not None and 200 <= self.code < 300


def url_check(url: str) -> None:
    """Raise AddressRefused unless `url` is http(s) to a host whose addresses may be reached."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused(f"only http and https URLs are sent to, not {url!r}")
    if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        return
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except (socket.gaierror, UnicodeError) as exc:
        raise AddressRefused(f"the host {parts.hostname!r} does not resolve ({exc})") from exc
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not address.is_global:
            raise AddressRefused(
                f"{parts.hostname} resolves to {address}, which is not a public address "
                "(set WEBHOOK_ALLOW_PRIVATE_ADDRESSES to send to private networks)"
            )


def _post(delivery: WebhookDelivery) -> AttemptResult:
    import requests  # lazily: only the worker sends

    endpoint = delivery.endpoint
    try:
        url_check(endpoint.url)
    except AddressRefused as exc:
        return AttemptResult(error=str(exc))
    body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "ragsite-webhooks/1",
        **signature_headers(endpoint.secret, delivery.message_id, int(time.time()), body),
    }
    session = requests.Session()
    session.trust_env = False  # no proxy from the environment: the address checked is the one reached
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    try:
        with session.post(
            endpoint.url, data=body, headers=headers, timeout=(timeout, timeout), allow_redirects=False, stream=True
        ) as response:
            # At most a few kB of the answer are read, whatever the receiver sends.
            excerpt = response.raw.read(BODY_EXCERPT_CHARS * 4, decode_content=True) or b""
            text = excerpt.decode("utf-8", errors="replace")[:BODY_EXCERPT_CHARS]
            code = response.status_code
    except requests.RequestException as exc:
        return AttemptResult(error=f"{type(exc).__name__}: {exc}"[:BODY_EXCERPT_CHARS])
    finally:
        session.close()
    error = "" if 200 <= code < 300 else f"the receiver answered {code}"
    if 300 <= code < 400:
        error += " (redirects are not followed)"
    return AttemptResult(code=code, body=text, error=error)


def _claim(delivery_id: int) -> bool:
    now = timezone.now()
    lease = now + timedelta(seconds=2 * settings.WEBHOOK_TIMEOUT_SECONDS + 60)
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=S.PENDING, next_attempt_at__lte=now + DUE_SLACK
    ).update(next_attempt_at=lease, attempts=F("attempts") + 1, last_attempt_at=now)
    return bool(claimed)


def retry_at(delivery: WebhookDelivery) -> datetime | None:
    """When the next attempt is due after the delivery's failed attempts; None once the day is over."""
    now = timezone.now()
    give_up_at = delivery.created_at + timedelta(hours=settings.WEBHOOK_RETRY_HOURS)
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
        result = AttemptResult(error="the endpoint was deactivated before this delivery was sent")
        delivery.next_attempt_at = None
    else:
        result = _post(delivery)
        delivery.next_attempt_at = None if result.ok else retry_at(delivery)
    delivery.last_response_code = result.code
    delivery.last_response_body = result.body
    delivery.last_error = result.error
    if result.ok:
        delivery.status, delivery.delivered_at = S.DELIVERED, timezone.now()
    elif delivery.next_attempt_at is None:
        delivery.status = S.FAILED
    if not result.ok:
        logger.warning("webhook delivery %s, attempt %s: %s", delivery.pk, delivery.attempts, result.error)
    delivery.save(
        update_fields=[
            "status", "delivered_at", "next_attempt_at", "last_response_code", "last_response_body", "last_error",
        ]
    )  # fmt: skip
    return delivery


def deliveries_due(limit: int = 1000) -> list[int]:
    """Pending deliveries whose next attempt is due, oldest first."""
    due = WebhookDelivery.objects.filter(status=S.PENDING, next_attempt_at__lte=timezone.now())
    return list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:limit])
