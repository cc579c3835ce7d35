"""Control characters in names and titles, through real HTTP requests: a 400 (or a form error)
naming the character, never a 500, and nothing created. The rule is documents/names.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from documents.models import ApiToken, Document, Folder
from tests.conftest import bearer
from tests.factories import DocumentFactory, FolderFactory, GroupFactory, StaffFactory

pytestmark = pytest.mark.django_db

NOTES = b"# Storage\n\nThe compaction window is 2 hours by default.\n"
NUL_REASON = "contains a control character (U+0000)"
RULE = "names and titles must be printable text on one line"


@pytest.fixture
def media(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture
def staff(db: None) -> Any:
    return StaffFactory(username="librarian")


def stored_files(media: Path) -> list[Path]:
    return [p for p in media.rglob("*") if p.is_file()] if media.exists() else []


def api_upload(client: Any, staff: Any, folder: Folder, title: str, name: str = "notes.md") -> Any:
    file = SimpleUploadedFile(name, NOTES, content_type="text/markdown")
    return client.post("/api/documents", {"file": file, "folder": folder.pk, "title": title}, **bearer(staff))


BEFORE: dict[type, int] = {}


@pytest.fixture(autouse=True)
def _rows_before(db: Any) -> None:
    # Other tests may have committed rows (the dev corpus): "nothing created" is "no more than before".
    for model in (Folder, Document, ApiToken, Group):
        BEFORE[model] = model.objects.count()


# --- the API ----------------------------------------------------------------------------------


BAD_FOLDER_NAMES = {
    "nul": ("Minutes\x00", "folder name contains a control character (U+0000) at character 8"),
    "escape": ("\x1b[2JMinutes", "folder name contains a control character (U+001B) at character 1"),
    "line break inside": ("Minutes\n2026", "folder name contains a control character (U+000A)"),
    "right-to-left override": ("Minutes\u202e6202", "folder name contains a bidirectional text control (U+202E)"),
}


@pytest.mark.parametrize(("name", "reason"), BAD_FOLDER_NAMES.values(), ids=BAD_FOLDER_NAMES.keys())
def test_api_folder_name_with_a_control_character_is_400_naming_it(
    client: Any, staff: Any, name: str, reason: str
) -> None:
    response = client.post("/api/folders", {"name": name}, content_type="application/json", **bearer(staff))

    assert response.status_code == 400, response.content
    detail = response.json()["detail"]
    assert reason in detail
    assert RULE in detail
    assert Folder.objects.count() == BEFORE[Folder]


def test_api_group_name_with_nul_is_400_and_no_folder_is_created(client: Any, staff: Any) -> None:
    GroupFactory(name="team")
    payload = {"name": "Minutes", "reader_groups": ["team", "te\x00am"]}
    response = client.post("/api/folders", payload, content_type="application/json", **bearer(staff))

    assert response.status_code == 400, response.content
    assert f"The group name {NUL_REASON} at character 3" in response.json()["detail"]
    assert Folder.objects.count() == BEFORE[Folder]


def test_api_folder_name_with_an_unpaired_surrogate_is_refused_not_500(client: Any, staff: Any) -> None:
    # JSON may spell a lone surrogate ("\ud800"); the request is refused before any service runs.
    body = '{"name": "Minutes \\ud800"}'
    response = client.post("/api/folders", body, content_type="application/json", **bearer(staff))

    assert response.status_code == 422, response.content
    assert "body field 'name'" in response.json()["detail"]
    assert Folder.objects.count() == BEFORE[Folder]


def test_api_upload_title_with_nul_is_400_and_nothing_is_stored(client: Any, staff: Any, media: Path) -> None:
    folder = FolderFactory(name="Inbox")
    response = api_upload(client, staff, folder, "Notes\x00 v2")

    assert response.status_code == 400, response.content
    assert response.json()["detail"] == (
        f"The title {NUL_REASON} at character 6; names and titles must be printable text on one line."
    )
    assert Document.objects.count() == BEFORE[Document]
    assert stored_files(media) == []


def test_api_upload_title_with_a_bidi_override_is_400(client: Any, staff: Any, media: Path) -> None:
    folder = FolderFactory(name="Inbox")
    response = api_upload(client, staff, folder, "invoice\u202efdp.exe")

    assert response.status_code == 400, response.content
    assert "bidirectional text control (U+202E)" in response.json()["detail"]
    assert Document.objects.count() == BEFORE[Document]
    assert stored_files(media) == []


def test_api_upload_title_loses_only_surrounding_whitespace(client: Any, staff: Any, media: Path) -> None:
    folder = FolderFactory(name="Inbox")
    response = api_upload(client, staff, folder, "  Storage notes\r\n")

    assert response.status_code == 202, response.content
    assert response.json()["title"] == "Storage notes"


def test_api_upload_file_name_with_nul_is_stored_without_it(client: Any, staff: Any, media: Path) -> None:
    # A file's own name comes from the client's disk, not from a person typing: the character is
    # dropped from the stored name (and the title derived from it), and the file is accepted.
    folder = FolderFactory(name="Inbox")
    response = api_upload(client, staff, folder, "", name="stor\x00age\u202e notes.md")

    assert response.status_code == 202, response.content
    document = Document.objects.get(folder=folder)
    assert (document.original_name, document.title) == ("storage notes.md", "storage notes")


# --- the admin's forms ------------------------------------------------------------------------


def test_admin_folder_form_refuses_control_characters(client: Any, staff: Any) -> None:
    client.force_login(staff)
    url = reverse("admin:documents_folder_add")

    nul = client.post(url, {"name": "Minutes\x00"})
    override = client.post(url, {"name": "Minutes\u202e6202"})

    assert nul.status_code == override.status_code == 200  # the form again, with the reason
    assert "Null characters are not allowed." in nul.content.decode()  # Django's own check comes first
    assert "folder name contains a bidirectional text control (U+202E)" in override.content.decode()
    assert Folder.objects.count() == BEFORE[Folder]


def test_admin_document_title_refuses_control_characters(client: Any, staff: Any) -> None:
    client.force_login(staff)
    document = DocumentFactory(folder=FolderFactory(name="Inbox"), title="Runbook", text="Restart the service.")
    url = reverse("admin:documents_document_change", args=[document.pk])

    response = client.post(url, {"title": "Run\x1bbook"})

    assert response.status_code == 200
    assert "The title contains a control character (U+001B) at character 4" in response.content.decode()
    document.refresh_from_db()
    assert document.title == "Runbook"


def test_admin_token_and_group_forms_refuse_control_characters(client: Any, staff: Any) -> None:
    client.force_login(staff)

    token = client.post(reverse("admin:documents_apitoken_add"), {"user": staff.pk, "name": "ci\u2066bot"})
    group = client.post(reverse("admin:auth_group_add"), {"name": "readers\u202e"})

    assert token.status_code == group.status_code == 200
    assert "token name contains a bidirectional text control (U+2066)" in token.content.decode()
    assert "group name contains a bidirectional text control (U+202E)" in group.content.decode()
    assert ApiToken.objects.count() == BEFORE[ApiToken]
    assert Group.objects.count() == BEFORE[Group]
    # A plain name still goes through both forms.
    assert client.post(reverse("admin:auth_group_add"), {"name": "readers"}).status_code == 302
    assert Group.objects.filter(name="readers").exists()


# --- the command line -------------------------------------------------------------------------


def test_create_token_refuses_a_name_with_a_control_character(staff: Any) -> None:
    with pytest.raises(CommandError, match=r"The token name contains a control character \(U\+0007\)"):
        call_command("create_token", staff.username, name="ci\abot")
    assert ApiToken.objects.count() == BEFORE[ApiToken]


def test_ingest_refuses_a_folder_name_with_a_control_character(tmp_path: Path, media: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_bytes(NOTES)

    with pytest.raises(CommandError, match=r"The folder name contains a control character \(U\+0000\)"):
        call_command("ingest", str(notes), folder="Inbox\x00")
    assert Folder.objects.count() == BEFORE[Folder]
    assert Document.objects.count() == BEFORE[Document]
