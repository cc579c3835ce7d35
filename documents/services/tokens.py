"""API tokens: generated once, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.utils import timezone

from documents.models import ApiToken
from documents.names import name_clean

TOKEN_PREFIX = "rag_"


def token_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def token_assign(token: ApiToken) -> str:
    """Give an unsaved ApiToken a fresh secret; returns the secret (shown once, never stored)."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token.token_hash = token_hash(raw)
    token.prefix = raw[:10]
    return raw


def token_create(*, user: Any, name: str = "") -> tuple[ApiToken, str]:
    """A new token for `user`; raises InvalidName for a name that breaks the rule for names."""
    token = ApiToken(user=user, name=name_clean(name, what="token name"))
    raw = token_assign(token)
    token.save()
    return token, raw


def token_user(raw: str) -> Any | None:
    """The active user owning this token, or None; records when the token was last used."""
    if not raw:
        return None
    token = ApiToken.objects.select_related("user").filter(token_hash=token_hash(raw), revoked=False).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
