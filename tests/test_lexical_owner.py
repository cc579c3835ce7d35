"""The keyword index has one owner: no module outside documents/lexical/ names its tables,
its SQL functions or its triggers (migrations aside: they record what each step created)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWNER = ROOT / "documents" / "lexical"
PACKAGES = ("ragsite", "documents", "search", "citations", "bench", "evaluation", "tests")
# The tables, the SQL functions and the triggers the migrations created for the index.
NAMES = re.compile(
    r"search_lexemeblock|search_folderlength|search_lexeme_blocks_rebuild|search_lexeme_blocks_after_chunk_delete"
    r"|search_folder_lengths_\w+|chunk_delete_rebuilds_lexeme_blocks"
)


def naming_lines() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if OWNER in path.parents or "migrations" in path.parts or path == Path(__file__).resolve():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if NAMES.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_module_outside_the_owner_names_the_keyword_index_tables() -> None:
    assert naming_lines() == []


def test_the_check_sees_a_named_table() -> None:
    assert NAMES.search('cursor.execute("SELECT 1 FROM search_lexemeblock")')
    assert NAMES.search("PERFORM search_lexeme_blocks_rebuild(blocks)")
    assert not NAMES.search("LexemeBlock.objects.filter(folder=folder)")
