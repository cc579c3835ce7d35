"""schemathesis over every operation against a library with content: generated requests whose ids
name a real folder, an indexed document and a logged answer, so the responses checked are full
ones (passages, facets, grouped documents, document details, feedback), not only the 404s and
refusals an empty library gives (tests/test_api_errors.py keeps that run). Every response must
have a documented status and content type and match its declared schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from citations.models import Endpoint, QuestionLog
from documents.models import Tag, WebhookEndpoint
from documents.services.tokens import token_create
from tests.conftest import ingest_text
from tests.factories import FolderFactory, StaffFactory
from tests.generated_client import CHECKS

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

API_SCHEMA = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())

RUNBOOK = (
    "Restarting the ingest queue. When the queue stalls for more than ten minutes, the operator "
    "restarts the worker with systemctl restart library-worker. Since March 2021 the worker keeps "
    "its progress, so a restart loses nothing. The compaction window is two hours by default."
)


@pytest.fixture
def library(db: None, memoised_pipeline: None, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A staff token, a folder with an indexed document, and an answer the staff user asked.
    Requests go through plain WSGI: Django must not close the test transaction's connection
    at the end of each request (as its test client arranges)."""
    staff = StaffFactory(username="contract-staff")
    _, token = token_create(user=staff, name="contract")
    folder = FolderFactory(name="Contract shelf")
    document = ingest_text(tmp_path, folder, "Queue runbook", RUNBOOK)
    answer = QuestionLog.objects.create(user=staff, endpoint=Endpoint.API_ANSWER, question="How to restart?")
    tag = Tag.objects.create(name="Runbooks")
    document.tags.add(tag)
    endpoint = WebhookEndpoint.objects.create(
        url="https://hooks.example/in", events=["document.indexed"], all_folders=True
    )
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield {
        "token": token,
        "ids": {
            "folder_id": folder.pk,
            "document_id": document.pk,
            "answer_id": answer.pk,
            "tag_id": tag.pk,
            "endpoint_id": endpoint.pk,
        },
        "query": {"folder": folder.pk, "document": document.pk},
    }
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@API_SCHEMA.parametrize()
@hypothesis_settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_every_operation_keeps_its_contract_over_a_library(case: Any, library: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    for name in case.path_parameters or {}:
        case.path_parameters[name] = library["ids"].get(name, case.path_parameters[name])
    # Ids in the query point at the library too, unless the example sent a value of another type.
    for name, value in library["query"].items():
        if isinstance((case.query or {}).get(name), int):
            case.query[name] = value
    case.call_and_validate(headers={"Authorization": f"Bearer {library['token']}"}, checks=CHECKS)
