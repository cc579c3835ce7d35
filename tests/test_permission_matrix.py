"""Issue 6.4: a user without access to a folder reaches nothing of it, anywhere.

For each surface, a forbidden document answers exactly like a document that does not exist
(same status, same body once the id is blanked), and no response carries its words.

Every check runs for two outsiders: one who reads no folder at all (retrieval answers before
any SQL runs) and one who reads another folder holding a document about the same words, so
the search's SQL runs and its folder filter is what keeps the secret out.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from django.test import Client

from documents.models import Chunk, Document, DocumentStatus
from documents.services.ingest import document_ingest
from documents.services.status import document_transition
from documents.services.tokens import token_create
from documents.services.upload import IncomingFile, document_upload
from tests.conftest import ingest_file_inline
from tests.documents import pdf_builders
from tests.factories import FolderFactory, GroupFactory, StaffFactory, UserFactory

SECRET = "Zanzibar quartz protocol requires seventeen amber keys"
TITLE = "Classified handbook"
QUERY = "which protocol requires seventeen amber keys"  # finds SECRET without containing its rarest word
NEIGHBOUR_TEXT = "The harbour protocol requires seven amber keys and one brass lantern for every gate."


@pytest.fixture
def secret_document(db: None, memoised_pipeline: None, tmp_path: Path) -> Document:
    path = tmp_path / "handbook.pdf"
    doc = pymupdf.open()
    for page_no in range(2):
        page = doc.new_page()
        page.insert_text((72, 100), f"Section {page_no + 1}", fontsize=16)
        page.insert_textbox(pymupdf.Rect(72, 130, 520, 700), f"{SECRET}. Page {page_no + 1} explains the rest.")
    doc.save(path)
    folder = FolderFactory(name="Secret", readers=[GroupFactory(name="insiders")])
    document = ingest_file_inline(path, folder, title=TITLE)
    assert document.status == DocumentStatus.INDEXED, document.failure_reason
    return document


@pytest.fixture(params=["reads_no_folder", "reads_another_folder"])
def outsider(request: pytest.FixtureRequest, db: None, memoised_pipeline: None, tmp_path: Path) -> Any:
    user = UserFactory(username="outsider")
    if request.param == "reads_another_folder":
        path = tmp_path / "harbour.md"
        path.write_text(f"# Harbour rules\n\n{NEIGHBOUR_TEXT}\n")
        document = ingest_file_inline(path, FolderFactory(name="Harbour", readers=[user]), title="Harbour rules")
        assert document.status == DocumentStatus.INDEXED, document.failure_reason
    return user


def _own_document_ids(user: Any) -> set[int]:
    """The documents this outsider may read (none for the one who reads no folder)."""
    return set(Document.objects.filter(folder__reader_users=user).values_list("pk", flat=True))


def _bearer(user: Any) -> dict[str, str]:
    _, raw = token_create(user=user, name="test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def _blank_ids(body: bytes, *ids: int) -> str:
    text = body.decode(errors="replace")
    for value in ids:
        text = re.sub(rf"\b{value}\b", "<id>", text)
    return text


def _assert_no_leak(response: Any) -> None:
    body = response.content.decode(errors="replace")
    header_text = " ".join(f"{k}: {v}" for k, v in response.headers.items())
    for secret in ("Zanzibar", "zanzibar", TITLE, "Classified", "Secret"):
        assert secret not in body, f"{secret!r} leaked in {response.request['PATH_INFO']}"
        assert secret not in header_text


def _same_as_missing(client: Client, method: str, template: str, doc_id: int, **extra: Any) -> None:
    missing_id = doc_id + 10_000
    forbidden = getattr(client, method)(template.format(id=doc_id), **extra)
    missing = getattr(client, method)(template.format(id=missing_id), **extra)
    assert forbidden.status_code == missing.status_code == 404, (forbidden.status_code, missing.status_code)
    # A body that names nothing of the request (the 404 page) is the same byte for byte; one that
    # names the id it was asked for (the API's JSON) is the same with the ids blanked.
    same = forbidden.content == missing.content
    assert same or _blank_ids(forbidden.content, doc_id) == _blank_ids(missing.content, missing_id)
    _assert_no_leak(forbidden)


VIEWER_PATHS = [
    "/documents/{id}/view",
    "/documents/{id}/pages/1",
    "/documents/{id}/pages/1.png",
    "/documents/{id}/file",
    "/library/documents/{id}/",
]


@pytest.mark.parametrize("template", VIEWER_PATHS)
def test_viewer_pages_answer_404_like_missing_documents(
    client: Client, secret_document: Document, outsider: Any, template: str
) -> None:
    client.force_login(outsider)
    _same_as_missing(client, "get", template, secret_document.pk)
    client.logout()
    _same_as_missing(client, "get", template, secret_document.pk)


def test_browse_pages_answer_404_like_missing_folders(client: Client, secret_document: Document, outsider: Any) -> None:
    client.force_login(outsider)
    _same_as_missing(client, "get", "/library/folders/{id}/", secret_document.folder_id)
    listing = client.get("/library/")
    assert listing.status_code == 200
    _assert_no_leak(listing)
    for own in Document.objects.filter(pk__in=_own_document_ids(outsider)):
        assert client.get(f"/library/folders/{own.folder_id}/").status_code == 200
        assert client.get(f"/library/documents/{own.pk}/").status_code == 200
    client.logout()
    _same_as_missing(client, "get", "/library/folders/{id}/", secret_document.folder_id)
    _assert_no_leak(client.get("/library/"))


@pytest.mark.parametrize(
    ("method", "template"),
    [
        ("get", "/api/documents/{id}"),
        ("post", "/api/documents/{id}/retry"),
        ("delete", "/api/documents/{id}"),
    ],
)
def test_document_api_answers_404_like_missing(
    client: Client, secret_document: Document, outsider: Any, method: str, template: str
) -> None:
    _same_as_missing(client, method, template, secret_document.pk, **_bearer(outsider))
    assert Document.objects.filter(pk=secret_document.pk, status=DocumentStatus.INDEXED).exists()
    assert Chunk.objects.filter(document=secret_document).exists()


def test_document_list_and_folder_list_show_nothing(client: Client, secret_document: Document, outsider: Any) -> None:
    headers = _bearer(outsider)
    listing = client.get("/api/documents", **headers)
    assert listing.status_code == 200
    assert {item["id"] for item in listing.json()["items"]} == _own_document_ids(outsider)
    _assert_no_leak(listing)
    filtered = client.get(f"/api/documents?folder={secret_document.folder_id}", **headers)
    assert filtered.status_code == 404
    _assert_no_leak(filtered)
    folders = client.get("/api/folders", **headers)
    assert folders.status_code == 200
    _assert_no_leak(folders)


def test_search_api_and_answer_api_reveal_nothing(client: Client, secret_document: Document, outsider: Any) -> None:
    headers = _bearer(outsider)
    own = _own_document_ids(outsider)
    search = client.get("/api/search", {"q": QUERY}, **headers)
    assert search.status_code == 200
    found = {hit["document_id"] for hit in search.json()["results"]}
    assert found <= own
    if own:  # the query ran over the neighbour's folder and found its document, and only that
        assert found == own
        assert search.json()["best_distance"] is not None
    _assert_no_leak(search)
    grouped = client.get("/api/search", {"q": QUERY, "group": "document"}, **headers)
    assert grouped.status_code == 200
    assert {d["document_id"] for d in grouped.json()["documents"]} == found
    assert grouped.json()["total"] == len(found)
    _assert_no_leak(grouped)

    in_folder = client.get("/api/search", {"q": QUERY, "folder": secret_document.folder_id}, **headers)
    missing_folder = client.get("/api/search", {"q": QUERY, "folder": secret_document.folder_id + 999}, **headers)
    assert in_folder.status_code == missing_folder.status_code == 404
    assert _blank_ids(in_folder.content, secret_document.folder_id) == _blank_ids(
        missing_folder.content, secret_document.folder_id + 999
    )

    answer = client.post("/api/answer", json.dumps({"question": QUERY}), content_type="application/json", **headers)
    assert answer.status_code == 200
    assert {c["document_id"] for c in answer.json()["citations"]} <= own
    _assert_no_leak(answer)


def test_search_page_reveals_nothing(client: Client, secret_document: Document, outsider: Any) -> None:
    client.force_login(outsider)
    page = client.get("/", {"q": QUERY})
    assert page.status_code == 200
    _assert_no_leak(page)
    client.logout()
    anonymous = client.get("/", {"q": QUERY})
    assert anonymous.status_code == 302  # no public folder: sent to sign in
    assert anonymous["Location"].startswith("/login/")
    _assert_no_leak(anonymous)


def test_admin_is_closed_to_non_staff(client: Client, secret_document: Document, outsider: Any) -> None:
    client.force_login(outsider)
    for path in (
        f"/admin/documents/document/{secret_document.pk}/change/",
        "/admin/documents/document/",
        "/admin/documents/document/upload/",
        # Webhook endpoints (their signing secrets) and the delivery log (docs/api.md "Webhooks").
        "/admin/documents/webhookendpoint/",
        "/admin/documents/webhookendpoint/add/",
        "/admin/documents/webhookdelivery/",
    ):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")
        _assert_no_leak(response)


# The document list's bulk actions (issue 28), confirmed or not: the admin sends a non-staff
# user to its login before any action runs, so nothing of the document changes or shows.
BULK_ACTIONS = ("retry_failed", "reindex", "move_to_folder", "add_tag", "remove_tag", "delete_selected")


@pytest.mark.parametrize("action", BULK_ACTIONS)
def test_bulk_actions_are_closed_to_non_staff(
    client: Client, secret_document: Document, outsider: Any, action: str
) -> None:
    client.force_login(outsider)
    target = FolderFactory(name="Elsewhere")
    before = Document.objects.values().get(pk=secret_document.pk)
    for confirm in ({}, {"apply": "1", "post": "yes", "tag": "Leaked", "folder": target.pk}):
        data = {"action": action, "_selected_action": [secret_document.pk], **confirm}
        response = client.post("/admin/documents/document/", data)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")
        _assert_no_leak(response)
    assert Document.objects.values().get(pk=secret_document.pk) == before
    assert not secret_document.tags.exists()


@pytest.mark.parametrize("who", ["outsider", "anonymous", "staff_without_view_permission"])
def test_progress_json_is_404_to_all_but_staff(
    client: Client, secret_document: Document, outsider: Any, who: str
) -> None:
    """The admin's live progress (issue 28.1) names documents' status: non-staff get the site's 404."""
    if who == "outsider":
        client.force_login(outsider)
    elif who == "staff_without_view_permission":
        client.force_login(UserFactory(username="bare-staff", is_staff=True))
    path = f"/admin/documents/document/progress.json?id={secret_document.pk}"
    response = client.get(path)
    missing = client.get("/no-such-page/")
    assert response.status_code == missing.status_code == 404
    assert response.content == missing.content
    _assert_no_leak(response)
    client.force_login(StaffFactory(username="progress-staff"))
    allowed = client.get(path).json()
    assert [d["id"] for d in allowed["documents"]] == [secret_document.pk]
    assert allowed["documents"][0]["status"] == "indexed"


