"""The one shape of a folder and of a document wherever the API (and a webhook) names one.

A folder is `{id, name, path}` and a document `{id, title, folder, type}`: the same object in
/api/folders, /api/documents, /api/search and /api/answer. `path` is the folder's path as the
caller may see it (documents.selectors.visible_folder_paths: no unreadable ancestor is named);
`type` is the file format's key, as the `type` filter takes it (pdf, docx, html, markdown,
plaintext).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest

from documents.extraction.formats import FORMAT_BY_MEDIA_TYPE
from documents.selectors import visible_folder_paths
from ragsite.caller import request_user
from ragsite.site_url import absolute_url


def file_type(content_type: str) -> str:
    """The format's key (`pdf`, …) of a stored media type; the media type itself if unknown."""
    found = FORMAT_BY_MEDIA_TYPE.get(content_type)
    return found.key if found is not None else content_type


def folder_ref(folder_id: int, name: str, path: str) -> dict[str, Any]:
    return {"id": folder_id, "name": name, "path": path}


def document_ref(document_id: int, title: str, folder: dict[str, Any], content_type: str) -> dict[str, Any]:
    return {"id": document_id, "title": title, "folder": folder, "type": file_type(content_type)}


class References:
    """Folder and document references for one request: folder paths as its caller may see
    them, read once per folder (`prime` reads many in one query), and its absolute URLs."""

    def __init__(self, request: HttpRequest) -> None:
        self.request = request
        self._paths: dict[int, str] = {}

    def prime(self, folder_ids: Iterable[int]) -> None:
        missing = set(folder_ids) - self._paths.keys()
        if missing:
            found = visible_folder_paths(user=request_user(self.request), folder_ids=missing)
            self._paths.update(found)

    def folder(self, folder_id: int, name: str) -> dict[str, Any]:
        self.prime([folder_id])
        return folder_ref(folder_id, name, self._paths.get(folder_id, name))

    def document(
        self, document_id: int, title: str, folder_id: int, folder_name: str, content_type: str
    ) -> dict[str, Any]:
        return document_ref(document_id, title, self.folder(folder_id, folder_name), content_type)

    def url(self, path: str) -> str:
        return absolute_url(path, self.request)

    def next_page(self, moved: dict[str, int]) -> str:
        """The request's own absolute URL, every parameter kept but those `moved` (set anew)."""
        query = [(k, v) for k, values in self.request.GET.lists() if k not in moved for v in values]
        return self.url(f"{self.request.path}?{urlencode([*query, *moved.items()])}")


def references(request: HttpRequest) -> References:
    """The request's References (made on first use)."""
    found = getattr(request, "_references", None)
    if found is None:
        found = References(request)
        request._references = found  # type: ignore[attr-defined]
    return found
