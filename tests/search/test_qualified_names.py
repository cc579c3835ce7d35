"""A qualified name in code ("csv.Sniffer.has_header") on a reference page that writes it apart: the
method's entry under its class's heading, the whole only in a link's anchor. Held where one document
holds every part (search/services/terms.py `_qualified_parts`); parts on different pages name no such
method. The texts are the Python 3.11 library reference's own (csv, queue and tempfile pages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from search.services.retrieval import retrieve
from search.services.terms import Term, _qualified_parts
from tests.conftest import ingest_text
from tests.factories import FolderFactory

CSV_PAGE = "\n\n".join(
    [
        "class csv.Sniffer",
        "The Sniffer class is used to deduce the format of a CSV file.",
        "The Sniffer class provides two methods:",
        "sniff(sample, delimiters=None)",
        "Analyze the given sample and return a Dialect subclass reflecting the parameters found.",
        "has_header(sample)",
        "Analyze the sample text (presumed to be in CSV format) and return True if the first row appears to be "
        "a series of column headers. Inspecting each column, one of two key criteria will be considered to "
        "estimate if the sample contains a header:",
        "the second through n-th rows contain numeric values",
        "Twenty rows after the first row are sampled; if more than half of columns + rows meet the criteria, "
        "True is returned.",
    ]
)
QUEUE_PAGE = (
    "class queue.Queue(maxsize=0)\n"
    "Constructor for a FIFO queue. maxsize is an integer that sets the upperbound limit on the number "
    "of items that can be placed in the queue. Insertion will block once this size has been reached, "
    "until queue items are consumed.\n"
)
TEMPFILE_PAGE = (
    "tempfile.TemporaryDirectory(suffix=None, prefix=None, dir=None, ignore_cleanup_errors=False)\n"
    "If ignore_cleanup_errors is true, any unhandled exceptions during explicit or implicit cleanup "
    "(such as a PermissionError removing open files on Windows) will be ignored, and the remaining "
    "removable items deleted on a best-effort basis at interpreter shutdown.\n"
)


@pytest.fixture
def python_docs(tmp_path: Path, memoised_pipeline: None) -> int:
    folder = FolderFactory(name="python reference", is_public=True)
    for title, text in (("csv", CSV_PAGE), ("queue", QUEUE_PAGE), ("tempfile", TEMPFILE_PAGE)):
        ingest_text(tmp_path, folder, title, text)
    return int(folder.pk)


@pytest.mark.django_db
def test_a_method_listed_under_its_class_is_held(python_docs: int) -> None:
    result = retrieve(query="How many rows does csv.Sniffer.has_header() examine?", folder_ids=[python_docs])
    assert result.unknown_names == []
    assert (result.state, result.answer_type, result.unmet_answer_type) == ("answered", "count", None)


@pytest.mark.django_db
def test_parts_on_different_pages_or_a_missing_member_name_nothing(python_docs: int) -> None:
    # "Queue" is on the queue page, "shutdown" only on the tempfile page: Python 3.11 has no Queue.shutdown.
    apart = retrieve(query="In which version was Queue.shutdown() added?", folder_ids=[python_docs])
    assert (apart.state, apart.unknown_names) == ("refused", ["Queue.shutdown"])
    missing = retrieve(query="How many rows does csv.Sniffer.guess_header() examine?", folder_ids=[python_docs])
    assert (missing.state, missing.unknown_names) == ("refused", ["csv.Sniffer.guess_header"])


@pytest.mark.parametrize(
    ("typed", "parts"),
    [
        ("csv.Sniffer.has_header", ["csv", "Sniffer", "has_header"]),
        ("Timer.timeit", ["Timer", "timeit"]),
        ("zipfile.ZipFile.comment", ["zipfile", "ZipFile", "comment"]),
        # No class with a member after it: a dotted setting, a product's name, a file.
        ("storage.tsdb.retention.size", []),
        ("Node.js", []),
        ("prometheus.yml", []),
        ("README.md", []),
    ],
)
def test_a_qualified_name_is_a_class_with_a_member_after_it(typed: str, parts: list[str]) -> None:
    assert _qualified_parts(Term(typed, "identifier")) == parts
