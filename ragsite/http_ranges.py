"""HTTP Range requests (RFC 9110 §14) for a file served from any storage: PDF viewers seek.

One byte range is served as 206 Partial Content; a range that starts past the end, or a
malformed `bytes=` range, is 416 with `Content-Range: bytes */size`. A Range in another unit,
several ranges at once, or an If-Range that no longer matches, is answered with the whole file
(200), which RFC 9110 allows for any Range a server chooses not to honour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO

from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase

_SPEC = re.compile(r"^\s*(\d*)\s*-\s*(\d*)\s*$")
BLOCK = 64 * 1024


@dataclass(frozen=True)
class ByteRange:
    start: int
    stop: int  # exclusive

    @property
    def length(self) -> int:
        return self.stop - self.start


class RangeNotSatisfiable(Exception):
    pass


def requested_range(header: str | None, size: int) -> ByteRange | None:
    """The one range of `header` within a file of `size` bytes; None to serve the whole file.

    Raises RangeNotSatisfiable for a malformed bytes range or one that starts past the end."""
    if not header:
        return None
    unit, _, specs = header.partition("=")
    if unit.strip().lower() != "bytes":
        return None
    if "," in specs:
        return None  # several ranges: the whole file, rather than a multipart body
    match = _SPEC.match(specs)
    if match is None or not (match[1] or match[2]):
        raise RangeNotSatisfiable(f"malformed range {header!r}")
    if not match[1]:  # "-N": the last N bytes
        suffix = int(match[2])
        if suffix == 0 or size == 0:
            raise RangeNotSatisfiable("an empty suffix range")
        return ByteRange(max(size - suffix, 0), size)
    start = int(match[1])
    last = int(match[2]) if match[2] else size - 1
    if last < start:
        raise RangeNotSatisfiable(f"range ends before it starts: {header!r}")
    if start >= size:
        raise RangeNotSatisfiable(f"range starts at {start}, past the end ({size} bytes)")
    return ByteRange(start, min(last, size - 1) + 1)


def ranged_file_response(
    request: HttpRequest,
    stream: IO[bytes],
    *,
    size: int,
    etag: str,
    content_type: str,
    filename: str,
    as_attachment: bool,
) -> HttpResponseBase:
    """`stream` (seekable, `size` bytes) as 200, 206 for the request's Range, or 416.

    `etag` is a strong validator of the content (its sha256): an If-Range naming another one
    gets the whole file, so a client never splices pieces of two versions."""
    quoted = f'"{etag}"'
    header = request.headers.get("Range")
    if_range = request.headers.get("If-Range")
    if if_range is not None and if_range.strip() != quoted:
        header = None
    try:
        wanted = requested_range(header, size)
    except RangeNotSatisfiable as exc:
        stream.close()
        refused = HttpResponse(f"Range not satisfiable: {exc}.\n", status=416, content_type="text/plain")
        refused["Content-Range"] = f"bytes */{size}"
        return refused
    response: FileResponse
    if wanted is None:
        response = FileResponse(stream, content_type=content_type, filename=filename, as_attachment=as_attachment)
        response["Content-Length"] = str(size)
    else:
        stream.seek(wanted.start)
        part = _Limited(stream, wanted.length)
        response = FileResponse(part, content_type=content_type, filename=filename, as_attachment=as_attachment)
        response.status_code = 206
        response["Content-Range"] = f"bytes {wanted.start}-{wanted.stop - 1}/{size}"
        response["Content-Length"] = str(wanted.length)
    response.block_size = BLOCK  # fewer, larger reads from a remote storage than FileResponse's 4 KiB
    response["Accept-Ranges"] = "bytes"
    response["ETag"] = quoted
    return response


class _Limited:
    """The next `length` bytes of `stream`, read in blocks; no seek or tell, so FileResponse
    leaves Content-Length to the caller."""

    def __init__(self, stream: IO[bytes], length: int) -> None:
        self.stream = stream
        self.left = length

    def read(self, size: int = -1) -> bytes:
        want = self.left if size < 0 else min(size, self.left)
        if want <= 0:
            return b""
        data = self.stream.read(want)
        self.left -= len(data)
        return data

    def close(self) -> None:
        self.stream.close()
