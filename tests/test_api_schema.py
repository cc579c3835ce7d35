"""The served /api/openapi.json is one that strict clients accept: no key twice in any object
(Python's `json` silently keeps the last of two, Swagger UI's YAML parser refuses the document),
and a valid OpenAPI document by `openapi-spec-validator`. The Chromium side is in
tests/test_api_docs_browser.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db


class DuplicateKey(ValueError):
    pass


def reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An `object_pairs_hook`: json calls it for every object, at every depth."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(f"duplicated key {key!r} in an object with keys {[k for k, _ in pairs]}")
        seen[key] = value
    return seen


def served_schema(client: Any) -> dict[str, Any]:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    schema: dict[str, Any] = json.loads(response.content, object_pairs_hook=reject_duplicates)
    return schema


def test_the_hook_rejects_a_duplicate_at_any_depth() -> None:
    assert json.loads('{"a": {"b": [{"c": 1}]}}', object_pairs_hook=reject_duplicates) == {"a": {"b": [{"c": 1}]}}
    with pytest.raises(DuplicateKey, match="'401'"):
        json.loads(
            '{"paths": {"/x": {"get": {"responses": {"401": {}, "401": {}}}}}}', object_pairs_hook=reject_duplicates
        )


def test_schema_has_no_duplicated_key(client: Any) -> None:
    schema = served_schema(client)
    # Each status once, with the errors the API documents beside ninja's own responses.
    search = schema["paths"]["/api/search"]["get"]["responses"]
    assert {"200", "401", "404", "422", "429"} <= set(search)
    assert search["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut")


def test_schema_passes_openapi_spec_validator(client: Any) -> None:
    validate(served_schema(client))
