"""Issue 15.3: export a real library, restore it into a fresh database and media directory, and
prove nothing is lost: the same searches give the same hits and scores for every reader, the
same permission matrix holds, every original is byte-identical, and the index is the same.

Two restores: into this test database after wiping every library row, account and stored file,
and into a second database created on the same server, migrated and restored by the real
management commands in separate processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection

from documents.bulk_indexes import REBUILT_INDEXES
from documents.models import ApiToken, Document, DocumentStatus
from documents.services.backup_format import MANIFEST_NAME, original_path
from tests import conftest
from tests.documents.backup_library import library_fingerprint, library_wipe

pytestmark = [pytest.mark.corpus, pytest.mark.slow]
ROOT = Path(django_settings.BASE_DIR)


def test_export_then_restore_into_a_wiped_database_and_new_media_reproduces_the_library(
    backup_library: dict[str, Any], backup_media: Path, tmp_path: Path, settings: Any
) -> None:
    before = library_fingerprint()
    assert Document.objects.filter(status=DocumentStatus.INDEXED).count() == 7
    assert any(entry["hits"] for entry in before["searches"].values())
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)

    manifest = json.loads((export / MANIFEST_NAME).read_text())
    assert manifest["counts"]["documents"] == 9
    assert manifest["counts"]["files"] == 8  # prometheus-storage.md is in two folders, stored once
    assert "API tokens" in manifest["not_exported"]
    library_wipe(backup_media)
    settings.MEDIA_ROOT = str(tmp_path / "fresh-media")
    call_command("library_import", str(export), "--restore-privileges", verbosity=0)  # our own export: trusted

    assert_same_library(library_fingerprint(), before)
    with connection.cursor() as cursor:  # dropped for the load, built again in the same transaction
        cursor.execute("SELECT indexname FROM pg_indexes WHERE indexname = ANY(%s)", [list(REBUILT_INDEXES)])
        assert sorted(name for (name,) in cursor.fetchall()) == sorted(REBUILT_INDEXES)
    assert ApiToken.objects.count() == 0  # tokens are secrets: never exported
    alice = type(backup_library["alice"]).objects.get(username="alice")
    assert not alice.has_usable_password()
    waiting = Document.objects.get(title="Waiting")
    assert waiting.status == DocumentStatus.QUEUED  # queued again for the workers
    assert Document.objects.get(original_name="corpus-scan.pdf").status == DocumentStatus.FAILED


def assert_same_library(after: dict[str, Any], before: dict[str, Any]) -> None:
    Path("/tmp/i15-after.json").write_text(json.dumps(after, indent=1))
    assert after.keys() == before.keys()
    for part, expected in before.items():
        differing = {
            key: (after[part].get(key), value) for key, value in expected.items() if after[part].get(key) != value
        }
        assert not differing, (part, differing)
        assert after[part].keys() == expected.keys(), part


@pytest.fixture
def second_database() -> Iterator[str]:
    url = conftest.test_database_url()
    base, _, query = url.partition("?")
    server, _, name = base.rpartition("/")
    restore_name = f"{name}_restore"
    admin_url = f"{server}/postgres" + (f"?{query}" if query else "")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{restore_name}"')
        conn.execute(f'CREATE DATABASE "{restore_name}"')
    try:
        yield f"{server}/{restore_name}" + (f"?{query}" if query else "")
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{restore_name}" WITH (FORCE)')


def _run(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def test_restore_into_a_second_database_by_the_commands_answers_the_same(
    backup_library: dict[str, Any], second_database: str, tmp_path: Path
) -> None:
    before = library_fingerprint()
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)
    env = {
        **os.environ,
        "DATABASE_URL": second_database,
        "MEDIA_ROOT": str(tmp_path / "second-media"),
        "CELERY_BROKER_URL": "memory://",
        "DJANGO_SETTINGS_MODULE": "ragsite.settings",
    }
    _run(["manage.py", "migrate", "-v", "0"], env)
    output = _run(["manage.py", "library_import", str(export), "--restore-privileges"], env)
    assert "imported 9 documents" in output
    assert "accounts created without a password" in output
    assert "changepassword" in output
    assert "Not restored" not in output
    assert_same_library(json.loads(_run(["-m", "tests.documents.backup_library"], env)), before)
    # Every original under the new media directory is one of the exported files, byte for byte.
    stored = [p for p in (tmp_path / "second-media").rglob("*") if p.is_file()]
    assert len(stored) == 9
    for path in stored:
        assert original_path(export, _sha256(path)).read_bytes() == path.read_bytes()


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
