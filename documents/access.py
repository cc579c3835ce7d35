"""Permission-checked fetches: the one place that says "you may not" for folders and documents.

Each function returns the object the caller may use or raises a domain error
(`ragsite.errors`): `NotFoundOrForbidden` for something the caller may not read (worded
exactly like something that does not exist, so ids reveal nothing) and `Forbidden` for
something the caller may read but not change. The rules themselves are the selectors'
(`documents.selectors`), applied in SQL.
"""

from __future__ import annotations

from documents.models import Document, Folder
from documents.selectors import AnyUser, document_for_user, folders_for_user, folders_writable_by, user_reads_everything
from ragsite.errors import Forbidden, NotFoundOrForbidden


def access_folder_readable(*, user: AnyUser, folder_id: int) -> Folder:
    """The folder, annotated as `folders_for_user` does (writable, visible parent)."""
    folder = folders_for_user(user=user).filter(pk=folder_id).first()
    if folder is None:
        raise NotFoundOrForbidden(f"Folder {folder_id} does not exist or you may not read it.")
    return folder


def access_folder_writable(*, user: AnyUser, folder_id: int, action: str) -> Folder:
    """A folder the user may write (naming them a writer is enough, even without read access)."""
    folder = folders_writable_by(user).filter(pk=folder_id).first()
    if folder is not None:
        return folder
    access_folder_readable(user=user, folder_id=folder_id)  # unreadable: the same answer as missing
    raise Forbidden(f"You may read folder {folder_id} but not {action} it.")


def access_document_readable(*, user: AnyUser, document_id: int) -> Document:
    document = document_for_user(user=user, document_id=document_id)
    if document is None:
        raise NotFoundOrForbidden(f"Document {document_id} does not exist or you may not read it.")
    return document


def access_document_writable(*, user: AnyUser, document_id: int, action: str) -> Document:
    """A readable document whose folder the user may write; `action` names the change refused."""
    document = access_document_readable(user=user, document_id=document_id)
    if not folders_writable_by(user).filter(pk=document.folder_id).exists():
        raise Forbidden(f"You may read document {document_id} but not {action} it: you cannot write its folder.")
    return document


def access_staff(*, user: AnyUser, action: str) -> None:
    """Staff only (they read and write every folder)."""
    if not user_reads_everything(user):
        raise Forbidden(f"Only staff may {action}.")
