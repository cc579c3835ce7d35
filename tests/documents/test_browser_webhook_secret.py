"""In Chromium: staff add a webhook endpoint through the admin, copy the signing secret the page
shows them, and that secret verifies the endpoint's first delivery (the one a receiver sees)."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

import ipaddress
import re
import time
from typing import Any

import pytest

from documents.models import DocumentStatus, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint
from documents.services.status import document_transition
from documents.webhooks.delivery import delivery_attempt
from documents.webhooks.signing import signature_verify
from tests.citations.test_browser import browser, login  # noqa: F401  (the fixture is used by name)
from tests.documents.webhook_receiver import Receiver
from tests.factories import DocumentFactory, FolderFactory, StaffFactory

pytestmark = [pytest.mark.browser]


def test_the_secret_shown_at_creation_verifies_the_first_delivery(
    live_server: Any, browser: Any, settings: Any, receiver: Receiver, transactional_db: None
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = (ipaddress.ip_network("127.0.0.0/8"),)
    folder = FolderFactory(name="Contracts")
    StaffFactory(username="hook-staff")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = login(context, live_server.url, "/admin/login/?next=/admin/documents/webhookendpoint/add/", "hook-staff")
    assert "whsec_" not in page.content()  # the add form shows no secret it would not save
    page.fill("#id_name", "CRM")
    page.fill("#id_url", receiver.url("/hook"))
    page.check("input[name=events][value='document.indexed']")
    page.check("#id_all_folders")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist")
    shown = re.search(r"whsec_[A-Za-z0-9+/=]+", page.inner_text(".messagelist"))
    assert shown is not None, page.inner_text(".messagelist")
    context.close()

    endpoint = WebhookEndpoint.objects.get()
    document = DocumentFactory(folder=folder, status=DocumentStatus.EMBEDDING)
    document_transition(document.pk, to=DocumentStatus.INDEXED)
    delivery = delivery_attempt(WebhookDelivery.objects.get(endpoint=endpoint).pk)
    assert delivery is not None
    assert delivery.status == WebhookDeliveryStatus.DELIVERED, delivery.last_error
    (received,) = receiver.on("/hook")
    assert signature_verify(shown.group(0), received.headers, received.body, now=time.time())