def test_insider_sees_what_outsider_cannot(client: Client, secret_document: Document) -> None:
    insider = UserFactory(username="insider")
    insider.groups.add(GroupFactory(name="insiders"))
    headers = _bearer(insider)
    search = client.get("/api/search", {"q": QUERY}, **headers)
    assert search.status_code == 200
    assert any("Zanzibar" in hit["content"] for hit in search.json()["results"])
    client.force_login(insider)
    assert client.get(f"/documents/{secret_document.pk}/view").status_code == 200
    assert client.get(f"/documents/{secret_document.pk}/file").status_code == 200
    assert TITLE in client.get(f"/library/folders/{secret_document.folder_id}/").content.decode()
    assert "Zanzibar" in client.get("/", {"q": QUERY}).content.decode()


# --- documents without an index in place (issue 26.4) -----------------------------------------
#
# A public folder holds a queued upload and a failed one: its readers (anonymous or signed in)
# meet neither anywhere, exactly as if they did not exist; its writers and staff manage both.

UNINDEXED_PATHS = [*VIEWER_PATHS, "/api/documents/{id}"]


def _secret_pdf(pages: int = 2) -> bytes:
    doc = pymupdf.open()
    for page_no in range(pages):
        doc.new_page().insert_textbox(pymupdf.Rect(72, 100, 520, 700), f"{SECRET}. Page {page_no + 1}.")
    return doc.tobytes()


