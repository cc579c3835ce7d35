"""In Chromium: "Original PDF" of a PDF that carries JavaScript downloads the file and its script
never runs; a plain PDF still opens in the browser's viewer.

The control comes first: the same bytes served inline (by Playwright, not by the library) do run
their script in this Chromium, an `app.alert` dialog, and so would they under
`Content-Security-Policy: sandbox` (documents/pdf_scripts.py), which is why the library serves
them as a download rather than relying on that header.
"""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.citations.test_browser import browser, login  # noqa: F401  (the fixture is used by name)
from tests.conftest import ingest_file_inline
from tests.documents import pdf_script_builders as build
from tests.factories import FolderFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUIET_SECONDS = 6.0  # how long a page must stay without a dialog (the control's comes within ~1 s)


def wait_for_events(page: Any, events: list[Any], seconds: float) -> list[Any]:
    """Lets Playwright deliver events for up to `seconds` (it only does so inside its own calls)."""
    deadline = time.monotonic() + seconds
    while not events and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    return events


def serve(body: bytes, headers: dict[str, str]) -> Any:
    """A route handler answering with `body` as a PDF, with `headers`."""
    return lambda route: route.fulfill(content_type="application/pdf", body=body, headers=headers)


def test_original_pdf_with_javascript_downloads_and_its_script_never_runs(
    live_server: Any, browser: Any, tmp_path: Path
) -> None:
    reader = UserFactory(username="pdf-scripts-reader")
    folder = FolderFactory(name="PDF scripts shelf", readers=[reader])
    js_data = build.open_action_js("The alerting manual describes the lease of every shard.")
    (tmp_path / "alerting.pdf").write_bytes(js_data)
    (tmp_path / "plain.pdf").write_bytes(build.plain_pdf())
    alerting = ingest_file_inline(tmp_path / "alerting.pdf", folder, title="Alerting manual")
    plain = ingest_file_inline(tmp_path / "plain.pdf", folder, title="Plain manual")
    assert alerting.status == plain.status == "indexed", (alerting.failure_reason, plain.failure_reason)
    base = live_server.url

    context = browser.new_context(accept_downloads=True)
    page = login(context, base, "/login/?next=/", "pdf-scripts-reader")
    dialogs: list[str] = []
    downloads: list[Any] = []

    def dialog_seen(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    def watch(target: Any) -> None:
        target.on("dialog", dialog_seen)
        target.on("download", lambda download: downloads.append(download))

    watch(page)
    context.on("page", watch)  # a new tab or window would be watched as well

    # Control: served inline, the very same bytes run their script in this browser, and a
    # sandboxing policy on the response does not stop the PDF viewer from running it.
    for name, headers in (("inline", {}), ("sandboxed", {"Content-Security-Policy": "sandbox"})):
        control = f"{base}/control/{name}.pdf"
        page.route(control, serve(js_data, headers))
        page.goto(control)
        assert wait_for_events(page, dialogs, 60) == ["script in the PDF ran"], (
            f"served {name}, the PDF's script did not run in this Chromium: the reasoning of "
            "documents/pdf_scripts.py, and the check below, need another look"
        )
        dialogs.clear()

    # The library: "Original PDF" downloads the file; no dialog, here or in another tab.
    page.goto(f"{base}/documents/{alerting.pk}/view")
    with page.expect_download(timeout=30_000) as caught:
        page.click("#file-link")
    download = caught.value
    assert download.suggested_filename == alerting.original_name
    assert Path(download.path()).read_bytes() == js_data
    assert wait_for_events(page, dialogs, QUIET_SECONDS) == []
    assert [p.url for p in context.pages] == [page.url]
    assert page.url == f"{base}/documents/{alerting.pk}/view"  # the reader stays on the viewer
    downloads.clear()

    # A plain PDF opens in the browser's PDF viewer, as before.
    page.goto(f"{base}/documents/{plain.pk}/view")
    page.click("#file-link")
    page.wait_for_url(f"{base}/documents/{plain.pk}/file*")
    assert wait_for_events(page, downloads, 3.0) == []
    assert dialogs == []
    context.close()
