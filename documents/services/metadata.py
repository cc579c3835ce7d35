"""A document's metadata written from extraction, and corrected by staff.

Extraction (documents/extraction/metadata.py) proposes a title, authors and a date at every
indexing; a field staff corrected is named in `Document.metadata_edited` and extraction never
writes it again, so a correction survives re-indexing. `manage.py backfill_metadata` runs the
extraction alone for documents indexed before metadata existed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from django.db import transaction

from documents.extraction.metadata import DocumentMetadata, extract_metadata
from documents.extraction.types import ExtractedText, OcrPageText
from documents.file_storage.local import local_copy
from documents.models import Document, OcrPage, Tag
from documents.names import name_clean, title_from_name

logger = logging.getLogger(__name__)

METADATA_FIELDS = ("title", "authors", "published")


def document_metadata_read(document: Document, extracted: Any = None, *, path: Path | None = None) -> DocumentMetadata:
    """What the stored file says of itself; its file name stands in for a title it does not state.

    `path` is a local copy of the original the caller holds already; without it one is made.
    Without `extracted`, a scanned first page is read from the words OCR stored for it, never OCR'd again."""
    if path is None:
        with local_copy(document.file.storage, document.file.name) as copy:
            return document_metadata_read(document, extracted, path=copy)
    if extracted is None:
        extracted = _stored_first_page_ocr(document)
    return extract_metadata(
        path,
        document.content_type,
        fallback_title=title_from_name(document.original_name),
        extracted=extracted,
        collection=document.folder.name,
    )


def _stored_first_page_ocr(document: Document) -> ExtractedText | None:
    first = OcrPage.objects.filter(document_id=document.pk, number=1).first()
    if first is None:
        return None
    words = [tuple(word) for word in first.words]
    return ExtractedText(text="", ocr_pages=[OcrPageText(number=1, mean_confidence=first.mean_confidence, words=words)])


def metadata_updates(found: DocumentMetadata, edited: list[str]) -> dict[str, object]:
    """The fields extraction may write: those staff did not correct."""
    values: dict[str, object] = {"title": found.title, "authors": found.authors, "published": found.published}
    return {key: value for key, value in values.items() if key not in edited}


def chunk_title(document: Document) -> str:
    """The document's name in its chunks' "Title > Section" header: the title a person gave it (at
    upload or as a correction), else its file name, as before titles were extracted. Extracted
    titles stay out of the embedded text so that extraction leaves retrieval as evaluated
    (evaluation/index.py names documents by file name too)."""
    if "title" in document.metadata_edited:
        return document.title
    return title_from_name(document.original_name)


def document_metadata_correct(document_id: int, changes: dict[str, Any]) -> list[str]:
    """Staff's correction of title, authors or published: writes the values that differ from the
    stored ones and marks those fields corrected; returns their names."""
    unknown = set(changes) - set(METADATA_FIELDS)
    if unknown:
        raise ValueError(f"Not a metadata field: {', '.join(sorted(unknown))}")
    with transaction.atomic():
        locked = Document.objects.select_for_update().filter(pk=document_id).first()
        if locked is None:
            return []
        differ = {key: value for key, value in changes.items() if getattr(locked, key) != value}
        if differ:
            edited = sorted(set(locked.metadata_edited) | set(differ))
            Document.objects.filter(pk=document_id).update(**differ, metadata_edited=edited)
    return list(differ)


def document_metadata_reset(document_id: int, fields: list[str]) -> None:
    """Hand `fields` back to extraction: the next indexing (or backfill) writes them again."""
    with transaction.atomic():
        locked = Document.objects.select_for_update().filter(pk=document_id).first()
        if locked is not None:
            edited = [f for f in locked.metadata_edited if f not in fields]
            Document.objects.filter(pk=document_id).update(metadata_edited=edited)


def document_metadata_backfill(document: Document) -> bool:
    """Extract one stored document's metadata and write what staff did not correct; True if written."""
    try:
        found = document_metadata_read(document)
    except Exception:  # a file extraction could not read: it keeps what it has, and the log says why
        logger.warning("document %s: metadata could not be read", document.pk, exc_info=True)
        return False
    with transaction.atomic():
        locked = Document.objects.select_for_update().filter(pk=document.pk).first()
        if locked is None:
            return False
        updates = metadata_updates(found, locked.metadata_edited)
        if updates:
            Document.objects.filter(pk=document.pk).update(**updates)
    return bool(updates)


def tag_get_or_create(name: str) -> Tag:
    """The tag of that name whatever its case ("ML" and "ml" are one tag)."""
    name = " ".join(name_clean(name, what="tag name").split())[:100]
    if not name:
        raise ValueError("A tag needs a name.")
    existing = Tag.objects.filter(name__iexact=name).first()
    return existing or Tag.objects.create(name=name)


def documents_tag(documents: Any, tag: Tag, *, add: bool) -> int:
    """Add `tag` to (or remove it from) every document of the queryset; returns how many changed."""
    through = Document.tags.through
    ids = list(documents.values_list("pk", flat=True))
    with transaction.atomic():
        tagged = set(through.objects.filter(tag=tag, document_id__in=ids).values_list("document_id", flat=True))
        if add:
            missing = [pk for pk in ids if pk not in tagged]
            through.objects.bulk_create([through(document_id=pk, tag=tag) for pk in missing], ignore_conflicts=True)
            return len(missing)
        through.objects.filter(tag=tag, document_id__in=ids).delete()
        return len(tagged)
