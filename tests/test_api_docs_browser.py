"""/api/docs in Debian's Chromium: Swagger UI loads from this server alone (no CDN), parses the
served schema without an error banner, and lists every operation of the schema.

A screenshot lands in test-artifacts/ (git-ignored).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.citations.test_browser import ARTIFACTS, browser  # noqa: F401  (the fixture is used by name)

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
# Swagger UI shows a failed fetch or parse of the schema ("Parser error: duplicated mapping
# key", "Failed to load API definition") in these.
ERROR_BANNERS = ".swagger-ui .errors-wrapper, .swagger-ui .loading-container .errors"
# Every operation rendered, as (method, path): the method's label and the path's data-path.
RENDERED_OPERATIONS = """() => [...document.querySelectorAll('.swagger-ui .opblock')].map((block) => [
  block.querySelector('.opblock-summary-method').textContent.trim().toLowerCase(),
  block.querySelector('.opblock-summary-path').getAttribute('data-path'),
])"""


def schema_operations(client: Any) -> set[tuple[str, str]]:
    schema = json.loads(client.get("/api/openapi.json").content)
    return {
        (method, path)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in HTTP_METHODS
    }


def test_api_docs_render_every_operation_without_error(live_server: Any, browser: Any, client: Any) -> None:  # noqa: F811
    expected = schema_operations(client)
    assert len(expected) >= 10, expected
    requests: list[str] = []
    problems: list[str] = []
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(60_000)
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))

    def console(message: Any) -> None:  # a CSP violation or a failed fetch is logged as an error
        if message.type == "error":
            problems.append(f"console: {message.text}")

    page.on("console", console)

    response = page.goto(f"{live_server.url}/api/docs")
    assert response is not None
    assert response.status == 200
    page.wait_for_selector(f".swagger-ui .opblock, {ERROR_BANNERS}")
    page.wait_for_load_state("networkidle")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "api-docs.png"), full_page=True)

    banners = page.locator(ERROR_BANNERS)
    assert banners.count() == 0, banners.all_inner_texts()
    assert "Parser error" not in page.inner_text("body")
    assert problems == []
    rendered = [tuple(operation) for operation in page.evaluate(RENDERED_OPERATIONS)]
    assert sorted(rendered) == sorted(expected)  # each once, none missing, none extra
    # Everything Swagger UI needs (script, styles, schema, favicon) comes from this server.
    origin = urlsplit(live_server.url).netloc
    fetched = [url for url in requests if urlsplit(url).scheme in ("http", "https")]
    assert {urlsplit(url).netloc for url in fetched} == {origin}, fetched
    assert any(urlsplit(url).path == "/api/openapi.json" for url in fetched), fetched
