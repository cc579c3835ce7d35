"""Local copies of originals (documents/file_storage/local.py): a copy outlives a killed process
only until the next worker process starts and sweeps it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import Storage

from documents.file_storage.local import copies_dir, local_copy, orphaned_copies_sweep
from documents.tasks import _sweep_orphaned_copies

# A process that copies an original of a non-local storage, says where, and waits to be killed.
_COPY_AND_WAIT = textwrap.dedent(
    """
    import sys, time
    from django.conf import settings
    settings.configure()
    from django.core.files.base import ContentFile
    from django.core.files.storage import Storage
    from documents.file_storage.local import local_copy
    class Remote(Storage):
        files = {}
        def _save(self, name, content):
            self.files[name] = content.read()
            return name
        def _open(self, name, mode="rb"):
            return ContentFile(self.files[name], name=name)
        def exists(self, name):
            return name in self.files
    storage = Remote()
    name = storage.save("paper.pdf", ContentFile(b"%PDF-1.4 killed while extracting"))
    with local_copy(storage, name) as path:
        print(path, flush=True)
        time.sleep(120)
    """
)


class _Remote(Storage):
    """A storage without local paths, as database and s3 are: `local_copy` copies from it."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def _save(self, name: str, content: Any) -> str:
        self.files[name] = content.read()
        return name

    def _open(self, name: str, mode: str = "rb") -> ContentFile[bytes]:
        return ContentFile(self.files[name], name=name)

    def exists(self, name: str) -> bool:
        return name in self.files


@pytest.fixture(autouse=True)
def _own_temporary_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This test's processes alone use the copies directory (no other run's sweep races them)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))


def _killed_copy() -> Path:
    """The copy a process left behind when it was SIGKILLed inside `local_copy`."""
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", _COPY_AND_WAIT], cwd=root, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    path = Path(proc.stdout.readline().strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return path


def test_a_copy_is_made_in_the_copies_directory_and_removed_after_the_block() -> None:
    storage = _Remote()
    name = storage.save("notes.md", ContentFile(b"# Notes\n\nA stored original.\n"))
    with local_copy(storage, name) as path:
        assert path.parent == copies_dir()
        assert path.name.startswith(f"{os.getpid()}-")
        assert path.suffix == ".md"
        assert path.read_bytes() == b"# Notes\n\nA stored original.\n"
    assert not path.exists()


def test_the_sweep_removes_a_killed_process_copy_and_keeps_a_running_one() -> None:
    left = _killed_copy()
    assert left.parent == copies_dir()
    assert left.is_file(), "SIGKILL leaves the copy behind"
    storage = _Remote()
    name = storage.save("live.pdf", ContentFile(b"%PDF-1.4 still being read"))
    with local_copy(storage, name) as mine:
        removed = orphaned_copies_sweep()
        assert removed == [left]
        assert not left.exists()
        assert mine.is_file(), "a copy whose process still runs is kept"
    assert orphaned_copies_sweep() == []


def test_each_worker_process_sweeps_as_it_starts() -> None:
    left = _killed_copy()
    _sweep_orphaned_copies(sender=None)
    assert not left.exists()
