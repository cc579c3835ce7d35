"""FILE_STORAGE=database: originals in PostgreSQL, written and read in bounded memory (a worker
on it with its own empty MEDIA_ROOT: tests/documents/test_storage_serving.py)."""

from __future__ import annotations

import hashlib
import io
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction

from documents.file_storage.database import DatabaseStorage
from documents.file_storage.local import local_copy
from documents.models import StoredFile, StoredFileBlock
from ragsite.file_storages import file_storage_backend


@pytest.fixture
def database_storage(settings: Any) -> None:
    settings.FILE_STORAGE = "database"
    settings.STORAGES = {**settings.STORAGES, "default": file_storage_backend("database")}


def pattern(size: int, seed: int = 7) -> bytes:
    """Bytes that differ at every offset, so a read from the wrong place cannot pass."""
    return hashlib.sha256(str(seed).encode()).digest() * (size // 32) + b"x" * (size % 32)


@pytest.mark.django_db
@pytest.mark.parametrize("size", [0, 1, 999, 1000, 1001, 4321])
def test_a_file_reads_back_whole_and_from_any_offset(size: int) -> None:
    storage = DatabaseStorage(block_size=1000)
    data = pattern(size)
    # A source that returns short reads: blocks are still exactly block_size long.
    name = storage.save("documents/a.pdf", File(io.BufferedReader(io.BytesIO(data), buffer_size=7)))
    assert name == "documents/a.pdf"
    assert storage.exists(name)
    assert storage.size(name) == size
    assert storage.stored_sha256(name) == hashlib.sha256(data).hexdigest()
    assert all(
        len(b) == 1000
        for b in StoredFileBlock.objects.filter(file__name=name).values_list("data", flat=True)[: size // 1000]
    )
    with storage.open(name) as stream:
        assert stream.read() == data
        for offset in sorted({0, 1, 998, 999, 1000, 1001, max(size - 1, 0), size, size + 5}):
            stream.seek(offset)
            assert stream.read(1500) == data[offset : offset + 1500], offset


@pytest.mark.django_db
def test_names_listing_and_delete() -> None:
    storage = DatabaseStorage(block_size=16)
    first = storage.save("documents/x.txt", File(io.BytesIO(b"one")))
    second = storage.save("documents/x.txt", File(io.BytesIO(b"two")))  # the name is taken: another one
    assert first != second
    assert second.startswith("documents/x_")
    assert storage.listdir("") == (["documents"], [])
    assert storage.listdir("documents") == ([], sorted([Path(first).name, Path(second).name]))
    storage.delete(first)
    assert not storage.exists(first)
    assert storage.exists(second)
    assert not StoredFileBlock.objects.filter(file__name=first).exists()
    with pytest.raises(FileNotFoundError):
        storage.open(first)
    storage.delete(first)  # deleting a missing file is not an error, as on a disk


@pytest.mark.django_db(transaction=True)
def test_a_save_rolled_back_leaves_nothing_behind() -> None:
    storage = DatabaseStorage(block_size=16)

    def upload_that_fails() -> None:
        with transaction.atomic():
            storage.save("documents/gone.txt", File(io.BytesIO(pattern(100))))
            raise RuntimeError("the upload's transaction fails")

    with pytest.raises(RuntimeError):
        upload_that_fails()
    assert not StoredFile.objects.exists()
    assert not StoredFileBlock.objects.exists()


class GeneratedStream(io.RawIOBase):
    """`size` bytes made as they are read: the test itself never holds the file."""

    def __init__(self, size: int) -> None:
        self.left = size
        self.block = pattern(1 << 16, seed=11)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = min(len(buffer), self.left, len(self.block))
        buffer[:count] = self.block[:count]
        self.left -= count
        return count


@pytest.mark.slow
@pytest.mark.django_db
def test_a_large_original_is_written_and_read_in_bounded_memory(database_storage: None) -> None:
    size = 160 * (1 << 20)
    tracemalloc.start()
    try:
        name = default_storage.save("documents/large.bin", File(GeneratedStream(size)))
        _, write_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        digest = hashlib.sha256()
        with default_storage.open(name) as stream:
            for block in iter(lambda: stream.read(1 << 16), b""):
                digest.update(block)
        with local_copy(default_storage, name) as path:
            copied = path.stat().st_size
        _, read_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    expected = hashlib.sha256()
    generated = GeneratedStream(size)
    for block in iter(lambda: generated.read(1 << 16), b""):
        expected.update(block)
    assert digest.hexdigest() == expected.hexdigest() == default_storage.stored_sha256(name)  # type: ignore[attr-defined]
    assert copied == size
    # A few blocks of 1 MiB (the block, its copy, its SQL parameter), the same at 24 MiB as at
    # 160 MiB: never the file.
    assert write_peak < 12 * (1 << 20), write_peak
    assert read_peak < 12 * (1 << 20), read_peak