def _upload(folder: Any, name: str, data: bytes, title: str) -> Document:
    incoming = IncomingFile(name=name, size=len(data), stream=io.BytesIO(data))
    return document_upload(folder=folder, incoming=incoming, uploaded_by=None, title=title, enqueue=False)


@pytest.fixture
def lobby(db: None, memoised_pipeline: None) -> dict[str, Any]:
    folder = FolderFactory(name="Lobby", is_public=True)
    writer = UserFactory(username="lobby-writer")
    folder.writer_users.add(writer)
    queued = _upload(folder, "handbook.pdf", _secret_pdf(), f"{TITLE} (queued)")
    failed = _upload(folder, "locked.pdf", pdf_builders.encrypted_doc(), f"{TITLE} (failed)")
    document_ingest(failed.pk)
    failed.refresh_from_db()
    assert (queued.status, failed.status) == (DocumentStatus.QUEUED, DocumentStatus.FAILED)
    return {"folder": folder, "writer": writer, "reader": UserFactory(username="lobby-reader"),
            "queued": queued, "failed": failed}  # fmt: skip


@pytest.mark.parametrize("which", ["queued", "failed"])
@pytest.mark.parametrize("template", UNINDEXED_PATHS)
def test_readers_of_a_public_folder_never_meet_an_unindexed_document(
    client: Client, lobby: dict[str, Any], which: str, template: str
) -> None:
    document = lobby[which]
    if template.startswith("/api/"):  # the API has no anonymous callers but search
        _same_as_missing(client, "get", template, document.pk, **_bearer(lobby["reader"]))
        return
    _same_as_missing(client, "get", template, document.pk)
    client.force_login(lobby["reader"])
    _same_as_missing(client, "get", template, document.pk)


