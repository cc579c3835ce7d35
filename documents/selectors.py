"""Reads: which folders and documents a caller may see, and which documents are stale.

Every read that serves a user goes through `folders_readable_by` so the permission rule lives
in one place and is applied inside SQL (as a subquery or an id list), never after ranking.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import BigIntegerField, Case, Exists, F, OuterRef, Q, QuerySet, Sum, When

from documents.embedding import embedding_stamp
from documents.models import Document, DocumentStatus, Folder

# A User, an AnonymousUser, or None (no request at all): all are handled.
AnyUser = Any


def user_reads_everything(user: AnyUser) -> bool:
    return bool(user is not None and user.is_active and (user.is_staff or user.is_superuser))


def folders_readable_by(user: AnyUser) -> QuerySet[Folder]:
    """Public folders; plus folders naming the user or one of their groups; staff read all."""
    if user_reads_everything(user):
        return Folder.objects.all()
    rule = Q(is_public=True)
    if user is not None and user.is_authenticated and user.is_active:
        rule |= Q(reader_users=user) | Q(reader_groups__in=user.groups.all())
    return Folder.objects.filter(pk__in=Folder.objects.filter(rule).values("pk"))


def folders_writable_by(user: AnyUser) -> QuerySet[Folder]:
    """Staff write everywhere; others where they or their groups are named writers."""
    if user_reads_everything(user):
        return Folder.objects.all()
    if user is None or not user.is_authenticated or not user.is_active:
        return Folder.objects.none()
    rule = Q(writer_users=user) | Q(writer_groups__in=user.groups.all())
    return Folder.objects.filter(pk__in=Folder.objects.filter(rule).values("pk"))


def folders_for_user(*, user: AnyUser) -> QuerySet[Folder]:
    """Readable folders, each knowing whether the user may write it (`writable`) and its parent
    when that is readable too (`visible_parent_id`; null otherwise, so no hidden id leaks)."""
    readable_ids = folders_readable_by(user).values("pk")
    return folders_readable_by(user).annotate(
        writable=Exists(folders_writable_by(user).filter(pk=OuterRef("pk"))),
        visible_parent_id=Case(
            When(parent_id__in=readable_ids, then=F("parent_id")), default=None, output_field=BigIntegerField()
        ),
    )


# The folders asked for and all their ancestors (UNION, not UNION ALL: a cycle ends the walk).
_ANCESTORS_SQL = """
WITH RECURSIVE up(id, parent_id, name) AS (
    SELECT id, parent_id, name FROM documents_folder WHERE id = ANY(%s)
    UNION
    SELECT f.id, f.parent_id, f.name FROM documents_folder AS f JOIN up ON f.id = up.parent_id
)
SELECT id, parent_id, name FROM up
"""


def visible_folder_paths(*, user: AnyUser, folder_ids: Iterable[int]) -> dict[int, str]:
    """Each folder's path ("Parent / Child") as `user` may see it: the path stops below the
    nearest ancestor the user may not read, so that ancestor's name (and any above it) is never
    shown, as the API shows such a folder without a parent (`folders_for_user`).

    Every page that names a folder shows this, never `Folder.path`. A folder's own name is always
    part of its path: callers ask only for folders the user may read or write.
    """
    wanted = list(dict.fromkeys(folder_ids))
    if not wanted:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_ANCESTORS_SQL, [wanted])
        rows = {pk: (parent_id, name) for pk, parent_id, name in cursor.fetchall()}
    readable = set(folders_readable_by(user).filter(pk__in=list(rows)).values_list("pk", flat=True))
    paths: dict[int, str] = {}
    for pk in wanted:
        if pk not in rows:  # deleted meanwhile
            continue
        parent_id, name = rows[pk]
        names, seen = [name], {pk}
        while parent_id in readable and parent_id not in seen:
            seen.add(parent_id)
            parent_id, name = rows[parent_id]
            names.append(name)
        paths[pk] = " / ".join(reversed(names))
    return paths


def visible_folder_path(*, user: AnyUser, folder_id: int) -> str:
    """`visible_folder_paths` for one folder ("" if it no longer exists)."""
    return visible_folder_paths(user=user, folder_ids=[folder_id]).get(folder_id, "")


def readable_folder_ids(user: AnyUser, folder_id: int | None = None) -> list[int]:
    """Ids of readable folders (optionally narrowed to one folder and its descendants)."""
    folders = folders_readable_by(user)
    ids = list(folders.values_list("pk", flat=True))
    if folder_id is None:
        return ids
    wanted = folder_with_descendants(folder_id)
    return [pk for pk in ids if pk in wanted]


def document_languages(folder_ids: list[int]) -> list[str]:
    """The main languages of the indexed documents in `folder_ids` (ISO 639-1 codes), most text
    first, with "" among them where a document's language is not yet detected (one query).

    The caller passes the folders a reader may read, so the list says nothing about documents they
    cannot see. The configurations a question is read with follow from it
    (documents.languages.query_configs), and so do the languages it holds
    (search/services/question_reading.py).
    """
    held = (
        Document.objects.filter(folder_id__in=folder_ids, indexed_at__isnull=False)
        .values("language")
        .annotate(held_chunks=Sum("chunk_count"))  # not `chunks`: the name of the documents' chunk relation
        .order_by("-held_chunks", "language")
    )
    return [row["language"] for row in held]


def folder_with_descendants(folder_id: int) -> set[int]:
    edges = list(Folder.objects.values_list("pk", "parent_id"))
    result, frontier = {folder_id}, [folder_id]
    while frontier:
        parents = set(frontier)
        frontier = [pk for pk, parent in edges if parent in parents and pk not in result]
        result.update(frontier)
    return result


def documents_for_user(*, user: AnyUser) -> QuerySet[Document]:
    """Documents in folders the user reads that have an index in place (`indexed_at`); in a folder
    the user also writes (staff: every folder), every document, whatever its status.

    A reader never meets a document before its text is indexed: an upload being processed, or
    one that failed (a program renamed `.pdf`), is not listed, viewed or downloadable, and
    answers the 404 of a missing one; the folder's writers manage it (status, reason, retry).
    `indexed_at`, not `status`: a document being re-indexed, or whose re-index failed, keeps the
    chunks and text of its last indexing (they are replaced in one transaction,
    `documents.services.ingest.document_chunks_replace`), so search still cites it and its
    viewer must still open. Chunks exist only where `indexed_at` is set, so this is the same
    set search reads from.
    """
    documents = Document.objects.filter(folder__in=folders_readable_by(user)).select_related("folder")
    if user_reads_everything(user):
        return documents
    return documents.filter(Q(indexed_at__isnull=False) | Q(folder__in=folders_writable_by(user)))


def tag_names_of(document_ids: Iterable[int]) -> dict[int, list[str]]:
    """Each document's tag names, in the tags' order (one query); the caller vouches for access."""
    names: dict[int, list[str]] = {}
    through = Document.tags.through.objects.filter(document_id__in=list(document_ids))
    for document_id, name in through.order_by("tag__name", "tag_id").values_list("document_id", "tag__name"):
        names.setdefault(document_id, []).append(name)
    return names


def document_for_user(*, user: AnyUser, document_id: int) -> Document | None:
    return documents_for_user(user=user).filter(pk=document_id).first()


def current_pipeline_stamp() -> str:
    """The chunker's stamp, plus the context writer and its model when one is on."""
    from documents.chunking import pipeline_stamp
    from documents.services.contexts import writer_stamp

    return pipeline_stamp(settings.CHUNK_TARGET_CHARS) + writer_stamp()


