"""Marker parsing and validation: only [n] of existing sources survive; the rest is reported."""

from __future__ import annotations

import re

from citations.markers import (
    Part,
    answer_text,
    escape_references,
    parse_markers,
    quoted_references,
    strip_links,
    validate,
)


def check(text: str, valid: set[int]) -> tuple[str, list[int], list[int], bool]:
    result = validate(parse_markers(text), valid)
    return result.text, result.cited, result.removed, result.uncited


def test_valid_markers_are_kept_in_order_of_use() -> None:
    assert check("Dynamo uses MD5 [2]. It replicates data [1].", {1, 2}) == (
        "Dynamo uses MD5 [2]. It replicates data [1].",
        [2, 1],
        [],
        False,
    )


def test_marker_pointing_to_no_source_is_removed_and_reported() -> None:
    text, cited, removed, uncited = check("MD5 is used [1][7]. Vector clocks [9].", {1, 2})
    assert text == "MD5 is used [1]. Vector clocks."
    assert cited == [1]
    assert removed == [7, 9]
    assert not uncited


def test_answer_left_without_valid_marker_is_uncited() -> None:
    text, cited, removed, uncited = check("It uses MD5 [5].", {1, 2, 3, 4})
    assert text == "It uses MD5."
    assert (cited, removed, uncited) == ([], [5], True)


def test_answer_without_any_marker_is_uncited() -> None:
    assert check("The sources do not contain the answer.", {1})[3] is True


def test_groups_are_split_into_single_markers() -> None:
    text, cited, removed, _ = check("Both say so [1, 3; 8].", {1, 2, 3})
    assert text == "Both say so [1][3]."
    assert cited == [1, 3]
    assert removed == [8]


def test_repeated_marker_is_written_once() -> None:
    assert check("Yes [2][2].", {2})[0] == "Yes [2]."


def test_zero_is_not_a_source_number() -> None:
    assert check("Nothing [0].", {1})[2] == [0]


def test_markdown_links_lose_their_targets() -> None:
    assert strip_links("See [1](https://evil.example/x) and [the paper](http://x.org).") == "See [1] and the paper."
    text, cited, _, _ = check("MD5 [1](https://evil.example/doc).", {1})
    assert text == "MD5 [1]."
    assert cited == [1]


def test_bracketed_text_that_is_not_a_number_stays_text() -> None:
    parts = parse_markers("An array [a, b] and a note [see below].")
    assert all(p.n is None for p in parts)


def test_structured_parts_keep_in_sentence_references_as_text() -> None:
    # The extractive writer quotes "consistent hashing [10]" verbatim: that is text, not a marker.
    parts = [Part("Dynamo uses consistent hashing [10]."), Part(" "), Part.marker(1)]
    result = validate(parts, {1})
    assert result.parts == [Part("Dynamo uses consistent hashing [10]. "), Part.marker(1)]
    assert result.text == "Dynamo uses consistent hashing ⟦10⟧. [1]"
    assert result.cited == [1]
    assert result.removed == []


def test_every_bracket_of_numbers_in_text_is_escaped_in_the_answer_string() -> None:
    text = "C-Store [1, 34], Sybase IQ [15;36], KDB+ [ 22 ], surveys [3-5] and [7–9]; arrays x[0]"
    assert escape_references(text) == (
        "C-Store ⟦1, 34⟧, Sybase IQ ⟦15;36⟧, KDB+ ⟦ 22 ⟧, surveys ⟦3-5⟧ and ⟦7–9⟧; arrays x⟦0⟧"
    )
    # Anything else in brackets is no marker and stays as it is.
    assert escape_references("See [a, b], [note 2] and [^1].") == "See [a, b], [note 2] and [^1]."
    parts = [Part(text), Part(" "), Part.marker(2), Part(" Then [4]"), Part.marker(4)]
    assert re.findall(r"\[(\d+)\]", answer_text(parts)) == ["2", "4"]


def test_a_quoted_reference_of_a_source_stays_text_in_a_model_reply() -> None:
    quoted = quoted_references(["KDB+ [22] and C-Store [1, 34], like [2]."], valid={1, 2, 3})
    assert quoted == {(22,), (1, 34)}  # "[2]" names a source: in a reply it is a marker
    result = validate(parse_markers("KDB+ [22] and C-Store [1, 34] are columnar [2]. Also [23].", quoted), {1, 2, 3})
    assert result.parts == [Part("KDB+ [22] and C-Store [1, 34] are columnar "), Part.marker(2), Part(". Also.")]
    assert result.text == "KDB+ ⟦22⟧ and C-Store ⟦1, 34⟧ are columnar [2]. Also."
    assert (result.cited, result.removed) == ([2], [23])
