"""Tags as staff manage them: create, rename, delete. Names are unique whatever their case.

Tagging documents is documents/services/metadata.py (`documents_tag`, `tag_get_or_create`) and
documents/services/document_edit.py. None of these is a document event: no webhook is sent.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from documents.models import Tag
from documents.names import name_clean
from ragsite.errors import Conflict, InvalidInput

MAX_TAG_CHARS = 100


def _name(name: str) -> str:
    cleaned = " ".join(name_clean(name, what="tag name").split())
    if not cleaned:
        raise InvalidInput(gettext("A tag needs a name."))
    if len(cleaned) > MAX_TAG_CHARS:
        raise InvalidInput(gettext("A tag name is at most %(most)d characters.") % {"most": MAX_TAG_CHARS})
    return cleaned


def _taken(name: str, but: int | None = None) -> None:
    others = Tag.objects.filter(name__iexact=name)
    clash = (others.exclude(pk=but) if but is not None else others).first()
    if clash is not None:
        said = gettext("A tag named '%(name)s' exists already (names are unique whatever their case).")
        raise Conflict(said % {"name": clash.name})


def _exists(name: str) -> Conflict:
    return Conflict(gettext("A tag named '%(name)s' exists already.") % {"name": name})


def tag_create(*, name: str) -> Tag:
    cleaned = _name(name)
    _taken(cleaned)
    try:
        with transaction.atomic():
            return Tag.objects.create(name=cleaned)
    except IntegrityError as exc:  # created meanwhile by another request
        raise _exists(cleaned) from exc


def tag_rename(*, tag: Tag, name: str) -> Tag:
    """The tag renamed; its documents keep it. A change of case alone is a rename too."""
    cleaned = _name(name)
    _taken(cleaned, but=tag.pk)
    try:
        with transaction.atomic():
            Tag.objects.filter(pk=tag.pk).update(name=cleaned)
    except IntegrityError as exc:
        raise _exists(cleaned) from exc
    tag.name = cleaned
    return tag


def tag_delete(*, tag: Tag) -> None:
    """The tag removed from every document and deleted; the documents stay."""
    tag.delete()
