"""Writes through the API that staff make in the admin: a document's metadata, tags and folder
(one or many at once), tags as a resource, and webhook endpoints (staff only, secret shown once)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from documents.models import Document, Tag, WebhookDelivery, WebhookEndpoint
from documents.services.metadata import document_metadata_backfill
from documents.webhooks.signing import signature_headers, signature_verify
from tests.conftest import bearer
from tests.documents.test_metadata_library import _change_form_data
from tests.factories import DocumentFactory, FolderFactory, GroupFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def shelf() -> dict[str, Any]:
    """Two folders the writer writes, one it only reads, one it cannot read; an endpoint that
    hears of every event everywhere (so any delivery a write recorded would be seen)."""
    writer, reader = UserFactory(username="writer"), UserFactory(username="reader")
    team = GroupFactory(name="team")
    reader.groups.add(team)
    writer.groups.add(team)
    home = FolderFactory(name="Home", readers=[team])
    other = FolderFactory(name="Other", readers=[team])
    read_only = FolderFactory(name="Read only", readers=[team])
    hidden = FolderFactory(name="Hidden")
    for folder in (home, other):
        folder.writer_users.add(writer)
    documents = [
        DocumentFactory(folder=home, title=f"Paper {n}", text=f"Paper {n} text.", indexed=True) for n in range(3)
    ]
    locked = DocumentFactory(folder=read_only, title="Locked", text="Locked text.", indexed=True)
    secret = DocumentFactory(folder=hidden, title="Secret", text="Secret text.", indexed=True)
    WebhookEndpoint.objects.create(url="https://hooks.example/in", events=["document.indexed", "document.failed",
                                   "document.deleted"], all_folders=True)  # fmt: skip
    return {
        "writer": bearer(writer), "reader": bearer(reader), "staff": bearer(StaffFactory(username="boss")),
        "home": home, "other": other, "read_only": read_only, "hidden": hidden,
        "documents": documents, "locked": locked, "secret": secret,
    }  # fmt: skip


def patch(client: Client, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.patch(url, body, content_type="application/json", **headers)


# --- one document -----------------------------------------------------------------------------


def test_patch_writes_metadata_marks_it_corrected_and_reindexing_keeps_it(
    client: Client, shelf: dict[str, Any]
) -> None:
    document = shelf["documents"][0]
    response = patch(
        client,
        f"/api/documents/{document.pk}",
        {"title": "  Raft, revisited ", "authors": ["Diego Ongaro", "John Ousterhout"], "published": "2014-06-19"},
        shelf["writer"],
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["title"], body["authors"], body["published"]) == (
        "Raft, revisited",
        ["Diego Ongaro", "John Ousterhout"],
        "2014-06-19",
    )
    assert sorted(body["metadata_edited"]) == ["authors", "published", "title"]
    # Extraction runs again (as re-indexing does) and keeps every corrected field.
    document_metadata_backfill(Document.objects.get(pk=document.pk))
    stored = Document.objects.get(pk=document.pk)
    assert (stored.title, stored.published) == ("Raft, revisited", dt.date(2014, 6, 19))
    # A field left out stays; null clears the date.
    cleared = patch(client, f"/api/documents/{document.pk}", {"published": None}, shelf["writer"]).json()
    assert (cleared["title"], cleared["published"]) == ("Raft, revisited", None)


def test_patch_sets_adds_and_removes_tags_one_tag_whatever_its_case(client: Client, shelf: dict[str, Any]) -> None:
    Tag.objects.create(name="Consensus")
    url = f"/api/documents/{shelf['documents'][0].pk}"
    assert patch(client, url, {"tags": ["consensus", "Storage"]}, shelf["writer"]).json()["tags"] == [
        "Consensus",
        "Storage",
    ]
    body = patch(client, url, {"add_tags": ["Logs"], "remove_tags": ["STORAGE"]}, shelf["writer"]).json()
    assert sorted(body["tags"]) == ["Consensus", "Logs"]
    assert Tag.objects.filter(name__iexact="consensus").count() == 1


def test_patch_moves_a_document_with_its_index(client: Client, shelf: dict[str, Any]) -> None:
    document = shelf["documents"][0]
    body = patch(client, f"/api/documents/{document.pk}", {"folder": shelf["other"].pk}, shelf["writer"]).json()
    assert body["folder"]["id"] == shelf["other"].pk
    assert Document.objects.get(pk=document.pk).folder_id == shelf["other"].pk


def test_patch_follows_the_admins_permission_rules(client: Client, shelf: dict[str, Any]) -> None:
    home_doc = shelf["documents"][0]
    # A reader of the folder may not change it: 403. A document they cannot read: 404, as missing.
    refused = patch(client, f"/api/documents/{home_doc.pk}", {"title": "Mine"}, shelf["reader"])
    assert refused.status_code == 403, refused.content
    hidden = patch(client, f"/api/documents/{shelf['secret'].pk}", {"title": "Mine"}, shelf["writer"])
    missing = patch(client, "/api/documents/987654321", {"title": "Mine"}, shelf["writer"])
    assert hidden.status_code == missing.status_code == 404
    # Moving needs the target folder writable too: read-only is 403, unreadable 404.
    to_read_only = patch(client, f"/api/documents/{home_doc.pk}", {"folder": shelf["read_only"].pk}, shelf["writer"])
    to_hidden = patch(client, f"/api/documents/{home_doc.pk}", {"folder": shelf["hidden"].pk}, shelf["writer"])
    assert (to_read_only.status_code, to_hidden.status_code) == (403, 404)
    assert Document.objects.get(pk=home_doc.pk).title == "Paper 0"
    assert Document.objects.get(pk=home_doc.pk).folder_id == shelf["home"].pk


def test_bad_values_are_400_and_change_nothing(client: Client, shelf: dict[str, Any]) -> None:
    url = f"/api/documents/{shelf['documents'][0].pk}"
    for body in ({"title": "Line\nbreak"}, {"title": "   "}, {"tags": ["ok", " "]}, {"authors": ["A\x00B"]}):
        response = patch(client, url, body, shelf["writer"])
        assert response.status_code == 400, (body, response.content)
        assert response.json()["detail"]
    stored = Document.objects.get(pk=shelf["documents"][0].pk)
    assert (stored.title, stored.metadata_edited, list(stored.tags.all())) == ("Paper 0", [], [])


def test_writes_send_no_webhook_as_the_admins_edits_send_none(client: Client, shelf: dict[str, Any]) -> None:
    document = shelf["documents"][0]
    patch(client, f"/api/documents/{document.pk}", {"title": "New", "tags": ["x"], "folder": shelf["other"].pk},
          shelf["writer"])  # fmt: skip
    patch(client, "/api/documents", {"ids": [shelf["documents"][1].pk], "changes": {"title": "Bulk"}}, shelf["writer"])
    # The admin's own edit of the same fields, for parity.
    admin = Client()
    admin.force_login(StaffFactory(username="admin-editor"))
    other = shelf["documents"][2]
    form = _change_form_data(admin, other, title="Admin title", tags=[Tag.objects.get(name="x").pk])
    assert admin.post(reverse("admin:documents_document_change", args=[other.pk]), form).status_code == 302
    assert Document.objects.get(pk=other.pk).title == "Admin title"
    assert WebhookDelivery.objects.count() == 0


# --- many documents -------------------------------------------------------------------------


def test_bulk_changes_every_document_or_none(client: Client, shelf: dict[str, Any]) -> None:
    ids = [d.pk for d in shelf["documents"]]
    body = {"ids": ids, "changes": {"add_tags": ["Batch"], "published": "2020-01-01", "folder": shelf["other"].pk}}
    response = patch(client, "/api/documents", body, shelf["writer"])
    assert response.status_code == 200, response.content
    assert [item["id"] for item in response.json()["items"]] == ids
    assert all(
        item["tags"] == ["Batch"] and item["folder"]["id"] == shelf["other"].pk for item in response.json()["items"]
    )
    # One document the writer may not change: refused whole, nothing changed.
    refused = patch(
        client, "/api/documents", {"ids": [*ids, shelf["locked"].pk], "changes": {"title": "All"}}, shelf["writer"]
    )
    assert refused.status_code == 403
    assert str(shelf["locked"].pk) in refused.json()["detail"]
    hidden = patch(client, "/api/documents", {"ids": [ids[0], shelf["secret"].pk], "changes": {"title": "All"}},
                   shelf["writer"])  # fmt: skip
    assert hidden.status_code == 404
    assert not Document.objects.filter(title="All").exists()


def test_bulk_move_into_a_folder_holding_the_same_file_is_409_and_changes_nothing(
    client: Client, shelf: dict[str, Any]
) -> None:
    first, second = shelf["documents"][:2]
    DocumentFactory(folder=shelf["other"], title="Copy", text="x", indexed=True, sha256=second.sha256)
    response = patch(client, "/api/documents", {"ids": [first.pk, second.pk], "changes": {"title": "Moved",
                     "folder": shelf["other"].pk}}, shelf["writer"])  # fmt: skip
    assert response.status_code == 409, response.content
    assert "Paper 1" in response.json()["detail"]
    assert set(Document.objects.filter(pk__in=[first.pk, second.pk]).values_list("folder_id", "title")) == {
        (shelf["home"].pk, "Paper 0"),
        (shelf["home"].pk, "Paper 1"),
    }


# --- tags -----------------------------------------------------------------------------------


def test_tags_are_a_resource_staff_manage(client: Client, shelf: dict[str, Any]) -> None:
    created = client.post("/api/tags", {"name": "Consensus"}, content_type="application/json", **shelf["staff"])
    assert created.status_code == 201, created.content
    tag_id = created.json()["id"]
    clash = client.post("/api/tags", {"name": "CONSENSUS"}, content_type="application/json", **shelf["staff"])
    assert clash.status_code == 409
    assert (
        client.post("/api/tags", {"name": "x"}, content_type="application/json", **shelf["writer"]).status_code == 403
    )
    renamed = patch(client, f"/api/tags/{tag_id}", {"name": "Agreement"}, shelf["staff"])
    assert renamed.json()["name"] == "Agreement"
    Tag.objects.create(name="Storage")
    assert patch(client, f"/api/tags/{tag_id}", {"name": "storage"}, shelf["staff"]).status_code == 409
    shelf["documents"][0].tags.add(Tag.objects.get(pk=tag_id))
    assert client.delete(f"/api/tags/{tag_id}", **shelf["staff"]).status_code == 204
    assert Document.objects.filter(pk=shelf["documents"][0].pk).exists()
    assert not Tag.objects.filter(pk=tag_id).exists()


def test_a_reader_lists_only_tags_of_documents_they_may_read(client: Client, shelf: dict[str, Any]) -> None:
    seen, unseen = Tag.objects.create(name="Seen"), Tag.objects.create(name="Board only")
    shelf["documents"][0].tags.add(seen)
    shelf["secret"].tags.add(unseen)
    listed = client.get("/api/tags", **shelf["reader"]).json()
    assert [(t["name"], t["documents"]) for t in listed["items"]] == [("Seen", 1)]
    hidden = client.get(f"/api/tags/{unseen.pk}", **shelf["reader"])
    missing = client.get("/api/tags/987654321", **shelf["reader"])
    assert hidden.status_code == missing.status_code == 404
    staff = client.get("/api/tags", **shelf["staff"]).json()
    assert {t["name"] for t in staff["items"]} == {"Seen", "Board only"}


# --- webhook endpoints ----------------------------------------------------------------------


def test_webhook_endpoints_are_staff_only_and_the_secret_is_shown_once(client: Client, shelf: dict[str, Any]) -> None:
    body = {"name": "CI", "url": "https://ci.example/hook", "events": ["document.indexed"],
            "folders": [shelf["home"].pk]}  # fmt: skip
    assert client.post("/api/webhooks", body, content_type="application/json", **shelf["writer"]).status_code == 403
    assert client.get("/api/webhooks", **shelf["writer"]).status_code == 403
    created = client.post("/api/webhooks", body, content_type="application/json", **shelf["staff"])
    assert created.status_code == 201, created.content
    endpoint = created.json()
    stored = WebhookEndpoint.objects.get(pk=endpoint["id"])
    # The secret shown is the one deliveries are signed with.
    assert endpoint["secret"] == stored.secret
    message = b'{"event": "document.indexed"}'
    headers = signature_headers(stored.secret, "msg_1", 1_700_000_000, message)  # as deliveries are signed
    assert signature_verify(endpoint["secret"], headers, message, now=1_700_000_000)
    assert endpoint["folders"] == [shelf["home"].pk]
    detail = client.get(f"/api/webhooks/{endpoint['id']}", **shelf["staff"]).json()
    listed = client.get("/api/webhooks", **shelf["staff"]).json()
    assert "secret" not in detail
    assert all("secret" not in item for item in listed["items"])
    changed = patch(client, f"/api/webhooks/{endpoint['id']}", {"all_folders": True, "folders": []}, shelf["staff"])
    assert changed.status_code == 200, changed.content
    assert (changed.json()["all_folders"], changed.json()["folders"], "secret" in changed.json()) == (True, [], False)
    assert WebhookEndpoint.objects.get(pk=endpoint["id"]).secret == stored.secret
    assert client.delete(f"/api/webhooks/{endpoint['id']}", **shelf["staff"]).status_code == 204
    assert not WebhookEndpoint.objects.filter(pk=endpoint["id"]).exists()


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"url": "ftp://ci.example/hook", "events": ["document.indexed"], "all_folders": True}, "url"),
        ({"url": "https://ci.example/hook", "events": ["document.renamed"], "all_folders": True}, "events"),
        ({"url": "https://ci.example/hook", "events": ["document.indexed"]}, "all_folders"),
    ],
)
def test_a_webhook_endpoint_is_checked_by_the_model_before_it_is_saved(
    client: Client, shelf: dict[str, Any], body: dict[str, Any], fragment: str
) -> None:
    before = WebhookEndpoint.objects.count()
    response = client.post("/api/webhooks", body, content_type="application/json", **shelf["staff"])
    assert response.status_code == 400, response.content
    assert fragment in response.json()["detail"]
    assert WebhookEndpoint.objects.count() == before
