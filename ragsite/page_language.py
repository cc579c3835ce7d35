"""The language of a page: the reader's, from Accept-Language; the staff's, English.

Reader pages and the API speak the browser's language (docs/readers.md). The admin is English
whatever the browser asks: its own pages and reports are written in English, and Django's
translated chrome and the project's lazily translated labels (a gate reason, an answer state)
would otherwise mix Portuguese into them.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.middleware.locale import LocaleMiddleware
from django.urls import reverse
from django.utils import translation
from django.utils.functional import cached_property


class ReaderLocaleMiddleware(LocaleMiddleware):
    @cached_property
    def admin_prefix(self) -> str:
        """The admin's path, resolved once, on the first request: building the middleware (when the
        handler starts) then imports neither the URLconf nor the views it names."""
        return reverse("admin:index")

    def process_request(self, request: HttpRequest) -> None:
        if request.path_info.startswith(self.admin_prefix):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = translation.get_language()
            return
        super().process_request(request)
