"""`make test-fast` leaves out the tests that index documents through the real pipeline: the
`ingest` mark is given by what a test calls, through the test helpers it names."""

from __future__ import annotations

from tests.citations import test_markdown_viewer, test_writers
from tests.conftest import _calls_the_pipeline


def test_a_test_whose_helper_ingests_a_file_is_marked() -> None:
    test = test_markdown_viewer.test_a_cited_markdown_passage_opens_at_its_place_in_the_plain_text
    assert _calls_the_pipeline(test)


def test_a_test_of_sentences_alone_is_not() -> None:
    assert not _calls_the_pipeline(test_writers.test_sentences_are_verbatim_spans)
