"""The JSON API (django-ninja) mounted at /api/: authentication, errors, routers.

Authentication
  * `Authorization: Bearer <token>` on every endpoint (tokens: admin, `manage.py create_token`).
  * A browser session (signed in through the admin) on GET endpoints only, so no endpoint that
    changes data can be reached by cross-site requests riding a session cookie.
  * GET /api/search also answers anonymous callers, over public folders only.
  An Authorization header that is not a valid bearer token is always refused (401), never
  silently treated as anonymous.

Errors
  Services and access checks raise domain errors (`ragsite.errors`); `DOMAIN_STATUS` below is
  the one place that turns each kind into an HTTP status.
  Every response under /api/ that is not a success has one body, `ErrorOut`:
  `{"detail": "...", "errors": [...]}`, `detail` a sentence a person can act on and `errors` the
  per-field problems (`loc`, `msg`, `type`; ninja's validation errors mapped to that shape, 422)
  or empty. So are unknown paths (404), wrong methods (405), malformed bodies and bad values
  (400), rate limits (429 with Retry-After) and crashes (500, logged, never a stack trace).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.core.files.uploadhandler import FileUploadHandler
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, re_path
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext_lazy
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError
from ninja.renderers import JSONRenderer
from ninja.security import HttpBearer, SessionAuth

from citations.api import feedback_router
from citations.api import router as citations_router
from documents.api import folders_router
from documents.api import router as documents_router
from documents.api_manage import tags_router, webhooks_router
from documents.services.tokens import token_user
from ragsite.errors import (
    Conflict,
    DomainError,
    Forbidden,
    InvalidInput,
    NotFoundOrForbidden,
    ServiceUnavailable,
    TooLarge,
    UnsupportedType,
)
from ragsite.ratelimit import FixedWindowRateLimit, add_rate_limit_headers, rate_limit_message
from search.api import router as search_router

logger = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


# Every sentence below is said in the language LocaleMiddleware activated from Accept-Language
# (English without the header); codes, field names and statuses never change with it.
def need_token() -> str:
    return gettext(
        "Send a valid API token as 'Authorization: Bearer <token>' "
        "(create one in the admin or with `python manage.py create_token USERNAME`). "
        "Browser sessions are accepted for GET requests only."
    )


class InvalidToken(AuthenticationError):
    def __init__(self, message: str) -> None:
        super().__init__(401, message)


class BearerToken(HttpBearer):
    def __call__(self, request: HttpRequest) -> Any:
        value = request.headers.get(self.header, "")
        if not value:
            return None
        scheme, _, token = value.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise InvalidToken(gettext("The Authorization header must read 'Bearer <token>'.") + " " + need_token())
        return self.authenticate(request, token.strip())

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        user = token_user(token)
        if user is None:
            message = gettext("This API token is unknown, revoked, or its user is inactive.")
            raise InvalidToken(message + " " + need_token())
        request.user = user
        return user


class SessionForReads(SessionAuth):
    """Django's session, on safe methods only (unsafe ones need a token: no CSRF exposure)."""

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        if request.method not in SAFE_METHODS:
            return None
        return super().authenticate(request, key)


def anonymous(request: HttpRequest) -> AnonymousUser:
    """Lets an endpoint run without credentials; selectors then show public folders only."""
    return AnonymousUser()


bearer = BearerToken()
session = SessionForReads(csrf=False)


# --- early upload limit ---------------------------------------------------------------------


class UploadTooLarge(Exception):
    pass


class UploadLimitHandler(FileUploadHandler):
    """Refuses a multipart body before it is spooled to disk when it declares (or streams) more
    than UPLOAD_MAX_BYTES of file data; the upload service re-checks the real size."""

    SLACK = 64 * 1024  # multipart boundaries and the small form fields

    def handle_raw_input(
        self, input_data: Any, META: Any, content_length: int, boundary: Any, encoding: Any = None
    ) -> None:
        if content_length > settings.UPLOAD_MAX_BYTES + self.SLACK:
            raise UploadTooLarge(content_length)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        if start + len(raw_data) > settings.UPLOAD_MAX_BYTES:
            raise UploadTooLarge(start + len(raw_data))
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def too_large_message() -> str:
    megabytes = number_format(settings.UPLOAD_MAX_BYTES / 1_048_576, decimal_pos=1)
    return gettext("The upload is larger than the limit of %(megabytes)s MB; nothing was stored.") % {
        "megabytes": megabytes
    }


