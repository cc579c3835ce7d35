"""Keeping the page-image cache (citations.rendering) within PAGE_CACHE_MAX_MB.

Every cited range of every page is its own render, so the cache grows with what readers open and
would otherwise fill the disk. Pruning (beat, every PAGE_CACHE_PRUNE_EVERY_SECONDS) first removes
the renders of documents that are gone or whose file changed (their directory no longer names a
stored document's id and sha256), then the least recently used renders until the total fits.
A hit refreshes its render's modification time (rendering.render_page), so "least recently used"
is "least recently shown". A render is a PNG and its JSON sidecar; the sidecar goes first, so a
request racing the prune sees a miss and renders again, never a PNG without its boxes.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from citations.rendering import cache_dir
from documents.models import Document


@dataclass(frozen=True)
class PruneResult:
    removed_renders: int
    removed_bytes: int
    kept_bytes: int


@dataclass(frozen=True)
class _Render:
    png: Path
    used: float  # the PNG's modification time: when it was rendered or last shown
    size: int


def page_cache_prune(max_bytes: int | None = None) -> PruneResult:
    """Remove stale renders, then the least recently used ones until the cache holds max_bytes or less."""
    limit = settings.PAGE_CACHE_MAX_MB * 1024 * 1024 if max_bytes is None else max_bytes
    root = cache_dir()
    if not root.is_dir():
        return PruneResult(0, 0, 0)
    removed, freed = _remove_stale_directories(root)
    renders = sorted(_renders(root), key=lambda render: render.used)
    total = sum(render.size for render in renders)
    for render in renders:
        if total <= limit:
            break
        _remove_render(render.png)
        total -= render.size
        removed += 1
        freed += render.size
    return PruneResult(removed, freed, total)


def _remove_stale_directories(root: Path) -> tuple[int, int]:
    current = {f"{pk}-{sha256[:16]}" for pk, sha256 in Document.objects.values_list("pk", "sha256")}
    removed = freed = 0
    for directory in root.iterdir():
        if directory.is_dir() and directory.name not in current:
            renders = list(directory.glob("*.png"))
            removed += len(renders)
            freed += sum(_size(path) for path in directory.iterdir())
            shutil.rmtree(directory, ignore_errors=True)
    return removed, freed


def _renders(root: Path) -> list[_Render]:
    renders = []
    for png in root.glob("*/*.png"):
        try:
            stat = png.stat()
        except FileNotFoundError:  # removed by a concurrent prune
            continue
        renders.append(_Render(png, stat.st_mtime, stat.st_size + _size(png.with_suffix(".json"))))
    return renders


def _remove_render(png: Path) -> None:
    png.with_suffix(".json").unlink(missing_ok=True)
    png.unlink(missing_ok=True)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