@pytest.mark.parametrize("which", ["queued", "failed"])
def test_readers_cannot_retry_or_delete_an_unindexed_document_they_cannot_see(
    client: Client, lobby: dict[str, Any], which: str
) -> None:
    headers = _bearer(lobby["reader"])
    _same_as_missing(client, "post", "/api/documents/{id}/retry", lobby[which].pk, **headers)
    _same_as_missing(client, "delete", "/api/documents/{id}", lobby[which].pk, **headers)
    assert Document.objects.filter(pk=lobby[which].pk, status=lobby[which].status).exists()


def test_lists_and_searches_leave_unindexed_documents_out_for_readers(client: Client, lobby: dict[str, Any]) -> None:
    headers = _bearer(lobby["reader"])
    for query in ("", "?status=failed", "?status=queued", f"?folder={lobby['folder'].pk}"):
        listing = client.get(f"/api/documents{query}", **headers)
        assert listing.status_code == 200
        assert listing.json()["count"] == 0, query
        _assert_no_leak(listing)
    assert client.get("/api/search", {"q": QUERY}).json()["results"] == []  # anonymous, public folders
    _assert_no_leak(client.get("/", {"q": QUERY}))
    folder_page = f"/library/folders/{lobby['folder'].pk}/"
    for user in (None, lobby["reader"], lobby["writer"]):  # browse lists indexed documents only, to anyone
        if user is not None:
            client.force_login(user)
        _assert_no_leak(client.get("/", {"q": QUERY}))
        for path in ("/library/", folder_page):
            response = client.get(path)
            assert response.status_code == 200
            _assert_no_leak(response)
        assert 'id="folder-empty"' in client.get(folder_page).content.decode()


@pytest.mark.parametrize("who", ["writer", "staff"])
def test_writers_and_staff_still_manage_unindexed_documents(client: Client, lobby: dict[str, Any], who: str) -> None:
    user = lobby["writer"] if who == "writer" else StaffFactory(username="lobby-staff")
    headers = _bearer(user)
    # Staff see every folder, the dev corpus others committed included: count the lobby only.
    in_lobby = client.get("/api/documents", {"folder": lobby["folder"].pk}, **headers).json()["items"]
    listed = {item["id"]: item["status"] for item in in_lobby}
    assert listed == {lobby["queued"].pk: "queued", lobby["failed"].pk: "failed"}
    detail = client.get(f"/api/documents/{lobby['failed'].pk}", **headers)
    assert detail.status_code == 200
    assert "password" in detail.json()["failure_reason"]
    client.force_login(user)
    for which in ("queued", "failed"):
        original = client.get(f"/documents/{lobby[which].pk}/file")
        assert original.status_code == 200
        assert b"".join(original.streaming_content) == Path(lobby[which].file.path).read_bytes()
    retried = client.post(f"/api/documents/{lobby['failed'].pk}/retry", **headers)
    assert retried.status_code == 202, retried.content


