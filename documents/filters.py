"""Document filters: what a reader narrows a search or a document list by, parsed once.

The same GET parameters drive the search page, `/api/search` and `GET /api/documents`, so a
filtered result page is a URL that can be bookmarked and shared:

    folder=<id>        that folder and its subfolders
    type=<kind>        a file format (`pdf`, `docx`, `html`, `markdown`, `plaintext`); repeatable
    tag=<name>         a staff tag, by name, case-insensitively; repeatable
    author=<name>      an author, case-insensitively, the whole name; repeatable
    language=<code>    the document's main language, an ISO 639-1 code (`pt`; `pt-BR` reads as `pt`); repeatable
    from=<YYYY-MM-DD>  published on or after (a year, YYYY, means its first day)
    to=<YYYY-MM-DD>    published on or before (a year, YYYY, means its last day)
    document=<id>      within this one document

Values of one parameter are alternatives (type=pdf&type=docx: either); different parameters
must all hold. A document without a publication date never matches a date range.
Malformed values raise `FilterError` with a sentence a person can act on, in the active language
(the parameter names in it stay as the URL spells them). A name is never
checked against the library: a tag or author that exists only on documents the reader may not
read matches nothing, exactly like a name nothing holds, so a filter cannot tell a reader what
exists beyond what they may read. Ids of folders and documents the caller may not read are
checked by the caller (`documents.access`), so they answer exactly like ids that do not exist.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils.translation import get_language_info, gettext

from documents.extraction.formats import FORMATS
from documents.languages import base_language
from documents.models import Document, Tag
from ragsite.errors import InvalidInput

# The GET parameters, in the order pages and docs list them.
FILTER_PARAMS = ("folder", "type", "tag", "author", "language", "from", "to", "document")
TYPE_LABELS = {f.key: f.short_label for f in FORMATS}
_MEDIA_TYPES = {f.key: f.media_types for f in FORMATS}
MAX_VALUES = 20  # per repeatable parameter: a filter is a few choices, not a list of ids
MAX_VALUE_CHARS = 300


class FilterError(InvalidInput):
    """A filter value that names nothing possible (an unknown type, a malformed date or id)."""


@dataclass(frozen=True)
class Filters:
    folder: int | None = None
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    document: int | None = None
    # Tag names as the reader gave them (the first spelling of each), for links that keep them.
    tag_names: tuple[str, ...] = field(default=(), compare=False)

    @property
    def active(self) -> bool:
        return bool(self.params())

    def params(self) -> list[tuple[str, str]]:
        """The GET parameters that say these filters (for links that keep them)."""
        pairs: list[tuple[str, str]] = []
        if self.folder is not None:
            pairs.append(("folder", str(self.folder)))
        pairs += [("type", t) for t in self.types]
        pairs += [("tag", t) for t in self.tag_names or self.tags]
        pairs += [("author", a) for a in self.authors]
        pairs += [("language", code) for code in self.languages]
        if self.date_from is not None:
            pairs.append(("from", self.date_from.isoformat()))
        if self.date_to is not None:
            pairs.append(("to", self.date_to.isoformat()))
        if self.document is not None:
            pairs.append(("document", str(self.document)))
        return pairs


Getter = Callable[[str], list[str]]


def parse_filters(get: Getter) -> Filters:
    """Filters from GET parameters (`get(name)`: every value of that name, e.g. QueryDict.getlist).

    Blank values are ignored (an empty form field filters nothing); anything else must be valid.
    """
    values = {name: [v.strip() for v in get(name) if v and v.strip()] for name in FILTER_PARAMS}
    for name, given in values.items():
        if len(given) > MAX_VALUES:
            raise FilterError(
                gettext("Give at most %(most)d values of '%(name)s'.") % {"most": MAX_VALUES, "name": name}
            )
        if any(len(v) > MAX_VALUE_CHARS for v in given):
            raise FilterError(
                gettext("A value of '%(name)s' is longer than %(most)d characters.")
                % {"name": name, "most": MAX_VALUE_CHARS}
            )
        # PostgreSQL text cannot hold NUL: no name can match one, and the query would fail.
        if any("\x00" in v for v in given):
            raise FilterError(gettext("A value of '%(name)s' holds a NUL character.") % {"name": name})
    types = tuple(dict.fromkeys(_type(v) for v in values["type"]))
    tag_names = _tags(values["tag"])
    date_from = _date(values["from"], "from", end=False)
    date_to = _date(values["to"], "to", end=True)
    if date_from and date_to and date_from > date_to:
        raise FilterError(
            gettext("The date range is empty: 'from' (%(start)s) is after 'to' (%(end)s).")
            % {"start": date_from, "end": date_to}
        )
    return Filters(
        folder=_single_id(values["folder"], "folder"),
        types=types,
        tags=tuple(name.lower() for name in tag_names),
        authors=tuple(dict.fromkeys(values["author"])),
        languages=tuple(dict.fromkeys(_language(v) for v in values["language"])),
        date_from=date_from,
        date_to=date_to,
        document=_single_id(values["document"], "document"),
        tag_names=tag_names,
    )


def _single_id(given: list[str], name: str) -> int | None:
    if not given:
        return None
    if len(set(given)) > 1:
        raise FilterError(gettext("Give one '%(name)s', not %(count)d.") % {"name": name, "count": len(given)})
    if not given[0].isascii() or not given[0].isdigit() or len(given[0]) > 18:
        raise FilterError(
            gettext("'%(name)s' must be a %(name)s id (a whole number), not %(value)s.")
            % {"name": name, "value": repr(given[0])}
        )
    return int(given[0])


def _type(value: str) -> str:
    key = value.lower()
    if key not in TYPE_LABELS:
        raise FilterError(
            gettext("Unknown type %(value)s: use one of %(types)s.")
            % {"value": repr(value), "types": ", ".join(TYPE_LABELS)}
        )
    return key


def _language(value: str) -> str:
    code = base_language(value)
    if len(code) != 2 or not code.isascii() or not code.isalpha():
        raise FilterError(
            gettext("'language' must be a two-letter ISO 639-1 code such as en or pt, not %(value)s.")
            % {"value": repr(value)}
        )
    return code


def language_label(code: str) -> str:
    """A language's name in the reader's language ("Portuguese" for pt in English, "Português" in
    Portuguese); the code itself for one Django does not name."""
    try:
        return str(get_language_info(code)["name_translated"])
    except KeyError:
        return code


def _tags(given: list[str]) -> tuple[str, ...]:
    """The names given, one per name whatever its case; not looked up (see the module's docstring)."""
    wanted: dict[str, str] = {}
    for value in given:
        wanted.setdefault(value.lower(), value)
    return tuple(wanted.values())


def _any_name(lowered: Iterable[str]) -> Q:
    query = Q(pk__in=[])
    for name in lowered:
        query |= Q(name__iexact=name)
    return query


def _date(given: list[str], name: str, *, end: bool) -> dt.date | None:
    """YYYY-MM-DD, YYYY-MM or YYYY; a partial date means its first (from) or last (to) day."""
    if not given:
        return None
    if len(given) > 1:
        raise FilterError(gettext("Give one '%(name)s' date, not %(count)d.") % {"name": name, "count": len(given)})
    value = given[0]
    try:
        parts = [int(p) for p in value.split("-")] if value.replace("-", "").isdigit() else []
        if len(parts) == 3:
            return dt.date(*parts)
        if len(parts) == 2:
            return dt.date(parts[0], parts[1], calendar.monthrange(*parts)[1] if end else 1)
        if len(parts) == 1 and len(value) == 4:
            return dt.date(parts[0], 12, 31) if end else dt.date(parts[0], 1, 1)
    except (ValueError, calendar.IllegalMonthError):
        pass
    raise FilterError(
        gettext("'%(name)s' must be a date as YYYY-MM-DD (or YYYY-MM, or YYYY), not %(value)s.")
        % {"name": name, "value": repr(value)}
    )


def filter_documents(
    documents: QuerySet[Document], filters: Filters, folder_ids: set[int] | None = None
) -> QuerySet[Document]:
    """`documents` narrowed by `filters`; `folder_ids`: the filter folder with its subfolders
    (the caller resolves them, within what the reader may read)."""
    if filters.folder is not None:
        documents = documents.filter(folder_id__in=folder_ids or [])
    if filters.types:
        documents = documents.filter(content_type__in=[m for t in filters.types for m in _MEDIA_TYPES[t]])
    if filters.tags:  # any of them; a subquery, not a join that would repeat a document per tag
        tagged = Document.tags.through.objects.filter(tag__in=_tags_named(filters.tags))
        documents = documents.filter(pk__in=tagged.values("document_id"))
    if filters.authors:
        documents = documents.filter(_any_author(filters.authors))
    if filters.languages:
        documents = documents.filter(language__in=filters.languages)
    if filters.date_from is not None:
        documents = documents.filter(published__gte=filters.date_from)
    if filters.date_to is not None:
        documents = documents.filter(published__lte=filters.date_to)
    if filters.document is not None:
        documents = documents.filter(pk=filters.document)
    return documents


def _tags_named(lowered: tuple[str, ...]) -> QuerySet[Tag]:
    return Tag.objects.filter(_any_name(lowered))


# An author named in full, whatever the case: any element of the array, lower-cased, among the
# wanted names (an array operator alone cannot compare case-insensitively).
_AUTHOR_SQL = "EXISTS (SELECT 1 FROM unnest(documents_document.authors) AS a WHERE lower(a) = ANY(%s::text[]))"


def _any_author(authors: tuple[str, ...]) -> RawSQL:
    return RawSQL(_AUTHOR_SQL, [[a.lower() for a in authors]], output_field=BooleanField())
