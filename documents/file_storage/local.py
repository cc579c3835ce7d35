"""A stored original as a local file, for the libraries that need a path (MuPDF, the extractors).

A storage with local files (FileSystemStorage) gives its own path; any other (database, s3) is
copied block by block into a temporary file that is removed on leaving the block, so a worker
needs no shared disk and never holds the whole file in memory.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath

from django.core.files.storage import Storage

COPY_BLOCK = 1 << 20


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
    with storage.open(name, "rb") as source, tempfile.NamedTemporaryFile(suffix=PurePath(name).suffix) as copy:
        shutil.copyfileobj(source, copy, COPY_BLOCK)
        copy.flush()
        yield Path(copy.name)
