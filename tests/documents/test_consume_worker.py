"""The consume folder served by a real Celery worker: twenty files dropped at once, two runs of the
task and one of this process racing over them, while the worker also indexes an API upload."""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from documents.consume_tasks import consume_folder_task
from documents.models import Document, DocumentStatus, Folder
from documents.services.consume import FAILED_DIR, PROCESSING_DIR, ConsumeReport, consume_folder
from tests.conftest import bearer, wait_for
from tests.documents.test_consume import small_pdf
from tests.factories import FolderFactory, StaffFactory

pytestmark = [pytest.mark.worker, pytest.mark.slow]


@pytest.fixture
def consume_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("consume")


@pytest.fixture
def worker_env(consume_root: Path) -> dict[str, str]:
    return {"CONSUME_DIR": str(consume_root), "CONSUME_FOLDER": "Inbox", "CONSUME_STABLE_SECONDS": "0"}


def _drop(root: Path) -> dict[str, bytes]:
    """Twenty files: seventeen good ones (Markdown, text, PDFs; some in a sub-directory), two broken,
    one the same bytes as another of its folder."""
    files: dict[str, bytes] = {}
    for number in range(12):
        files[f"note-{number:02}.md"] = (
            f"# Harbour note {number}\n\nBerth {number} takes boats of {number + 3} metres.\n".encode()
        )
    for number in range(3):
        files[f"Reports/report-{number}.txt"] = f"Report {number}: the tide rose {number + 1} metres.".encode()
    for number in range(2):
        files[f"Reports/chart-{number}.pdf"] = small_pdf(f"Chart {number} of the harbour entrance.")
    files["broken.pdf"] = b"plain words, no PDF header at all"
    files["empty.md"] = b""
    files["note-05 copy.md"] = files["note-05.md"]  # a duplicate of a file in the same folder
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    assert len(files) == 20
    return files


def _run_results(log: str, runs: list[Any]) -> list[dict[str, int]] | None:
    found = []
    for run in runs:
        match = re.search(rf"consume_folder\[{run.id}\] succeeded in [\d.]+s: (\{{.*?\}})", log)
        if match is None:
            return None
        found.append(ast.literal_eval(match.group(1)))
    return found


def test_twenty_files_dropped_at_once_are_all_accounted_for(
    celery_worker_process: Any, client: Any, consume_root: Path, settings: Any
) -> None:
    settings.CONSUME_DIR, settings.CONSUME_FOLDER, settings.CONSUME_STABLE_SECONDS = str(consume_root), "Inbox", 0.0
    dropped = _drop(consume_root)
    staff = StaffFactory(username="librarian")
    uploads = FolderFactory(name="Uploads")

    # Two beat ticks queued at once, and a third run here, all over the same files.
    runs = [consume_folder_task.delay(), consume_folder_task.delay()]
    here: list[ConsumeReport] = []

    def race() -> None:
        try:
            here.append(consume_folder())
        finally:
            connection.close()  # this thread's own connection

    racer = threading.Thread(target=race)
    # The run here starts once the worker's first run has claimed a file, to race it for the rest.
    wait_for(lambda: (consume_root / PROCESSING_DIR).exists(), timeout=120, interval=0.01, what="the worker's run")
    racer.start()
    # Meanwhile someone uploads through the API; the same worker indexes it.
    response = client.post(
        "/api/documents",
        {
            "file": SimpleUploadedFile("manual.md", b"# Crane manual\n\nThe crane lifts 40 tonnes.\n"),
            "folder": uploads.pk,
        },
        **bearer(staff),
    )
    assert response.status_code == 202, response.content
    racer.join(timeout=120)
    # No result backend: the worker's log says what each run returned.
    results = wait_for(lambda: _run_results(celery_worker_process.log(), runs), timeout=180, what="both runs to end")

    stored = sum(r["stored"] for r in results) + len(here[0].stored)
    refused = sum(r["refused"] for r in results) + len(here[0].refused)
    assert (stored, refused) == (17, 3), (results, here)  # each file taken by exactly one run

    # Everything left the consume folder except what was refused, each with its reason.
    left = sorted(p.relative_to(consume_root).as_posix() for p in consume_root.rglob("*") if p.is_file())
    failed = [name for name in left if not name.endswith(".reason.txt")]
    assert left == sorted([*failed, *(f"{name}.reason.txt" for name in failed)])
    assert all(name.startswith(f"{FAILED_DIR}/") for name in left)
    duplicate = next(n for n in ("note-05.md", "note-05 copy.md") if f"{FAILED_DIR}/{n}" in failed)
    assert sorted(failed) == sorted(f"{FAILED_DIR}/{n}" for n in ("broken.pdf", "empty.md", duplicate))
    reason = (consume_root / FAILED_DIR / f"{duplicate}.reason.txt").read_text()
    assert "The same file is already in folder 'Inbox' as document" in reason

    # The seventeen and the API's upload are indexed, each once, in the folders their places name.
    consumed = Document.objects.exclude(folder=uploads)
    wait_for(
        lambda: Document.objects.filter(status=DocumentStatus.INDEXED).count() == 18,
        timeout=240,
        what=lambda: list(Document.objects.values_list("original_name", "status", "failure_reason")),
    )
    names = sorted(consumed.values_list("original_name", flat=True))
    expected = sorted({Path(name).name for name in dropped} - {"broken.pdf", "empty.md", duplicate})
    assert names == expected
    reports = Folder.objects.get(name="Reports", parent=None)
    assert consumed.filter(folder=reports).count() == 5
    assert Document.objects.get(folder=uploads).original_name == "manual.md"
