"""Per-caller rate limits for the expensive API endpoints (search, answer): a fixed window.

Each caller gets `API_RATE_LIMIT_PER_MINUTE` requests per scope per clock minute (0 or a
negative value switches the limit off). The caller is the API token when one was sent, else the
signed-in user, else the client address (REMOTE_ADDR: behind a proxy, make the proxy set it).

Counters live in Django's default cache. With the default per-process local-memory cache the
limit holds per worker process; point CACHES at Redis or Memcached to share it between
processes. A fixed window allows a burst of up to twice the limit across a minute boundary:
simple, cheap (one cache round trip), and enough to keep one integration from starving others.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponseBase
from ninja.throttling import BaseThrottle

from ragsite.caller import request_user

DEFAULT_LIMIT_PER_MINUTE = 120
WINDOW_SECONDS = 60


def limit_per_minute() -> int:
    return int(getattr(settings, "API_RATE_LIMIT_PER_MINUTE", DEFAULT_LIMIT_PER_MINUTE))


@dataclass(frozen=True)
class WindowState:
    limit: int
    remaining: int
    reset_seconds: int

    @property
    def exceeded(self) -> bool:
        return self.remaining < 0


def caller_key(request: HttpRequest) -> str:
    """Who is counted: the token (by hash), else the signed-in user, else the client address."""
    token_key = getattr(request, "api_token_key", None)
    if token_key:
        return f"token:{token_key[:32]}"
    user = request_user(request)
    if user.is_authenticated:
        return f"user:{user.pk}"
    return f"ip:{request.META.get('REMOTE_ADDR') or 'unknown'}"


def hit(scope: str, key: str, *, limit: int, now: float | None = None) -> WindowState:
    """Count one request of `key` in the current window of `scope`."""
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    cache_key = f"ratelimit:{scope}:{key}:{window}"
    cache.add(cache_key, 0, timeout=WINDOW_SECONDS + 5)
    try:
        count = cache.incr(cache_key)
    except ValueError:  # the entry expired between add and incr
        cache.set(cache_key, 1, timeout=WINDOW_SECONDS + 5)
        count = 1
    reset = max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))
    return WindowState(limit=limit, remaining=limit - count, reset_seconds=reset)


class FixedWindowRateLimit(BaseThrottle):
    """A django-ninja throttle: runs after authentication, answers 429 with Retry-After."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self._local = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        limit = limit_per_minute()
        if limit <= 0:
            return True
        state = hit(self.scope, caller_key(request), limit=limit)
        request.rate_limit_state = state  # type: ignore[attr-defined]
        self._local.wait = state.reset_seconds if state.exceeded else None
        return not state.exceeded

    def wait(self) -> float | None:
        return getattr(self._local, "wait", None)


def add_rate_limit_headers(request: HttpRequest, response: HttpResponseBase) -> None:
    """X-RateLimit-* headers on every response of a rate-limited endpoint (success or 429)."""
    state: WindowState | None = getattr(request, "rate_limit_state", None)
    if state is None:
        return
    response["X-RateLimit-Limit"] = str(state.limit)
    response["X-RateLimit-Remaining"] = str(max(0, state.remaining))
    response["X-RateLimit-Reset"] = str(state.reset_seconds)
    if state.exceeded:
        response["Retry-After"] = str(state.reset_seconds)


def rate_limit_message(request: HttpRequest) -> str:
    state: WindowState | None = getattr(request, "rate_limit_state", None)
    limit = state.limit if state else limit_per_minute()
    retry = f" Retry in {state.reset_seconds} s." if state else ""
    return (
        f"Too many requests: this endpoint allows {limit} requests per minute for each API token "
        f"(or signed-in user, or client address).{retry}"
    )
