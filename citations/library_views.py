"""Browse pages: /library/ (readable folders), a folder's indexed documents, a document's page.

Views parse, call the browse reads (documents/library.py) and render. A folder or document the
reader may not open raises Http404 with the same styled page as a missing one (templates/404.html).
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from documents import library, locators
from documents.selectors import folders_readable_by, visible_folder_path, visible_folder_paths
from ragsite.caller import request_user
from ragsite.errors import NotFoundOrForbidden

FOLDER_PAGE_SIZE = 25


class BadRequest(ValueError):
    """A query parameter the page cannot use; its message says which and why."""


def _bad_request(request: HttpRequest, reason: str) -> HttpResponse:
    return render(request, "library/bad_request.html", {"reason": reason}, status=400)


def _page_number(request: HttpRequest) -> int:
    raw = request.GET.get("page", "1")
    if not raw.isdigit() or int(raw) < 1:
        raise BadRequest(gettext("page must be a whole number from 1, not %(raw)r.") % {"raw": raw[:20]})
    return int(raw)


@require_GET
def library_index(request: HttpRequest) -> HttpResponse:
    """Every folder the reader may read, by path, with its count of indexed documents."""
    user = request_user(request)
    folders = list(library.library_folders(user=user))
    paths = visible_folder_paths(user=user, folder_ids=[f.pk for f in folders])
    rows = sorted(
        ({"folder": f, "path": str(paths.get(f.pk, f.name))} for f in folders), key=lambda r: str(r["path"]).casefold()
    )
    return render(request, "library/index.html", {"rows": rows})


@require_GET
def library_folder(request: HttpRequest, folder_id: int) -> HttpResponse:
    """A folder's indexed documents, 25 a page, sorted by title, indexed date or publication date
    (`?sort=` one of `library.SORTS`)."""
    user = request_user(request)
    try:
        folder = library.library_folder(user=user, folder_id=folder_id)
    except NotFoundOrForbidden as exc:
        raise Http404(exc.message) from exc
    sort = request.GET.get("sort", "title")
    if sort not in library.SORTS:
        return _bad_request(request, gettext("sort must be one of %(sorts)s.") % {"sorts": ", ".join(library.SORTS)})
    try:
        number = _page_number(request)
    except BadRequest as exc:
        return _bad_request(request, str(exc))
    paginator = Paginator(library.folder_documents(user=user, folder=folder, sort=sort), FOLDER_PAGE_SIZE)
    if number > paginator.num_pages:
        raise Http404("No such page.")
    children = folders_readable_by(user).filter(parent_id=folder.pk).order_by("name", "pk")
    context = {
        "folder": folder,
        "folder_path": visible_folder_path(user=user, folder_id=folder.pk),
        "page": paginator.page(number),
        "sort": sort,
        "children": children,
    }
    return render(request, "library/folder.html", context)


def _heading_span(text: str, start: int) -> tuple[int, int]:
    """[start, end) of the line a section starts with (its heading): what the viewer highlights."""
    end = text.find("\n", start, start + 300)
    end = end if end > start else min(len(text), start + 80)
    return start, max(end, start + 1)


@require_GET
def library_document(request: HttpRequest, document_id: int) -> HttpResponse:
    """A document's metadata, outline and links, with a search box scoped to it."""
    user = request_user(request)
    try:
        document = library.library_document(user=user, document_id=document_id)
    except NotFoundOrForbidden as exc:
        raise Http404(exc.message) from exc
    page_count = len(document.page_starts or []) or document.page_count or 0
    outline = [
        {
            "entry": entry,
            "url": locators.viewer_url(document.pk, *_heading_span(document.canonical_text, entry.char_start)),
        }
        for entry in library.document_outline(document)
    ]
    context = {
        "document": document,
        "folder_path": visible_folder_path(user=user, folder_id=document.folder_id),
        "page_count": page_count,
        "outline": outline,
        "viewer_url": locators.viewer_url(document.pk),
        "first_page_url": locators.page_url(document.pk, 1) if document.is_pdf and page_count else None,
        "file_url": locators.file_url(document.pk),
    }
    return render(request, "library/document.html", context)
