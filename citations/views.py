"""Pages: the search page, the text viewer, the rendered PDF page, and the original file.

Views parse the request, call a selector or service, and render. Every document page checks
access through `access_document_readable`: a caller who may not read the document gets a 404,
the same answer as for a document that does not exist.
"""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth.views import LoginView, redirect_to_login
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods

from citations.filter_panel import filter_panel, readable_tag_names
from citations.forms import SearchForm, cut_question
from citations.models import Endpoint
from citations.result_order import results_first, status_line
from citations.services import question_log
from citations.services.answer import Answer, answer_question, passage_count, source_count
from citations.unavailable import unavailable_page
from citations.writers import writer_streams
from documents import locators, pdf_scripts
from documents.access import access_document_readable
from documents.extraction.sniff import DOCX
from documents.models import Document
from documents.selectors import AnyUser, folders_readable_by, visible_folder_path, visible_folder_paths
from ragsite import ratelimit
from ragsite.caller import request_user
from ragsite.errors import NotFoundOrForbidden, ServiceUnavailable
from ragsite.http_ranges import ranged_file_response
from search.services.grouping import DocumentPage, search_documents
from search.services.retrieval import SearchResult, search_chunks

# The longest query string a GET search is read from, in bytes as sent (percent-encoded): below
# the web server's request line (ragsite/launcher.py: REQUEST_LINE_LIMIT, and nginx's default 8 KB)
# with room for the method, the path and the protocol, so a longer link gets the site's own page,
# in the reader's language, instead of the web server's bare 414. A question as long as the site
# reads (citations/forms.py: MAX_QUESTION_CHARS) of English or Portuguese prose fits (an accented
# letter is 6 bytes encoded); one of that length in another script may not.
LONGEST_SEARCH_QUERY = 8000


@require_http_methods(["GET", "HEAD", "POST"])
def search_page(request: HttpRequest) -> HttpResponse:
    """GET /?q=…&folder=…&type=…&tag=…&author=…&from=…&to=…&document=…&page=…: the answer with its
    sources and the matching documents (no side effects), or on page 2 and later the documents
    alone. A question too long for a URL is POSTed with the same fields (static/js/search.js),
    under the CSRF check. A bad filter is said on the page."""
    if request.method != "POST" and len(request.META.get("QUERY_STRING", "")) > LONGEST_SEARCH_QUERY:
        question = cut_question(request.GET.get("q", ""))
        return render(request, "citations/link_too_long.html", {"question": question}, status=414)
    user = request_user(request)
    folders = folders_readable_by(user)
    if not user.is_authenticated and not folders.exists():
        return redirect_to_login(request.get_full_path(), login_url=reverse("citations:login"))
    data = request.POST if request.method == "POST" else request.GET
    paths = visible_folder_paths(user=user, folder_ids=folders.values_list("pk", flat=True))
    tags = readable_tag_names(user)
    form = SearchForm(data if "q" in data else None, folders=folders, paths=paths, tags=tags)
    page = _result_page(data)
    context: dict[str, Any] = {
        "form": form, "answer": None, "results": None, "folder_count": folders.count(), "streams": writer_streams(),
    }  # fmt: skip
    searched: Answer | SearchResult | None = None
    results: DocumentPage | None = None
    if page is None:
        context["page_error"] = gettext("The result page must be a whole number from 1.")
        context["filter_panel"] = filter_panel(data, form, user)
        return render(request, "search.html", context, status=400)
    if form.is_valid():
        # A page search is a search and an answer: it counts in both budgets, as the API's would.
        # With ?stream=1 (added by static/js/answer_stream.js when the writer streams) the script
        # asks for the answer itself (citations/stream_views.py), which counts and logs it then;
        # the page runs the answer's search (its query vector is cached, so it is cheap) for the
        # facets. The extractive writer's answer is ready at once: rendered here. Page 2 and later
        # list documents only: the answer was on page 1.
        stream = data.get("stream") == "1" and writer_streams()
        refused = ratelimit.page_limit(request, ratelimit.SEARCH) or (
            None if stream or page > 1 else ratelimit.page_limit(request, ratelimit.ANSWER)
        )
        if refused:
            return refused
        folder = form.cleaned_data["folder"]
        started = time.perf_counter()
        try:
            answer, searched = _answer_or_search(user, form, stream) if page == 1 else (None, None)
            # The same question again, grouped by document: its query vector is cached by now, and
            # its dense leg is the one the answer's search has just ranked. The filter panel counts
            # this list's documents, so a facet's count is what its link will list.
            context["results"] = results = search_documents(
                user=user, query=form.cleaned_data["q"], filters=form.filters, page=page, page_size=RESULTS_PER_PAGE,
                dense_leg=searched.dense_leg if searched is not None else None, facets=True,
            )  # fmt: skip
        except NotFoundOrForbidden as exc:  # a folder or document of the URL this reader may not read
            form.add_error(None, exc.message)
        except ServiceUnavailable as exc:  # the embedding server, or a vector column awaiting embedding_switch
            return unavailable_page(request, exc)
        else:
            context |= _result_layout(form.cleaned_data["q"], answer, searched, results, stream, data)
            if answer is not None:
                asker = question_log.asker_for(request, Endpoint.PAGE, folder=folder, filters=form.filters.params())
                answer.id = question_log.log_answer(asker, answer, (time.perf_counter() - started) * 1000)
    context["filter_panel"] = filter_panel(
        data, form, user, filter_matches=searched.filter_matches if searched is not None else None,
        facets=results.facets if results is not None else None,
    )  # fmt: skip
    return render(request, "search.html", context)


