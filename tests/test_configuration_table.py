"""README.md "Configuration" is the table ragsite/env.py generates: every variable, its default
and its meaning come from the one place that parses them."""

from __future__ import annotations

import re
from pathlib import Path

from ragsite.env import Env, configuration_table

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_table() -> str:
    text = README.read_text()
    start = text.index("| variable | default | meaning |")
    return text[start : text.index("\n\n", start) + 1]


def test_the_readme_table_is_the_generated_one() -> None:
    assert readme_table() == configuration_table(), (
        "README.md's configuration table differs from ragsite/env.py: regenerate it with `python -m ragsite.env`"
    )


def test_every_variable_is_read_by_name() -> None:
    """A field nothing reads would be documented and validated yet change nothing: each one is
    copied into a Django setting (ragsite/settings.py) or read where it is used (the launcher,
    the embedded services, the file storages)."""
    sources = "\n".join(p.read_text() for p in (README.parent / "ragsite").glob("*.py"))
    unread = [name for name in Env.model_fields if not re.search(rf"\.{name}\b", sources)]
    assert unread == []
