"""Absolute URLs: every URL the API answers or a webhook sends is one (docs/api.md "API changes")."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def absolute_url(path: str, request: HttpRequest | None = None) -> str:
    """Site-relative `path` (from `reverse`) under SITE_URL when set, as behind a proxy whose
    public host the request does not carry; else under the request's own scheme and host. With
    neither (a worker without SITE_URL) the path stays site-relative."""
    if settings.SITE_URL:
        return settings.SITE_URL + path
    if request is not None:
        return request.build_absolute_uri(path)
    return path
