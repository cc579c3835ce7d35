"""FILE_STORAGE=s3: originals in a bucket of any S3-compatible server (AWS, MinIO, Ceph, Garage…).

django-storages' S3Storage writes (multipart uploads, a few parts in memory at a time). Reading
is its own: S3File downloads the whole object on first access into a SpooledTemporaryFile that,
with django-storages' default AWS_S3_MAX_MEMORY_SIZE of 0, never rolls over to disk, so a
300 MB original would sit in memory. Here a file opened for reading is a seekable stream of
ranged GETs: a read fetches from the current offset on, a seek drops that response, so a Range
request of the file view or a copy to a local file holds one block at a time.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, cast

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError
from django.core.files import File
from django.utils.deconstruct import deconstructible
from storages.backends.s3 import S3Storage
from storages.utils import clean_name


@contextmanager
def unreachable_as_connection_error() -> Iterator[None]:
    """botocore's network failures as Python's ConnectionError: what callers treat as "try again
    later" (documents/services/ingest.py: TRANSIENT_ERRORS retries the task), not a bad file."""
    try:
        yield
    except (BotoConnectionError, HTTPClientError) as err:
        raise ConnectionError(f"The S3 server is unreachable: {err}") from err


@deconstructible(path="documents.file_storage.s3.OriginalsS3Storage")
class OriginalsS3Storage(S3Storage):
    def _open(self, name: str, mode: str = "rb") -> File[bytes]:
        if "r" not in mode or "+" in mode:
            return cast(File[bytes], super()._open(name, mode))
        key = self._normalize_name(clean_name(name))
        obj = self.bucket.Object(key)
        try:
            with unreachable_as_connection_error():
                obj.load()  # a HEAD: the size, and FileNotFoundError now rather than at the first read
        except ClientError as err:
            if err.response["ResponseMetadata"]["HTTPStatusCode"] == 404:
                raise FileNotFoundError(f"No object {key!r} in bucket {self.bucket_name!r}.") from err
            raise
        return File(cast(IO[bytes], S3RangeReader(obj, obj.content_length)), name=name)

    def url(self, name: str | None, parameters: Any = None, expire: Any = None, http_method: Any = None) -> str:
        raise NotImplementedError("Originals are served by the access-checked view, never by a URL of the bucket.")


class S3RangeReader(io.RawIOBase):
    """A read-only, seekable view of one object: each run of reads is one ranged GET."""

    def __init__(self, obj: Any, size: int) -> None:
        super().__init__()
        self.obj = obj
        self.size = size
        self._position = 0
        self._body: Any = None  # the open GET response, positioned at self._position

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
        if base + offset != self._position:
            self._drop_body()
            self._position = base + offset
        return self._position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        filled = 0
        while filled < len(view) and self._position < self.size:
            with unreachable_as_connection_error():
                if self._body is None:
                    self._body = self.obj.get(Range=f"bytes={self._position}-")["Body"]
                data = self._body.read(len(view) - filled)
            if not data:
                raise OSError(f"The object {self.obj.key!r} ended at byte {self._position} of {self.size}.")
            view[filled : filled + len(data)] = data
            filled += len(data)
            self._position += len(data)
        return filled

    def close(self) -> None:
        self._drop_body()
        super().close()

    def _drop_body(self) -> None:
        if self._body is not None:
            self._body.close()
            self._body = None
