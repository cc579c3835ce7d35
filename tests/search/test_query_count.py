"""Each step of a search is one SQL query, whatever the library holds (issue 11, point 4).

The whole search's count is pinned in test_retrieval; here each step on its own: the
readable-folder lookup, the lexical leg (one statement, in its own transaction after its scan
setting), the coverage check of the question's words and hydration.
"""

from __future__ import annotations

from typing import Any

import pytest

from documents.selectors import readable_folder_ids
from search.services.bm25_packed import bm25_packed
from search.services.hydration import hydrate
from search.services.query_embedding import embed_query, vector_literal
from search.services.question_reading import question_reading
from search.services.retrieval import _rank
from search.services.terms import question_terms, term_coverage
from tests.conftest import dev_reader

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUESTION = "Which hash function does Dynamo apply to a key to produce the 128-bit identifier used for placement?"


def test_each_search_step_is_one_query(dev_corpus: dict[str, Any], django_assert_num_queries: Any) -> None:
    user = dev_reader()
    with django_assert_num_queries(1):
        folders = readable_folder_ids(user)
    assert folders
    with django_assert_num_queries(1):  # once per search: its languages and configurations
        reading = question_reading(QUESTION, folders)
    configs = reading.configs
    # One statement in its own transaction after its scan setting (savepoint, set_config, SELECT,
    # release here, inside the test's transaction).
    with django_assert_num_queries(4):
        bm25 = bm25_packed(QUESTION, folders, 50, configs=configs).hits
    assert bm25
    ranked = _rank([], bm25, "bm25")[:10]
    with django_assert_num_queries(1):
        terms = question_terms("Does Dynamo place keys with Zyxwvut?")
        coverage = term_coverage(terms, folders, [ranked[0].chunk_id], configs, reading.variants)
    assert [c.term.text for c in coverage if not c.in_library] == ["Zyxwvut"]
    literal = vector_literal(embed_query(QUESTION)[0])  # cached query vector: no SQL
    with django_assert_num_queries(1):
        hits = hydrate(ranked, literal, folders)
    assert [h.chunk_id for h in hits] == [r.chunk_id for r in ranked]
