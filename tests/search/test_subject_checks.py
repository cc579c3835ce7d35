"""Whether the passages speak of the thing asked about (issue 27, the gate's side): a word in no
everyday vocabulary names a system however it is typed (terms.names_something), a dotted number
after a name is the release asked about (terms.version_after), and a version the library holds
but no top passage does puts a caveat on the answer (retrieval.unseen_terms); a name does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from search.services.retrieval import retrieve, unseen_terms
from search.services.terms import Term, TermCoverage, names_something, question_terms
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory

JSON_TEXT = (
    "A JSON object is a set of name and value pairs between curly brackets. Each name is a string; a "
    "colon separates the name from its value, and a comma separates one property from the next property."
)
RELEASE_TEXT = (
    "Prometheus 3.0 removes the feature flags that became defaults and changes how the query range "
    "selects samples at its left edge."
)
SCHEMA_TEXT = "The Bigtable Schema of a table names its column families and their locality groups."
SECTION_TEXT = "Section 3.1 of the storage manual describes how compaction merges blocks of samples."


@pytest.mark.parametrize(
    ("word", "names"),
    [
        ("etcd", True),  # Zipf 0: in no vocabulary
        ("dynamodb", True),  # 1.4
        ("hbase", True),  # 1.4
        ("mapreduce.job.reduces", True),
        ("grafana-agent", True),  # "grafana" is no word
        ("emoji", False),  # 3.2: an English word the library may lack
        ("regex", False),  # 2.2
        ("whitepaper", False),  # 2.5
        ("backslash-u", False),  # its parts are words; joined, wordfreq knows nothing of it
        ("shopping-cart", False),
    ],
)
def test_a_word_in_no_vocabulary_names_something(word: str, names: bool) -> None:
    assert names_something(Term(word, "word")) is names


def test_names_and_years_keep_their_kind() -> None:
    assert names_something(Term("Grafana", "name")) is True
    assert names_something(Term("2018", "year")) is False


@pytest.mark.parametrize(
    ("query", "versions"),
    [
        ("what new features came in prometheus 3.1", ["3.1"]),
        ("When adding QSslSocket in Qt 4.3, what broke?", ["4.3"]),
        ("hadoop v3.3 block size", ["v3.3"]),
        ("how long is prometheus 2.55 supported after 3.0", ["2.55"]),  # "after" is an everyday word
        ("why does my count come out as a decimal like 4.7", []),
        ("Why is TW-IDF's b so much smaller than the 0.75 used by BM25?", []),
        ("what is the default block size in hdfs 3", []),  # no dot: the user's own figure
    ],
)
def test_a_dotted_number_after_a_name_is_a_version(query: str, versions: list[str]) -> None:
    assert [t.text for t in question_terms(query) if t.kind == "version"] == versions


def test_unseen_terms_are_the_years_and_versions_the_top_passages_lack() -> None:
    def covered(text: str, kind: str, zipf: float, in_passages: bool) -> TermCoverage:
        return TermCoverage(Term(text, kind, zipf), True, in_passages)

    coverage = [
        covered("Microsystems", "name", 2.5, False),  # names often point at the document, not the fact
        covered("3.0", "version", 0.0, True),
        covered("3.1", "version", 0.0, False),
        covered("2004", "year", 4.4, False),
        covered("hashing", "word", 2.6, False),  # words are the extractive writer's business
    ]
    assert unseen_terms(coverage) == ["3.1", "2004"]


@pytest.fixture
def library(tmp_path: Path, memoised_pipeline: None) -> Any:
    folder = FolderFactory(name="Subject checks")
    texts = {"json": JSON_TEXT, "release": RELEASE_TEXT, "schema": SCHEMA_TEXT, "section": SECTION_TEXT}
    for name, text in texts.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        ingest_file_inline(path, folder, title=name)
    return folder


@pytest.mark.django_db
def test_a_lower_case_system_name_no_document_mentions_refuses(library: Any) -> None:
    result = retrieve(
        query="does dynamodb separate each property of a JSON object with a comma", folder_ids=[library.pk]
    )
    assert (result.state, result.reasons, result.unknown_names) == ("refused", ["unknown_names"], ["dynamodb"])
    assert result.message.startswith("No document you may read mentions 'dynamodb', so the library cannot answer")
    # An English word the library lacks is said, not refused.
    said = retrieve(query="do emoji separate each property of a JSON object with a comma", folder_ids=[library.pk])
    assert (said.state, said.missing_terms, said.unknown_names) == ("caveat", ["emoji"], [])


@pytest.mark.django_db
def test_a_name_only_other_passages_hold_leaves_the_answer_plain(library: Any, settings: Any) -> None:
    settings.ANSWER_TOP_SOURCES = 1  # the passage shown first is the one judged
    result = retrieve(query="how do I separate each property of a JSON object in a Schema", folder_ids=[library.pk])
    assert "property" in result.hits[0].content  # the JSON passage, not the Bigtable one
    assert (result.state, result.unseen_terms, result.unknown_names) == ("answered", [], [])


@pytest.mark.django_db
def test_a_version_the_passages_lack_gets_a_caveat(library: Any, settings: Any) -> None:
    settings.ANSWER_TOP_SOURCES = 1
    # 3.1 is in the library (a section number elsewhere), not in the release passage shown first.
    result = retrieve(query="which feature flags did Prometheus 3.1 remove", folder_ids=[library.pk])
    assert "Prometheus 3.0" in result.hits[0].content
    assert (result.state, result.unseen_terms, result.reasons) == ("caveat", ["3.1"], ["unseen_terms"])
    assert result.message == (
        "None of the closest passages mentions '3.1'; the passages below are the closest the library holds."
    )
    # 3.7 is nowhere: the library does not mention it at all.
    absent = retrieve(query="which feature flags did Prometheus 3.7 remove", folder_ids=[library.pk])
    assert (absent.state, absent.missing_terms) == ("caveat", ["3.7"])
    assert absent.message.startswith("No document you may read mentions '3.7'")
    shown = retrieve(query="which feature flags did Prometheus 3.0 remove", folder_ids=[library.pk])
    assert (shown.state, shown.unseen_terms, shown.missing_terms) == ("answered", [], [])
