"""The admin site, with the count of stale documents on its index page.

It lives in the documents app, whose selectors it reads, so that ragsite imports no app.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse


class LibraryAdminSite(admin.AdminSite):
    site_header = "Document library"
    site_title = "Document library admin"
    index_title = "Library administration"

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        # Not at the top: INSTALLED_APPS loads this module before the models are ready.
        from documents.selectors import stale_documents

        extra_context = {**(extra_context or {}), "stale_document_count": stale_documents().count()}
        return super().index(request, extra_context)

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        """The admin's own login form is a second door for passwords: the same limit as /login/."""
        from ragsite.ratelimit import limit_login  # not at import: the admin site loads with the apps

        return limit_login(request, lambda: super(LibraryAdminSite, self).login(request, extra_context))


class LibraryAdminConfig(AdminConfig):
    default_site = "documents.admin_site.LibraryAdminSite"
