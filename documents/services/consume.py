"""The consume folder: files put into `CONSUME_DIR` are uploaded into the library and removed from it.

As in Paperless-ngx, a scanner or a person drops files into a directory and the worker's beat
(`documents.consume_tasks.consume_folder_task`) takes them in. Every file goes through
`documents/services/upload.py: document_upload`, as an upload through the admin or the API does:
the same size limit, type checks, duplicate detection and queueing after commit.

- **Where a file goes.** A file at the top of `CONSUME_DIR` goes into the folder `CONSUME_FOLDER`
  names; one in a sub-directory into the library folder of that path ("Papers/Systems/x.pdf" into
  Papers › Systems). Folders that do not exist yet are created, as Paperless-ngx creates the
  tags its sub-directories name, and are created private: only staff see them until readers
  are granted.
- **Half-written files wait.** A file is taken once it has not been written to (its mtime and
  its inode's change time, which a copy that keeps the source's mtime still moves) for
  `CONSUME_STABLE_SECONDS`, and its size has not changed while the run looked at it.
- **Taken once.** A run claims a file by renaming it into a directory of its own under
  `.processing/`: a rename is atomic, so of two runs only one gets it; the other finds it gone.
  A claim left by a run that died (its worker killed) is taken again, by the same rename, once
  it is `CONSUME_ABANDONED_SECONDS` old.
- **Refused files** (empty, too large, unsupported, damaged at the start, a duplicate, a name
  no folder may have) move to `failed/`, under the same relative path, with `<name>.reason.txt`
  beside them holding the sentence an upload would have shown. Nothing is deleted that was
  not stored.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from stat import S_ISREG

from django.conf import settings
from django.db import DatabaseError, transaction

from documents.models import Folder
from documents.names import name_clean
from documents.services.upload import IncomingFile, document_upload
from ragsite.errors import DomainError, InvalidInput

logger = logging.getLogger(__name__)

PROCESSING_DIR = ".processing"
FAILED_DIR = "failed"
REASON_SUFFIX = ".reason.txt"
# Names scanners, editors and file managers write beside the real files: never documents.
_IGNORED_SUFFIXES = (".part", ".partial", ".tmp", ".crdownload", ".download", "~")
_IGNORED_NAMES = {"thumbs.db", "desktop.ini"}


@dataclass
class ConsumeReport:
    """What one run did: files stored (relative path, document id), refused (relative path, reason),
    and how many it left waiting for their writer to finish."""

    stored: list[tuple[str, int]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    waiting: int = 0


@dataclass(frozen=True)
class _Claim:
    relative: PurePosixPath  # where the file was, under CONSUME_DIR
    path: Path  # where it is now, under .processing/


def consume_folder(directory: Path | None = None) -> ConsumeReport:
    """Take in every file of the consume folder that is ready; see the module's docstring."""
    root = Path(directory or settings.CONSUME_DIR)
    report = ConsumeReport()
    if not root.is_dir():
        logger.warning("the consume folder %s is not a directory; nothing was taken in", root)
        return report
    claims = [*_abandoned_claims(root)]
    for relative, size in _ready_files(root, report):
        claim = _claim(root, relative, size)
        if claim is not None:
            claims.append(claim)
    for claim in claims:
        _consume_one(root, claim, report)
    return report


def _ready_files(root: Path, report: ConsumeReport) -> list[tuple[PurePosixPath, int]]:
    """Files under `root` (not in .processing/ or failed/) that no writer touched for a while."""
    quiet_since = time.time() - settings.CONSUME_STABLE_SECONDS
    ready = []
    for directory, subdirectories, names in os.walk(root):
        here = Path(directory)
        if here == root:
            subdirectories[:] = [d for d in subdirectories if d not in (PROCESSING_DIR, FAILED_DIR)]
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in sorted(names):
            if _ignored(name):
                continue
            try:
                stat = os.lstat(here / name)
            except FileNotFoundError:  # taken by another run, or removed by its writer
                continue
            if not S_ISREG(stat.st_mode):
                continue  # a link could bring in any file the worker may read; a pipe has no end
            if max(stat.st_mtime, stat.st_ctime) > quiet_since:
                report.waiting += 1
                continue
            ready.append((PurePosixPath((here / name).relative_to(root).as_posix()), stat.st_size))
    return ready


def _ignored(name: str) -> bool:
    lowered = name.lower()
    return name.startswith(".") or lowered in _IGNORED_NAMES or lowered.endswith(_IGNORED_SUFFIXES)


