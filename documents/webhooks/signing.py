"""Standard Webhooks signatures (https://www.standardwebhooks.com), in the few lines they take.

A delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`:
`v1,` + base64 of HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the bytes the secret's
base64 (after `whsec_`) stands for. Receivers verify with any Standard Webhooks library or with
`signature_verify` below. This module imports nothing of the project.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
# A receiver refuses a delivery whose timestamp is further than this from its clock (replays).
TOLERANCE_SECONDS = 5 * 60


def secret_generate() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest()).decode()


def signature_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, message_id, timestamp, body),
    }


def signature_verify(secret: str, headers: dict[str, str], body: bytes, now: float) -> bool:
    """True when one of the `webhook-signature` values (space-separated) matches and the
    timestamp is within TOLERANCE_SECONDS of `now`; what a receiver does."""
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        timestamp = int(lowered["webhook-timestamp"])
        expected = signature(secret, lowered["webhook-id"], timestamp, body)
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > TOLERANCE_SECONDS:
        return False
    return any(hmac.compare_digest(expected, given) for given in lowered.get("webhook-signature", "").split())
