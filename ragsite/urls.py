from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from ragsite.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    # gettext() for the reader pages' scripts (static/js), in the language the page was served in.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("citations.urls")),
]
