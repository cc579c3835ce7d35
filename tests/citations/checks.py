"""Checks shared by the tests of the answer's marker rule (see citations/markers.py)."""

from __future__ import annotations

import re
from typing import Any

from citations.markers import BRACKETED_NUMBERS, escape_references

# What an integration would write first to link markers: "[n]" and nothing more.
OBVIOUS_MARKER = re.compile(r"\[(\d+)\]")


def assert_markers_map_to_citations(body: dict[str, Any]) -> list[int]:
    """Every `[n]` in `answer` is a marker of a listed, cited source, and `answer` agrees with
    `parts`; returns the marker numbers in order."""
    answer, parts, citations = body["answer"], body["parts"], body["citations"]
    markers = [int(n) for n in OBVIOUS_MARKER.findall(answer)]
    assert markers, answer
    for n in markers:
        assert 1 <= n <= len(citations), (n, answer)
        assert citations[n - 1]["n"] == n
        assert citations[n - 1]["cited"], (n, answer)
    assert {c["n"] for c in citations if c["cited"]} == set(markers)
    # No other bracket of numbers is left in the string: a group such as "[1, 34]" is not ours.
    assert [m.group(0) for m in BRACKETED_NUMBERS.finditer(answer)] == [f"[{n}]" for n in markers], answer
    assert [p["cite"] for p in parts if "cite" in p] == markers
    joined = "".join(escape_references(p["text"]) if "text" in p else f"[{p['cite']}]" for p in parts)
    assert joined.strip() == answer
    return markers
