"""Folders and documents API: every endpoint, each error status, and callers without access."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from documents.models import Chunk, Document, DocumentStatus, Folder
from documents.services.tokens import token_create
from tests.conftest import bearer
from tests.factories import DocumentFactory, FolderFactory, GroupFactory, StaffFactory, UserFactory
from tests.search.bm25_oracle import packed_postings_of_chunks

pytestmark = pytest.mark.django_db

MARKDOWN = b"""# Release notes

## Storage

The compaction window is 2 hours by default. Blocks older than the retention period are deleted.

## Networking

Error TS-999 means the scrape target refused the connection; check the firewall first.
"""


def upload(client: Any, headers: dict[str, str], folder: int, name: str = "notes.md", data: bytes = MARKDOWN) -> Any:
    file = SimpleUploadedFile(name, data, content_type="text/markdown")
    return client.post("/api/documents", {"file": file, "folder": folder}, **headers)


@pytest.fixture
def world() -> dict[str, Any]:
    """A folder with a reader, a writer and an outsider; one document in it."""
    reader, writer, outsider = UserFactory(username="reader"), UserFactory(username="writer"), UserFactory()
    folder = FolderFactory(name="Team", readers=[GroupFactory(name="team"), writer])
    reader.groups.add(GroupFactory(name="team"))
    folder.writer_users.add(writer)
    document = DocumentFactory(folder=folder, title="Runbook", text="Restart the service.", indexed=True)
    return {"reader": reader, "writer": writer, "outsider": outsider, "folder": folder, "document": document}


# --- authentication -------------------------------------------------------------------------


def test_missing_token_is_401_with_instructions(client: Any) -> None:
    response = client.get("/api/folders")
    assert response.status_code == 401
    assert "Authorization: Bearer" in response.json()["detail"]
    assert "create_token" in response.json()["detail"]
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("header", ["Bearer nope", "Basic dXNlcjpwdw==", "Bearer", "Token abc"])
def test_bad_authorization_header_is_401(client: Any, header: str) -> None:
    response = client.get("/api/folders", HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert "Bearer <token>" in response.json()["detail"]


def test_revoked_token_and_inactive_user_are_401(client: Any, world: dict[str, Any]) -> None:
    token, raw = token_create(user=world["reader"])
    token.revoked = True
    token.save()
    assert client.get("/api/folders", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 401
    headers = bearer(world["writer"])
    world["writer"].is_active = False
    world["writer"].save()
    assert client.get("/api/folders", **headers).status_code == 401


def test_session_works_for_get_but_not_for_writes(client: Any, world: dict[str, Any]) -> None:
    client.force_login(world["writer"])
    assert client.get("/api/folders").status_code == 200
    assert client.get(f"/api/documents/{world['document'].pk}").status_code == 200
    response = upload(client, {}, world["folder"].pk)
    assert response.status_code == 401
    assert "GET requests only" in response.json()["detail"]
    assert client.delete(f"/api/documents/{world['document'].pk}").status_code == 401


# --- folders --------------------------------------------------------------------------------


def test_folder_list_shows_only_readable_folders(client: Any, world: dict[str, Any]) -> None:
    FolderFactory(name="Secret")
    public = FolderFactory(name="Handbook", is_public=True)
    body = client.get("/api/folders", **bearer(world["reader"])).json()
    assert body["count"] == 2
    assert {f["name"] for f in body["items"]} == {"Team", "Handbook"}
    assert {f["name"]: f["writable"] for f in body["items"]} == {"Team": False, "Handbook": False}
    outsider = client.get("/api/folders", **bearer(world["outsider"])).json()
    assert outsider["count"] == 1
    assert [f["id"] for f in outsider["items"]] == [public.pk]


def test_folder_list_paginates_and_validates_limit(client: Any) -> None:
    user = UserFactory(username="pager")
    for n in range(5):
        FolderFactory(name=f"F{n}", readers=[user])
    headers = bearer(user)
    page = client.get("/api/folders?limit=2&offset=2", **headers).json()
    assert page["count"] == 5
    assert [f["name"] for f in page["items"]] == ["F2", "F3"]
    response = client.get("/api/folders?limit=1000", **headers)
    assert response.status_code == 422
    assert "limit" in response.json()["detail"]


def test_parent_hidden_when_unreadable(client: Any, world: dict[str, Any]) -> None:
    secret = FolderFactory(name="Secret")
    child = FolderFactory(name="Child", parent=secret, readers=[world["reader"]])
    body = client.get(f"/api/folders/{child.pk}", **bearer(world["reader"])).json()
    assert body["parent"] is None
    assert body["path"] == "Child"  # the unreadable parent is not named


def test_folder_detail_unreadable_is_404(client: Any, world: dict[str, Any]) -> None:
    headers = bearer(world["outsider"])
    hidden = client.get(f"/api/folders/{world['folder'].pk}", **headers)
    missing = client.get("/api/folders/987654", **headers)
    assert hidden.status_code == missing.status_code == 404
    assert "does not exist or you may not read it" in hidden.json()["detail"]


def test_staff_creates_folder(client: Any, staff_user: Any, world: dict[str, Any]) -> None:
    payload = {"name": "Manuals", "parent": world["folder"].pk, "reader_groups": ["team"], "writer_groups": []}
    response = client.post("/api/folders", payload, content_type="application/json", **bearer(staff_user))
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == "Manuals"
    assert body["parent"] == world["folder"].pk
    assert body["writable"] is True
    folder = Folder.objects.get(pk=body["id"])
    assert list(folder.reader_groups.values_list("name", flat=True)) == ["team"]


@pytest.mark.parametrize(
    ("payload", "status", "fragment"),
    [
        ({"name": "Team"}, 409, "already exists"),
        ({"name": "X", "parent": 987654}, 404, "Folder 987654"),
        ({"name": "X", "reader_groups": ["nobody"]}, 400, "No such group: nobody"),
        ({"name": "   "}, 422, "body field 'name'"),
        ({}, 422, "name"),
    ],
)
def test_folder_create_errors(
    client: Any, staff_user: Any, world: dict[str, Any], payload: dict[str, Any], status: int, fragment: str
) -> None:
    response = client.post("/api/folders", payload, content_type="application/json", **bearer(staff_user))
    assert response.status_code == status, response.content
    assert fragment in response.json()["detail"]


def test_folder_create_needs_staff(client: Any, world: dict[str, Any]) -> None:
    response = client.post("/api/folders", {"name": "Mine"}, content_type="application/json", **bearer(world["writer"]))
    assert response.status_code == 403
    assert response.json() == {"detail": "Only staff may create folders.", "errors": []}


def test_malformed_json_body_is_a_json_error(client: Any, staff_user: Any) -> None:
    response = client.post("/api/folders", "{not json", content_type="application/json", **bearer(staff_user))
    assert response.status_code == 400  # documented for every body that cannot be parsed at all
    assert response.json() == {"detail": "Cannot parse request body", "errors": []}


def test_folder_delete_removes_documents_files_and_subfolders(
    client: Any, staff_user: Any, world: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    child = FolderFactory(name="Sub", parent=world["folder"])
    nested = DocumentFactory(folder=child, text="nested")
    paths = [Path(world["document"].file.path), Path(nested.file.path)]
    assert all(p.exists() for p in paths)
    assert client.delete(f"/api/folders/{world['folder'].pk}", **bearer(world["writer"])).status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        response = client.delete(f"/api/folders/{world['folder'].pk}", **bearer(staff_user))
    assert response.status_code == 204
    assert not Folder.objects.filter(pk__in=[world["folder"].pk, child.pk]).exists()
    assert not Document.objects.filter(pk__in=[world["document"].pk, nested.pk]).exists()
    assert not any(p.exists() for p in paths)


# --- upload ---------------------------------------------------------------------------------


def test_upload_ingest_and_status(client: Any, world: dict[str, Any]) -> None:
    from documents.services.ingest import document_ingest

    headers = bearer(world["writer"])
    response = upload(client, headers, world["folder"].pk)
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued"
    assert body["url"] == f"http://testserver/api/documents/{body['id']}"
    assert response["Location"] == body["url"]
    assert body["viewer_url"] == f"http://testserver/documents/{body['id']}/view"
    assert body["type"] == "markdown"
    assert body["original_name"] == "notes.md"
    assert body["content_type"] == "text/markdown"
    assert body["size"] == len(MARKDOWN)

    document_ingest(body["id"])

    detail = client.get(body["url"], **headers).json()
    assert detail["status"] == "indexed", detail["failure_reason"]
    assert detail["chunk_count"] == Chunk.objects.filter(document_id=body["id"]).count() > 0
    assert detail["stale"] is False
    assert detail["embedding_model"]
    assert detail["embedding_dims"]
    assert detail["pipeline"]
    assert detail["extractor"]
    assert detail["indexed_at"] is not None
    assert detail["folder"] == {"id": world["folder"].pk, "name": "Team", "path": "Team"}


def test_duplicate_upload_is_409_naming_the_existing_document(client: Any, world: dict[str, Any]) -> None:
    headers = bearer(world["writer"])
    first = upload(client, headers, world["folder"].pk).json()
    response = upload(client, headers, world["folder"].pk, name="copy.md")
    assert response.status_code == 409
    body = response.json()
    assert body["existing_document_id"] == first["id"]
    assert str(first["id"]) in body["detail"]
    assert first["title"] in body["detail"]


def test_duplicate_upload_tells_a_writer_who_may_not_read_only_that_the_file_is_there(
    client: Any, world: dict[str, Any]
) -> None:
    first = upload(client, bearer(world["writer"]), world["folder"].pk).json()
    drop_box = UserFactory(username="drop-box")  # may write the folder, not read it
    world["folder"].writer_users.add(drop_box)

    response = upload(client, bearer(drop_box), world["folder"].pk, name="again.md")

    assert response.status_code == 409
    assert response.json() == {
        "detail": "The same file is already in folder 'Team'; it was not stored again.",
        "errors": [],
    }
    assert str(first["id"]) not in response.content.decode()
    assert first["title"] not in response.content.decode()


def test_oversized_upload_is_413_and_nothing_is_stored(client: Any, world: dict[str, Any], settings: Any) -> None:
    settings.UPLOAD_MAX_BYTES = 100
    before = Document.objects.count()
    media = Path(settings.MEDIA_ROOT) / "documents"
    files_before = set(media.iterdir()) if media.exists() else set()
    response = upload(client, bearer(world["writer"]), world["folder"].pk, data=b"x" * 500)
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]
    assert Document.objects.count() == before
    assert (set(media.iterdir()) if media.exists() else set()) == files_before


def test_declared_size_over_limit_is_refused_before_reading(client: Any, world: dict[str, Any], settings: Any) -> None:
    settings.UPLOAD_MAX_BYTES = 1000
    response = upload(client, bearer(world["writer"]), world["folder"].pk, data=b"y" * 200_000)
    assert response.status_code == 413
    assert "nothing was stored" in response.json()["detail"]


def test_unsupported_type_is_415(client: Any, world: dict[str, Any]) -> None:
    response = upload(client, bearer(world["writer"]), world["folder"].pk, name="setup.exe", data=b"MZ\x90\x00")
    assert response.status_code == 415
    assert "PDF" in response.json()["detail"]


def test_upload_without_multipart_is_415(client: Any, world: dict[str, Any]) -> None:
    payload = {"folder": world["folder"].pk}
    response = client.post("/api/documents", payload, content_type="application/json", **bearer(world["writer"]))
    assert response.status_code == 415
    assert "multipart/form-data" in response.json()["detail"]


def test_upload_missing_folder_field_is_422(client: Any, world: dict[str, Any]) -> None:
    file = SimpleUploadedFile("a.md", b"# A\n\ntext", content_type="text/markdown")
    response = client.post("/api/documents", {"file": file}, **bearer(world["writer"]))
    assert response.status_code == 422
    assert "form field 'folder'" in response.json()["detail"]


def test_empty_upload_is_400(client: Any, world: dict[str, Any]) -> None:
    response = upload(client, bearer(world["writer"]), world["folder"].pk, data=b"")
    assert response.status_code == 400
    assert response.json() == {
        "detail": "'notes.md' is empty (0 bytes); there is nothing to index.",
        "errors": [],
    }


def test_upload_permissions(client: Any, world: dict[str, Any], staff_user: Any) -> None:
    readable = upload(client, bearer(world["reader"]), world["folder"].pk)
    assert readable.status_code == 403
    assert "not upload" in readable.json()["detail"]
    hidden = upload(client, bearer(world["outsider"]), world["folder"].pk)
    assert hidden.status_code == 404
    missing = upload(client, bearer(world["outsider"]), 987654)
    assert missing.json()["detail"] == hidden.json()["detail"].replace(str(world["folder"].pk), "987654")
    assert upload(client, bearer(staff_user), world["folder"].pk).status_code == 202
    assert Document.objects.filter(folder=world["folder"]).count() == 2


# --- list and detail --------------------------------------------------------------------------


def test_document_list_filters(client: Any, world: dict[str, Any]) -> None:
    failed = DocumentFactory(folder=world["folder"], text="broken", status=DocumentStatus.FAILED)
    other = FolderFactory(name="Other", readers=[world["reader"], world["writer"]])
    DocumentFactory(folder=other, text="elsewhere", indexed=True)
    headers = bearer(world["writer"])  # writes Team, so sees its failed document too
    everything = client.get("/api/documents", **headers).json()
    assert everything["count"] == 3
    in_folder = client.get(f"/api/documents?folder={world['folder'].pk}", **headers).json()
    assert in_folder["count"] == 2
    failures = client.get("/api/documents?status=failed", **headers).json()
    assert [d["id"] for d in failures["items"]] == [failed.pk]
    reader = bearer(world["reader"])  # only reads Team: never meets a document not indexed
    assert client.get("/api/documents", **reader).json()["count"] == 2
    assert client.get("/api/documents?status=failed", **reader).json() == {"items": [], "count": 0, "next": None}
    # The two indexed ones: marked indexed by the factory, without the stamps a real indexing writes.
    assert client.get("/api/documents?stale=true", **headers).json()["count"] == 2
    bad_status = client.get("/api/documents?status=done", **headers)
    assert bad_status.status_code == 422
    assert "query parameter 'status'" in bad_status.json()["detail"]


def test_outsider_sees_no_documents_and_no_counts(client: Any, world: dict[str, Any]) -> None:
    headers = bearer(world["outsider"])
    assert client.get("/api/documents", **headers).json() == {"items": [], "count": 0, "next": None}
    hidden_folder = client.get(f"/api/documents?folder={world['folder'].pk}", **headers)
    assert hidden_folder.status_code == 404
    doc_id = world["document"].pk
    hidden = client.get(f"/api/documents/{doc_id}", **headers)
    missing = client.get("/api/documents/987654", **headers)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["detail"].replace(str(doc_id), "N") == missing.json()["detail"].replace("987654", "N")
    for response in (hidden, missing):
        assert "Runbook" not in response.content.decode()


def test_document_detail_fields(client: Any, world: dict[str, Any]) -> None:
    body = client.get(f"/api/documents/{world['document'].pk}", **bearer(world["reader"])).json()
    expected = {
        "id", "title", "folder", "type", "status", "failure_reason", "attempts", "original_name", "content_type",
        "size", "sha256", "page_count", "chunk_count", "extractor", "embedding_model", "embedding_dims", "pipeline",
        "stale",
        "created_at", "updated_at", "status_changed_at", "indexed_at", "url", "viewer_url",
        "warnings", "ocr_pages", "authors", "published", "language", "tags", "metadata_edited", "progress",
    }  # fmt: skip
    expected |= {"context_failures", "context_cache_hits", "context_prompt_tokens", "context_cached_prompt_tokens",
                 "context_completion_tokens", "context_seconds"}  # fmt: skip
    assert set(body) == expected
    assert body["warnings"] == []
    assert body["ocr_pages"] == []
    assert body["title"] == "Runbook"
    assert body["progress"] is None  # indexed: nothing in progress
    assert "canonical_text" not in body


def test_non_integer_id_is_a_json_error(client: Any, world: dict[str, Any]) -> None:
    response = client.get("/api/documents/abc", **bearer(world["reader"]))
    assert response.status_code == 422  # a malformed parameter is a validation error, not a missing document
    assert response.json()["detail"].startswith("path parameter 'document_id': Input should be a valid integer")


# --- retry and delete -----------------------------------------------------------------------


def test_retry_failed_document(client: Any, world: dict[str, Any]) -> None:
    document = world["document"]
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.FAILED, failure_reason="bad", attempts=3)
    response = client.post(f"/api/documents/{document.pk}/retry", **bearer(world["writer"]))
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["failure_reason"], body["attempts"]) == ("queued", "", 0)


def test_retry_refuses_documents_that_did_not_fail(client: Any, world: dict[str, Any]) -> None:
    document = world["document"]
    headers = bearer(world["writer"])
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.INDEXED)
    refused = client.post(f"/api/documents/{document.pk}/retry", **headers)
    assert refused.status_code == 409
    assert "force=true" in refused.json()["detail"]
    forced = client.post(f"/api/documents/{document.pk}/retry?force=true", **headers)
    assert forced.status_code == 202
    assert forced.json()["status"] == "queued"
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.EMBEDDING)
    busy = client.post(f"/api/documents/{document.pk}/retry?force=true", **headers)
    assert busy.status_code == 409
    assert "being processed" in busy.json()["detail"]


def test_retry_and_delete_permissions(client: Any, world: dict[str, Any]) -> None:
    doc_id = world["document"].pk
    for method, url in (("post", f"/api/documents/{doc_id}/retry"), ("delete", f"/api/documents/{doc_id}")):
        reader = getattr(client, method)(url, **bearer(world["reader"]))
        assert reader.status_code == 403, url
        assert "cannot write its folder" in reader.json()["detail"]
        outsider = getattr(client, method)(url, **bearer(world["outsider"]))
        assert outsider.status_code == 404, url
    assert Document.objects.filter(pk=doc_id).exists()


def test_delete_removes_file_chunks_and_bm25_statistics(
    client: Any, world: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from documents.services.ingest import document_ingest

    headers = bearer(world["writer"])
    doc_id = upload(client, headers, world["folder"].pk).json()["id"]
    document_ingest(doc_id)
    document = Document.objects.get(pk=doc_id)
    path = Path(document.file.path)
    assert path.exists()
    chunk_ids = list(Chunk.objects.filter(document_id=doc_id).values_list("pk", flat=True))
    assert chunk_ids
    assert packed_postings_of_chunks(chunk_ids)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.delete(f"/api/documents/{doc_id}", **headers)
    assert response.status_code == 204
    assert response.content == b""
    assert not Document.objects.filter(pk=doc_id).exists()
    assert not Chunk.objects.filter(document_id=doc_id).exists()
    assert not packed_postings_of_chunks(chunk_ids)
    assert not path.exists()
    assert not default_storage.exists(document.file.name)
    assert client.get(f"/api/documents/{doc_id}", **headers).status_code == 404


def test_staff_reads_and_writes_everything(client: Any, world: dict[str, Any]) -> None:
    headers = bearer(StaffFactory(username="boss"))
    assert client.get(f"/api/documents/{world['document'].pk}", **headers).status_code == 200
    assert client.delete(f"/api/documents/{world['document'].pk}", **headers).status_code == 204
