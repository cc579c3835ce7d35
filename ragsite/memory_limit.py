"""A worker process's memory ceiling (INGEST_MEMORY_LIMIT_MB): a document that needs more fails,
instead of growing its process until the kernel kills it, or another process on the host.

ragsite/celery.py applies it to each process of the worker's prefork pool as it starts (Celery's
`worker_process_init`) as RLIMIT_DATA. Past it the kernel refuses the process's allocations:
Python and NumPy raise MemoryError, torch a RuntimeError naming "can't allocate memory"
(`is_out_of_memory` knows them), and the ingest service fails the document with a reason and the
process goes on with the next one (documents/services/ingest.py).

RLIMIT_DATA counts private writable memory, reserved as well as resident: the heap, anonymous
mappings, thread stacks. A worker process with the model loaded holds ~0.75 GB of it at rest on
2 cores (its RSS is ~0.55-0.65 GB; each extra core's torch thread adds its stack and malloc arena).
Not RLIMIT_AS: the address space also counts the mapped libraries and reservations never written
(~1.8 GB at rest), which say nothing about the memory a document costs.
"""

from __future__ import annotations

import errno
import logging
import os
import resource

from django.conf import settings

logger = logging.getLogger(__name__)

MB = 1024 * 1024


def configured_limit_mb() -> int:
    """INGEST_MEMORY_LIMIT_MB; 0 (or less) means no limit."""
    return settings.INGEST_MEMORY_LIMIT_MB


def apply_memory_limit(limit_mb: int | None = None) -> int | None:
    """Limit this process's data memory to `limit_mb` (default: the setting); returns the bytes
    now in force, or None when no limit is set. The hard limit is left as it is (an operator's
    `ulimit -d` stays the ceiling), so the limit never exceeds it."""
    mb = configured_limit_mb() if limit_mb is None else limit_mb
    if mb <= 0:
        return None
    _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = mb * MB if hard == resource.RLIM_INFINITY else min(mb * MB, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))
    logger.info("memory limit: %d MB of data (INGEST_MEMORY_LIMIT_MB)", wanted // MB)
    return wanted


def current_limit_mb() -> int | None:
    """The data limit in force in this process, in MB, or None when there is none."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_DATA)
    return None if soft == resource.RLIM_INFINITY else soft // MB


# What torch's RuntimeErrors say when the allocator, or an mmap of weights, is refused (ENOMEM).
_TORCH_OUT_OF_MEMORY = ("can't allocate memory", os.strerror(errno.ENOMEM))


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether `exc` is an allocation the process could not make: MemoryError (Python, NumPy),
    torch's RuntimeError for its allocator or a mapping, or an OS call refused with ENOMEM."""
    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOMEM
    return isinstance(exc, RuntimeError) and any(words in str(exc) for words in _TORCH_OUT_OF_MEMORY)
