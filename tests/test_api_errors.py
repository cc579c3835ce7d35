"""Every response under /api/ is JSON with a usable `detail`; the schema lists every endpoint."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from documents.services.tokens import token_create
from ragsite import ratelimit
from tests.conftest import bearer
from tests.factories import StaffFactory, UserFactory

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    "/api/folders": {"get", "post"},
    "/api/folders/{folder_id}": {"get", "delete"},
    "/api/documents": {"get", "post"},
    "/api/documents/{document_id}": {"get", "delete"},
    "/api/documents/{document_id}/retry": {"post"},
    "/api/search": {"get"},
    "/api/answer": {"post"},
}


def test_openapi_schema_lists_the_endpoints(client: Any) -> None:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["info"]["title"] == "Document library API"
    for path, methods in ENDPOINTS.items():
        assert methods <= set(schema["paths"][path]), path
    assert schema["components"]["securitySchemes"]["BearerToken"] == {"type": "http", "scheme": "bearer"}
    search = schema["paths"]["/api/search"]["get"]
    assert {"200", "401", "404", "422", "429"} <= set(search["responses"])
    assert {} in search["security"]  # anonymous callers allowed
    assert "429" in schema["paths"]["/api/answer"]["post"]["responses"]
    upload = schema["paths"]["/api/documents"]["post"]
    assert {"202", "403", "404", "409", "413", "415", "422", "429"} <= set(upload["responses"])
    assert "429" not in schema["paths"]["/api/documents"]["get"]["responses"]  # listing is not limited
    assert "multipart/form-data" in upload["requestBody"]["content"]


def test_docs_page_loads(client: Any) -> None:
    response = client.get("/api/docs")
    assert response.status_code == 200
    assert b"openapi.json" in response.content


@pytest.mark.parametrize("path", ["/api/", "/api/nope", "/api/documents/1/nope", "/api/folders/", "/api/v2/search"])
def test_unknown_paths_are_json_404(client: Any, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert "/api/docs" in response.json()["detail"]


def test_wrong_method_is_json_405(client: Any) -> None:
    response = client.put("/api/documents")
    assert response.status_code == 405
    assert response["Content-Type"].startswith("application/json")
    assert set(response["Allow"].replace(" ", "").split(",")) == {"GET", "PATCH", "POST"}
    assert "PUT is not allowed" in response.json()["detail"]
    assert client.patch("/api/search").status_code == 405


@pytest.mark.parametrize("debug", [False, True])
def test_crash_is_json_500_without_stack_trace(
    client: Any, settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, debug: bool
) -> None:
    import documents.api

    settings.DEBUG = debug

    def explode(**kwargs: Any) -> Any:
        raise RuntimeError("secret internals at /srv/app")

    monkeypatch.setattr(documents.api, "documents_for_user", explode)
    response = client.get("/api/documents", **bearer(UserFactory()))
    assert response.status_code == 500
    body = response.content.decode()
    assert response.json()["detail"].startswith("The server failed")
    assert "secret" not in body
    assert "Traceback" not in body
    assert "secret internals" in caplog.text  # the operator still gets the details in the log


def test_validation_error_keeps_structured_errors(client: Any) -> None:
    body = client.get("/api/search?k=0").json()
    assert "query parameter 'q': Field required" in body["detail"]
    assert "query parameter 'k'" in body["detail"]
    assert {tuple(e["loc"]) for e in body["errors"]} >= {("query", "q"), ("query", "k")}


def test_answer_is_rate_limited(client: Any, settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 1
    headers = bearer(UserFactory())
    client.post("/api/answer", {"question": "What?"}, content_type="application/json", **headers)
    limited = client.post("/api/answer", {"question": "What?"}, content_type="application/json", **headers)
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) >= 1
    assert "per minute" in limited.json()["detail"]


def test_rate_limit_can_be_switched_off(client: Any, settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    for _ in range(5):
        assert client.get("/api/search", {"q": "x"}).status_code == 200


def test_fixed_window_counts_per_key_and_resets() -> None:
    start = 1_000_000 * 60.0 + 10  # 10 s into a window
    states = [ratelimit.hit("unit", "k1", limit=2, now=start + i) for i in range(3)]
    assert [s.remaining for s in states] == [1, 0, -1]
    assert states[-1].exceeded
    assert states[-1].reset_seconds == 48
    assert not ratelimit.hit("unit", "k2", limit=2, now=start).exceeded
    assert ratelimit.hit("unit", "k1", limit=2, now=start + 60).remaining == 1


# --- property-based: the API keeps its own published contract ---------------------------------

API_SCHEMA = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())
CONTRACT_CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def staff_token(db: None) -> Iterator[str]:
    """A staff token; requests go through plain WSGI, so keep Django from closing the test
    transaction's connection at the end of each request (as Django's test client does)."""
    _, raw = token_create(user=StaffFactory(username="schemathesis"), name="schemathesis")
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield raw
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@API_SCHEMA.parametrize()
@hypothesis_settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_keeps_its_contract(case: Any, staff_token: str, settings: Any) -> None:
    """No 5xx, only documented statuses and JSON bodies matching the schema, for generated input."""
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    case.call_and_validate(headers={"Authorization": f"Bearer {staff_token}"}, checks=CONTRACT_CHECKS)
