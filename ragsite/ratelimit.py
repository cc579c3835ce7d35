"""Per-caller rate limits, one counter for the API and the pages alike: a fixed window.

Each scope has its own budget per caller per clock minute (0 or a negative limit switches a scope
off):
- `search`: GET /api/search and a search on the search page, `API_RATE_LIMIT_PER_MINUTE`;
- `answer`: POST /api/answer and the search page's answer, `ANSWER_RATE_LIMIT_PER_MINUTE` (unset:
  the API limit, at most `MODEL_WRITER_ANSWER_LIMIT` when a language model writes the answers);
- `render`: the text viewer and PDF page renders the page cache does not hold yet,
  `API_RATE_LIMIT_PER_MINUTE`;
- `login`: login attempts per client address and per target account,
  `LOGIN_RATE_LIMIT_PER_MINUTE` (signed in or not; a successful one is given back, so only wrong
  passwords use it up);
- `upload`: POST /api/documents, `UPLOAD_RATE_LIMIT_PER_MINUTE`. Each upload queues seconds of a
  worker's encoder time, so a runaway script holding a writer's token would fill the queue before
  anyone noticed. The admin's upload form is not counted: a person sends a batch of files at once.

The caller is the signed-in user, however they came (a browser session or any of their API
tokens: one budget), else the client address (`client_address`: REMOTE_ADDR, or behind the proxies
named in `TRUSTED_PROXIES` the address they forwarded).

Counters live in Django's default cache. With the default per-process local-memory cache the
limit holds per worker process; point CACHES at Redis or Memcached to share it between
processes. While that shared cache is down or paused, each process counts on its own for a while
(`Counters`) instead of failing the request; the cache's short socket timeouts (CACHES in
ragsite/settings.py) keep that discovery to a fraction of a second. A fixed window allows a
burst of up to twice the limit across a minute boundary: simple, cheap (one cache round trip),
and enough to keep one caller from starving others.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.core.cache import cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.translation import gettext, gettext_noop
from ninja.throttling import BaseThrottle
from redis.exceptions import RedisError

from ragsite.caller import request_user

logger = logging.getLogger(__name__)

SEARCH, ANSWER, RENDER, LOGIN, UPLOAD = "search", "answer", "render", "login", "upload"
# A model-written answer takes seconds of a model server's time; 20 a minute (one every 3 s) is
# more than a person reading the answers asks, and at most about one model slot kept busy.
MODEL_WRITER_ANSWER_LIMIT = 20
WINDOW_SECONDS = 60

# What a budget counts, as the 429 page and the API's message name it.
# Marked for translation: the 429 page and the API's 429 say them in the reader's language.
COUNTED = {
    SEARCH: gettext_noop("searches"),
    ANSWER: gettext_noop("answers"),
    RENDER: gettext_noop("document views"),
    LOGIN: gettext_noop("login attempts"),
    UPLOAD: gettext_noop("uploads"),
}


def limit_per_minute(scope: str = SEARCH) -> int:
    """The scope's limit per caller per minute, read on every request (0 or less: no limit)."""
    if scope == ANSWER:
        return answer_limit()
    if scope == LOGIN:
        return settings.LOGIN_RATE_LIMIT_PER_MINUTE
    if scope == UPLOAD:
        return settings.UPLOAD_RATE_LIMIT_PER_MINUTE
    return settings.API_RATE_LIMIT_PER_MINUTE


def answer_limit() -> int:
    configured = settings.ANSWER_RATE_LIMIT_PER_MINUTE
    if configured is not None:
        return configured
    shared = limit_per_minute(SEARCH)
    # The extractive writer's answer costs about one search: the same budget. A model's does not.
    if shared > 0 and settings.ANSWER_WRITER != "extractive":
        return min(shared, MODEL_WRITER_ANSWER_LIMIT)
    return shared


@dataclass(frozen=True)
class WindowState:
    limit: int
    remaining: int
    reset_seconds: int
    scope: str = SEARCH
    cache_key: str = field(default="", repr=False)

    @property
    def exceeded(self) -> bool:
        return self.remaining < 0


