"""A document's progress through a processing stage: what the pipeline reports, and the estimate.

The pipeline (extraction, context writing, embedding) reports through a plain callable,
`report(stage, done, total)`, so those modules know nothing of the database. `ProgressThrottle`
is that callable for a run: it passes a report on to its writer at most once per `interval`
seconds, always the first report of a stage (so the stage and its start time are recorded at
once), the first that names the stage's total (a PDF's page count, known once it is open), and
the last one before the next stage or the end (`flush`), so a stage's final count is never lost
to the throttle. `progress_of` turns the stored fields into what the API and the
admin show, with an estimate of the time left once the stage's rate is known well enough.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

# The stages a run reports, in order; each belongs to one status (documents/services/progress.py).
READING = "reading"  # PDF pages read (OCR'd where scanned), of the page count; other formats: no count
LAYOUT = "layout"  # PDF pages laid out into paragraphs and sections, of the page count
CHUNKING = "chunking"  # no count: the chunker is one call
CONTEXTS = "contexts"  # model-written chunk contexts, of the chunks (CONTEXT_WRITER=openai only)
EMBEDDING = "embedding"  # chunks with a vector (reused or embedded), of the chunks
STORING = "storing"  # no count: one transaction

STAGE_LABELS = {
    READING: "Reading pages",
    LAYOUT: "Laying out pages",
    CHUNKING: "Chunking",
    CONTEXTS: "Writing contexts",
    EMBEDDING: "Embedding chunks",
    STORING: "Storing",
}

# At most one write per this many seconds per document, besides a stage's first and last.
WRITE_INTERVAL_SECONDS = 0.5
# An estimate needs this much of a stage behind it: a rate taken from one page or a fraction of a
# second (the first page of a scan also pays for loading Tesseract) says little about the rest.
ESTIMATE_MIN_DONE = 2
ESTIMATE_MIN_SECONDS = 2.0

ProgressReport = Callable[[str, int, int | None], None]  # (stage, done, total or None)


class RunSuperseded(BaseException):
    """A report found its run's document gone or taken from it (deleted, re-queued, run by another
    message): the run stops where it reported, between pages or batches, and frees its worker.
    A BaseException, like the time limit's, so that no extractor's `except Exception` swallows it."""


class ProgressWriter(Protocol):
    def __call__(self, stage: str, done: int, total: int | None, *, started: bool) -> None: ...


def no_progress(stage: str, done: int, total: int | None) -> None:
    """The report of a caller that watches nothing (tests, benchmarks, the evaluation)."""


class ProgressThrottle:
    """A `ProgressReport` that passes reports on to `write`, at most one per `interval` seconds."""

    def __init__(
        self,
        write: ProgressWriter,
        *,
        interval: float = WRITE_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._interval = interval
        self._clock = clock
        self._stage = ""
        self._pending: tuple[int, int | None] | None = None  # reported, not yet written
        self._written_at = 0.0
        self._written_total: int | None = None

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        if stage != self._stage:
            self.flush()  # the stage that ends keeps its last count
            self._stage = stage
            self._emit(done, total, started=True)
            return
        self._pending = (done, total)
        if total != self._written_total or self._clock() - self._written_at >= self._interval:
            self.flush()

    def flush(self) -> None:
        """Write the last report if the throttle held it back (at a stage's end, or the run's)."""
        if self._pending is not None:
            self._emit(*self._pending, started=False)

    def _emit(self, done: int, total: int | None, *, started: bool) -> None:
        self._pending = None
        self._written_at = self._clock()
        self._written_total = total
        self._write(self._stage, done, total, started=started)


@dataclass(frozen=True)
class Progress:
    """What staff and integrations see of a processing document's stage."""

    stage: str
    label: str
    done: int
    total: int | None
    percent: int | None
    eta_seconds: int | None
    updated_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "label": self.label,
            "done": self.done,
            "total": self.total,
            "percent": self.percent,
            "eta_seconds": self.eta_seconds,
            "eta": eta_text(self.eta_seconds),
            "updated_at": self.updated_at.isoformat() if self.updated_at else None,
        }


def eta_seconds(
    done: int, total: int | None, started_at: datetime | None, updated_at: datetime | None, now: datetime
) -> int | None:
    """Seconds left in the stage at its rate so far (done / elapsed), or None without enough signal.

    The rate is measured up to the last write; the time since then is taken off what was left.
    """
    if total is None or started_at is None or updated_at is None or not ESTIMATE_MIN_DONE <= done < total:
        return None
    elapsed = (updated_at - started_at).total_seconds()
    if elapsed < ESTIMATE_MIN_SECONDS:
        return None
    left = (total - done) * elapsed / done - (now - updated_at).total_seconds()
    return max(1, round(left))


def eta_text(seconds: int | None) -> str:
    """ "about 40 s left", "about 3 min left"; empty without an estimate."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"about {max(5, round(seconds / 5) * 5)} s left"
    minutes = round(seconds / 60)
    return f"about {minutes} min left" if minutes < 120 else f"about {round(seconds / 3600)} h left"


def progress_of(document: Any, processing: bool, now: datetime) -> Progress | None:
    """The progress stored on `document` (a Document), or None when it is not processing or
    its run has reported nothing yet. `processing` says whether its status is a processing one."""
    stage = document.progress_stage
    if not processing or not stage:
        return None
    done, total = document.progress_done, document.progress_total
    percent = min(100, done * 100 // total) if total else None
    return Progress(
        stage=stage,
        label=STAGE_LABELS.get(stage, stage.capitalize()),
        done=done,
        total=total,
        percent=percent,
        eta_seconds=eta_seconds(done, total, document.progress_started_at, document.progress_updated_at, now),
        updated_at=document.progress_updated_at,
    )
