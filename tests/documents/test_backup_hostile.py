"""Issue 24.3: an export is read as possibly hostile, because its hashes are no signature.

Each case edits a real export the way an attacker would, recomputing the manifest's line
counts, sizes and sha256 so that verification passes, then imports it: accounts come without
staff, superuser or group rights unless --restore-privileges, and non-finite vectors, over-long
lines, an oversized manifest or values the database refuses end in "Nothing was imported" with
the library and its media directory exactly as before.
"""

from __future__ import annotations

import base64
import json
import math
import shutil
import tracemalloc
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from documents.models import Folder
from documents.selectors import folders_readable_by
from documents.services.backup_format import (
    MANIFEST_NAME,
    ExportDamaged,
    JsonlWriter,
    encode_vector,
    read_jsonl,
    table_name,
)
from documents.services.backup_verify import export_verify
from tests.documents.backup_library import library_counts, media_files
from tests.factories import FolderFactory, GroupFactory, UserFactory

pytestmark = [pytest.mark.corpus, pytest.mark.slow]
Row = dict[str, Any]


def _tamper(export: Path, table: str, change: Callable[[list[Row]], list[Row]]) -> None:
    """Rewrite a table and put its new line count, size and sha256 in the manifest, as an attacker can."""
    path = export / table_name(table)
    rows = change(list(read_jsonl(path)))
    writer = JsonlWriter(path)
    for row in rows:
        writer.write(row)
    manifest = json.loads((export / MANIFEST_NAME).read_text())
    manifest["tables"][table] = vars(writer.close())
    (export / MANIFEST_NAME).write_text(json.dumps(manifest))


def _import(export: Path, *options: str) -> str:
    out = StringIO()
    call_command("library_import", str(export), *options, verbosity=0, stdout=out)
    return out.getvalue()


def _refused(export: Path, *options: str) -> str:
    with pytest.raises(CommandError) as refused:
        _import(export, *options)
    message = str(refused.value)
    assert "Nothing was imported." in message
    return message


def _privileged(username: str) -> tuple[bool, bool, list[str]]:
    user = get_user_model().objects.get(username=username)
    return user.is_staff, user.is_superuser, sorted(user.groups.values_list("name", flat=True))


def _make_outsider_a_superuser_in_every_group(rows: list[Row]) -> list[Row]:
    for row in rows:
        if row["username"] == "outsider":
            row.update(is_staff=True, is_superuser=True, groups=["editors", "engineering"])
    return rows


def test_a_tampered_export_creates_accounts_without_privileges_and_says_which(
    backup_exported: Path, backup_media: Path
) -> None:
    _tamper(backup_exported, "users", _make_outsider_a_superuser_in_every_group)
    output = _import(backup_exported)

    users = get_user_model().objects.all()
    assert users.count() == 5
    assert not users.filter(is_staff=True).exists()
    assert not users.filter(is_superuser=True).exists()
    assert not get_user_model().groups.through.objects.exists()  # nobody joined a group
    assert not get_user_model().user_permissions.through.objects.exists()
    outsider = users.get(username="outsider")
    assert {f.name for f in folders_readable_by(outsider)} == {"Public notes"}
    # The groups themselves are restored: folders name them, and staff can add people to them.
    assert sorted(folders_readable_by(users.get(username="alice")).values_list("name", flat=True)) == ["Public notes"]
    assert (
        "Not restored (pass --restore-privileges for a trusted export): alice: group engineering; "
        "carol: group editors; boss: staff, superuser; outsider: staff, superuser, group editors, group engineering"
    ) in output


def _add_mallory(rows: list[Row]) -> list[Row]:
    mallory = dict(rows[0], username="mallory", email="m@example.org", is_staff=True, is_superuser=True)
    return [*rows, mallory | {"groups": ["finance"]}]


@pytest.fixture
def finance() -> dict[str, Any]:
    """The target of a --merge: a group of this library that reads a folder of its own."""
    group = GroupFactory(name="finance")
    treasurer = UserFactory(username="treasurer")
    treasurer.groups.add(group)
    return {"group": group, "ledgers": FolderFactory(name="Ledgers", readers=[group]), "treasurer": treasurer}


