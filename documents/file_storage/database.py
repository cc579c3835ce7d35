"""FILE_STORAGE=database: originals as rows of PostgreSQL, so web and workers need no shared disk.

A file is a `StoredFile` row and its bytes `StoredFileBlock` rows of a fixed block size (1 MiB by
default) in a bytea column. Chunked bytea rather than large objects: a large object's descriptor
lives only inside one transaction, so streaming a download would hold a transaction open for as
long as the client reads (and breaks behind a transaction-pooling proxy); rows are read one
autocommit SELECT a block, land in every pg_dump without `--blobs` care, and a deleted file's
blocks go with its row (ON DELETE CASCADE) where large objects need vacuumlo. The column is
stored EXTERNAL (migration 0012): originals are mostly compressed already (PDF, DOCX), so
PostgreSQL does not try to compress them again, and a block is read without decompression.

Memory is bounded both ways: writing holds one block, reading one block (the current one).
"""

from __future__ import annotations

import hashlib
import io
from datetime import datetime
from typing import IO, Any, cast

from django.core.files import File
from django.core.files.storage import Storage
from django.db import transaction
from django.utils.deconstruct import deconstructible

from documents.models import StoredFile, StoredFileBlock

BLOCK_SIZE = 1 << 20


@deconstructible(path="documents.file_storage.database.DatabaseStorage")
class DatabaseStorage(Storage):
    def __init__(self, block_size: int = BLOCK_SIZE) -> None:
        self.block_size = block_size

    def _open(self, name: str, mode: str = "rb") -> File[bytes]:
        if "w" in mode or "a" in mode or "+" in mode:
            raise ValueError("Database storage opens files for reading only; save() writes them.")
        row = StoredFile.objects.filter(name=name).values("pk", "size", "block_size").first()
        if row is None:
            raise FileNotFoundError(f"No stored file named {name!r} in the database storage.")
        reader = DatabaseFileReader(row["pk"], row["size"], row["block_size"])
        return File(cast(IO[bytes], reader), name=name)

    def _save(self, name: str, content: File[Any]) -> str:
        # One transaction (a savepoint inside a caller's): a file is stored whole or not at all.
        digest = hashlib.sha256()
        with transaction.atomic():
            stored = StoredFile.objects.create(name=name, size=0, block_size=self.block_size, sha256="")
            size = 0
            for ordinal, block in enumerate(_fixed_blocks(content, self.block_size)):
                StoredFileBlock.objects.create(file=stored, ordinal=ordinal, data=block)
                digest.update(block)
                size += len(block)
            StoredFile.objects.filter(pk=stored.pk).update(size=size, sha256=digest.hexdigest())
        return name

    def delete(self, name: str) -> None:
        StoredFile.objects.filter(name=name).delete()

    def exists(self, name: str) -> bool:
        return StoredFile.objects.filter(name=name).exists()

    def size(self, name: str) -> int:
        size = StoredFile.objects.filter(name=name).values_list("size", flat=True).first()
        if size is None:
            raise FileNotFoundError(f"No stored file named {name!r} in the database storage.")
        return size

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        prefix = path.rstrip("/") + "/" if path.strip("/") else ""
        dirs: set[str] = set()
        files: list[str] = []
        for name in StoredFile.objects.filter(name__startswith=prefix).values_list("name", flat=True).iterator():
            rest = name[len(prefix) :]
            head, sep, _tail = rest.partition("/")
            (dirs.add(head) if sep else files.append(rest))
        return sorted(dirs), sorted(files)

    def get_created_time(self, name: str) -> datetime:
        created = StoredFile.objects.filter(name=name).values_list("created_at", flat=True).first()
        if created is None:
            raise FileNotFoundError(f"No stored file named {name!r} in the database storage.")
        return created

    get_modified_time = get_accessed_time = get_created_time

    def url(self, name: str | None) -> str:
        raise NotImplementedError("Originals are served by the access-checked view, never by a URL of the storage.")

    def stored_sha256(self, name: str) -> str | None:
        """The sha256 computed as the file was written; None when there is no such file."""
        return StoredFile.objects.filter(name=name).values_list("sha256", flat=True).first()


def _fixed_blocks(content: File[Any] | IO[bytes], block_size: int) -> Any:
    """`content`'s bytes in blocks of exactly `block_size` (the last shorter): a short read of
    the source never makes a short block, so block n always starts at byte n × block_size."""
    if hasattr(content, "seek") and (not hasattr(content, "seekable") or content.seekable()):
        content.seek(0)
    pending = bytearray()
    while True:
        data = content.read(block_size - len(pending))
        if not data:
            break
        pending += data
        if len(pending) == block_size:
            yield bytes(pending)
            pending.clear()
    if pending:
        yield bytes(pending)


class DatabaseFileReader(io.RawIOBase):
    """A read-only, seekable view of one stored file; it fetches one block per SELECT."""

    def __init__(self, file_id: int, size: int, block_size: int) -> None:
        super().__init__()
        self.file_id = file_id
        self.size = size
        self.block_size = block_size
        self._position = 0
        self._block: tuple[int, bytes] | None = None  # (ordinal, data): the last block fetched

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self.size}[whence]
        if base + offset < 0:
            raise ValueError("negative seek position")
        self._position = base + offset
        return self._position

    def readinto(self, buffer: Any) -> int:
        # Fills the buffer across block boundaries (short only at the end of the file), as a
        # disk file's read does: callers may count on read(n) giving n bytes before the end.
        view = memoryview(buffer).cast("B")
        filled = 0
        while filled < len(view) and self._position < self.size:
            ordinal, start = divmod(self._position, self.block_size)
            data = self._fetch(ordinal)
            count = min(len(view) - filled, len(data) - start)
            view[filled : filled + count] = data[start : start + count]
            filled += count
            self._position += count
        return filled

    def _fetch(self, ordinal: int) -> bytes:
        if self._block is None or self._block[0] != ordinal:
            self._block = None  # the old block is released before the next one arrives
            data = StoredFileBlock.objects.filter(file_id=self.file_id, ordinal=ordinal).values_list("data", flat=True)
            found = data.first()
            if found is None:
                raise FileNotFoundError(f"Stored file {self.file_id} lost its block {ordinal} (deleted while read?).")
            self._block = (ordinal, bytes(found))
        return self._block[1]