# --- the API --------------------------------------------------------------------------------


class LibraryApi(NinjaAPI):
    """NinjaAPI whose every URL (including unknown ones and wrong methods) answers JSON, and
    whose schema documents the errors every operation can answer."""

    rate_limited_paths: frozenset[str] = frozenset({"/search", "/answer"})
    anonymous_paths: frozenset[str] = frozenset({"/search"})

    def get_openapi_schema(self, *, path_prefix: str | None = None, path_params: Any = None) -> Any:
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        prefix = (path_prefix if path_prefix is not None else self.get_root_path(path_params or {})).rstrip("/")
        for path, operations in schema.get("paths", {}).items():
            relative = path.removeprefix(prefix)
            for operation in operations.values():
                self._document_errors(operation, relative)
        return schema

    def _document_errors(self, operation: dict[str, Any], relative_path: str) -> None:
        # Routers declare statuses as ints, the additions below are strings: one key per status,
        # or the JSON text names "401" twice (a router's own declaration wins).
        responses = {str(status): spec for status, spec in operation.get("responses", {}).items()}
        operation["responses"] = responses
        error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
        if operation.get("security"):
            responses.setdefault("401", {"description": "Unauthorized", "content": error_ref})
        # Every 422 is _validation's: the same body, its per-field `errors` filled (documents/schemas.py).
        responses.setdefault("422", {"description": "Unprocessable Entity", "content": error_ref})
        if "requestBody" in operation:  # a body that cannot be parsed at all (not JSON, bad multipart)
            responses.setdefault("400", {"description": "Malformed request body", "content": error_ref})
        if relative_path in self.rate_limited_paths:
            responses.setdefault("429", {"description": "Too Many Requests (see Retry-After)", "content": error_ref})
        if relative_path in self.anonymous_paths and operation.get("security"):
            operation["security"].append({})  # credentials optional: anonymous callers see public folders

    @property
    def urls(self) -> tuple[list[Any], str, str]:
        patterns, app_name, namespace = super().urls
        for pattern in patterns:
            if isinstance(pattern, URLPattern):
                pattern.callback = json_errors(pattern.callback)
        patterns.append(re_path(r"^.*$", json_errors(unknown_path), name="unknown"))
        return patterns, app_name, namespace


def json_errors(view: Callable[..., Any]) -> Callable[..., Any]:
    if getattr(view, "json_errors", False):
        return view

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if request.content_type == "multipart/form-data":
            request.upload_handlers = [UploadLimitHandler(request), *request.upload_handlers]
        try:
            response = view(request, *args, **kwargs)
        except Http404:
            return unknown_path(request)
        except Exception:
            logger.exception("unhandled error in %s %s", request.method, request.path)
            return error(500, server_error_message())
        if response.status_code == 405 and not response.get("Content-Type", "").startswith("application/json"):
            allowed = response.get("Allow", "")
            message = gettext("%(method)s is not allowed on %(path)s; use %(allowed)s.")
            response = error(405, message % {"method": request.method, "path": request.path, "allowed": allowed})
            response["Allow"] = allowed
        add_rate_limit_headers(request, response)
        return response

    wrapper.json_errors = True  # type: ignore[attr-defined]
    wrapper.csrf_exempt = True  # type: ignore[attr-defined]
    return wrapper


