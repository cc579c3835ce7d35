"""Checking an export completely before anything is written: manifest, tables, every original."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from documents.services.backup_format import (
    ExportDamaged,
    Manifest,
    export_file,
    line_bytes_max,
    line_too_long,
    manifest_read,
    original_path,
    progress,
    read_jsonl,
    table_name,
)

_SHA256 = re.compile(r"[0-9a-f]{64}")
_BLOCK = 1 << 20


def export_verify(root: Path, *, show_progress: bool = False) -> Manifest:
    """The export's manifest once every table and file checks out; ExportDamaged naming the first problem."""
    manifest = manifest_read(root)
    for name, expected in manifest.tables.items():
        _verify_table(export_file(root, root / table_name(name)), expected.lines, expected.bytes, expected.sha256)
    _verify_originals(root, manifest, show_progress)
    return manifest


def _verify_table(path: Path, lines: int, size: int, sha256: str) -> None:
    if not path.is_file():
        raise ExportDamaged(f"{path.name} is missing from the export.")
    digest, count, length = hashlib.sha256(), 0, 0
    limit, line_length = line_bytes_max(), 0  # the bytes of the line being read so far
    with path.open("rb") as stream:
        # In blocks, not lines: a hostile line of any length costs one block of memory.
        for block in iter(lambda: stream.read(_BLOCK), b""):
            digest.update(block)
            length += len(block)
            start = 0
            while (end := block.find(b"\n", start)) != -1:
                if line_length + end + 1 - start > limit:
                    raise line_too_long(path.name, count + 1)
                count, line_length, start = count + 1, 0, end + 1
            line_length += len(block) - start
            if line_length > limit:
                raise line_too_long(path.name, count + 1)
    count += line_length > 0  # a last line without its newline
    if (count, length, digest.hexdigest()) != (lines, size, sha256):
        raise ExportDamaged(
            f"{path.name} has {count} lines ({length} bytes, sha256 {digest.hexdigest()[:12]}…) but the manifest "
            f"says {lines} lines ({size} bytes, sha256 {sha256[:12]}…): it was truncated or changed after export."
        )


def _verify_originals(root: Path, manifest: Manifest, show_progress: bool) -> None:
    verified: set[str] = set()  # one entry per distinct file: the same bytes may be in several folders
    rows = read_jsonl(root / table_name("documents"))
    total = manifest.tables["documents"].lines
    for row in progress(rows, total=total, desc="verify originals", enabled=show_progress, unit="doc"):
        sha256 = str(row.get("sha256", ""))
        label = f"document {row.get('id')} ('{row.get('title')}')"
        if not _SHA256.fullmatch(sha256):
            raise ExportDamaged(f"documents.jsonl: {label} has no valid sha256.")
        if sha256 in verified:
            continue
        path = original_path(root, sha256)
        if not path.is_file():
            raise ExportDamaged(f"The original file of {label} is missing: {path.relative_to(root)}.")
        export_file(root, path)
        digest, size = _digest(path)
        if digest != sha256:
            raise ExportDamaged(
                f"The original file of {label} is damaged: {path.relative_to(root)} has sha256 {digest}, "
                f"expected {sha256}."
            )
        if size != row.get("size"):
            raise ExportDamaged(
                f"The original file of {label} has {size} bytes; documents.jsonl says {row.get('size')}."
            )
        verified.add(sha256)


def _digest(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(_BLOCK), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size
