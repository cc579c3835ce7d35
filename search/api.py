"""GET /api/search: hybrid retrieval over the folders the caller may read.

Anonymous callers may search too: they see public folders only (and are rate-limited by
address). A folder the caller may not read answers 404, exactly like one that does not exist.
"""

from django.http import HttpRequest
from ninja import Query, Router

from documents.access import access_folder_readable
from documents.schemas import ErrorOut, ValidationErrorOut
from ragsite.caller import request_user
from ragsite.ratelimit import FixedWindowRateLimit
from search.schemas import DocumentSearchOut, SearchOut, SearchParams
from search.services.grouping import DocumentPage, search_documents
from search.services.retrieval import SearchResult, search_chunks

router = Router(tags=["search"])


@router.get(
    "/search",
    response={200: SearchOut | DocumentSearchOut, 401: ErrorOut, 404: ErrorOut, 422: ValidationErrorOut, 429: ErrorOut},
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
    user = request_user(request)
    if params.folder is not None:
        access_folder_readable(user=user, folder_id=params.folder)
    if params.group == "document":
        return search_documents(
            user=user, query=params.q, folder_id=params.folder, page=params.page, page_size=params.page_size
        )
    return search_chunks(user=user, query=params.q, folder_id=params.folder, k=params.k, mode=params.mode)