def test_merge_adds_an_imported_account_to_no_existing_group(
    backup_exported: Path, backup_media: Path, finance: dict[str, Any]
) -> None:
    _tamper(backup_exported, "users", _add_mallory)
    output = _import(backup_exported, "--merge")

    assert _privileged("mallory") == (False, False, [])
    mallory = get_user_model().objects.get(username="mallory")
    assert finance["ledgers"] not in folders_readable_by(mallory)
    assert list(finance["group"].user_set.values_list("username", flat=True)) == ["treasurer"]
    assert "mallory: staff, superuser, group finance" in output
    assert "Not restored (pass --restore-privileges for a trusted export): " in output


def test_restore_privileges_trusts_the_export(
    backup_exported: Path, backup_media: Path, finance: dict[str, Any]
) -> None:
    _tamper(backup_exported, "users", _add_mallory)
    output = _import(backup_exported, "--merge", "--restore-privileges")

    assert _privileged("mallory") == (True, True, ["finance"])
    assert _privileged("alice") == (False, False, ["engineering"])
    assert _privileged("boss") == (True, True, [])
    assert _privileged("treasurer") == (False, False, ["finance"])  # existing accounts are not changed
    assert "Not restored" not in output


def _copy(export: Path, name: str) -> Path:
    return Path(shutil.copytree(export, export.parent / name))


def _set_first_vector(value: float) -> Callable[[list[Row]], list[Row]]:
    def change(rows: list[Row]) -> list[Row]:
        vector = np.frombuffer(base64.b64decode(rows[0]["embedding"]), dtype="<f4").copy()
        vector[7] = value
        rows[0]["embedding"] = encode_vector(vector)
        return rows

    return change


def _first_chunks_document(export: Path) -> str:
    """'document 3 (\'Title\')': how a refusal names the document of the first chunk."""
    document_id = next(read_jsonl(export / table_name("chunks")))["document"]
    title = next(row["title"] for row in read_jsonl(export / table_name("documents")) if row["id"] == document_id)
    return f"document {document_id} ('{title}')"


def test_non_finite_vectors_are_refused_and_nothing_is_imported(backup_exported: Path, backup_media: Path) -> None:
    before = (library_counts(), media_files(backup_media))
    named = _first_chunks_document(backup_exported)
    for value in (math.nan, math.inf, -math.inf):
        export = _copy(backup_exported, f"vector-{value}")
        _tamper(export, "chunks", _set_first_vector(value))
        message = _refused(export)
        assert f"chunks.jsonl line 1, a chunk of {named}: a vector holds NaN or infinity." in message
        assert (library_counts(), media_files(backup_media)) == before  # documents and files were written, then not


def _replace_first_vector(vector: np.ndarray) -> Callable[[list[Row]], list[Row]]:
    def change(rows: list[Row]) -> list[Row]:
        rows[0]["embedding"] = encode_vector(vector)
        return rows

    return change


def test_vectors_the_model_cannot_write_are_refused_naming_the_document(
    backup_exported: Path, backup_media: Path, settings: Any
) -> None:
    """Zero vectors and 3e38 used to import cleanly, and searches then answered with a NaN distance."""
    before = (library_counts(), media_files(backup_media))
    named = _first_chunks_document(backup_exported)
    dims = settings.EMBEDDING_DIMS
    unit = np.full(dims, 1 / math.sqrt(dims), dtype="<f4")
    cases = {
        "zeros": (np.zeros(dims, dtype="<f4"), "a vector is all zeros"),
        "3e38": (np.full(dims, 3e38, dtype="<f4"), "a vector has length 5.88e+39; the model's vectors have length 1"),
        "twice unit": (unit * 2, "a vector has length 2; the model's vectors have length 1"),
        "one dimension short": (unit[:-1], f"a vector has {dims - 1} dimensions, this library's have {dims}"),
    }
    for name, (vector, expected) in cases.items():
        export = _copy(backup_exported, name.replace(" ", "-"))
        _tamper(export, "chunks", _replace_first_vector(vector))
        message = _refused(export)
        assert f"chunks.jsonl line 1, a chunk of {named}: {expected}." in message, (name, message)
        assert (library_counts(), media_files(backup_media)) == before