@pytest.mark.parametrize("then", [DocumentStatus.QUEUED, DocumentStatus.FAILED])
def test_a_document_being_reindexed_stays_readable_with_its_last_index(
    client: Client, db: None, memoised_pipeline: None, tmp_path: Path, then: DocumentStatus
) -> None:
    """A re-index (or a failed one) keeps the chunks and text of the last indexing: search still
    cites the document, so its viewer and original still open."""
    path = tmp_path / "harbour.md"
    path.write_text(f"# Harbour rules\n\n{NEIGHBOUR_TEXT}\n")
    document = ingest_file_inline(path, FolderFactory(name="Quay", is_public=True), title="Harbour rules")
    assert document_transition(document.pk, to=DocumentStatus.QUEUED)
    if then == DocumentStatus.FAILED:
        assert document_transition(document.pk, to=DocumentStatus.FAILED, failure_reason="The re-index failed.")

    hits = client.get("/api/search", {"q": "harbour protocol amber keys"}).json()["results"]
    assert [hit["document_id"] for hit in hits] == [document.pk]
    viewer = client.get(hits[0]["url"].split("#")[0])
    assert viewer.status_code == 200
    assert "brass lantern" in viewer.content.decode()
    assert client.get(f"/documents/{document.pk}/file").status_code == 200


# --- the question log (issue 28) ---------------------------------------------------------------
#
# An insider's question about the secret is logged. Nobody but staff holding the log's view
# permission reaches any page of the log (404, like a page that does not exist, before the admin
# would even offer its login), and no one but the asker may judge the answer.

LOG_PATHS = [
    "/admin/citations/questionlog/",
    "/admin/citations/questionlog/?state=refused",
    "/admin/citations/questionlog/gaps/",
    "/admin/citations/questionlog/not-helpful/",
    "/admin/citations/questionlog/export.csv",
    "/admin/citations/questionlog/{id}/change/",
    "/admin/citations/questionlog/{id}/history/",
    "/admin/citations/questionlog/{id}/delete/",
]
LOGGED_QUESTION = "Which protocol needs the seventeen amber keys of Zanzibar?"


@pytest.fixture
def logged_question(secret_document: Document) -> int:
    from citations.models import QuestionLog

    insider = UserFactory(username="insider")
    insider.groups.add(GroupFactory(name="insiders"))
    payload = json.dumps({"question": LOGGED_QUESTION})
    answer = Client().post("/api/answer", payload, content_type="application/json", **_bearer(insider))
    assert answer.status_code == 200
    assert QuestionLog.objects.filter(pk=answer.json()["id"], question=LOGGED_QUESTION).exists()
    return int(answer.json()["id"])


@pytest.fixture(params=["anonymous", "reader", "staff_without_the_log_permission"])
def not_a_log_reader(request: pytest.FixtureRequest, db: None) -> Any:
    if request.param == "anonymous":
        return None
    return UserFactory(username="log-outsider", is_staff=request.param != "reader")


