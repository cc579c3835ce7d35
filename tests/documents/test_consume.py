"""The consume folder (documents/services/consume.py) on a real directory: where files go, what
waits, what is refused and why, and that a file is taken once however many runs look at it."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from documents.models import Document, Folder
from documents.services.consume import FAILED_DIR, PROCESSING_DIR, _claim, consume_folder
from tests.factories import FolderFactory


def small_pdf(text: str) -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text, fontsize=11)
    return doc.tobytes()


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# Documents stored before the test (the whole suite's session fixtures keep theirs): left out.
EARLIER: set[int] = set()


def _consumed() -> Any:
    """The documents this test's consume runs stored."""
    return Document.objects.exclude(pk__in=EARLIER)


@pytest.fixture
def consume_dir(tmp_path: Path, settings: Any, db: None) -> Path:
    EARLIER.clear()
    EARLIER.update(Document.objects.values_list("pk", flat=True))
    root = tmp_path / "consume"
    root.mkdir()
    settings.CONSUME_DIR = str(root)
    settings.CONSUME_FOLDER = "Scans/Incoming"
    settings.CONSUME_STABLE_SECONDS = 0.0
    return root


def test_files_go_to_the_folder_their_place_names_and_leave_the_consume_folder(consume_dir: Path, db: None) -> None:
    (consume_dir / "tide-tables.md").write_text("# Tide tables\n\nHigh water is at noon.\n")
    (consume_dir / "Papers" / "Systems").mkdir(parents=True)
    (consume_dir / "Papers" / "Systems" / "engine.pdf").write_bytes(small_pdf("The engine computes tables."))
    existing = FolderFactory(name="Papers")

    report = consume_folder()

    assert sorted(name for name, _ in report.stored) == ["Papers/Systems/engine.pdf", "tide-tables.md"]
    assert report.refused == []
    assert _files(consume_dir) == []
    inbox = _consumed().get(original_name="tide-tables.md")
    assert inbox.folder.path == "Scans / Incoming"  # CONSUME_FOLDER, created
    engine = _consumed().get(original_name="engine.pdf")
    assert (engine.folder.parent_id, engine.folder.name) == (
        existing.pk,
        "Systems",
    )  # the existing folder, then a new one
    assert not engine.folder.is_public  # created private: staff grant readers


def test_refused_files_move_to_failed_with_the_reason_an_upload_gives(consume_dir: Path, db: None) -> None:
    (consume_dir / "empty.txt").write_bytes(b"")
    (consume_dir / "not-a-pdf.pdf").write_bytes(b"this is plain text wearing a .pdf name")
    (consume_dir / "notes.txt").write_text("Boats keep to the right.")
    (consume_dir / "notes again.txt").write_text("Boats keep to the right.")  # the same bytes: a duplicate

    report = consume_folder()

    stored = _consumed().get()
    assert [name for name, _ in report.stored] == [stored.original_name]
    duplicate = "notes.txt" if stored.original_name == "notes again.txt" else "notes again.txt"
    assert _files(consume_dir) == sorted(
        f"{FAILED_DIR}/{name}{suffix}"
        for name in ("empty.txt", "not-a-pdf.pdf", duplicate)
        for suffix in ("", ".reason.txt")
    )
    reasons = {
        name: (consume_dir / FAILED_DIR / f"{name}.reason.txt").read_text()
        for name in ("empty.txt", "not-a-pdf.pdf", duplicate)
    }
    assert "is empty (0 bytes)" in reasons["empty.txt"]
    assert "PDF" in reasons["not-a-pdf.pdf"]
    assert f"as document {stored.pk}" in reasons[duplicate]
    assert "it was not stored again" in reasons[duplicate]
    assert dict(report.refused) == {name: text.strip() for name, text in reasons.items()}
    # A second refusal of the same name keeps the first one beside it.
    (consume_dir / "empty.txt").write_bytes(b"")
    consume_folder()
    assert (consume_dir / FAILED_DIR / "empty (2).txt.reason.txt").is_file()


def test_links_are_not_followed_out_of_the_consume_folder(consume_dir: Path, db: None, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("Not for the library.")
    (consume_dir / "link.txt").symlink_to(secret)
    assert consume_folder().stored == []
    assert not _consumed().exists()
    assert (consume_dir / "link.txt").is_symlink()  # left for the operator


def test_a_file_still_being_written_waits_until_it_has_been_left_alone(
    consume_dir: Path, db: None, settings: Any
) -> None:
    settings.CONSUME_STABLE_SECONDS = 1.5
    scan = consume_dir / "scan.txt"
    with scan.open("w") as writer:
        writer.write("First half of the page, ")
        writer.flush()
        assert consume_folder().waiting == 1
        assert _files(consume_dir) == ["scan.txt"]  # not taken half-written
        writer.write("and the second half.")
    # A copy that keeps its source's old mtime still waits: its inode's change time is new.
    os.utime(scan, (time.time() - 3600, time.time() - 3600))
    assert consume_folder().stored == []
    time.sleep(1.6)
    report = consume_folder()
    assert [name for name, _ in report.stored] == ["scan.txt"]
    assert _consumed().get().size == len("First half of the page, and the second half.")


def test_of_two_runs_claiming_one_file_only_one_gets_it(consume_dir: Path) -> None:
    from pathlib import PurePosixPath

    (consume_dir / "page.txt").write_text("One page.")
    first = _claim(consume_dir, PurePosixPath("page.txt"), 9)
    second = _claim(consume_dir, PurePosixPath("page.txt"), 9)
    assert first is not None
    assert second is None
    assert _files(consume_dir) == [first.path.relative_to(consume_dir).as_posix()]
    assert first.path.parts[-3] == PROCESSING_DIR


def test_a_claim_left_by_a_run_that_died_is_taken_again(consume_dir: Path, db: None, settings: Any) -> None:
    from pathlib import PurePosixPath

    (consume_dir / "Reports").mkdir()
    (consume_dir / "Reports" / "q3.txt").write_text("Quarterly figures.")
    claim = _claim(consume_dir, PurePosixPath("Reports/q3.txt"), len("Quarterly figures."))
    assert claim is not None  # and then its run died
    assert consume_folder().stored == []  # a fresh claim may still be at work
    settings.CONSUME_ABANDONED_SECONDS = 0.0
    report = consume_folder()
    assert [name for name, _ in report.stored] == ["Reports/q3.txt"]
    assert Folder.objects.get(pk=_consumed().get().folder_id).name == "Reports"
    assert _files(consume_dir) == []
