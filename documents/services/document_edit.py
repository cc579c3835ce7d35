"""Staff's changes to documents outside processing: metadata, tags, and a move to another folder.

The API's PATCH (one document, or many at once) comes here; the admin makes the same changes
through `document_metadata_correct`, `documents_tag` and `documents_move`, which this module
uses, so a corrected field is marked in `metadata_edited` whichever way it was corrected and
re-indexing keeps it. None of these changes is a document event: like the admin's, they send no
webhook (documents/webhooks/events.py knows indexed, failed and deleted only).

The caller checks permissions (documents/access.py: a writable document, a writable target).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext

from documents.models import Document, Folder, Tag
from documents.names import name_clean
from documents.services.library import documents_move
from documents.services.metadata import document_metadata_correct, tag_get_or_create
from ragsite.errors import Conflict, InvalidInput


@dataclass(frozen=True)
class DocumentChanges:
    """What to change; a field left `None` is left as it is (`clear_published` empties the date)."""

    title: str | None = None
    authors: list[str] | None = None
    published: dt.date | None = None
    clear_published: bool = False
    tags: list[str] | None = None  # the whole set, replacing the present one
    add_tags: Sequence[str] = ()
    remove_tags: Sequence[str] = ()
    folder: Folder | None = None

    def metadata(self) -> dict[str, object]:
        values: dict[str, object] = {}
        if self.title is not None:
            title = name_clean(self.title, what="title")
            if not title:
                raise InvalidInput(gettext("A title cannot be blank."))
            values["title"] = title
        if self.authors is not None:
            values["authors"] = _authors(self.authors)
        if self.published is not None or self.clear_published:
            values["published"] = self.published
        return values


def _authors(given: list[str]) -> list[str]:
    names = [" ".join(name_clean(a, what="author name").split()) for a in given]
    return list(dict.fromkeys(n for n in names if n))


def documents_edit(document_ids: Sequence[int], changes: DocumentChanges) -> None:
    """Apply `changes` to every document, all or nothing (one transaction).

    A move whose target already holds one of the files is refused (409) and changes nothing."""
    metadata = changes.metadata()
    with transaction.atomic():
        # The move first, so a refusal names the documents by the titles they have.
        if changes.folder is not None:
            outcome = documents_move(Document.objects.filter(pk__in=document_ids), folder=changes.folder)
            if outcome.duplicates:
                titles = ", ".join(f"'{t}'" for t in outcome.duplicates)
                said = gettext("'%(folder)s' already holds the same file as %(titles)s; nothing was changed.")
                raise Conflict(said % {"folder": changes.folder.name, "titles": titles})
        for document_id in document_ids:
            document_metadata_correct(document_id, metadata)
        replacing = [_tag(n) for n in changes.tags] if changes.tags is not None else None
        added = [_tag(n) for n in changes.add_tags]
        removed = [t for n in changes.remove_tags for t in Tag.objects.filter(name__iexact=n.strip())]
        through = Document.tags.through
        if replacing is not None:
            through.objects.filter(document_id__in=document_ids).exclude(tag__in=replacing).delete()
        through.objects.bulk_create(
            [through(document_id=d, tag=t) for d in document_ids for t in [*(replacing or []), *added]],
            ignore_conflicts=True,
        )
        through.objects.filter(document_id__in=document_ids, tag__in=removed).delete()


def _tag(name: str) -> Tag:
    """The tag of that name (created if new), or a 400 saying why the name cannot be one."""
    try:
        return tag_get_or_create(name)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