@pytest.mark.parametrize("template", LOG_PATHS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_the_question_log_is_404_to_all_but_its_readers(
    client: Client, logged_question: int, not_a_log_reader: Any, template: str, method: str
) -> None:
    from citations.models import QuestionLog

    if not_a_log_reader is not None:
        client.force_login(not_a_log_reader)
    response = getattr(client, method)(template.format(id=logged_question))
    missing = client.get("/no-such-page/")
    assert response.status_code == missing.status_code == 404, template
    assert response.content == missing.content
    assert LOGGED_QUESTION not in response.content.decode()
    _assert_no_leak(response)
    assert QuestionLog.objects.filter(pk=logged_question).exists()  # the delete page deleted nothing


def test_the_log_opens_to_staff_with_its_permission(client: Client, logged_question: int) -> None:
    client.force_login(StaffFactory(username="log-boss"))
    for template in LOG_PATHS[:-1]:
        response = client.get(template.format(id=logged_question))
        assert response.status_code == 200, template


def test_feedback_on_another_readers_answer_is_404_like_a_missing_one(
    client: Client, logged_question: int, outsider: Any
) -> None:
    from citations.models import QuestionLog

    body = json.dumps({"helpful": False, "comment": "x"})
    _same_as_missing(client, "post", "/api/answers/{id}/feedback", logged_question, data=body,
                     content_type="application/json", **_bearer(outsider))  # fmt: skip
    client.force_login(outsider)
    _same_as_missing(client, "post", "/answers/{id}/feedback", logged_question, data={"helpful": "no"})
    assert QuestionLog.objects.get(pk=logged_question).feedback == ""


def test_a_reader_never_sees_another_readers_questions(client: Client, logged_question: int, outsider: Any) -> None:
    client.force_login(outsider)
    for response in (
        client.get("/"),
        client.get("/", {"q": "amber keys protocol"}),
        client.get("/api/search", {"q": "amber keys protocol"}),
        client.post(
            "/api/answer",
            json.dumps({"question": "amber keys protocol"}),
            content_type="application/json",
            **_bearer(outsider),
        ),
    ):
        assert response.status_code == 200
        assert LOGGED_QUESTION not in response.content.decode()
        assert "seventeen amber keys of" not in response.content.decode()


# --- filters and facets (issue 26) ----------------------------------------------------------


def _describe_secret(document: Document) -> None:
    """Metadata on the secret document only: a tag, an author and a year nobody else has."""
    from documents.models import Tag

    Document.objects.filter(pk=document.pk).update(authors=["Agent Amberson"], published="1999-05-01")
    document.tags.add(Tag.objects.create(name="Quartz"))


def test_filters_and_facet_counts_never_reveal_an_unreadable_document(
    client: Client, secret_document: Document, outsider: Any
) -> None:
    _describe_secret(secret_document)
    headers = _bearer(outsider)
    own = _own_document_ids(outsider)
    plain = client.get("/api/search", {"q": QUERY}, **headers).json()
    facets = plain["facets"]
    assert facets["documents"] <= len(own)
    assert all(f["value"] != "1999" for f in facets["year"])
    assert facets["tag"] == []
    assert {int(f["value"]) for f in facets["folder"]} <= set(
        Document.objects.filter(pk__in=own).values_list("folder_id", flat=True)
    )
    for params in ({"tag": "Quartz"}, {"author": "Agent Amberson"}, {"from": "1999", "to": "1999"}, {"type": "pdf"}):
        response = client.get("/api/search", {"q": QUERY, **params}, **headers)
        assert response.status_code == 200, params
        body = response.json()
        assert body["filter_matches"] == 0, params
        assert body["results"] == [], params
        assert body["facets"]["documents"] == 0, params
        _assert_no_leak(response)
        listed = client.get("/api/documents", params, **headers).json()
        assert listed == {"items": [], "count": 0, "next": None}, params
    within = client.get("/api/search", {"q": QUERY, "document": secret_document.pk}, **headers)
    missing = client.get("/api/search", {"q": QUERY, "document": secret_document.pk + 999}, **headers)
    assert within.status_code == missing.status_code == 404
    assert _blank_ids(within.content, secret_document.pk) == _blank_ids(missing.content, secret_document.pk + 999)
    client.force_login(outsider)
    page = client.get("/", {"q": QUERY, "document": secret_document.pk})
    assert page.status_code == 200
    assert "does not exist or you may not read it" in page.content.decode()
    _assert_no_leak(page)
    tagged = client.get("/", {"q": QUERY, "tag": "Quartz", "from": "1999"})
    assert tagged.status_code == 200
    assert 'value="Quartz"' not in tagged.content.decode()  # the tag is not offered to this reader
    _assert_no_leak(tagged)


def test_an_insider_counts_the_secret_document(client: Client, secret_document: Document) -> None:
    _describe_secret(secret_document)
    insider = UserFactory(username="insider-facets")
    insider.groups.add(GroupFactory(name="insiders"))
    body = client.get("/api/search", {"q": QUERY, "tag": "quartz"}, **_bearer(insider)).json()
    assert body["filter_matches"] == 1
    assert {h["document_id"] for h in body["results"]} == {secret_document.pk}
    assert {(f["value"], f["count"]) for f in body["facets"]["year"]} == {("1999", 1)}
