"""The small text rules of PDF extraction, one by one."""

from __future__ import annotations

import pytest

from documents.extraction.pdf_layout import Line, clean_chars, find_gutter, reading_groups
from documents.extraction.pdf_text import FontStats, furniture_key, is_page_number, join_lines


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        ("the imple-", "mentation", "the implementation"),  # break hyphen dropped
        ("a 128-", "bit key", "a 128-bit key"),  # after a digit: kept, no space
        ("a Key-", "Value store", "a Key-Value store"),  # before a capital: kept
        ("B+-", "tree", "B+-tree"),
        ("soft\u00ad", "ware", "software"),
        ("a dash -", "then more", "a dash - then more"),
        ("plain", "line", "plain line"),
        ("", "first", "first"),
    ],
)
def test_join_lines(left, right, joined):
    assert join_lines(left, right) == joined


def test_clean_chars_expands_only_ligatures():
    assert clean_chars("eﬃcient ﬁle ﬂow ﬀ ﬄ ﬅ ﬆ") == "efficient file flow ff ffl st st"
    # NFKC is not applied globally: full-width, superscript and NBSP characters are kept.
    assert clean_chars("ｘ² 1\u00a0000 ½") == "ｘ² 1\u00a0000 ½"
    assert clean_chars("a\x00b\x07c\t d") == "abc d"


@pytest.mark.parametrize("text", ["7", "Page 3", "page 3 of 10", "- 12 -", "iv", "3/10"])
def test_page_numbers(text):
    assert is_page_number(text)


@pytest.mark.parametrize("text", ["3 Results", "Figure 2", "2006", "in"])
def test_not_page_numbers(text):
    # "2006" is a number and would be removed at a page edge; the rest never.
    assert is_page_number(text) == text.isdigit()


def test_furniture_key_ignores_digits_case_and_spacing():
    assert furniture_key("Page 3  of 10") == furniture_key("page 4 of 10")
    assert furniture_key("Handout 28. Availability") == "handout #. availability"


def _line(text: str, x0: float, y0: float, width: float) -> Line:
    return Line(text, x0, y0, x0 + width, y0 + 10, 10.0, False, 0)


def test_gutter_found_between_columns_and_not_in_single_column_text():
    columns = [_line(f"left {i}", 72, 100 + 12 * i, 200) for i in range(8)]
    columns += [_line(f"right {i}", 320, 100 + 12 * i, 200) for i in range(8)]
    single = [_line(f"wide {i}", 72, 100 + 12 * i, 450) for i in range(8)]

    split = find_gutter(columns)
    assert split is not None
    assert 272 < split < 320
    assert find_gutter(single) is None


def test_reading_groups_put_full_width_lines_between_column_bands():
    lines = [_line("title", 200, 60, 200)]
    lines += [_line(f"left {i}", 72, 100 + 12 * i, 200) for i in range(6)]
    lines += [_line(f"right {i}", 320, 100 + 12 * i, 200) for i in range(6)]
    lines += [_line("wide caption", 72, 300, 450)]
    lines += [_line("left after", 72, 320, 200), _line("right after", 320, 320, 200)]

    groups = [[line.text for line in group] for group in reading_groups(lines)]

    assert groups == [
        ["title"],
        [f"left {i}" for i in range(6)],
        [f"right {i}" for i in range(6)],
        ["wide caption"],
        ["left after"],
        ["right after"],
    ]


@pytest.mark.parametrize(
    "text", ["syverson@itd.nrl.navy.mil", "{alice, bob}@example.org", "https://example.org/paper", "www.example.org"]
)
def test_contact_lines_set_large_are_never_headings(text: str) -> None:
    stats = FontStats(body_size=10.0)
    large = Line(text=text, x0=72, y0=100, x1=300, y1=112, size=12.0, bold=False, block=0)
    assert not stats.is_heading_line(large)
    title = Line(text="Naval Research Lab", x0=72, y0=100, x1=300, y1=112, size=12.0, bold=False, block=0)
    assert stats.is_heading_line(title)  # the rule only drops addresses, not the block's other lines
