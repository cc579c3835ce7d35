"""Accepting uploaded files: limits, type, safe names, hashing and duplicate detection."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import IO, TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.files import File
from django.db import IntegrityError, transaction
from django.utils.formats import number_format
from django.utils.translation import gettext

from documents.extraction import sniff
from documents.extraction.formats import CONTENT_TYPES_BY_SUFFIX, supported_description
from documents.models import Document, DocumentStatus, Folder
from documents.names import name_clean, title_from_name
from documents.selectors import document_for_user, visible_folder_path
from documents.services.queueing import document_enqueue
from ragsite.errors import Conflict, DomainError, InvalidInput, TooLarge, UnsupportedType

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser


class UploadRejected(DomainError):
    """An upload refused before anything is stored (loaders catch this one class)."""


class EmptyFile(UploadRejected, InvalidInput):
    pass


class FileTooLarge(UploadRejected, TooLarge):
    pass


class UnsupportedFile(UploadRejected, UnsupportedType):
    pass


class DuplicateDocument(UploadRejected, Conflict):
    def __init__(self, existing: Document, folder_path: str | None = None, *, uploader_reads: bool = True) -> None:
        """`folder_path`: the folder as the uploader may see it (by default its whole path).

        `uploader_reads`: whether the uploader may read the document already there. One who may
        only write the folder learns that the file is there, never its document's id or title.
        """
        said = {"folder": folder_path or existing.folder.path, "id": existing.pk, "title": existing.title}
        if uploader_reads:
            message = gettext(
                "The same file is already in folder '%(folder)s' as document %(id)s ('%(title)s'); "
                "it was not stored again."
            )
        else:
            message = gettext("The same file is already in folder '%(folder)s'; it was not stored again.")
        super().__init__(message % said)
        self.existing = existing
        self.uploader_reads = uploader_reads

    def details(self) -> dict[str, Any]:
        return {"existing_document_id": self.existing.pk} if self.uploader_reads else {}


@dataclass(frozen=True)
class IncomingFile:
    name: str
    size: int
    stream: IO[bytes]


def safe_original_name(name: str) -> str:
    """The client's file name without directories, control characters or leading dots."""
    name = unicodedata.normalize("NFC", name or "")
    name = name.replace("\\", "/").split("/")[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = re.sub(r"\s+", " ", name).strip().lstrip(".").strip()
    if len(name) > 200:
        stem, suffix = _split_suffix(name)
        name = stem[: 200 - len(suffix)] + suffix
    return name or "upload"


def _split_suffix(name: str) -> tuple[str, str]:
    suffix = PurePosixPath(name).suffix[:10]
    return name[: len(name) - len(suffix)], suffix


def content_type_for(name: str, stream: IO[bytes] | None = None) -> str:
    """The type the pipeline extracts the file as: its content's, where that is certain.

    A leading PDF header or a Word archive wins over the extension (a Word file saved as
    "report.pdf", or sent without an extension, is still read); otherwise the extension decides,
    and a file whose extension names no supported type is accepted when its content is
    recognisably HTML (or has a PDF header within its first kilobyte).
    A file whose first bytes break its extension's promise (a `.pdf` without a PDF header in its
    first kilobyte, a `.docx` that is not a zip archive) is refused: no reader could open it.
    One that keeps the promise there but is damaged further in fails in extraction.
    """
    sniffed, certain = sniff.sniff(stream) if stream is not None else (None, False)
    if sniffed is not None and certain:
        return sniffed
    suffix = PurePosixPath(name.lower()).suffix
    content_type = CONTENT_TYPES_BY_SUFFIX.get(suffix) or sniffed
    if content_type is None:
        said = gettext("'%(name)s' is not a supported file type; upload %(types)s.")
        raise UnsupportedFile(said % {"name": name, "types": supported_description()})
    broken = sniff.broken_promise(content_type, stream) if stream is not None else None
    if broken is not None:
        raise UnsupportedFile(gettext("'%(name)s' %(broken)s It was not stored.") % {"name": name, "broken": broken})
    return content_type


def _megabytes(size: int) -> str:
    return number_format(size / 1_048_576, decimal_pos=1)


def check_size(name: str, size: int) -> None:
    limit = settings.UPLOAD_MAX_BYTES
    if size > limit:
        said = gettext("'%(name)s' is %(size)s MB; the upload limit is %(limit)s MB.")
        raise FileTooLarge(said % {"name": name, "size": _megabytes(size), "limit": _megabytes(limit)})
    if size == 0:
        raise EmptyFile(gettext("'%(name)s' is empty (0 bytes); there is nothing to index.") % {"name": name})


def sha256_of(stream: IO[bytes]) -> str:
    digest = hashlib.sha256()
    stream.seek(0)
    for block in iter(lambda: stream.read(1 << 20), b""):
        digest.update(block)
    stream.seek(0)
    return digest.hexdigest()


def document_upload(
    *,
    folder: Folder,
    incoming: IncomingFile,
    uploaded_by: AbstractBaseUser | AnonymousUser | None,
    title: str = "",
    enqueue: bool = True,
) -> Document:
    """Store one uploaded file as a queued Document and queue its ingestion after commit.

    With enqueue=False the caller runs the pipeline itself (inline loading, tests).
    Raises an UploadRejected: EmptyFile, FileTooLarge, UnsupportedFile or DuplicateDocument
    (same bytes, same folder); or InvalidName for a title that breaks the rule for names.
    """
    title = name_clean(title, what="title")
    name = safe_original_name(incoming.name)
    check_size(name, incoming.size)
    content_type = content_type_for(name, incoming.stream)
    digest = sha256_of(incoming.stream)
    _raise_if_duplicate(folder, digest, uploaded_by)
    document = Document(
        folder=folder,
        title=(title or title_from_name(name))[:500],
        # A title the uploader typed is a person's choice: extraction does not replace it.
        metadata_edited=["title"] if title else [],
        original_name=name,
        content_type=content_type,
        size=incoming.size,
        sha256=digest,
        status=DocumentStatus.QUEUED,
        uploaded_by=cast(Any, uploaded_by) if getattr(uploaded_by, "is_authenticated", False) else None,
    )
    document.file.save(name, File(incoming.stream, name=name), save=False)
    try:
        with transaction.atomic():
            document.save()
            if enqueue:
                document_enqueue(document)
    except IntegrityError:
        # Two uploads of the same bytes raced; the unique (folder, sha256) constraint caught it.
        document.file.delete(save=False)
        _raise_if_duplicate(folder, digest, uploaded_by)
        raise
    except BaseException:
        document.file.delete(save=False)  # a rolled-back row must not leave its file behind
        raise
    return document


def _raise_if_duplicate(folder: Folder, digest: str, uploaded_by: AbstractBaseUser | AnonymousUser | None) -> None:
    existing = Document.objects.select_related("folder").filter(folder=folder, sha256=digest).first()
    if existing is None:
        return
    # A writer may not read the folder's parents, nor the folder itself: the message names only what
    # they may read. The loaders (uploaded_by None) are run by the operator, who sees everything.
    if uploaded_by is None:
        raise DuplicateDocument(existing)
    raise DuplicateDocument(
        existing,
        visible_folder_path(user=uploaded_by, folder_id=folder.pk),
        uploader_reads=document_for_user(user=uploaded_by, document_id=existing.pk) is not None,
    )
