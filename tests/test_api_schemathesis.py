"""Issue 6.5: schemathesis against /api/openapi.json — no 5xx, responses conform to the schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from schemathesis import checks
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings

from documents.services.tokens import token_create
from tests.factories import FolderFactory, StaffFactory

# The bar: no server error and responses that match the schema (status, type, body,
# headers). Positive/negative data acceptance are stricter than the API claims (for instance a
# blank folder name is valid JSON for the schema but refused with a 422), so they are not run.
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
]
MAX_EXAMPLES = 12  # bounded: a few per operation keeps the suite fast while still fuzzing


@pytest.fixture
def api_schema(db: None, settings: Any) -> Iterator[Any]:
    settings.API_RATE_LIMIT_PER_MINUTE = 1_000_000
    from ragsite.wsgi import application

    # Like Django's test client: keep the test's connection (and its transaction) across requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/openapi.json", application)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def staff_token(db: None) -> str:
    FolderFactory(name="Fuzz target", is_public=True)
    _, raw = token_create(user=StaffFactory(username="fuzzer"), name="schemathesis")
    return raw


def test_api_never_fails_and_conforms(api_schema: Any, staff_token: str) -> None:
    # Operations are driven one by one with Hypothesis (schemathesis' own pytest plugin does not
    # support this pytest version); every operation gets MAX_EXAMPLES generated cases.
    headers = {"Authorization": f"Bearer {staff_token}"}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 8, [op.label for op in operations]
    failures: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case: Any) -> None:
            response = case.call_and_validate(headers=headers, checks=CHECKS)
            assert response.status_code < 500

        try:
            check()
        except Exception as exc:  # collect every operation's failure, then report them together
            failures.append(f"{operation.label}: {exc}")
    assert not failures, "\n\n".join(failures)