def _claim(root: Path, relative: PurePosixPath, size: int) -> _Claim | None:
    """The file renamed into a claim directory of its own; None if another run took it first or
    its size changed since it was listed (its writer is still at it)."""
    source = root / relative
    holder = root / PROCESSING_DIR / uuid.uuid4().hex
    target = holder / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(source, target)
    except FileNotFoundError:
        shutil.rmtree(holder, ignore_errors=True)
        return None
    if target.stat().st_size != size:
        os.rename(target, source)  # back where its writer expects it; taken on a later run
        shutil.rmtree(holder, ignore_errors=True)
        return None
    return _Claim(relative, target)


def _abandoned_claims(root: Path) -> list[_Claim]:
    """Claims whose run died before finishing (its worker was killed), re-claimed by a rename."""
    processing = root / PROCESSING_DIR
    if not processing.is_dir():
        return []
    abandoned_before = time.time() - settings.CONSUME_ABANDONED_SECONDS
    claims: list[_Claim] = []
    for holder in sorted(processing.iterdir()):
        try:
            # The rename that made the claim set the holder's change time; its files keep theirs.
            if not holder.is_dir() or holder.stat().st_ctime > abandoned_before:
                continue
            fresh = processing / uuid.uuid4().hex
            os.rename(holder, fresh)
        except FileNotFoundError:  # re-claimed by another run meanwhile
            continue
        files = [p for p in fresh.rglob("*") if p.is_file()]
        if not files:
            shutil.rmtree(fresh, ignore_errors=True)
        claims.extend(_Claim(PurePosixPath(p.relative_to(fresh).as_posix()), p) for p in files)
    return claims


def _consume_one(root: Path, claim: _Claim, report: ConsumeReport) -> None:
    try:
        folder = _target_folder(claim.relative)
        with claim.path.open("rb") as stream:
            incoming = IncomingFile(name=claim.relative.name, size=os.fstat(stream.fileno()).st_size, stream=stream)
            document = document_upload(folder=folder, incoming=incoming, uploaded_by=None)
    except DomainError as refusal:
        _fail(root, claim, str(refusal))
        report.refused.append((str(claim.relative), str(refusal)))
        logger.warning("consume folder: %s was refused: %s", claim.relative, refusal)
        return
    except DatabaseError:
        # The library could not be written: the file goes back to be taken on a later run.
        _put_back(root, claim)
        raise
    _release(root, claim)
    report.stored.append((str(claim.relative), document.pk))
    logger.info("consume folder: %s stored as document %s in '%s'", claim.relative, document.pk, folder.path)


def _target_folder(relative: PurePosixPath) -> Folder:
    """The library folder a file's place names: its sub-directories', else CONSUME_FOLDER's path."""
    names = list(relative.parent.parts) or settings.CONSUME_FOLDER.split("/")
    cleaned = [" ".join(name_clean(raw, what="folder name").split())[:200] for raw in names]
    if not all(cleaned):
        raise InvalidInput(f"'{relative.parent}' does not name a folder: a folder's name may not be blank.")
    folder = None
    with transaction.atomic():
        for name in cleaned:
            folder, _ = Folder.objects.get_or_create(parent=folder, name=name)
    assert folder is not None  # `cleaned` holds one name at least
    return folder


def _fail(root: Path, claim: _Claim, reason: str) -> None:
    target = _free_name(root / FAILED_DIR / claim.relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(claim.path, target)
    target.with_name(target.name + REASON_SUFFIX).write_text(reason.rstrip() + "\n", encoding="utf-8")
    _release(root, claim)


def _free_name(path: Path) -> Path:
    """`path`, or "name (2).pdf" and so on when a file of that name failed before."""
    candidate, number = path, 1
    while candidate.exists() or candidate.with_name(candidate.name + REASON_SUFFIX).exists():
        number += 1
        candidate = path.with_name(f"{path.stem} ({number}){path.suffix}")
    return candidate


def _put_back(root: Path, claim: _Claim) -> None:
    target = root / claim.relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        os.rename(claim.path, target)
    _release(root, claim)


def _release(root: Path, claim: _Claim) -> None:
    """The claim's directory removed, with the file when it is still there (stored or moved)."""
    holder = root / PROCESSING_DIR / claim.path.relative_to(root / PROCESSING_DIR).parts[0]
    shutil.rmtree(holder, ignore_errors=True)
