"""The filter panel beside the search page's results: active filters, facet links, and the tags
a reader may choose from. Every link is the current URL with one filter added, replaced or
removed, so each state of the page can be bookmarked and shared."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.http import QueryDict
from django.utils.translation import gettext

from documents.filters import TYPE_LABELS, Filters, language_label
from documents.languages import base_language
from documents.models import Tag
from documents.selectors import documents_for_user, visible_folder_path

if TYPE_CHECKING:
    from citations.forms import SearchForm
    from documents.selectors import AnyUser
    from search.services.facets import Facets

# Parameters that belong to one result page, not to the search: a changed filter starts over.
_PAGE_PARAMS = ("page", "offset")


@dataclass
class FacetLink:
    label: str
    count: int
    url: str
    selected: bool


@dataclass
class FacetGroup:
    name: str  # the parameter, also the group's id on the page
    title: str
    links: list[FacetLink]


@dataclass
class ActiveFilter:
    label: str
    remove_url: str


@dataclass
class FilterPanel:
    active: list[ActiveFilter] = field(default_factory=list)
    groups: list[FacetGroup] = field(default_factory=list)
    clear_url: str = ""
    nothing: bool = False  # the filters match no document the reader may read
    counted: int = 0  # documents the facets count: the result list's, every page
    document_title: str = ""  # the document searched within, if any


def readable_tag_names(user: AnyUser) -> list[str]:
    """Tags on at least one indexed document the reader may read: no other tag is offered."""
    readable = documents_for_user(user=user).filter(indexed_at__isnull=False)
    return list(Tag.objects.filter(documents__in=readable).distinct().order_by("name").values_list("name", flat=True))


def _url(
    query: QueryDict,
    *,
    drop: tuple[str, ...] = (),
    keep: tuple[str, str] | None = None,
    add: list[tuple[str, str]] | None = None,
) -> str:
    pairs = [(k, v) for k, values in query.lists() if k not in drop and k not in _PAGE_PARAMS for v in values]
    if keep is not None:
        pairs = [p for p in pairs if p != keep]
    pairs += add or []
    fresh = QueryDict(mutable=True)
    for key, value in pairs:
        fresh.appendlist(key, value)
    return "?" + fresh.urlencode()


def filter_panel(
    query: QueryDict,
    form: SearchForm,
    user: AnyUser,
    *,
    filter_matches: int | None = None,
    facets: Facets | None = None,
) -> FilterPanel:
    """The panel for this URL; `filter_matches` (None: no filter, or nothing searched) and
    `facets` (the result list's counts, search.services.grouping.DocumentPage) once searched."""
    filters = form.filters if form.is_bound and not form.errors else Filters()
    panel = FilterPanel(
        clear_url=_url(query, drop=("folder", "type", "tag", "author", "language", "from", "to", "document"))
    )
    panel.active = _active(query, filters, user, panel)
    panel.nothing = filter_matches == 0
    if facets is not None:
        panel.counted = facets.documents
        panel.groups = _groups(query, filters, facets)
    return panel


def _active(query: QueryDict, filters: Filters, user: AnyUser, panel: FilterPanel) -> list[ActiveFilter]:
    active = [
        ActiveFilter(gettext("Type: %(value)s") % {"value": TYPE_LABELS[t]}, _url(query, keep=("type", t)))
        for t in filters.types
    ]
    for raw in query.getlist("type"):
        if raw.strip().lower() in filters.types and raw != raw.strip().lower():  # "PDF" in a URL: remove it too
            active[-1].remove_url = _url(query, drop=("type",))
    active += [
        ActiveFilter(gettext("Tag: %(value)s") % {"value": t}, _url(query, keep=("tag", t)))
        for t in query.getlist("tag")
        if t.strip()
    ]
    active += [
        ActiveFilter(gettext("Author: %(value)s") % {"value": a}, _url(query, keep=("author", a)))
        for a in query.getlist("author")
        if a.strip()
    ]
    active += [
        ActiveFilter(
            gettext("Language: %(value)s") % {"value": language_label(code)},
            _url(query, drop=("language",), add=_others(query, code)),
        )
        for code in filters.languages
    ]
    if filters.date_from or filters.date_to:
        span = f"{filters.date_from or '…'} – {filters.date_to or '…'}"
        active.append(ActiveFilter(gettext("Published: %(value)s") % {"value": span}, _url(query, drop=("from", "to"))))
    if filters.document is not None:
        title = documents_for_user(user=user).filter(pk=filters.document).values_list("title", flat=True).first()
        panel.document_title = title or ""
        active.append(
            ActiveFilter(
                gettext("Within: %(value)s") % {"value": panel.document_title or filters.document},
                _url(query, drop=("document",)),
            )
        )
    if filters.folder is not None:
        path = visible_folder_path(user=user, folder_id=filters.folder)
        active.append(
            ActiveFilter(
                gettext("Folder: %(value)s") % {"value": path or filters.folder}, _url(query, drop=("folder",))
            )
        )
    return active


def _others(query: QueryDict, code: str) -> list[tuple[str, str]]:
    """The language values of `query` other than `code` (however each was written: PT, pt-BR)."""
    return [("language", v) for v in query.getlist("language") if v.strip() and base_language(v.strip()) != code]


def _groups(query: QueryDict, filters: Filters, facets: Facets) -> list[FacetGroup]:
    def link(name: str, value: str, label: str, count: int, selected: bool, replace: tuple[str, ...] = ()) -> FacetLink:
        if selected:
            url = _url(query, drop=replace) if replace else _url(query, keep=(name, value))
        else:
            url = _url(query, drop=replace, add=[(name, value)] if name != "year" else [("from", value), ("to", value)])
        return FacetLink(label, count, url, selected)

    year = (
        str(filters.date_from.year)
        if filters.date_from
        and filters.date_to
        and filters.date_from.year == filters.date_to.year
        and filters.date_from.timetuple().tm_yday == 1
        and filters.date_to.month == 12
        and filters.date_to.day == 31
        else ""
    )
    tags = {t.lower() for t in filters.tags}
    groups: list[Any] = [
        FacetGroup(
            "type",
            gettext("Type"),
            [link("type", f.value, f.label, f.count, f.value in filters.types) for f in facets.type],
        ),
        FacetGroup(
            "tag", gettext("Tag"), [link("tag", f.value, f.label, f.count, f.value.lower() in tags) for f in facets.tag]
        ),
        FacetGroup(
            "language",
            gettext("Language"),
            [link("language", f.value, f.label, f.count, f.value in filters.languages) for f in facets.language],
        ),
        FacetGroup(
            "year",
            gettext("Year"),
            [link("year", f.value, f.label, f.count, f.value == year, ("from", "to")) for f in facets.year],
        ),
        FacetGroup(
            "folder",
            gettext("Folder"),
            [
                link("folder", f.value, f.label, f.count, f.value == str(filters.folder), ("folder",))
                for f in facets.folder
            ],
        ),
    ]
    return [g for g in groups if g.links]