def _current_stamps() -> dict[str, object]:
    """What an up-to-date document's stamp fields hold (the extractor's is a rule, below)."""
    return {
        "embedding_model": embedding_stamp(),
        "embedding_dims": settings.EMBEDDING_DIMS,
        "pipeline": current_pipeline_stamp(),
    }


# The staleness rule, once: an indexed document whose stamps differ from _current_stamps() or
# whose extractor is not current. `stale_rule` states it as a filter, `is_stale` for one row
# already read; both are built from the same stamps and versions.py's extractor rule pair.


def stale_rule() -> Q:
    """An indexed document whose stamps differ from the current settings and code."""
    from documents.extraction.versions import current_extractor_rule

    differs = ~current_extractor_rule()
    for field, value in _current_stamps().items():
        differs |= ~Q(**{field: value})
    return Q(status=DocumentStatus.INDEXED) & differs


def is_stale(document: Document) -> bool:
    """`stale_rule` for one document already read (re-index it to refresh)."""
    from documents.extraction.versions import extractor_is_current

    return document.status == DocumentStatus.INDEXED and (
        any(getattr(document, field) != value for field, value in _current_stamps().items())
        or not extractor_is_current(document.extractor)
    )


def stale_documents() -> QuerySet[Document]:
    return Document.objects.filter(stale_rule())
