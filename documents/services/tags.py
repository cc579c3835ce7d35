"""Tags as staff manage them: create, rename, delete. Names are unique whatever their case.

Tagging documents is documents/services/metadata.py (`documents_tag`, `tag_get_or_create`) and
documents/services/document_edit.py. None of these is a document event: no webhook is sent.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from documents.models import Tag
from documents.names import name_clean
from ragsite.errors import Conflict, InvalidInput

MAX_TAG_CHARS = 100


def _name(name: str) -> str:
    cleaned = " ".join(name_clean(name, what="tag name").split())
    if not cleaned:
        raise InvalidInput("A tag needs a name.")
    if len(cleaned) > MAX_TAG_CHARS:
        raise InvalidInput(f"A tag name is at most {MAX_TAG_CHARS} characters.")
    return cleaned


def _taken(name: str, but: int | None = None) -> None:
    others = Tag.objects.filter(name__iexact=name)
    clash = (others.exclude(pk=but) if but is not None else others).first()
    if clash is not None:
        raise Conflict(f"A tag named '{clash.name}' exists already (names are unique whatever their case).")


def tag_create(*, name: str) -> Tag:
    cleaned = _name(name)
    _taken(cleaned)
    try:
        with transaction.atomic():
            return Tag.objects.create(name=cleaned)
    except IntegrityError as exc:  # created meanwhile by another request
        raise Conflict(f"A tag named '{cleaned}' exists already.") from exc


def tag_rename(*, tag: Tag, name: str) -> Tag:
    """The tag renamed; its documents keep it. A change of case alone is a rename too."""
    cleaned = _name(name)
    _taken(cleaned, but=tag.pk)
    try:
        with transaction.atomic():
            Tag.objects.filter(pk=tag.pk).update(name=cleaned)
    except IntegrityError as exc:
        raise Conflict(f"A tag named '{cleaned}' exists already.") from exc
    tag.name = cleaned
    return tag


def tag_delete(*, tag: Tag) -> None:
    """The tag removed from every document and deleted; the documents stay."""
    tag.delete()
