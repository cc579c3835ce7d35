"""Tags and webhook endpoints, as staff manage them in the admin.

Tags: everyone signed in lists the tags of documents they may read (staff: every tag); staff
create, rename and delete them. Webhook endpoints are staff's alone; an endpoint's signing secret
is in the answer that creates it and in no other (the admin shows it to staff). Neither is a
document event, so no webhook is sent for these changes, as none is for the admin's.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext_lazy
from ninja import Router, Status
from ninja.pagination import paginate

from documents.access import access_folder_readable, access_staff
from documents.api_pages import Page
from documents.models import Tag, WebhookEndpoint
from documents.schemas import (
    ErrorOut,
    TagIn,
    TagOut,
    WebhookEndpointCreatedOut,
    WebhookEndpointIn,
    WebhookEndpointOut,
    WebhookEndpointPatch,
)
from documents.selectors import AnyUser, documents_for_user, user_reads_everything
from documents.services.tags import tag_create, tag_delete, tag_rename
from documents.webhooks.endpoints import EndpointFields, webhook_endpoint_save
from ragsite.caller import request_user
from ragsite.errors import NotFoundOrForbidden

tags_router = Router(tags=["tags"])
webhooks_router = Router(tags=["webhooks"])

ERRORS: dict[int, Any] = {401: ErrorOut, 422: ErrorOut}
WRITE_ERRORS: dict[int, Any] = {400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, **ERRORS}


# --- tags ---------------------------------------------------------------------------------


def _tags_for(user: AnyUser) -> QuerySet[Tag]:
    """Tags with the count of documents `user` may read that hold them; a reader sees only those
    with one (a tag is a fact about documents, and no other may be learnt of here)."""
    readable = documents_for_user(user=user).values("pk")
    tags = Tag.objects.annotate(readable_documents=Count("documents", filter=Q(documents__in=readable)))
    return tags if user_reads_everything(user) else tags.filter(readable_documents__gt=0)


def _tag(user: AnyUser, tag_id: int) -> Tag:
    tag = _tags_for(user).filter(pk=tag_id).first()
    if tag is None:
        raise NotFoundOrForbidden(gettext("Tag %(tag)s does not exist or you may not see it.") % {"tag": tag_id})
    return tag


@tags_router.get(
    "/tags", response={200: list[TagOut], **ERRORS}, url_name="tag_list", operation_id="listTags", summary="List tags"
)
@paginate(Page)
def tag_list(request: HttpRequest) -> QuerySet[Tag]:
    """Tags by name, each with how many documents you may read hold it."""
    return _tags_for(request_user(request)).order_by("name", "id")


@tags_router.post(
    "/tags", response={201: TagOut, **WRITE_ERRORS}, url_name="tag_create", operation_id="createTag",
    summary="Create a tag",
)  # fmt: skip
def tag_create_view(request: HttpRequest, payload: TagIn) -> Status:
    """Create a tag (staff only); 409 if one of that name exists, whatever its case."""
    user = request_user(request)
    access_staff(user=user, action=pgettext_lazy("an action only staff may take", "create tags"))
    return Status(201, _tag(user, tag_create(name=payload.name).pk))


@tags_router.get(
    "/tags/{tag_id}", response={200: TagOut, 404: ErrorOut, **ERRORS}, url_name="tag_detail",
    operation_id="getTag", summary="Get a tag",
)  # fmt: skip
def tag_detail(request: HttpRequest, tag_id: int) -> Tag:
    return _tag(request_user(request), tag_id)


@tags_router.patch(
    "/tags/{tag_id}", response={200: TagOut, **WRITE_ERRORS}, url_name="tag_rename", operation_id="renameTag",
    summary="Rename a tag",
)  # fmt: skip
def tag_rename_view(request: HttpRequest, tag_id: int, payload: TagIn) -> Tag:
    """Rename a tag (staff only); its documents keep it. 409 if another tag has that name."""
    user = request_user(request)
    tag = _tag(user, tag_id)
    access_staff(user=user, action=pgettext_lazy("an action only staff may take", "rename tags"))
    tag_rename(tag=tag, name=payload.name)
    return _tag(user, tag_id)


@tags_router.delete(
    "/tags/{tag_id}", response={204: None, 403: ErrorOut, 404: ErrorOut, **ERRORS}, url_name="tag_delete",
    operation_id="deleteTag", summary="Delete a tag",
)  # fmt: skip
def tag_delete_view(request: HttpRequest, tag_id: int) -> Status:
    """Delete a tag (staff only): it leaves every document; the documents stay."""
    user = request_user(request)
    tag = _tag(user, tag_id)
    access_staff(user=user, action=pgettext_lazy("an action only staff may take", "delete tags"))
    tag_delete(tag=tag)
    return Status(204, None)


# --- webhook endpoints --------------------------------------------------------------------


MANAGE_WEBHOOKS = pgettext_lazy("an action only staff may take", "manage webhook endpoints")


def _endpoint(request: HttpRequest, endpoint_id: int, action: str | Promise) -> WebhookEndpoint:
    access_staff(user=request_user(request), action=action)
    endpoint = WebhookEndpoint.objects.prefetch_related("folders").filter(pk=endpoint_id).first()
    if endpoint is None:
        raise NotFoundOrForbidden(gettext("Webhook endpoint %(endpoint)s does not exist.") % {"endpoint": endpoint_id})
    return endpoint


def _fields(request: HttpRequest, payload: WebhookEndpointIn | WebhookEndpointPatch) -> EndpointFields:
    user = request_user(request)
    folders = (
        [access_folder_readable(user=user, folder_id=f) for f in dict.fromkeys(payload.folders)]
        if payload.folders is not None
        else None
    )
    return EndpointFields(
        name=payload.name,
        url=payload.url,
        events=payload.events,
        all_folders=payload.all_folders,
        folders=folders,
        is_active=payload.is_active,
    )


@webhooks_router.get(
    "/webhooks", response={200: list[WebhookEndpointOut], 403: ErrorOut, **ERRORS}, url_name="webhook_list",
    operation_id="listWebhookEndpoints", summary="List webhook endpoints",
)  # fmt: skip
@paginate(Page)
def webhook_list(request: HttpRequest) -> QuerySet[WebhookEndpoint]:
    """Every endpoint (staff only), by name; secrets are never listed."""
    access_staff(user=request_user(request), action=MANAGE_WEBHOOKS)
    return WebhookEndpoint.objects.prefetch_related("folders").order_by("name", "id")


@webhooks_router.post(
    "/webhooks", response={201: WebhookEndpointCreatedOut, **WRITE_ERRORS}, url_name="webhook_create",
    operation_id="createWebhookEndpoint", summary="Create a webhook endpoint",
)  # fmt: skip
def webhook_create(request: HttpRequest, payload: WebhookEndpointIn) -> Status:
    """Register an endpoint (staff only). The answer holds its signing secret, once: keep it."""
    access_staff(user=request_user(request), action=MANAGE_WEBHOOKS)
    endpoint = webhook_endpoint_save(WebhookEndpoint(), _fields(request, payload))
    return Status(201, endpoint)


@webhooks_router.get(
    "/webhooks/{endpoint_id}", response={200: WebhookEndpointOut, 403: ErrorOut, 404: ErrorOut, **ERRORS},
    url_name="webhook_detail", operation_id="getWebhookEndpoint", summary="Get a webhook endpoint",
)  # fmt: skip
def webhook_detail(request: HttpRequest, endpoint_id: int) -> WebhookEndpoint:
    return _endpoint(request, endpoint_id, MANAGE_WEBHOOKS)


@webhooks_router.patch(
    "/webhooks/{endpoint_id}", response={200: WebhookEndpointOut, **WRITE_ERRORS}, url_name="webhook_update",
    operation_id="updateWebhookEndpoint", summary="Change a webhook endpoint",
)  # fmt: skip
def webhook_update(request: HttpRequest, endpoint_id: int, payload: WebhookEndpointPatch) -> WebhookEndpoint:
    """Change the fields sent (staff only); the secret stays as it is."""
    endpoint = _endpoint(request, endpoint_id, MANAGE_WEBHOOKS)
    webhook_endpoint_save(endpoint, _fields(request, payload))
    return _endpoint(request, endpoint_id, MANAGE_WEBHOOKS)


@webhooks_router.delete(
    "/webhooks/{endpoint_id}", response={204: None, 403: ErrorOut, 404: ErrorOut, **ERRORS},
    url_name="webhook_delete", operation_id="deleteWebhookEndpoint", summary="Delete a webhook endpoint",
)  # fmt: skip
def webhook_delete(request: HttpRequest, endpoint_id: int) -> Status:
    """Delete an endpoint (staff only) with its delivery log; pending deliveries are not sent."""
    _endpoint(request, endpoint_id, MANAGE_WEBHOOKS).delete()
    return Status(204, None)
