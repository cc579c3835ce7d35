"""The gate on a reference manual's questions, asked in everyday English: a word built from an
everyday one is no jargon (search/services/terms.py `derived_base`), and a setting's entry states
its default in sentences that do not repeat its name (search/services/answer_type.py
`entry_sentences`). The texts are the PostgreSQL 15 manual's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from search.services.answer_text import entry_heading, entry_sentences
from search.services.answer_type import AnswerType, check_answer_type
from search.services.retrieval import retrieve
from search.services.terms import Term, derived_base, names_something, question_terms, word_zipf, zipf
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory

JARGON_LINE = 4.0  # ANSWER_JARGON_MAX_ZIPF


def library(tmp_path: Path, name: str, text: str) -> int:
    """A public folder holding `text` as one ingested document; its id."""
    folder = FolderFactory(name=f"{name} notes", is_public=True)
    path = tmp_path / f"{name}.txt"
    path.write_text(text)
    ingest_file_inline(path, folder, title=name)
    return int(folder.pk)


def word(query: str, text: str) -> Term:
    return next(t for t in question_terms(query) if t.text == text)


@pytest.mark.parametrize(
    ("derived", "base"),
    [
        ("unsaved", "saved"),
        ("offsite", "site"),
        ("freshly", "fresh"),
        ("quicker", "quick"),
        ("rewriting", "writing"),
        ("downside", "side"),
    ],
)
def test_a_word_built_from_an_everyday_word_is_as_plain_as_it(derived: str, base: str) -> None:
    assert zipf(derived) < JARGON_LINE  # wordfreq alone reads it as jargon
    assert derived_base(derived) == base
    term = word(f"do i lose {derived} changes", derived)
    assert term.zipf == round(zipf(base), 2)
    assert not term.is_jargon(JARGON_LINE)
    assert not names_something(term)


@pytest.mark.parametrize("name", ["redis", "mapreduce", "bigtable", "etcd", "hbase"])
def test_a_name_is_not_read_as_a_prefix_and_a_scrap(name: str) -> None:
    # "re" + "dis": the rest is too short; "map" is no prefix.
    assert derived_base(name) is None
    assert word_zipf(name) == zipf(name)
    assert names_something(word(f"how does {name} store keys", name))


def test_a_derived_word_of_a_rare_base_stays_what_it_was() -> None:
    # "flushed" (3.3) is no everyday word by the line, so "unflushed" keeps its own frequency.
    assert derived_base("unflushed") is None
    assert word("are unflushed pages lost", "unflushed").zipf == round(zipf("unflushed"), 2)
    # "non" builds a term of its own: a nonprofit is a kind of body, no profit undone.
    assert derived_base("nonprofit") is None
    # Another language's words are looked up as they are.
    assert derived_base("unsaved", "pt") is None


WAL_TEXT = (
    "Write-Ahead Logging (WAL) is a standard method for ensuring data integrity. If we follow this "
    "procedure, we do not need to flush data pages to disk on every transaction commit, because in the "
    "event of a crash we will be able to recover the database using the log."
)


@pytest.mark.django_db
def test_a_plain_question_with_derived_words_is_answered_not_caveated(tmp_path: Path, memoised_pipeline: None) -> None:
    folder = library(tmp_path, "wal", WAL_TEXT)
    plain = retrieve(query="after a crash are unsaved transactions recovered from the log", folder_ids=[folder])
    assert (plain.state, plain.missing_terms, plain.unknown_names) == ("answered", [], [])
    # A rare word the library lacks still gives the caveat.
    rare = retrieve(query="after a crash are spreadsheets recovered from the log", folder_ids=[folder])
    assert (rare.state, rare.missing_terms) == ("caveat", ["spreadsheets"])


CONNECTIONS = (
    "port (integer)\n\n"
    "The TCP port the server listens on; 5432 by default. Note that the same port number is used for all IP "
    "addresses the server listens on. This parameter can only be set at server start.\n\n"
    "max_connections (integer)\n\n"
    "Determines the maximum number of concurrent connections to the database server. The default is "
    "typically 100 connections, but might be less if your kernel settings will not support it (as "
    "determined during initdb). This parameter can only be set at server start.\n\n"
    "superuser_reserved_connections (integer)\n\n"
    "Determines the number of connection “slots” that are reserved for connections by PostgreSQL "
    "superusers. At most max_connections connections can ever be active simultaneously. Whenever the "
    "number of active concurrent connections is at least max_connections minus "
    "superuser_reserved_connections, new connections will be accepted only for superusers.\n\n"
    "The default value is three connections. The value must be less than max_connections."
)


def test_an_entry_heading_is_a_short_line_that_starts_with_a_setting() -> None:
    assert entry_heading("max_connections (integer)") == "max_connections"
    assert entry_heading("--storage.tsdb.retention.time") == "--storage.tsdb.retention.time"
    # A Texinfo definition line: the names its call returns come first, its arguments after.
    assert entry_heading(": val = history_size () ¶") == "history_size"
    assert entry_heading(": old_val = history_size (new_val) ¶") == "history_size"
    assert entry_heading(': [old_val] = octave_core_file_limit (new_val, "local")') == "octave_core_file_limit"
    assert not entry_heading(": A colon opens this line, which is a sentence about history_size.")
    assert not entry_heading("max_connections sets the number of concurrent connections.")
    assert not entry_heading("At most max_connections connections")
    assert not entry_heading("port (integer)")  # a plain word is no setting's name


def test_a_sentence_of_a_settings_entry_is_read_with_the_settings_name() -> None:
    sentences = entry_sentences(CONNECTIONS)
    assert "max_connections: The default is typically 100 connections, but might be less" in " ".join(sentences)
    # A sentence that names its entry's setting is read as it stands; one that names another setting is read
    # with its entry's, and a value stands nearer to one or the other.
    assert (
        "Whenever the number of active concurrent connections is at least max_connections minus "
        "superuser_reserved_connections, new connections will be accepted only for superusers." in sentences
    )
    assert (
        "superuser_reserved_connections: At most max_connections connections can ever be active simultaneously."
        in sentences
    )


def test_a_settings_default_stated_under_its_heading_meets_the_question() -> None:
    for question in (
        "What is the default value of max_connections?",
        "What is the default value of superuser_reserved_connections?",
    ):
        check = check_answer_type(question, [CONNECTIONS])
        assert (check.expected, check.met) == (AnswerType.COUNT, True), question
    # A setting no entry heads is still unmet, though the passage states other defaults.
    check = check_answer_type("What is the default value of shared_buffers?", [CONNECTIONS])
    assert (check.expected, check.met) == (AnswerType.COUNT, False)
    # The sentence alone, cut from its entry, does not say whose default it is.
    alone = "Determines the maximum number of concurrent connections. The default is typically 100 connections."
    assert check_answer_type("What is the default value of max_connections?", [alone]).met is False


# An entry of GNU Octave's manual (Texinfo HTML): definition lines, then the description.
HISTORY_SIZE = (
    "See also: history, history_control, history_save, history_size, history_timestamp_format_string.\n\n"
    ": val = history_size () ¶\n\n"
    ": old_val = history_size (new_val) ¶\n\n"
    "Query or set the internal variable that specifies how many entries to store in the history file.\n\n"
    "The default value is 1000, but may be overridden by the environment variable OCTAVE_HISTSIZE.\n\n"
    "See also: history_file, history_timestamp_format_string, history_save."
)


def test_a_default_under_a_definition_line_is_the_defined_settings() -> None:
    check = check_answer_type("What is the default value of history_size?", [HISTORY_SIZE])
    assert (check.expected, check.met) == (AnswerType.COUNT, True)
    assert check.stated_by == (
        "history_size: The default value is 1000, but may be overridden by the environment variable OCTAVE_HISTSIZE."
    )
    # The value stands nearer to the entry's setting than to the variable the sentence names; and a setting
    # the passage only lists under "See also" has no default stated.
    for other in ("octave_histsize", "history_file"):
        assert check_answer_type(f"What is the default value of {other}?", [HISTORY_SIZE]).met is False, other


def test_a_name_joined_by_a_slash_is_one_term_and_lower_case_pairs_are_two_words() -> None:
    terms = [(t.text, t.kind) for t in question_terms("What must a PL/pgSQL trigger return over TCP/IP and/or I/O?")]
    assert ("PL/pgSQL", "name") in terms
    assert ("TCP/IP", "name") in terms
    assert ("I/O", "name") in terms
    assert ("PL", "name") not in terms
    assert ("and", "word") in terms
    assert ("or", "word") in terms
    # A variable before a hidden file's name: the index reads "$HOME/.wireshark" as "home/.wireshark".
    terms = [(t.text, t.kind) for t in question_terms("Until which release was $HOME/.wireshark the folder?")]
    assert ("HOME/.wireshark", "name") in terms
    assert ("HOME", "name") not in terms


PLPGSQL_TEXT = (
    "PL/pgSQL is a loadable procedural language for the PostgreSQL database system. A trigger function "
    "must return either NULL or a record/row value having exactly the structure of the table the trigger "
    "was fired for."
)


@pytest.mark.django_db
def test_a_slashed_name_the_library_holds_is_not_unknown(tmp_path: Path, memoised_pipeline: None) -> None:
    folder = library(tmp_path, "plpgsql", PLPGSQL_TEXT)
    held = retrieve(query="What must a PL/pgSQL trigger function return?", folder_ids=[folder])
    assert (held.state, held.unknown_names) == ("answered", [])
    unheld = retrieve(query="What must a PL/Tcl trigger function return?", folder_ids=[folder])
    assert (unheld.state, unheld.unknown_names) == ("refused", ["PL/Tcl"])
    # Two names the library holds apart, joined by the question, are held: each half is.
    apart = retrieve(query="What must a PostgreSQL/Trigger function return?", folder_ids=[folder])
    assert apart.unknown_names == []


@pytest.mark.django_db
def test_a_variable_before_a_hidden_files_name_is_held_with_it(tmp_path: Path, memoised_pipeline: None) -> None:
    text = "For backwards compatibility, if $HOME/.wireshark is present, it is used as the personal folder."
    folder = library(tmp_path, "wireshark", text)
    held = retrieve(query="Is $HOME/.wireshark still the personal configuration folder?", folder_ids=[folder])
    assert held.unknown_names == []
    unheld = retrieve(query="Is $HOME/.ethereal still the personal configuration folder?", folder_ids=[folder])
    assert unheld.unknown_names == ["HOME/.ethereal"]
