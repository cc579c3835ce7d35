"""The permission-checked fetches and the one mapping of domain errors to HTTP statuses."""

from __future__ import annotations

from typing import Any

import pytest

from documents.access import (
    access_document_readable,
    access_document_writable,
    access_folder_readable,
    access_folder_writable,
    access_staff,
)
from documents.models import Document, DocumentStatus
from documents.selectors import documents_for_user
from documents.services.upload import DuplicateDocument, EmptyFile, FileTooLarge, UnsupportedFile
from ragsite.api import domain_status
from ragsite.errors import Conflict, Forbidden, InvalidInput, NotFoundOrForbidden
from tests.factories import DocumentFactory, FolderFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def shelf() -> dict[str, Any]:
    reader, writer_only, outsider = UserFactory(username="r"), UserFactory(username="w"), UserFactory(username="o")
    folder = FolderFactory(name="Shelf", readers=[reader])
    folder.writer_users.add(writer_only)
    FolderFactory(name="Elsewhere", readers=[outsider])  # the outsider reads some folder, not this one
    document = DocumentFactory(folder=folder, indexed=True)
    return {"folder": folder, "document": document, "reader": reader, "writer": writer_only,
            "outsider": outsider}  # fmt: skip


def test_unreadable_and_missing_folders_raise_the_same_words(shelf: dict[str, Any]) -> None:
    folder_id = shelf["folder"].pk
    with pytest.raises(NotFoundOrForbidden) as hidden:
        access_folder_readable(user=shelf["outsider"], folder_id=folder_id)
    with pytest.raises(NotFoundOrForbidden) as missing:
        access_folder_readable(user=shelf["outsider"], folder_id=987654)
    assert hidden.value.message == f"Folder {folder_id} does not exist or you may not read it."
    assert missing.value.message == hidden.value.message.replace(str(folder_id), "987654")
    assert access_folder_readable(user=shelf["reader"], folder_id=folder_id).writable is False


def test_a_named_writer_may_upload_without_reading(shelf: dict[str, Any]) -> None:
    folder = shelf["folder"]
    assert access_folder_writable(user=shelf["writer"], folder_id=folder.pk, action="upload into") == folder
    with pytest.raises(Forbidden) as refused:
        access_folder_writable(user=shelf["reader"], folder_id=folder.pk, action="upload into")
    assert refused.value.message == f"You may read folder {folder.pk} but not upload into it."
    with pytest.raises(NotFoundOrForbidden):
        access_folder_writable(user=shelf["outsider"], folder_id=folder.pk, action="upload into")


def test_documents_are_read_and_changed_through_their_folder(shelf: dict[str, Any]) -> None:
    document = shelf["document"]
    assert access_document_readable(user=shelf["reader"], document_id=document.pk) == document
    with pytest.raises(Forbidden, match="but not delete it: you cannot write its folder"):
        access_document_writable(user=shelf["reader"], document_id=document.pk, action="delete")
    with pytest.raises(NotFoundOrForbidden) as hidden:
        access_document_readable(user=shelf["outsider"], document_id=document.pk)
    assert hidden.value.message == f"Document {document.pk} does not exist or you may not read it."
    staff = StaffFactory(username="boss")
    assert access_document_writable(user=staff, document_id=document.pk, action="delete") == document
    access_staff(user=staff, action="create folders")
    with pytest.raises(Forbidden) as refused:
        access_staff(user=shelf["reader"], action="create folders")
    assert refused.value.message == "Only staff may create folders."


@pytest.mark.parametrize("status", [DocumentStatus.QUEUED, DocumentStatus.EXTRACTING, DocumentStatus.FAILED])
def test_a_document_never_indexed_is_missing_to_readers_and_managed_by_writers(
    shelf: dict[str, Any], status: DocumentStatus
) -> None:
    folder = shelf["folder"]
    document = DocumentFactory(folder=folder, status=status, text=f"Not indexed yet: {status}.")
    with pytest.raises(NotFoundOrForbidden) as hidden:
        access_document_readable(user=shelf["reader"], document_id=document.pk)
    assert hidden.value.message == f"Document {document.pk} does not exist or you may not read it."
    with pytest.raises(NotFoundOrForbidden):  # not "you may read it but not retry it"
        access_document_writable(user=shelf["reader"], document_id=document.pk, action="retry")
    folder.reader_users.add(shelf["writer"])  # a writer who also reads the folder manages it
    assert access_document_writable(user=shelf["writer"], document_id=document.pk, action="retry") == document
    assert access_document_readable(user=StaffFactory(username="boss"), document_id=document.pk) == document
    assert list(documents_for_user(user=shelf["reader"])) == [shelf["document"]]


def test_a_document_being_reindexed_stays_readable(shelf: dict[str, Any]) -> None:
    document = shelf["document"]
    for status in (DocumentStatus.QUEUED, DocumentStatus.EMBEDDING, DocumentStatus.FAILED):
        Document.objects.filter(pk=document.pk).update(status=status)
        assert access_document_readable(user=shelf["reader"], document_id=document.pk) == document


def test_each_kind_of_refusal_has_one_status(shelf: dict[str, Any]) -> None:
    assert domain_status(NotFoundOrForbidden("x")) == 404
    assert domain_status(Forbidden("x")) == 403
    assert domain_status(InvalidInput("x")) == 400
    assert domain_status(Conflict("x")) == 409
    assert domain_status(EmptyFile("x")) == 400
    assert domain_status(FileTooLarge("x")) == 413
    assert domain_status(UnsupportedFile("x")) == 415
    duplicate = DuplicateDocument(shelf["document"])
    assert domain_status(duplicate) == 409
    assert duplicate.details() == {"existing_document_id": shelf["document"].pk}
