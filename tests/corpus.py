"""Where the shared third-party corpus lives; tests that need it skip only when it is absent."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from evaluation.textnorm import normalise_for_match

CORPUS_DIR = Path(os.environ.get("CORPUS_DIR", Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"))
DEV_DIR = CORPUS_DIR / "dev"
HOLDOUT_DIR = CORPUS_DIR / "holdout"
QUESTIONS_FILE = CORPUS_DIR / "dev-questions.jsonl"


def require_corpus() -> Path:
    if not DEV_DIR.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must have the shared corpus at {CORPUS_DIR}")
        pytest.skip(f"shared corpus not found at {CORPUS_DIR} (set CORPUS_DIR); CI always has it")
    return CORPUS_DIR


def dev_questions() -> list[dict[str, Any]]:
    require_corpus()
    return [json.loads(line) for line in QUESTIONS_FILE.read_text().splitlines() if line.strip()]


normalise = normalise_for_match
