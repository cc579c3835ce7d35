"""A backup round trip on each FILE_STORAGE: `library_export` reads the originals through the
storage, `library_import` writes them back into it, byte for byte, and nothing lands on the disk
of a storage that is not the filesystem."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command

from documents.models import Chunk, Document, DocumentStatus, Folder, StoredFile
from tests.conftest import ingest_file_inline
from tests.corpus import DEV_DIR, require_corpus
from tests.factories import FolderFactory

pytestmark = [pytest.mark.slow]

FILES = ["bitcoin-nakamoto-2008.pdf", "prometheus-storage.md"]


def library_state() -> dict[str, Any]:
    state = {}
    for document in Document.objects.select_related("folder"):
        with default_storage.open(document.file.name, "rb") as stream:
            stored = hashlib.sha256(stream.read()).hexdigest()
        contents = list(Chunk.objects.filter(document=document).order_by("ordinal").values_list("content", flat=True))
        state[document.original_name] = {
            "folder": document.folder.path,
            "sha256": document.sha256,
            "stored_sha256": stored,
            "status": document.status,
            "chunks": hashlib.sha256("\n".join(contents).encode()).hexdigest(),
        }
    return state


def test_export_then_import_on_each_storage(
    transactional_db: None, memoised_pipeline: None, file_storage: dict[str, str], settings: Any, tmp_path: Path
) -> None:
    require_corpus()
    settings.MEDIA_ROOT = str(tmp_path / "media")
    folder = FolderFactory(name="Backed up")
    for name in FILES:
        assert ingest_file_inline(DEV_DIR / name, folder).status == DocumentStatus.INDEXED
    before = library_state()
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)

    # Wiped: the rows, and the originals from the storage.
    for document in Document.objects.all():
        default_storage.delete(document.file.name)
    Folder.objects.all().delete()
    assert not Document.objects.exists()
    assert not StoredFile.objects.exists()

    call_command("library_import", str(export), verbosity=0)
    after = library_state()
    assert after == before
    assert all(entry["stored_sha256"] == entry["sha256"] for entry in after.values())
    on_disk = list(Path(settings.MEDIA_ROOT).glob("documents/*"))
    assert len(on_disk) == (len(FILES) if file_storage["FILE_STORAGE"] == "filesystem" else 0)
    if file_storage["FILE_STORAGE"] == "database":
        assert StoredFile.objects.count() == len(FILES)
