"""The rule for names and titles (documents/names.py): what is refused, what is kept, and why."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from documents.names import InvalidName, NameValidator, name_clean, name_problem

REFUSED = {
    "nul": ("Minutes\x00 2026", "a control character (U+0000) at character 8"),
    "tab": ("Minutes\t2026", "a control character (U+0009)"),
    "line break inside": ("Minutes\n2026", "a control character (U+000A)"),
    "escape": ("\x1b[31mRed", "a control character (U+001B) at character 1"),
    "delete": ("Mi\x7fnutes", "a control character (U+007F)"),
    "c1 control": ("Minutes\x9b2026", "a control character (U+009B)"),
    "unpaired surrogate": ("Minutes\ud800", "an unpaired surrogate (U+D800)"),
    "line separator": ("Minutes\u20282026", "a line separator (U+2028)"),
    "paragraph separator": ("Minutes\u20292026", "a paragraph separator (U+2029)"),
    "right-to-left override": ("invoice\u202efdp.exe", "a bidirectional text control (U+202E)"),
    "left-to-right embedding": ("a\u202ab", "a bidirectional text control (U+202A)"),
    "pop directional formatting": ("a\u202cb", "a bidirectional text control (U+202C)"),
    "first strong isolate": ("a\u2068b", "a bidirectional text control (U+2068)"),
    "pop directional isolate": ("a\u2069b", "a bidirectional text control (U+2069)"),
}


@pytest.mark.parametrize(("value", "words"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_characters_are_named_with_their_position(value: str, words: str) -> None:
    with pytest.raises(InvalidName) as refused:
        name_clean(value, what="folder name")

    message = refused.value.message
    assert message.startswith("The folder name contains ")
    assert words in message
    assert message.endswith("names and titles must be printable text on one line.")
    assert value not in message  # the reason quotes no invisible character back


KEPT = {
    "plain": ("Quarterly report", "Quarterly report"),
    "accents and other scripts": ("Révision · Ελληνικά · 日本語 · עברית", "Révision · Ελληνικά · 日本語 · עברית"),
    "emoji joined by ZWJ": ("Team 👩\u200d💻", "Team 👩\u200d💻"),
    "persian with a non-joiner": ("می\u200cخواهم", "می\u200cخواهم"),
    "right-to-left mark": ("שלום\u200f (2)", "שלום\u200f (2)"),
    "private use": ("Logo \ue000", "Logo \ue000"),
    "inner spaces as typed": ("Two  spaces", "Two  spaces"),
}


@pytest.mark.parametrize(("value", "expected"), KEPT.values(), ids=KEPT.keys())
def test_printable_text_in_any_script_is_kept(value: str, expected: str) -> None:
    assert name_problem(value) is None
    assert name_clean(value) == expected


def test_surrounding_whitespace_goes_even_line_breaks_and_the_name_is_nfc() -> None:
    assert name_clean("  Minutes 2026\r\n") == "Minutes 2026"
    assert name_clean("\tMinutes\u2028") == "Minutes"
    decomposed = "Re\u0301sume\u0301"  # "e" + combining acute accent, as some keyboards type it
    assert name_clean(decomposed) == "Résumé" == name_clean("Résumé")
    assert name_clean("   ") == ""  # blank is the caller's decision (a title falls back to the file name)


def test_the_django_validator_is_the_same_rule() -> None:
    validator = NameValidator("title")
    validator("Quarterly report")
    with pytest.raises(ValidationError) as refused:
        validator("Quarterly\x00report")
    assert refused.value.code == "invalid_name_character"
    assert refused.value.messages == [name_problem("Quarterly\x00report", what="title")]
    assert NameValidator("title") == validator != NameValidator("folder name")
    assert validator.deconstruct() == ("documents.names.NameValidator", ("title",), {})
