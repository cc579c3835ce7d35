"""The API's one way to page a list: `page` (from 1) and `page_size` (1..200, default 50), answered
as `{items, count, next}`, `next` being the next page's absolute URL (null on the last) with every
other parameter kept, so a client pages by following it.

`limit` and `offset` are kept one release as deprecated aliases (docs/api.md "API changes"): `limit`
stands for `page_size`, and `offset`, when given, replaces `page` (the next URL then moves it on).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Field, Schema
from ninja.pagination import PaginationBase

from documents.models import Folder
from documents.references import references

MAX_PAGE_SIZE = 200
DEFAULT_PAGE_SIZE = 50
MAX_PAGE = 1_000_000


class PageParams(Schema):
    page: int = Field(1, ge=1, le=MAX_PAGE, description="Which page (from 1).")
    page_size: int | None = Field(
        None, ge=1, le=MAX_PAGE_SIZE, description=f"Items per page (1..{MAX_PAGE_SIZE}, default {DEFAULT_PAGE_SIZE})."
    )
    limit: int | None = Field(
        None,
        ge=1,
        le=MAX_PAGE_SIZE,
        description="Deprecated (removed in the next release): send `page_size`.",
        json_schema_extra={"deprecated": True},
    )
    offset: int | None = Field(
        None,
        ge=0,
        le=MAX_PAGE * MAX_PAGE_SIZE,
        description="Deprecated (removed in the next release): send `page`. Items to skip; replaces `page`.",
        json_schema_extra={"deprecated": True},
    )


class PageOut(Schema):
    items: list[Any]
    count: int = Field(description="All matching items the caller may see.")
    next: str | None = Field(description="The next page's absolute URL (every other parameter kept); null on the last.")


class Page(PaginationBase):
    """`page_size` items of page `page`; `count` = all matching items; `next` = the next page's URL."""

    Input = PageParams  # type: ignore[assignment]
    Output = PageOut  # type: ignore[assignment]

    def paginate_queryset(self, queryset: QuerySet, pagination: Any, request: HttpRequest, **params: Any) -> Any:
        size = pagination.page_size or pagination.limit or DEFAULT_PAGE_SIZE
        start = pagination.offset if pagination.offset is not None else (pagination.page - 1) * size
        count = self._items_count(queryset)
        items = list(queryset[start : start + size])
        # The page's folder paths in one query, not one per item.
        references(request).prime(
            i.pk if isinstance(i, Folder) else i.folder_id
            for i in items
            if hasattr(i, "folder_id") or isinstance(i, Folder)
        )
        following = start + size
        moved = {"offset": following} if pagination.offset is not None else {"page": pagination.page + 1}
        return {
            "items": items,
            "count": count,
            "next": references(request).next_page(moved) if following < count else None,
        }
