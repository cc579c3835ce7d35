"""In Chromium, under the Content-Security-Policy (ragsite/csp.py): the search page, the viewer,
the page view, the admin and the API's Swagger UI load and work with no violation reported,
neither as a `securitypolicyviolation` event nor in the console."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.citations.test_browser import browser, login  # noqa: F401  (the fixture is used by name)
from tests.citations.test_viewer import build_pdf
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory, StaffFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Runs before any script of each page: records every violation the page reports.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${where}`);
});
"""


class Watch:
    """The page's CSP violations and the console's CSP complaints, across navigations."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console: list[str] = []
        page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(message.text)

    def violations(self) -> list[str]:
        return list(self.page.evaluate("() => window.__violations")) + self.console

    def goto(self, url: str) -> Any:
        response = self.page.goto(url)
        assert response is not None, url
        assert response.status == 200, url
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy, (url, policy)
        assert "style-src 'self' 'nonce-" in policy, (url, policy)
        return response


def test_pages_admin_and_api_docs_run_under_the_policy(live_server: Any, browser: Any, tmp_path: Path) -> None:
    reader = UserFactory(username="csp-browser-reader")
    StaffFactory(username="csp-browser-staff")
    folder = FolderFactory(name="CSP browser shelf", readers=[reader])
    pdf = ingest_file_inline(build_pdf(tmp_path / "engine.pdf"), folder, title="Engine manual")
    assert pdf.status == "indexed", pdf.failure_reason
    base = live_server.url

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = login(context, base, "/login/?next=/", "csp-browser-reader")
    watch = Watch(page)

    # The search page: its script runs (the button says "Searching…"), and the answer links work.
    watch.goto(f"{base}/")
    page.fill("#id_q", "How often does the quartermaster protocol renew its lease?")
    page.press("#id_q", "Enter")
    page.wait_for_selector("#answer-text")
    assert page.locator(".citation").count() >= 1, page.inner_text("#answer")
    assert watch.violations() == [], "search page"

    # The viewer: viewer.js highlights the passage, so scripts from our own files run.
    start = pdf.canonical_text.index("quartermaster")
    watch.goto(f"{base}/documents/{pdf.pk}/view#char={start},{start + 13}")
    page.wait_for_selector("mark#highlight")
    assert page.inner_text("mark#highlight") == "quartermaster"
    assert watch.violations() == [], "viewer"

    # The page view: its nonced <style> block applies (the image keeps the page's proportions and
    # the anchor sits on the highlight), where style="" attributes would have been refused.
    watch.goto(f"{base}/documents/{pdf.pk}/pages/1?char={start},{start + 40}#passage")
    page.wait_for_function("() => document.querySelector('.page-image')?.naturalWidth > 0")
    styles = page.evaluate(
        "() => ({ratio: getComputedStyle(document.querySelector('.page-image')).aspectRatio,"
        " top: getComputedStyle(document.getElementById('passage')).top,"
        " frame: document.querySelector('.page-frame').getBoundingClientRect().height})"
    )
    assert styles["ratio"] == "612 / 792", styles
    assert styles["top"].endswith("px"), styles  # set by the block ("auto" without it)
    assert float(styles["top"].removesuffix("px")) > 0, styles
    assert watch.violations() == [], "page view"
    context.close()

    staff = browser.new_context(viewport={"width": 1280, "height": 900})
    staff.add_init_script(RECORD_VIOLATIONS)
    page = login(staff, base, "/admin/login/?next=/admin/", "csp-browser-staff")
    watch = Watch(page)
    for path in (
        "/admin/",
        "/admin/documents/document/",
        "/admin/documents/document/upload/",
        f"/admin/documents/document/{pdf.pk}/change/",
        "/admin/documents/folder/add/",
        "/admin/auth/user/",
    ):
        watch.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")
        assert watch.violations() == [], path
    # The admin's own scripts run: the sidebar filter narrows the model list (on the folder list:
    # the document list leaves the sidebar out to give its columns room).
    watch.goto(f"{base}/admin/documents/folder/")
    page.fill("#nav-filter", "fold")
    page.wait_for_function("() => document.querySelectorAll('#nav-sidebar tr.current-app, #nav-sidebar tr').length > 0")
    assert page.locator("#nav-sidebar tr:visible").count() < page.locator("#nav-sidebar tr").count()
    assert watch.violations() == [], "admin sidebar filter"

    # Swagger UI renders the schema and expands an operation.
    watch.goto(f"{base}/api/docs")
    page.wait_for_selector(".swagger-ui .opblock")
    assert "Failed to load API definition" not in page.content()
    page.click(".swagger-ui .opblock-summary >> nth=0")
    page.wait_for_selector(".swagger-ui .opblock-body")
    assert watch.violations() == [], "api docs"
    staff.close()
