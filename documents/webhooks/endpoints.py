"""Webhook endpoints as the API writes them: every field checked by the model's own validators
(`full_clean`, the URL's included), the scope rule the admin's form applies, then saved.

Changing an endpoint is not a document event: no webhook is sent for it, as in the admin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext, gettext_noop

from documents.models import Folder, WebhookEndpoint
from ragsite.errors import InvalidInput

NO_SCOPE = gettext_noop("Choose the folders it hears of, or set 'all_folders'.")


@dataclass(frozen=True)
class EndpointFields:
    """The fields to write; `None` leaves a field as it is (on creation: its default)."""

    name: str | None = None
    url: str | None = None
    events: Sequence[str] | None = None
    all_folders: bool | None = None
    folders: Sequence[Folder] | None = None
    is_active: bool | None = None


def webhook_endpoint_save(endpoint: WebhookEndpoint, fields: EndpointFields) -> WebhookEndpoint:
    """`endpoint` (new or stored) with `fields` written, once they are all valid; else InvalidInput
    naming each field's problem, and nothing saved."""
    for name in ("name", "url", "all_folders", "is_active"):
        value = getattr(fields, name)
        if value is not None:
            setattr(endpoint, name, value)
    if fields.events is not None:
        endpoint.events = list(dict.fromkeys(fields.events))
    folders = list(fields.folders) if fields.folders is not None else None
    if folders is None and endpoint.pk is not None:
        folders = list(endpoint.folders.all())
    try:
        endpoint.full_clean()
    except ValidationError as exc:
        raise InvalidInput(_sentence(exc)) from exc
    if not endpoint.events:
        raise InvalidInput(gettext("events: choose at least one event."))
    if not endpoint.all_folders and not folders:
        raise InvalidInput(gettext(NO_SCOPE))
    with transaction.atomic():
        endpoint.save()
        if fields.folders is not None:
            endpoint.folders.set(folders or [])
    return endpoint


def _sentence(exc: ValidationError) -> str:
    by_field = exc.message_dict if hasattr(exc, "error_dict") else {"endpoint": exc.messages}
    return "; ".join(f"{field}: {' '.join(messages)}" for field, messages in by_field.items())
