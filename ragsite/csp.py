"""The Content-Security-Policy of every HTML page: scripts only from this site's own files,
styles only from its own files or a <style> block carrying the response's nonce.

So a script or style attribute that ever slipped into a page (a document's title rendered
unescaped, say) would not run: no page of ours needs inline script, `eval` or a style="…"
attribute. Page-specific styles (the page view's image proportions) go in a
`<style nonce="{{ csp_nonce }}">` block; `csp_nonce` reaches every template through the
context processor below. The policy covers the Django admin and the API's Swagger UI as well
(tests/citations/test_browser_csp.py opens them in Chromium and records no violation).

A response that already names its own policy keeps it (an original file's `sandbox`), and a
response that is not HTML needs none. Django's debug pages (DEBUG only, on 404 and 500) are
built from inline styles and scripts: they are left without a policy so that they still work.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

HEADER = "Content-Security-Policy"


def page_policy(nonce: str) -> str:
    """The policy with this response's nonce; `data:` images are the page icon and CSS glyphs."""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            f"style-src 'self' 'nonce-{nonce}'",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class ContentSecurityPolicyMiddleware:
    """Gives each request a fresh nonce and each HTML response the policy naming it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        nonce = secrets.token_urlsafe(18)
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        if HEADER in response or not response.get("Content-Type", "").startswith("text/html"):
            return response
        if settings.DEBUG and response.status_code in (404, 500):
            return response
        response[HEADER] = page_policy(nonce)
        return response


def csp_nonce(request: HttpRequest) -> dict[str, str]:
    """Template context processor: `{{ csp_nonce }}` for a page's own <style> block."""
    return {"csp_nonce": getattr(request, "csp_nonce", "")}
