"""FILE_STORAGE's backends: where originals live (README "Where originals live").

`filesystem` keeps them under MEDIA_ROOT (which web and workers must then share); `database`
keeps them in PostgreSQL (documents/file_storage/database.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured

FILE_STORAGE_KINDS = ("filesystem", "database")


def file_storage_backend(kind: str, environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The STORAGES entry (BACKEND and OPTIONS) for one FILE_STORAGE value, read from `environ`."""
    if kind == "filesystem":
        return {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    if kind == "database":
        return {"BACKEND": "documents.file_storage.database.DatabaseStorage"}
    raise ImproperlyConfigured(f"FILE_STORAGE must be one of {', '.join(FILE_STORAGE_KINDS)}, not {kind!r}.")
