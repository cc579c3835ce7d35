"""README.md "Configuration" is the table ragsite/env.py generates: every variable, its default
and its meaning come from the one place that parses them."""

from __future__ import annotations

from pathlib import Path

from ragsite.env import configuration_table

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_table() -> str:
    text = README.read_text()
    start = text.index("| variable | default | meaning |")
    return text[start : text.index("\n\n", start) + 1]


def test_the_readme_table_is_the_generated_one() -> None:
    assert readme_table() == configuration_table(), (
        "README.md's configuration table differs from ragsite/env.py: regenerate it with `python -m ragsite.env`"
    )