def _result_layout(
    question: str,
    answer: Answer | None,
    searched: Answer | SearchResult | None,
    results: DocumentPage,
    stream: bool,
    data: QueryDict,
) -> dict[str, Any]:
    """What the page shows and in which order (citations/result_order.py): the answer first for a
    question; the documents first, under one line, for keywords and headings; never a refusal
    banner over matching documents; each passage once (a source is not listed again as a snippet)."""
    if searched is None:  # page 2 and later: the list alone
        return {"results_first": True, "answer": None, "stream": False, "source_chunks": {},
                "query_params": _without(data, "csrfmiddlewaretoken")}  # fmt: skip
    headings = [d.title for d in results.documents] + [p.section for d in results.documents for p in d.passages]
    refused_over_results = searched.refused and results.total > 0
    first = refused_over_results or results_first(question, headings)
    sources: dict[int, int] = {}  # chunk id → the answer's [n]
    if answer is not None:
        sources = {c.hit.chunk_id: c.n for c in answer.citations}
    elif isinstance(searched, SearchResult) and not searched.refused:  # the streamed answer's sources
        sources = {hit.chunk_id: n for n, hit in enumerate(searched.hits[: source_count()], start=1)}
    return {
        "answer": None if refused_over_results else answer,
        "stream": stream and not refused_over_results,
        "results_first": first,
        "status_line": status_line(searched.state, searched.reasons, searched.message) if first else "",
        "search_state": searched.state,
        "source_chunks": sources,
        "suggestion": searched.suggestion,
        "suggestion_url": _respelt_url(data, searched.suggestion) if searched.suggestion else "",
        "searched_ms": searched.timings_ms.get("total", 0.0),
        "query_params": _without(data, "csrfmiddlewaretoken"),
    }


def _without(data: QueryDict, *names: str) -> QueryDict:
    """The search's parameters (a POSTed search's too) without `names`: what its links are built from."""
    params = data.copy()
    for name in names:
        params.pop(name, None)
    return params


def _respelt_url(data: QueryDict, suggestion: str) -> str:
    """This search with the respelt question: the same filters, from page 1."""
    params = _without(data, "page", "stream", "csrfmiddlewaretoken")
    params["q"] = suggestion
    return f"{reverse('citations:search')}?{params.urlencode()}"


def _answer_or_search(user: AnyUser, form: SearchForm, stream: bool) -> tuple[Answer | None, Answer | SearchResult]:
    """The answer (None when the script streams it), and the search the filter panel counts from
    and the grouped list reuses: the answer's, or the one the streamed answer is written from."""
    question, filters = form.cleaned_data["q"], form.filters
    if not stream:
        answer = answer_question(user=user, question=question, filters=filters)
        return answer, answer
    return None, search_chunks(user=user, query=question, k=passage_count(), filters=filters)


RESULTS_PER_PAGE = 10


def _result_page(data: QueryDict) -> int | None:
    """`page=N` of the result list (1 when absent); None when it is not a page number."""
    raw = data.get("page", "1").strip()
    return int(raw) if raw.isdigit() and 1 <= int(raw) <= 100_000 else None


def _readable_document(request: HttpRequest, document_id: int) -> Document:
    try:
        return access_document_readable(user=request_user(request), document_id=document_id)
    except NotFoundOrForbidden as exc:
        raise Http404(exc.message) from exc


def _page_count(document: Document) -> int:
    return len(document.page_starts or []) or document.page_count or 0


