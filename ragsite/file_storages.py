"""FILE_STORAGE's backends: where originals live (docs/operations.md "Where originals live").

`filesystem` keeps them under MEDIA_ROOT (which web and workers must then share); `database`
keeps them in PostgreSQL (documents/file_storage/database.py); `s3` in a bucket of any
S3-compatible server (documents/file_storage/s3.py). `storage_move` builds its target from the
same function, so a move and a later start with the new FILE_STORAGE agree on every option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from ragsite.env import Env, load_env

FILE_STORAGE_KINDS = ("filesystem", "database", "s3")


def file_storage_backend(kind: str, env: Env | Mapping[str, str] | None = None) -> dict[str, Any]:
    """The STORAGES entry (BACKEND and OPTIONS) for one FILE_STORAGE value, its options read from
    `env` (the environment parsed, or these variables over it)."""
    if not isinstance(env, Env):
        env = load_env(env)
    if kind == "filesystem":
        return {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    if kind == "database":
        return {"BACKEND": "documents.file_storage.database.DatabaseStorage"}
    if kind == "s3":
        return {"BACKEND": "documents.file_storage.s3.OriginalsS3Storage", "OPTIONS": _s3_options(env)}
    raise ImproperlyConfigured(f"FILE_STORAGE must be one of {', '.join(FILE_STORAGE_KINDS)}, not {kind!r}.")


def _s3_options(env: Env) -> dict[str, Any]:
    bucket = env.S3_BUCKET
    if not bucket:  # a move's target (storage_move), which FILE_STORAGE does not name
        raise ImproperlyConfigured("FILE_STORAGE=s3 needs S3_BUCKET (and S3_ENDPOINT_URL for a server other than AWS).")
    return {
        "bucket_name": bucket,
        "endpoint_url": env.S3_ENDPOINT_URL or None,
        "region_name": env.S3_REGION or None,
        # Unset: boto3's own chain (AWS_ACCESS_KEY_ID…, an instance role).
        "access_key": env.S3_ACCESS_KEY_ID or None,
        "secret_key": env.S3_SECRET_ACCESS_KEY or None,
        "location": env.S3_PREFIX.strip("/"),
        # Path-style (https://host/bucket/key) is what MinIO, Ceph and Garage serve by default.
        "addressing_style": env.S3_ADDRESSING_STYLE,
        "default_acl": None,  # the bucket's policy decides; originals are never public
        "querystring_auth": True,
        "file_overwrite": False,
        # Files written through S3File (not uploads, which stream) spill to disk past this.
        "max_memory_size": 5 * 1024 * 1024,
    }