def client_address(request: HttpRequest) -> str:
    """The address the request came from: REMOTE_ADDR, unless that is one of `TRUSTED_PROXIES`;
    then the nearest address in X-Forwarded-For that is not, read from the right. Each proxy
    appends the address it was reached from, so only the entries right of the first untrusted one
    are vouched for; what lies left of it the client may have written itself."""
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    if not _trusted_proxy(remote):
        return remote
    forwarded = [_bare(a) for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
    for address in reversed(forwarded):
        if not _trusted_proxy(address):
            return address
    return forwarded[0] if forwarded else remote  # a chain of proxies only: the farthest


def _bare(entry: str) -> str:
    """An X-Forwarded-For entry without the port some proxies add ("203.0.113.5:4711",
    "[2001:db8::1]:443"): with it, every connection of one client would count apart."""
    entry = entry.strip()
    if entry.startswith("[") and "]" in entry:
        return entry[1 : entry.index("]")]
    host, sep, port = entry.rpartition(":")
    return host if sep and host.count(":") == 0 and port.isdigit() else entry


def _trusted_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in settings.TRUSTED_PROXIES)


def caller_key(request: HttpRequest) -> str:
    """Who is counted: the signed-in user (session and every token alike), else the address."""
    user = request_user(request)
    if user.is_authenticated:
        return f"user:{user.pk}"
    return f"ip:{client_address(request)}"


def hit(scope: str, key: str, *, limit: int, now: float | None = None) -> WindowState:
    """Count one request of `key` in the current window of `scope`."""
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    cache_key = f"ratelimit:{scope}:{key}:{window}"
    count = COUNTERS.incr(cache_key)
    reset = max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))
    return WindowState(limit=limit, remaining=limit - count, reset_seconds=reset, scope=scope, cache_key=cache_key)


def give_back(state: WindowState) -> None:
    """Uncount the request `state` counted (in its own window; nothing if that has expired)."""
    COUNTERS.decr(state.cache_key)


# Errors of a shared cache that is down, paused or unreachable (Redis's client raises its own;
# a socket error may come through bare).
CACHE_DOWN_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)
# After the shared cache fails, counting stays in this process for this long before the shared
# cache is tried again: a broker that is down costs one socket timeout per process per period,
# not one per request.
SHARED_CACHE_RETRY_SECONDS = 15.0


class Counters:
    """The window counters: in Django's default cache, or in this process while that cache fails.

    A shared cache (CACHE_URL: Redis) that is down or paused must not take searches and pages with
    it: a request that cannot reach it is counted in a local-memory cache of this process instead,
    and the shared cache is tried again every `SHARED_CACHE_RETRY_SECONDS`. The limit still holds
    per process meanwhile. Losing the shared cache and finding it again are logged once each."""

    def __init__(self) -> None:
        self._local = LocMemCache("ratelimit-fallback", {"TIMEOUT": WINDOW_SECONDS + 5})
        self._lock = threading.Lock()
        self._down = False
        self._retry_at = 0.0  # monotonic time before which the shared cache is not tried

    def incr(self, key: str) -> int:
        if self._skip_shared():
            return self._incr(self._local, key)
        try:
            count = self._incr(cache, key)
        except CACHE_DOWN_ERRORS as exc:
            self._shared_failed(exc)
            return self._incr(self._local, key)
        self._shared_answered()
        return count

    def decr(self, key: str) -> None:
        store = self._local if self._skip_shared() else cache
        try:
            with contextlib.suppress(ValueError):  # expired meanwhile: nothing to give back
                store.decr(key)
        except CACHE_DOWN_ERRORS as exc:
            self._shared_failed(exc)

    @staticmethod
    def _incr(store: BaseCache, key: str) -> int:
        store.add(key, 0, timeout=WINDOW_SECONDS + 5)
        try:
            return int(store.incr(key))
        except ValueError:  # the entry expired between add and incr
            store.set(key, 1, timeout=WINDOW_SECONDS + 5)
            return 1

    def _skip_shared(self) -> bool:
        return self._down and time.monotonic() < self._retry_at

    def _shared_failed(self, exc: BaseException) -> None:
        with self._lock:
            newly_down, self._down = not self._down, True
            self._retry_at = time.monotonic() + SHARED_CACHE_RETRY_SECONDS
        if newly_down:
            logger.warning(
                "rate limits: the shared cache is unreachable (%s: %s); counting in each process until it "
                "answers again (tried every %.0f s)",
                type(exc).__name__,
                exc,
                SHARED_CACHE_RETRY_SECONDS,
            )

    def _shared_answered(self) -> None:
        if not self._down:
            return
        with self._lock:
            was_down, self._down = self._down, False
        if was_down:
            logger.warning("rate limits: the shared cache answers again; counting there")


