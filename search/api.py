"""GET /api/search: hybrid retrieval over the folders the caller may read.

Anonymous callers may search too: they see public folders only (and are rate-limited by
address). A folder or document the caller may not read answers 404, exactly like one that does
not exist. Filters (documents/filters.py) are the search page's GET parameters; an unknown or
malformed value answers 400 with the reason.
"""

import logging
import time

from django.http import HttpRequest
from ninja import Query, Router

from documents.access import access_folder_readable
from documents.filters import parse_filters
from documents.references import references
from documents.schemas import ErrorOut
from ragsite.caller import request_user
from ragsite.ratelimit import FixedWindowRateLimit
from search.schemas import DocumentSearchOut, SearchOut, SearchParams, hit_folder_ids
from search.services.grouping import DocumentPage, search_documents
from search.services.retrieval import SearchResult, search_chunks
from search.signals import search_served

logger = logging.getLogger(__name__)
router = Router(tags=["search"])


@router.get(
    "/search",
    response={
        200: SearchOut | DocumentSearchOut,
        400: ErrorOut,
        401: ErrorOut,
        404: ErrorOut,
        422: ErrorOut,
        429: ErrorOut,
    },
    throttle=FixedWindowRateLimit("search"),
    url_name="search",
    operation_id="search",
    summary="Search passages",
)
def search(request: HttpRequest, params: Query[SearchParams]) -> SearchResult | DocumentPage:
    """Passages that answer `q`, best first, each with a viewer link to its exact place.

    When the nearest passage is farther than the threshold the search is `refused` with no
    results: the library does not hold the answer and says so instead of guessing.

    With `group=document`: every matching document once, best first, `page_size` a page, with
    `total` and each document's best passages (snippets with the query's words located).
    """
    filters = parse_filters(request.GET.getlist)  # the same parser as the search page's
    user = request_user(request)
    folder = access_folder_readable(user=user, folder_id=filters.folder) if filters.folder is not None else None
    if params.group == "document":
        page = search_documents(
            user=user, query=params.q, filters=filters, page=params.page, page_size=params.page_size, facets=True
        )
        references(request).prime(d.folder_id for d in page.documents)
        return page
    started = time.perf_counter()
    result = search_chunks(user=user, query=params.q, k=params.k, mode=params.mode, filters=filters, facets=True)
    logged = {"k": params.k, "mode": params.mode, "filters": filters.params()}
    latency_ms = (time.perf_counter() - started) * 1000
    # A listener that fails (the question log) never costs the caller the result.
    sent = search_served.send_robust(SearchResult, request=request, result=result, folder=folder, filters=logged,
                                     latency_ms=latency_ms)  # fmt: skip
    for receiver, outcome in sent:
        if isinstance(outcome, Exception):
            logger.error("search_served listener %r failed", receiver, exc_info=outcome)
    references(request).prime(hit_folder_ids(result.hits))  # the folder paths of the response in one query
    return result
