"""docs/configuration.md is the table ragsite/env.py generates: every variable, its default
and its meaning come from the one place that parses them."""

from __future__ import annotations

import re
from pathlib import Path

from ragsite.env import Env, configuration_table

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "configuration.md"


def reference_table() -> str:
    text = REFERENCE.read_text()
    start = text.index("| variable | default | meaning |")
    rows = []
    for line in text[start:].split("\n"):
        if not line.startswith("|"):
            break
        rows.append(line + "\n")
    return "".join(rows)


def test_the_reference_table_is_the_generated_one() -> None:
    assert reference_table() == configuration_table(), (
        "docs/configuration.md's table differs from ragsite/env.py: regenerate it with `python -m ragsite.env`"
    )


def test_every_variable_is_read_by_name() -> None:
    """A field nothing reads would be documented and validated yet change nothing: each one is
    copied into a Django setting (ragsite/settings.py) or read where it is used (the launcher,
    the embedded services, the file storages)."""
    sources = "\n".join(p.read_text() for p in (ROOT / "ragsite").glob("*.py"))
    unread = [name for name in Env.model_fields if not re.search(rf"\.{name}\b", sources)]
    assert unread == []