def _set_last_document(**fields: Any) -> Callable[[list[Row]], list[Row]]:
    def change(rows: list[Row]) -> list[Row]:
        rows[-1].update(fields)
        return rows

    return change


def test_a_value_the_database_refuses_or_python_cannot_parse_is_reported_briefly(
    backup_exported: Path, backup_media: Path
) -> None:
    before = (library_counts(), media_files(backup_media))
    refused = "The database refused a row of the export (at or before documents.jsonl line 9): "
    last = list(read_jsonl(backup_exported / table_name("documents")))[-1]["id"]
    malformed = "The export has a malformed row (documents.jsonl line 9: ValueError: "
    cases = {
        "long title": ({"title": "x" * 501}, refused + "value too long for type character varying(500)."),
        "NUL in a title": (  # refused as an upload's title is, before the database sees it
            {"title": "before\x00after"},
            malformed + f"The title of document {last} contains a control character (U+0000) at character 7",
        ),
        "huge timestamp": (
            {"created_at": "x" * 100_000},
            "The export has a malformed row (documents.jsonl line 9: ValueError: Invalid isoformat string: 'xxx",
        ),
    }
    for name, (fields, expected) in cases.items():
        export = _copy(backup_exported, name.replace(" ", "-"))
        _tamper(export, "documents", _set_last_document(**fields))
        message = _refused(export)
        assert expected in message, (name, message[:500])
        assert len(message) < 1000, name  # the offending value is not quoted whole
        assert (library_counts(), media_files(backup_media)) == before


def test_an_over_long_line_is_refused_unread_in_bounded_memory(
    backup_exported: Path, backup_media: Path, settings: Any
) -> None:
    settings.INGEST_MAX_TEXT_CHARS = 10_000  # a line may hold 6 × 10,000 bytes + 1 MiB = 1,108,576
    line = 30 << 20
    _tamper(backup_exported, "documents", _set_last_document(canonical_text="a" * line))
    before = (library_counts(), media_files(backup_media))
    expected = "documents.jsonl line 9 is longer than 1,108,576 bytes"

    tracemalloc.start()
    try:
        with pytest.raises(ExportDamaged, match=expected):
            export_verify(backup_exported)
        with pytest.raises(ExportDamaged, match=expected):  # the reader the import itself uses
            for _ in read_jsonl(backup_exported / "documents.jsonl"):
                pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20  # a 30 MiB line, read in blocks of 1 MiB and up to the bound

    message = _refused(backup_exported)
    assert expected in message
    assert "INGEST_MAX_TEXT_CHARS = 10,000" in message
    assert (library_counts(), media_files(backup_media)) == before


def test_an_oversized_manifest_is_refused(backup_exported: Path, backup_media: Path) -> None:
    path = backup_exported / MANIFEST_NAME
    manifest = json.loads(path.read_text())
    path.write_text(json.dumps(manifest | {"padding": "x" * (16 << 20)}))  # valid JSON, just too big
    before = (library_counts(), media_files(backup_media))
    message = _refused(backup_exported)
    assert "manifest.json is larger than 16 MiB, the most a manifest may hold." in message
    assert (library_counts(), media_files(backup_media)) == before


# --- what an upload refuses, an import refuses --------------------------------------------------


def _set_first(**fields: Any) -> Callable[[list[Row]], list[Row]]:
    def change(rows: list[Row]) -> list[Row]:
        rows[0].update(fields)
        return rows

    return change


