"""Marker parsing and validation: only [n] of existing sources survive; the rest is reported."""

from __future__ import annotations

from citations.markers import Part, parse_markers, strip_links, validate


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
    assert result.text == "Dynamo uses consistent hashing [10]. [1]"
    assert result.cited == [1]
    assert result.removed == []