@require_GET
def document_view(request: HttpRequest, document_id: int) -> HttpResponse:
    """The canonical text as one escaped text node; viewer.js highlights `#char=a,b`."""
    document = _readable_document(request, document_id)
    # The whole text goes into the page (up to INGEST_MAX_TEXT_CHARS): a view is not free.
    refused = ratelimit.page_limit(request, ratelimit.RENDER)
    if refused:
        return refused
    # The HTML parser turns CR into LF and CR LF into one LF; a space keeps every offset in place.
    text = document.canonical_text.replace("\r", " ")
    context = {
        "document": document,
        "folder_path": visible_folder_path(user=request_user(request), folder_id=document.folder_id),
        "text": text,
        "page_starts": document.page_starts if document.is_pdf else [],
        "page_count": _page_count(document),
        "file_url": locators.file_url(document.pk),
    }
    return render(request, "viewer/document.html", context)


def _page_request(request: HttpRequest, document_id: int, page: int) -> tuple[Document, tuple[int, int] | None]:
    document = _readable_document(request, document_id)
    if not document.is_pdf or not 1 <= page <= _page_count(document):
        raise Http404("No such page.")
    length = len(document.canonical_text)
    asked = locators.parse_char_range(request.GET.get("char"), length)
    bounds = locators.page_span(document.page_starts, page, length)
    return document, locators.clip(asked, bounds) if asked else None


@require_GET
def document_page(request: HttpRequest, document_id: int, page: int) -> HttpResponse:
    """A PDF page rendered as an image, with the passage `?char=a,b` highlighted on it."""
    from citations.rendering import render_page

    document, span = _page_request(request, document_id, page)
    refused = _render_limit(request, document, page, span)
    if refused:
        return refused
    asked = request.GET.get("char", "")
    rendered = render_page(document, page, span)
    context: dict[str, Any] = {
        "document": document,
        "folder_path": visible_folder_path(user=request_user(request), folder_id=document.folder_id),
        "page": page,
        "page_count": _page_count(document),
        "span": span,
        "quote": document.canonical_text[span[0] : span[1]] if span else "",
        "located": bool(rendered.boxes),
        "image_url": locators.page_image_url(document.pk, page, *(span or (None, None))),
        "aspect": f"{rendered.width:g} / {rendered.height:g}",
        "anchor_top": f"{rendered.boxes[0][1] / rendered.height * 100:.2f}%" if rendered.boxes else "",
        "text_url": locators.viewer_url(document.pk, *span)
        if span
        else f"{locators.viewer_url(document.pk)}#page={page}",
        "file_url": locators.file_url(document.pk, page),
        "query": f"?char={asked}" if locators.parse_char_range(asked) else "",
    }
    return render(request, "viewer/page.html", context)


def _render_limit(
    request: HttpRequest, document: Document, page: int, span: tuple[int, int] | None
) -> HttpResponse | None:
    """A render the page cache holds is a file read; a new one opens the whole PDF and draws the
    page (about 60 ms and 0.4 MB of cache for each passage range asked): only those count."""
    from citations.rendering import is_cached

    return None if is_cached(document, page, span) else ratelimit.page_limit(request, ratelimit.RENDER)


@require_GET
def document_page_image(request: HttpRequest, document_id: int, page: int) -> HttpResponseBase:
    from citations.rendering import render_page

    document, span = _page_request(request, document_id, page)
    refused = _render_limit(request, document, page, span)
    if refused:
        return refused
    rendered = render_page(document, page, span)
    response = FileResponse(rendered.png.open("rb"), content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_GET
def document_file(request: HttpRequest, document_id: int) -> HttpResponseBase:
    """The original upload, inline, with its own type (text types as UTF-8 plain text); a Word
    file, and a PDF that carries scripts, as a download. A Range request gets the bytes it names
    (206), from any FILE_STORAGE: a PDF viewer seeks instead of waiting for the whole file."""
    document = _readable_document(request, document_id)
    try:
        stream = document.file.open("rb")
    except (FileNotFoundError, ValueError) as exc:
        raise Http404("The stored file is missing.") from exc
    content_type = "application/pdf" if document.is_pdf else "text/plain; charset=utf-8"
    # A browser cannot show a Word file: it is downloaded. A web page is shown as its source
    # text (never rendered: its scripts must not run on this site). A PDF's scripts run in
    # Chromium's viewer whatever the response's headers say, so such a PDF is only downloaded.
    is_word = document.content_type == DOCX
    content_type = DOCX if is_word else content_type
    download = is_word or (document.is_pdf and pdf_scripts.pdf_carries_scripts(document))
    response = ranged_file_response(
        request,
        stream,
        size=document.size,
        etag=document.sha256,
        content_type=content_type,
        filename=document.original_name,
        as_attachment=download,
    )
    response["X-Content-Type-Options"] = "nosniff"
    if not document.is_pdf:
        response["Content-Security-Policy"] = "sandbox"
    return response


class RateLimitedLoginView(LoginView):
    """Django's login page, with wrong passwords limited per address (ragsite.ratelimit.limit_login)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return ratelimit.limit_login(request, lambda: super(RateLimitedLoginView, self).post(request, *args, **kwargs))