def unknown_path(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    message = gettext("There is no API endpoint at %(path)s. The endpoints are listed at %(docs)s.")
    return error(404, message % {"path": request.path, "docs": DOCS_URL})


# NaN and infinity have no JSON form: Python writes them as tokens strict parsers refuse. Raising
# instead turns such a value into a logged 500 whose body is valid JSON.
STRICT_JSON = {"allow_nan": False}


class StrictJSONRenderer(JSONRenderer):
    json_dumps_params = STRICT_JSON


def error(status: int, detail: str, errors: list[dict[str, Any]] | None = None, **extra: Any) -> JsonResponse:
    """The one error body (documents/schemas.py: ErrorOut)."""
    return JsonResponse(
        {"detail": detail, "errors": errors or [], **extra}, status=status, json_dumps_params=STRICT_JSON
    )


DOCS_URL = "/api/docs"


def server_error_message() -> str:
    return gettext("The server failed to handle this request; the error has been logged. Try again later.")


api = LibraryApi(
    title="Document library API",
    version="1",
    description=(
        "Search a document library, upload and manage documents. Authenticate with "
        "`Authorization: Bearer <token>`; GET endpoints also accept a signed-in browser session, and "
        "GET /api/search answers anonymous callers over public folders. Errors are JSON "
        '`{"detail": "...", "errors": [...]}` whatever their status (`errors`: per-field problems, else empty). '
        "Lists take `page` (from 1) and `page_size` (1..200, default 50; `limit` and `offset` are deprecated "
        "aliases) and return `{items, count, next}` (`next`: the next page's absolute URL, null on the last); "
        "every URL is absolute and every time ISO 8601 with its offset. /api/search and /api/answer are "
        "rate-limited per user, all their tokens and "
        "their session together (else per address), shared with the search page (429 + Retry-After)."
    ),
    urls_namespace="api",
    auth=[bearer, session],
    renderer=StrictJSONRenderer(),
)


# --- exception handlers ---------------------------------------------------------------------


def _authentication(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    message = str(exc) if isinstance(exc, InvalidToken) else need_token()
    response = error(401, message)
    response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


def _validation(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = list(exc.errors)
    if request.method == "POST" and request.content_type != "multipart/form-data" and _missing_file(errors):
        return error(415, gettext("Upload the file as multipart/form-data with a 'file' part and a 'folder' field."))
    detail = "; ".join(_describe(e) for e in errors) or gettext("The request is not valid.")
    return error(422, detail, [_field_error(e) for e in errors])


def _field_error(item: dict[str, Any]) -> dict[str, Any]:
    """A pydantic error as the API's errors list holds it: where, what, which kind (never the input)."""
    loc = [part if isinstance(part, int) else str(part) for part in item.get("loc", ())]
    return {"loc": loc, "msg": str(item.get("msg", "invalid")), "type": str(item.get("type", "invalid"))}


def _missing_file(errors: list[dict[str, Any]]) -> bool:
    return any(tuple(e.get("loc", ()))[:1] == ("file",) for e in errors)


SOURCES = {
    "query": gettext_noop("query parameter"),
    "path": gettext_noop("path parameter"),
    "body": gettext_noop("body field"),
    "form": gettext_noop("form field"),
}

# Pydantic words its problems in English only. The common ones are said here in its own English
# words (so the English `detail` is pydantic's) and translated; a rarer one keeps pydantic's text.
# The placeholders are the names pydantic gives them in the error's `ctx`.
PROBLEMS: dict[str, Any] = {
    "missing": gettext_lazy("Field required"),
    "int_parsing": gettext_lazy("Input should be a valid integer, unable to parse string as an integer"),
    "int_type": gettext_lazy("Input should be a valid integer"),
    "int_from_float": gettext_lazy("Input should be a valid integer, got a number with a fractional part"),
    "float_parsing": gettext_lazy("Input should be a valid number, unable to parse string as a number"),
    "bool_parsing": gettext_lazy("Input should be a valid boolean, unable to interpret input"),
    "string_type": gettext_lazy("Input should be a valid string"),
    "list_type": gettext_lazy("Input should be a valid list"),
    "greater_than_equal": gettext_lazy("Input should be greater than or equal to %(ge)s"),
    "greater_than": gettext_lazy("Input should be greater than %(gt)s"),
    "less_than_equal": gettext_lazy("Input should be less than or equal to %(le)s"),
    "less_than": gettext_lazy("Input should be less than %(lt)s"),
    "string_too_short": ngettext_lazy(
        "String should have at least %(min_length)s character",
        "String should have at least %(min_length)s characters",
        "min_length",
    ),
    "string_too_long": ngettext_lazy(
        "String should have at most %(max_length)s character",
        "String should have at most %(max_length)s characters",
        "max_length",
    ),
}


def _problem(item: dict[str, Any]) -> str:
    template = PROBLEMS.get(str(item.get("type", "")))
    if template is None:
        return str(item.get("msg", "invalid"))
    try:
        return str(template % dict(item.get("ctx") or {}))
    except (KeyError, TypeError, ValueError):  # a ctx of another shape than this pydantic's
        return str(item.get("msg", "invalid"))


def _describe(item: dict[str, Any]) -> str:
    loc = [str(part) for part in item.get("loc", ())]
    if not loc:
        return gettext("request: %(problem)s") % {"problem": _problem(item)}
    source = gettext(SOURCES[loc[0]]) if loc[0] in SOURCES else gettext("%(name)s field") % {"name": loc[0]}
    # Ninja nests a parameter model under its argument name; the last part names the field.
    field = ".".join(loc[2:] if len(loc) > 2 and loc[0] in ("query", "form", "body") else loc[1:])
    if field:
        where = gettext("%(source)s '%(field)s'") % {"source": source, "field": field}
    else:
        where = source if loc[0] != "body" else gettext("request body")
    return f"{where}: {_problem(item)}"


# django-ninja's own refusals, marked here so they are said in the reader's language too.
NINJA_MESSAGES = {"Cannot parse request body": gettext_noop("Cannot parse request body")}


def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    known = NINJA_MESSAGES.get(exc.message)
    return error(exc.status_code, gettext(known) if known else exc.message)


def _throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
    response = error(429, rate_limit_message(request))
    if exc.wait is not None:
        response["Retry-After"] = str(int(exc.wait))
    return response


# The one mapping from what the library refuses to an HTTP status: the most specific kind wins.
DOMAIN_STATUS: dict[type[DomainError], int] = {
    NotFoundOrForbidden: 404,
    Forbidden: 403,
    TooLarge: 413,
    UnsupportedType: 415,
    InvalidInput: 400,
    Conflict: 409,
    ServiceUnavailable: 503,
    DomainError: 400,
}


def domain_status(exc: DomainError) -> int:
    return next(DOMAIN_STATUS[kind] for kind in type(exc).__mro__ if kind in DOMAIN_STATUS)


def _domain_error(request: HttpRequest, exc: DomainError) -> HttpResponse:
    return error(domain_status(exc), exc.message, **exc.details())


def _upload_too_large(request: HttpRequest, exc: Exception) -> HttpResponse:
    return error(413, too_large_message())


def _suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
    if isinstance(exc, RequestDataTooBig):
        return error(413, gettext("The request body is too large."))
    return error(400, gettext("The request was refused as malformed: %(reason)s") % {"reason": exc})


def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return unknown_path(request)


def _permission_denied(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return error(403, str(exc) or gettext("You may not do this."))


def _unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    logger.error("unhandled error in %s %s", request.method, request.path, exc_info=exc)
    return error(500, server_error_message())


HANDLERS: list[tuple[type[Exception], Callable[[HttpRequest, Any], HttpResponse]]] = [
    (Exception, _unexpected),
    (HttpError, _http_error),
    (AuthenticationError, _authentication),
    (Throttled, _throttled),
    (ValidationError, _validation),
    (DomainError, _domain_error),
    (UploadTooLarge, _upload_too_large),
    (SuspiciousOperation, _suspicious),
    (Http404, _not_found),
    (PermissionDenied, _permission_denied),
]
for exc_class, handler in HANDLERS:
    api.add_exception_handler(exc_class, handler)


# --- routers --------------------------------------------------------------------------------

api.add_router("/", folders_router)
api.add_router("/", documents_router)
api.add_router("/", tags_router)
api.add_router("/", webhooks_router)
api.add_router("/", search_router, auth=[bearer, session, anonymous])
api.add_router("/", citations_router, throttle=FixedWindowRateLimit("answer"))
api.add_router("/", feedback_router)
