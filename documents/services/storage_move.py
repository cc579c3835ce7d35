"""Moving a library's originals from one FILE_STORAGE to another (`manage.py storage_move`).

Every document's original is copied under the same name, its bytes checked against the
document's sha256 twice: as they leave the source, and as the target holds them (read back, or
the digest the database storage computed as it wrote them). Nothing in the database changes,
and a source file is deleted only once its copy is verified; so an interrupted move loses
nothing, and running it again copies only what is not verified in the target yet (a partial
copy left by the interruption fails the check and is written again).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, cast

from django.core.files import File
from django.core.files.storage import Storage

from documents.models import Document

_BLOCK = 1 << 20


@dataclass
class MoveSummary:
    copied: int = 0
    already: int = 0  # verified in the target before this run: an earlier run's work
    sources_deleted: int = 0
    problems: list[str] = field(default_factory=list)  # "document N (name): what is wrong"


def originals_move(
    source: Storage,
    target: Storage,
    *,
    delete_source: bool = False,
    folder_ids: set[int] | None = None,
    on_document: Callable[[], None] = lambda: None,
) -> MoveSummary:
    """Copy every document's original (or only those in `folder_ids`) from `source` to `target`,
    verified; see the module's text."""
    summary = MoveSummary()
    documents = Document.objects.all() if folder_ids is None else Document.objects.filter(folder_id__in=folder_ids)
    rows = documents.order_by("pk").values_list("pk", "file", "sha256")
    for document_id, name, sha256 in rows.iterator(chunk_size=500):
        problem = _move_one(source, target, name, sha256, summary)
        if problem:
            summary.problems.append(f"document {document_id} ({name}): {problem}")
        elif delete_source and source.exists(name):
            source.delete(name)
            summary.sources_deleted += 1
        on_document()
    return summary


def _move_one(source: Storage, target: Storage, name: str, sha256: str, summary: MoveSummary) -> str:
    """'' once `name` is verified in the target, else what went wrong (the target is left without it)."""
    if target.exists(name):
        if stored_digest(target, name) == sha256:
            summary.already += 1
            return ""
        target.delete(name)  # a partial or stale copy: written again below
    try:
        with source.open(name, "rb") as stream:
            reader = _HashingReader(stream)
            saved = target.save(name, File(cast(IO[bytes], reader), name=name))
    except FileNotFoundError:
        return "its original is missing from the source storage"
    if saved != name:
        target.delete(saved)
        return f"the target stored it as {saved!r}, not under its own name"
    if reader.digest.hexdigest() != sha256:
        target.delete(name)
        return f"the source's bytes do not match the document's sha256 {sha256} (damaged source?)"
    if stored_digest(target, name) != sha256:
        target.delete(name)
        return "the copy read back from the target does not match the document's sha256"
    summary.copied += 1
    return ""


def stored_digest(storage: Storage, name: str) -> str:
    """The sha256 of `name` as `storage` holds it: the digest the database storage recorded as it
    wrote the blocks, else the bytes read back."""
    recorded = getattr(storage, "stored_sha256", None)
    if recorded is not None:
        return recorded(name) or ""
    digest = hashlib.sha256()
    with storage.open(name, "rb") as stream:
        for block in iter(lambda: stream.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


class _HashingReader(io.RawIOBase):
    """The source stream read once, front to back, hashing what passes (not seekable: a target
    that wanted to rewind would hash the bytes twice, so it must not)."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self.stream = stream
        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self.stream.read(len(view))
        view[: len(data)] = data
        self.digest.update(data)
        return len(data)
