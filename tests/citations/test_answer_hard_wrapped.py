"""A manual's preformatted text (Vim's help) is hard-wrapped: a line break in it cuts sentences, not paragraphs.
The writer reads such a paragraph's lines as one (citations/writers/prose.py, `_unwrapped`), so the
sentence that answers is quoted whole; a table's rows and a code block's lines stay apart. The text
is Vim's own help (scroll.txt); the writer runs with the real encoder."""

from __future__ import annotations

from citations.markers import Part
from citations.writers import Source
from citations.writers.extractive import ExtractiveWriter
from citations.writers.prose import units

SCROLL_WHEEL = (
    "<S-ScrollWheelRight> scroll one page right *<S-ScrollWheelRight>*\n"
    "This should work in all modes, except when editing the command line.\n"
    "The value of N depends on the system. By default Vim scrolls three lines when\n"
    "moving vertically, and six columns when moving horizontally. On MS-Windows\n"
    "the amount of lines and columns for each scroll action is taken from the\n"
    "system-wide settings.\n"
    "Note that horizontal scrolling only works if 'nowrap' is set. Also, unless\n"
    "the \"h\" flag in 'guioptions' is set, the cursor moves to the longest visible\n"
    "line if the cursor line is only partially visible."
)
NEEDLE = "By default Vim scrolls three lines when\nmoving vertically, and six columns when moving horizontally."


def prose_sentences(text: str) -> list[str]:
    return [text[u.start : u.end] for u in units(text) if u.prose]


def quoted(parts: list[Part]) -> str:
    return "".join(p.text for p in parts if p.n is None)


def test_a_sentence_a_hard_wrapped_line_cuts_is_read_whole() -> None:
    sentences = prose_sentences(SCROLL_WHEEL)
    assert NEEDLE in sentences
    assert (
        "On MS-Windows\nthe amount of lines and columns for each scroll action is taken from the\nsystem-wide settings."
        in sentences
    )
    # No scrap of a cut sentence is prose on its own.
    assert not any(s.startswith(("moving vertically", "the amount of", "system-wide")) for s in sentences)


def test_the_whole_sentence_is_quoted_as_the_answer() -> None:
    parts = ExtractiveWriter().write(
        "How many lines and columns does one scroll wheel event scroll by default?", [Source(1, SCROLL_WHEEL, 0.3)]
    )
    assert " ".join(NEEDLE.split()) in " ".join(quoted(parts).split())


def test_a_tables_rows_stay_apart() -> None:
    table = (
        "Os significados de cada entrada são os seguintes\n"
        "(vazio) | conta sem palavra-passe\n"
        'x | a palavra-passe encriptada está em "/etc/shadow"'
    )
    spans = [(u.start, u.end) for u in units(table)]
    assert [table[a:b] for a, b in spans][-1].startswith("x |")
    assert not any("\n" in table[a:b] for a, b in spans)


def test_a_code_blocks_lines_stay_apart() -> None:
    code = "This anonymous subgraph puts the nodes on one rank\nsubgraph {\nrank = same; A; B; C;\n}"
    assert not any("\n" in code[u.start : u.end] for u in units(code))


def test_a_line_that_ends_a_sentence_is_not_joined_to_the_next() -> None:
    text = "Each buffer keeps its own undo history.\nundo levels are counted per buffer as well."
    assert not any("\n" in text[u.start : u.end] for u in units(text))
