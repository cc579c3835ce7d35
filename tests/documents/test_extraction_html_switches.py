"""Alternatives that a page writes all hidden for a script to reveal one of (a switch) are read
once: the one marked default, else the last (documents/extraction/html.py). Every other hidden
element stays out of the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from documents.extraction.html import extract_html
from documents.extraction.versions import HTML, extractor_is_current


def _text(tmp_path: Path, body: str) -> str:
    page = tmp_path / "page.html"
    page.write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    return extract_html(page).text


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        (
            '<p>Desfaça a correção com o <span class="switchinline">'
            '<span hidden="true" id="MACtext_1" class="MAC">comando </span>'
            '<span hidden="true" id="defaulttext_1">Ctrl</span></span>+Z.</p>',
            "Desfaça a correção com o Ctrl+Z.",
        ),
        (
            '<p>Choose <span><span hidden class="WRITER">Writer options</span>'
            '<span hidden class="CALC">Calc options</span></span> - View.</p>',
            "Choose Calc options - View.",
        ),
    ],
    ids=["the-default-key", "no-default-the-last"],
)
def test_an_inline_switch_reads_one_alternative(tmp_path: Path, paragraph: str, expected: str) -> None:
    assert _text(tmp_path, paragraph) == expected


def test_a_block_switch_reads_its_default_case_only(tmp_path: Path) -> None:
    text = _text(
        tmp_path,
        """<h1>Java</h1><div class="switch">
        <div class="case" hidden><p>On Windows, install a 64-bit runtime.</p></div>
        <div class="case default" hidden><p>Choose a runtime from the list.</p></div>
        <div class="case" hidden><p>On macOS, install the runtime from the vendor.</p></div>
        </div><p>The path appears below the list.</p>""",
    )
    assert text.split("\n\n") == ["Java", "Choose a runtime from the list.", "The path appears below the list."]


def test_hidden_furniture_stays_dropped(tmp_path: Path) -> None:
    text = _text(
        tmp_path,
        """<div hidden>Cookie banner</div>
        <div><span hidden>Loading</span></div>
        <p>Results <span hidden>first hint</span><span hidden>second hint</span>are ready.</p>
        <div hidden><span hidden class="MAC">Cmd</span><span hidden id="default">Ctrl</span></div>""",
    )
    assert text == "Results are ready."


def test_aria_hidden_elements_are_dropped_and_are_never_alternatives(tmp_path: Path) -> None:
    text = _text(
        tmp_path,
        """<p>Press <span><span aria-hidden="true">icon one</span><span aria-hidden="true">icon two</span></span>
        <span><span hidden class="MAC">Cmd</span><span hidden id="default" aria-hidden="true">Ctrl</span></span>
        Enter.</p>""",
    )
    assert " ".join(text.split()) == "Press Enter."


def test_html_documents_stamped_before_switches_were_read_are_stale() -> None:
    assert HTML == "ragsite-html-4"
    assert not extractor_is_current("lxml-6.1.3+ragsite-html-3")
    assert extractor_is_current(f"lxml-6.1.3+{HTML}")
