"""Permission-checked fetches: the one place that says "you may not" for folders and documents.

Each function returns the object the caller may use or raises a domain error
(`ragsite.errors`): `NotFoundOrForbidden` for something the caller may not read (worded
exactly like something that does not exist, so ids reveal nothing) and `Forbidden` for
something the caller may read but not change. The rules themselves are the selectors'
(`documents.selectors`), applied in SQL.

The refusals are said in the active language (the API's Accept-Language); `action` names the
change refused as a verb phrase marked for translation by the caller (pgettext_lazy).
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext

from documents.models import Document, Folder
from documents.selectors import AnyUser, document_for_user, folders_for_user, folders_writable_by, user_reads_everything
from ragsite.errors import Forbidden, NotFoundOrForbidden


def access_folder_readable(*, user: AnyUser, folder_id: int) -> Folder:
    """The folder, annotated as `folders_for_user` does (writable, visible parent)."""
    folder = folders_for_user(user=user).filter(pk=folder_id).first()
    if folder is None:
        raise NotFoundOrForbidden(
            gettext("Folder %(folder)s does not exist or you may not read it.") % {"folder": folder_id}
        )
    return folder


def access_folder_writable(*, user: AnyUser, folder_id: int, action: str | Promise) -> Folder:
    """A folder the user may write (naming them a writer is enough, even without read access)."""
    folder = folders_writable_by(user).filter(pk=folder_id).first()
    if folder is not None:
        return folder
    access_folder_readable(user=user, folder_id=folder_id)  # unreadable: the same answer as missing
    message = gettext("You may read folder %(folder)s but not %(action)s it.")
    raise Forbidden(message % {"folder": folder_id, "action": action})


def access_document_readable(*, user: AnyUser, document_id: int) -> Document:
    document = document_for_user(user=user, document_id=document_id)
    if document is None:
        raise document_not_found(document_id)
    return document


def document_not_found(document_id: int) -> NotFoundOrForbidden:
    """The refusal of a document the caller may not read, worded as for one that does not exist."""
    return NotFoundOrForbidden(
        gettext("Document %(document)s does not exist or you may not read it.") % {"document": document_id}
    )


def access_document_writable(*, user: AnyUser, document_id: int, action: str | Promise) -> Document:
    """A readable document whose folder the user may write; `action` names the change refused."""
    document = access_document_readable(user=user, document_id=document_id)
    if not folders_writable_by(user).filter(pk=document.folder_id).exists():
        message = gettext("You may read document %(document)s but not %(action)s it: you cannot write its folder.")
        raise Forbidden(message % {"document": document_id, "action": action})
    return document


def access_staff(*, user: AnyUser, action: str | Promise) -> None:
    """Staff only (they read and write every folder)."""
    if not user_reads_everything(user):
        raise Forbidden(gettext("Only staff may %(action)s.") % {"action": action})
