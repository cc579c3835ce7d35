"""Fixtures of the backup tests: a real library with several folders and permissions, and its export."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from tests.corpus import DEV_DIR, require_corpus
from tests.documents.backup_library import build_library, library_wipe
from tests.documents.webhook_receiver import Receiver, receiver_running


@pytest.fixture
def backup_media(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture
def backup_library(
    transactional_db: None, memoised_pipeline: None, backup_media: Path, tmp_path: Path
) -> dict[str, Any]:
    """The backup library, committed (exports run in their own snapshot transaction)."""
    require_corpus()
    library_wipe(backup_media)  # a dev corpus committed by an earlier test is not part of this library
    return build_library(DEV_DIR, tmp_path)


@pytest.fixture
def backup_exported(backup_library: dict[str, Any], backup_media: Path, tmp_path: Path, settings: Any) -> Path:
    """The library exported, then wiped: an empty library with a fresh media directory."""
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)
    library_wipe(backup_media)
    settings.MEDIA_ROOT = str(backup_media)
    return export


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A real local HTTP receiver of webhooks, in a thread of the test process."""
    with receiver_running() as running:
        yield running
