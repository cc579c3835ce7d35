"""Changing the library: creating and deleting folders, deleting, moving and retrying documents.

Deleting a row removes its chunks and BM25 statistics in the same transaction (ON DELETE
CASCADE through Django's collector); stored files are removed only after that transaction
commits, so a rolled-back delete never loses a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import Group
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext

from documents.lexical.index import lexical_index_refolder
from documents.models import PROCESSING_STATUSES, Document, DocumentStatus, Folder
from documents.names import name_clean
from documents.selectors import folder_with_descendants
from documents.services.queueing import documents_requeue
from documents.webhooks.events import documents_deleted_event
from ragsite.errors import Conflict, InvalidInput


def folder_create(
    *,
    name: str,
    parent: Folder | None = None,
    is_public: bool = False,
    reader_groups: Sequence[str] = (),
    writer_groups: Sequence[str] = (),
) -> Folder:
    """A new folder; the name must be unique within its parent (also at the top level) and
    follow the rule for names (`documents/names.py`)."""
    name = name_clean(name, what="folder name")
    if not name:
        raise InvalidInput(gettext("A folder needs a name."))
    readers, writers = _groups_named(reader_groups), _groups_named(writer_groups)
    if parent:
        said = gettext("A folder named '%(name)s' already exists in '%(parent)s'.")
    else:
        said = gettext("A folder named '%(name)s' already exists at the top level.")
    exists = Conflict(said % {"name": name, "parent": parent.path if parent else ""})
    if Folder.objects.filter(parent=parent, name=name).exists():
        raise exists
    try:
        with transaction.atomic():
            folder = Folder.objects.create(name=name, parent=parent, is_public=is_public)
            folder.reader_groups.set(readers)
            folder.writer_groups.set(writers)
    except IntegrityError as exc:  # a concurrent create won the race
        raise exists from exc
    return folder


def _groups_named(names: Iterable[str]) -> list[Group]:
    cleaned = (name_clean(n, what="group name") for n in names)
    wanted = list(dict.fromkeys(n for n in cleaned if n))
    groups = list(Group.objects.filter(name__in=wanted))
    missing = sorted(set(wanted) - {g.name for g in groups})
    if missing:
        said = gettext("No such group: %(groups)s. Create groups in the admin first.")
        raise InvalidInput(said % {"groups": ", ".join(missing)})
    return groups


def _delete_files_after_commit(names: Iterable[str]) -> None:
    names = [n for n in names if n]

    def delete() -> None:
        for name in names:
            default_storage.delete(name)

    transaction.on_commit(delete)


def _for_delete(documents: QuerySet[Document]) -> QuerySet[Document]:
    """The rows locked, with what a `document.deleted` webhook tells of them (never the text)."""
    fields = ("pk", "file", "title", "content_type", "status", "failure_reason", "folder__name", "folder__parent")
    return documents.select_for_update(of=("self",)).select_related("folder").only(*fields)


def document_delete(*, document: Document) -> None:
    """Delete a document, its chunks and BM25 statistics; its file goes once that commits."""
    with transaction.atomic():
        # Locking the row waits for an ingest that is storing chunks, so none arrive after us.
        locked = _for_delete(Document.objects.filter(pk=document.pk)).first()
        if locked is None:
            return
        documents_deleted_event([locked])
        _delete_files_after_commit([locked.file.name])
        locked.delete()


@dataclass
class MoveOutcome:
    """What a move did: documents moved, already there, and left behind as duplicates."""

    moved: list[int] = field(default_factory=list)
    already_there: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)  # titles: the target holds the same file


def documents_move(documents: QuerySet[Document], *, folder: Folder) -> MoveOutcome:
    """Move documents into `folder`, with their chunks, index and BM25 statistics.

    Readers then find them exactly as if they had been uploaded there: search filters by the
    document's folder, the per-folder lengths follow the UPDATE by trigger, and the packed
    postings (kept per folder) are rebuilt in the same transaction. A document whose file the
    target already holds stays where it is (one copy of a file per folder). The caller checks
    that the user may write the target folder and the documents' folders.
    """
    try:
        return _move(documents, folder)
    except IntegrityError as exc:  # the same file reached the target meanwhile (an upload, another move)
        said = gettext("'%(folder)s' received one of these files meanwhile; nothing was moved. Try again.")
        raise Conflict(said % {"folder": folder.name}) from exc


def _move(documents: QuerySet[Document], folder: Folder) -> MoveOutcome:
    outcome = MoveOutcome()
    with transaction.atomic():
        # Locking the rows waits for an ingest storing chunks; one starting later reads the new folder.
        rows = documents.prefetch_related(None).select_for_update(of=("self",))
        locked = list(rows.only("pk", "title", "folder_id", "sha256"))
        held = set(Document.objects.filter(folder=folder).values_list("sha256", flat=True))
        for document in locked:
            if document.folder_id == folder.pk:
                outcome.already_there.append(document.pk)
            elif document.sha256 in held:
                outcome.duplicates.append(document.title)
            else:
                held.add(document.sha256)  # two copies of one file selected: the first one moves
                outcome.moved.append(document.pk)
        # One statement, so the length trigger moves the sums from each old folder to the new one.
        Document.objects.filter(pk__in=outcome.moved).update(folder=folder)
        lexical_index_refolder(outcome.moved)
    return outcome


def folder_delete(*, folder: Folder) -> int:
    """Delete a folder, its subfolders and all their documents; returns how many documents."""
    folder_ids = folder_with_descendants(folder.pk)
    with transaction.atomic():
        documents = list(_for_delete(Document.objects.filter(folder_id__in=folder_ids)))
        documents_deleted_event(documents)
        names = [d.file.name for d in documents]
        _delete_files_after_commit(names)
        Folder.objects.filter(pk=folder.pk).delete()
    return len(names)


def document_retry(*, document: Document, force: bool = False) -> Document:
    """Queue a failed document again; with force, re-index any document not being processed."""
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        _check_retry(locked, force=force)
        documents_requeue(Document.objects.filter(pk=locked.pk))
    locked.refresh_from_db()
    return locked


def _check_retry(document: Document, *, force: bool) -> None:
    said = {"id": document.pk, "title": document.title, "status": document.status}
    if document.status in PROCESSING_STATUSES:
        raise Conflict(
            gettext(
                "Document %(id)s ('%(title)s') is being processed right now (status '%(status)s'); wait for it "
                "to finish. Documents stuck in processing are re-queued automatically."
            )
            % said
        )
    if force or document.status == DocumentStatus.FAILED:
        return
    if document.status == DocumentStatus.QUEUED:
        refusal = gettext(
            "Document %(id)s ('%(title)s') is already queued for processing; only failed documents are "
            "retried. Add ?force=true to re-index it anyway."
        )
    else:
        refusal = gettext(
            "Document %(id)s ('%(title)s') has status '%(status)s', not 'failed'; only failed documents are "
            "retried. Add ?force=true to re-index it anyway."
        )
    raise Conflict(refusal % said)