COUNTERS = Counters()


def count(request: HttpRequest, scope: str) -> WindowState | None:
    """Count this request against the caller's budget in `scope`; None when the scope is off."""
    limit = limit_per_minute(scope)
    if limit <= 0:
        return None
    state = hit(scope, caller_key(request), limit=limit)
    request.rate_limit_state = state  # type: ignore[attr-defined]
    return state


# --- the API: a django-ninja throttle, JSON 429s (ragsite/api.py) ------------------------------


class FixedWindowRateLimit(BaseThrottle):
    """A django-ninja throttle: runs after authentication, answers 429 with Retry-After."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self._local = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        state = count(request, self.scope)
        self._local.wait = state.reset_seconds if state and state.exceeded else None
        return not (state and state.exceeded)

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
    scope = state.scope if state else SEARCH
    limit = state.limit if state else limit_per_minute(scope)
    retry = " " + gettext("Retry in %(seconds)d s.") % {"seconds": state.reset_seconds} if state else ""
    if scope == UPLOAD:
        message = gettext(
            "Too many requests: uploads are limited to %(limit)d per minute for each user (all their API "
            "tokens together); the upload was not stored."
        )
    else:
        message = gettext(
            "Too many requests: %(what)s are limited to %(limit)d requests per minute for each user "
            "(all their API tokens and their browser session together; the search page counts too), "
            "or for each client address when anonymous."
        )
    return message % {"limit": limit, "what": gettext(COUNTED[scope])} + retry


# --- pages: a plain 429 page ---------------------------------------------------------------


def page_limit(request: HttpRequest, scope: str) -> HttpResponse | None:
    """Count a page request in `scope`: None to go on, or the 429 page when over the limit."""
    state = count(request, scope)
    return rate_limited_page(request, state) if state and state.exceeded else None


def rate_limited_page(
    request: HttpRequest, state: WindowState, per: str = gettext_noop("for each reader")
) -> HttpResponse:
    context = {
        "what": gettext(COUNTED[state.scope]),
        "limit": state.limit,
        "per": gettext(per),
        "retry_after": state.reset_seconds,
        "retry_url": request.get_full_path() if request.method == "GET" else request.path,
    }
    response = render(request, "rate_limited.html", context, status=429)
    response["Retry-After"] = str(state.reset_seconds)
    return response


def limit_login(request: HttpRequest, respond: Callable[[], HttpResponse]) -> HttpResponse:
    """Let a login POST through `respond` unless its address or its target account has used up
    its attempts.

    Every attempt counts before its password is checked (so parallel guesses cannot slip past
    the limit), whoever makes it: a reader already signed in who posts someone else's password
    guesses is counted like anyone. Only an attempt that signs someone in (Django's
    `user_logged_in`, sent with this request) is given back, so colleagues behind one address are
    not locked out by signing in. Per address, so that trying one password against many accounts
    is limited; and per target account, so that guesses at one account from many addresses are.
    """
    limit = limit_per_minute(LOGIN)
    if request.method != "POST" or limit <= 0:
        return respond()
    by_address = hit(LOGIN, f"ip:{client_address(request)}", limit=limit)
    if by_address.exceeded:  # not counted against the account: one address cannot lock it out
        return rate_limited_page(request, by_address, per=gettext_noop("from one address"))
    by_account = hit(LOGIN, _account_key(request), limit=limit)
    if by_account.exceeded:
        give_back(by_address)  # refused unchecked: no password was tried from this address
        return rate_limited_page(request, by_account, per=gettext_noop("for one account"))
    response = respond()
    if getattr(request, SIGNED_IN_NOW, False):
        give_back(by_address)
        give_back(by_account)
    return response


SIGNED_IN_NOW = "rate_limit_signed_in_now"


@receiver(user_logged_in)
def _note_sign_in(sender: object, request: HttpRequest | None = None, **kwargs: object) -> None:
    """Mark the request that signed someone in: the one login attempt `limit_login` gives back."""
    if request is not None:
        setattr(request, SIGNED_IN_NOW, True)


def _account_key(request: HttpRequest) -> str:
    """The account a login attempt names, hashed: a username is any text up to the form's length,
    and a cache key must stay short and plain. Case-folded, so case variants share one budget."""
    username = str(request.POST.get("username", "")).casefold()
    return "account:" + hashlib.sha256(username.encode()).hexdigest()