def test_names_an_upload_refuses_are_refused_on_import(backup_exported: Path, backup_media: Path) -> None:
    before = (library_counts(), media_files(backup_media))
    first_document = next(read_jsonl(backup_exported / table_name("documents")))["id"]
    malformed = "The export has a malformed row ("
    cases = {
        "bidi title": (
            "documents",
            {"title": "invoice\u202egpj.exe"},
            f"documents.jsonl line 1: ValueError: The title of document {first_document} contains a bidirectional "
            "text control (U+202E) at character 8",
        ),
        "escape in a title": (
            "documents",
            {"title": "\x1b]0;owned\x07Report"},
            f"The title of document {first_document} contains a control character (U+001B) at character 1",
        ),
        "bidi username": (
            "users",
            {"username": "admin\u202e"},
            "users.jsonl line 1: ValueError: The username contains a bidirectional text control (U+202E)",
        ),
        "escape in a username's name": ("users", {"first_name": "\x1b[2J"}, "The first name contains a control"),
        "username the admin refuses": ("users", {"username": "two words"}, "the username is refused: Enter a valid"),
        "escape in a group name": ("groups", {"name": "ops\x1b[8m"}, "The group name contains a control character"),
        "bidi folder name": ("folders", {"name": "Public\u2066"}, "The folder name contains a bidirectional text"),
        "original outside": (
            "documents",
            {"original_name": "../../etc/cron.d/job"},
            f"the original file name of document {first_document} holds what an upload's may not",
        ),
    }
    for name, (table, fields, expected) in cases.items():
        export = _copy(backup_exported, name.replace(" ", "-").replace("'", ""))
        _tamper(export, table, _set_first(**fields))
        message = _refused(export)
        assert malformed in message, (name, message[:600])
        assert expected in message, (name, message[:600])
        assert not {"\x1b", "\u202e"} & set(message), name  # the value is never echoed
        assert (library_counts(), media_files(backup_media)) == before


def _grant_existing_people_the_private_folder(rows: list[Row]) -> list[Row]:
    for row in rows:
        if row["name"] == "Private":
            row.update(reader_users=["treasurer"], writer_users=["treasurer"], reader_groups=["finance"])
    return rows


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "restore-privileges"])
def test_folder_grants_to_existing_people_need_restore_privileges(
    backup_exported: Path, backup_media: Path, finance: dict[str, Any], trusted: bool
) -> None:
    _tamper(backup_exported, "folders", _grant_existing_people_the_private_folder)
    output = _import(backup_exported, "--merge", *(["--restore-privileges"] if trusted else []))

    private = Folder.objects.get(name="Private")
    readable = {f.name for f in folders_readable_by(finance["treasurer"])}
    assert ("Private" in readable) is trusted
    assert private.writer_users.filter(username="treasurer").exists() is trusted
    assert private.reader_groups.filter(name="finance").exists() is trusted
    if trusted:
        assert "Not restored" not in output
    else:
        assert "treasurer: reader of Private, writer of Private" in output
        assert "group finance: reader of Private" in output


def test_symbolic_links_in_an_export_are_refused(backup_exported: Path, backup_media: Path, tmp_path: Path) -> None:
    before = (library_counts(), media_files(backup_media))
    outside = tmp_path / "outside"
    outside.mkdir()

    # An original that is a link to a file elsewhere on this machine (same bytes: its hash checks out).
    export = _copy(backup_exported, "linked-original")
    original = next(p for p in (export / "files").rglob("*") if p.is_file())
    target = outside / "secret"
    shutil.copyfile(original, target)
    original.unlink()
    original.symlink_to(target)
    message = _refused(export)
    assert f"{original.relative_to(export)} is a symbolic link" in message

    # A table that is a link, and a whole directory of originals that is one.
    export = _copy(backup_exported, "linked-table")
    shutil.move(export / "documents.jsonl", outside / "documents.jsonl")
    (export / "documents.jsonl").symlink_to(outside / "documents.jsonl")
    assert "documents.jsonl is a symbolic link" in _refused(export)

    export = _copy(backup_exported, "linked-directory")
    shutil.move(export / "files", outside / "files")
    (export / "files").symlink_to(outside / "files")
    assert "files is a symbolic link" in _refused(export)
    assert (library_counts(), media_files(backup_media)) == before
