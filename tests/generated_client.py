"""A Python client generated from the served schema by openapi-python-client (a tool nobody here
wrote), and a schemathesis check of every response it receives.

Generation reads a schema file only (no network) and runs no post hooks (its default runs `ruff`
from PATH, whose version would change the output); any message the generator gives fails the
test, since each means an operation, a response or a model the client silently lacks.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import schemathesis
from schemathesis import Response
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

PACKAGE = "library_api_client"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def generate_client(schema: dict[str, Any], directory: Path) -> Path:
    """Write the client package for `schema` into `directory`/PACKAGE; return the package's path."""
    from openapi_python_client import generate
    from openapi_python_client.config import Config, ConfigFile, MetaType

    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "openapi.json"
    source.write_text(json.dumps(schema, indent=2))  # as served: key order shapes the models
    package = directory / PACKAGE
    config = Config.from_sources(
        ConfigFile(post_hooks=[], package_name_override=PACKAGE, project_name_override=PACKAGE),
        MetaType.NONE,
        source,
        "utf-8",
        overwrite=True,
        output_path=package,
    )
    problems = generate(config=config)
    assert not problems, "openapi-python-client: " + "; ".join(f"{p.header}: {p.detail}" for p in problems)
    return package


def package_files(package: Path) -> dict[str, str]:
    return {str(p.relative_to(package)): p.read_text() for p in sorted(package.rglob("*.py"))}


def operation_modules(schema: dict[str, Any]) -> set[str]:
    """The module the generator writes for each operation of `schema` (api/<tag>/<operation_id>.py)."""
    from openapi_python_client.strings import snake_case

    return {
        f"api/{snake_case(operation['tags'][0])}/{snake_case(operation['operationId'])}.py"
        for item in schema["paths"].values()
        for operation in item.values()
    }


@contextmanager
def imported(package: Path) -> Iterator[ModuleType]:
    """The generated package imported from its directory, forgotten again afterwards."""
    sys.path.insert(0, str(package.parent))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(package.parent))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


class Conformance:
    """An httpx response hook: every response is checked against the operation the schema
    declares for its method and path (documented status, content type, body schema, no 5xx).
    Failures are collected so that one run lists them all."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schemathesis.openapi.from_dict(schema)
        self.seen: set[str] = set()
        self.failures: list[str] = []

    def __call__(self, response: httpx.Response) -> None:
        response.read()
        request = response.request
        operation = self.schema.find_operation_by_path(request.method, request.url.path)
        if operation is None:
            self.failures.append(f"{request.method} {request.url.path}: no operation in the schema")
            return
        self.seen.add(operation.definition.raw["operationId"])
        case = operation.Case(path_parameters=path_parameters(operation.path, request.url.path))
        try:
            case.validate_response(as_schemathesis(response), checks=CHECKS)
        except (AssertionError, FailureGroup) as exc:
            self.failures.append(f"{request.method} {request.url} -> {response.status_code}: {exc}")


def path_parameters(template: str, path: str) -> dict[str, str]:
    """{"document_id": "7"} for "/api/documents/{document_id}" and "/api/documents/7"."""
    pairs = zip(template.split("/"), path.split("/"), strict=True)
    return {name[1:-1]: value for name, value in pairs if name.startswith("{") and name.endswith("}")}


def as_schemathesis(response: httpx.Response) -> Response:
    """schemathesis's own conversion reads the request's body, which a multipart upload streamed."""
    import requests

    request = requests.Request(method=response.request.method, url=str(response.request.url)).prepare()
    return Response(
        status_code=response.status_code,
        headers={key: [value] for key, value in response.headers.items()},
        content=response.content,
        request=request,
        elapsed=0.0,
        message=response.reason_phrase,
        encoding=response.encoding,
        http_version=response.http_version,
        verify=True,
    )
