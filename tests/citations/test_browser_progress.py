"""In Chromium: staff upload a six-page scan through the admin; a real Celery worker OCRs it while
the document list, never reloaded, shows its progress bar advance page by page and finally
"Indexed" (issue 28.1); the upload page (following its batch) and the document's page, open in
other tabs, reach "Indexed" without reload too; no Content-Security-Policy violation."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.citations.test_browser import ARTIFACTS, browser, login  # noqa: F401  (the fixture is used by name)
from tests.citations.test_browser_csp import RECORD_VIOLATIONS
from tests.corpus import require_corpus
from tests.documents.scan_builders import scanned_pdf
from tests.documents.test_ocr import RAFT
from tests.factories import FolderFactory, StaffFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.worker]

PAGES = 6
# What the page shows of the document, read in the page itself: no request of the test's own.
READ_CELL = """(id) => {
  const cell = document.querySelector(`.doc-progress[data-document="${id}"]`);
  if (!cell) return null;
  const bar = cell.querySelector('progress');
  const row = cell.closest('tr');
  const column = row && row.querySelector('span.status');
  return {
    status: cell.querySelector('.doc-progress-status').textContent.trim(),
    column: column ? column.textContent.trim() : null,
    value: bar.hasAttribute('value') ? Number(bar.value) : null,
    text: cell.querySelector('.doc-progress-text').textContent.trim(),
    eta: cell.querySelector('.doc-progress-eta').textContent.trim(),
    sameDocument: window.__sameDocument === true,
  };
}"""


def watch(page: Any, document_id: int, *, until: str, timeout: float) -> list[dict[str, Any]]:
    """What the cell of `document_id` showed, every 0.2 s, until its status word is `until`
    (with a screenshot of the page the first time it showed a count)."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = page.evaluate(READ_CELL, document_id)
        if shown and (not seen or shown != seen[-1]):
            if shown["value"] and not any(s["value"] for s in seen):
                page.screenshot(path=str(ARTIFACTS / "progress-reading.png"), full_page=True)
            seen.append(shown)
        if shown and shown["status"] == until:
            return seen
        time.sleep(0.2)
    raise AssertionError(f"the page never showed {until!r}; it showed {seen}")


def test_a_scan_progress_advances_on_the_list_without_reload(
    live_server: Any, celery_worker_process: Any, browser: Any, tmp_path: Path
) -> None:
    from documents.models import Document

    require_corpus()
    ARTIFACTS.mkdir(exist_ok=True)
    scan = tmp_path / "raft-scan-6.pdf"
    scan.write_bytes(scanned_pdf(RAFT, list(range(PAGES))))
    StaffFactory(username="progress-staff")
    folder = FolderFactory(name="Scanned papers")
    base = live_server.url

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = login(context, base, "/admin/login/?next=/admin/documents/document/upload/", "progress-staff")
    page.select_option("#id_folder", str(folder.pk))
    page.set_input_files("#id_files", str(scan))
    page.click("#upload-form [type=submit]")
    page.wait_for_selector("#batch-progress .doc-progress")
    document = Document.objects.get(folder=folder)
    # The upload page follows its batch (left open in its tab), as does the document's own page.
    upload_page = page
    upload_page.evaluate("() => { window.__sameDocument = true; }")
    document_page = context.new_page()
    document_page.goto(f"{base}/admin/documents/document/{document.pk}/change/")
    document_page.evaluate("() => { window.__sameDocument = true; }")

    page = context.new_page()
    page.goto(f"{base}/admin/documents/document/?folder__id__exact={folder.pk}")
    page.evaluate("() => { window.__sameDocument = true; }")  # gone if the page reloads
    seen = watch(page, document.pk, until="Indexed", timeout=600)
    page.screenshot(path=str(ARTIFACTS / "progress-indexed.png"), full_page=True)
    for other in (upload_page, document_page):
        other.wait_for_function(
            "(id) => document.querySelector(`.doc-progress[data-document='${id}'] .doc-progress-status`)"
            ".textContent.trim() === 'Indexed'",
            arg=document.pk,
            timeout=30_000,
        )
        assert other.evaluate("() => window.__sameDocument") is True
    summary = upload_page.inner_text("[data-batch-summary]")
    assert summary == "1 of 1 indexed. All done.", summary
    upload_page.screenshot(path=str(ARTIFACTS / "progress-upload-batch.png"), full_page=True)

    document.refresh_from_db()
    assert document.status == "indexed", f"{document.failure_reason}\n{celery_worker_process.log()[-3000:]}"
    assert all(s["sameDocument"] for s in seen), "the list was reloaded"
    reading = [s for s in seen if s["text"].startswith("Reading pages") and s["value"] is not None]
    values = [s["value"] for s in reading]
    assert len(set(values)) >= 2, f"the bar did not move while the pages were read: {seen}"
    assert values == sorted(values), values  # it only moves forward within a stage
    assert all(f" of {PAGES}" in s["text"] for s in reading)
    final = seen[-1]
    assert final["column"] == "Indexed"  # the row's own status column follows too
    assert final["text"] == "Reload the page to see its pages and chunks."  # drawn before it finished
    for shown in (page, upload_page, document_page):
        assert shown.evaluate("() => window.__violations") == []
    context.close()
