"""A stored original as a local file, for the libraries that need a path (MuPDF, the extractors).

A storage with local files (FileSystemStorage) gives its own path; any other (database, s3) is
copied block by block into a temporary file that is removed on leaving the block, so a worker
needs no shared disk and never holds the whole file in memory.

A process killed inside the block (SIGKILL, the kernel's OOM killer) cannot remove its copy, so
copies live in one directory under the system's temporary directory, named after the process
that made them, and `orphaned_copies_sweep` (run as each worker process starts) removes the
ones whose process is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath

from django.core.files.storage import Storage

COPY_BLOCK = 1 << 20
COPIES_DIR_NAME = "ragsite-originals"


def copies_dir() -> Path:
    """Where this host's temporary copies of originals live (created on first use)."""
    path = Path(tempfile.gettempdir()) / COPIES_DIR_NAME
    path.mkdir(mode=0o700, exist_ok=True)
    return path


@contextmanager
def local_copy(storage: Storage, name: str) -> Iterator[Path]:
    """The file `name` of `storage` at a local path while the block runs.

    Raises FileNotFoundError when the storage has no such file."""
    try:
        path = Path(storage.path(name))
    except NotImplementedError:  # not a storage of local files
        pass
    else:
        if not path.is_file():
            raise FileNotFoundError(f"The stored file {name!r} is missing.")
        yield path
        return
    # The suffix is kept: some readers look at it (a .txt, a .md).
    prefix = f"{os.getpid()}-"
    with (
        storage.open(name, "rb") as source,
        tempfile.NamedTemporaryFile(prefix=prefix, suffix=PurePath(name).suffix, dir=copies_dir()) as copy,
    ):
        shutil.copyfileobj(source, copy, COPY_BLOCK)
        copy.flush()
        yield Path(copy.name)


def orphaned_copies_sweep() -> list[Path]:
    """Remove the copies whose process no longer runs on this host; returns what was removed."""
    removed = []
    for path in copies_dir().iterdir():
        owner, _, _ = path.name.partition("-")
        if owner.isdigit() and not _process_alive(int(owner)):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True
