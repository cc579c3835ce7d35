"""A citation into a Markdown document opens the viewer at its passage in the plain text: the
corpus's prometheus-storage.md indexed, asked one of the dev questions, its cited offsets checked
against the text the viewer renders (the Chromium half is in test_browser_markdown.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from citations.services.answer import answer_question
from tests.citations.test_viewer import viewer_text
from tests.conftest import ingest_file_inline
from tests.corpus import DEV_DIR, dev_questions, normalise, require_corpus

pytestmark = pytest.mark.django_db

FILE = "prometheus-storage.md"


def indexed_storage_notes(folder_factory: Any, user_factory: Any) -> tuple[Any, Any]:
    require_corpus()
    reader = user_factory(username="markdown-reader")
    folder = folder_factory(name="Markdown shelf", readers=[reader])
    document = ingest_file_inline(DEV_DIR / FILE, folder)
    assert document.status == "indexed", document.failure_reason
    return reader, document


def storage_question() -> dict[str, Any]:
    # "Compaction will create larger blocks ... up to 10% of the retention time, or 31 days ..."
    return next(q for q in dev_questions() if q["doc"] == FILE and "Compaction" in q["needle"])


def test_a_cited_markdown_passage_opens_at_its_place_in_the_plain_text(folder_factory: Any, user_factory: Any) -> None:
    reader, document = indexed_storage_notes(folder_factory, user_factory)
    text = document.canonical_text
    assert "](" not in text  # link targets
    assert "\n#" not in text  # heading marks (this file's code blocks hold no "#" lines)
    assert not text.startswith("---")  # front matter
    question = storage_question()

    answer = answer_question(user=reader, question=question["queries"][0])
    assert not answer.refused, answer.text
    citation = next(c.hit for c in answer.citations if normalise(question["needle"]) in normalise(c.hit.content))
    assert citation.content == text[citation.char_start : citation.char_end]
    assert citation.url == f"/documents/{document.pk}/view#char={citation.char_start},{citation.char_end}"
    assert citation.page_url is None  # no pages in Markdown
    assert citation.section.endswith("Compaction"), citation.section  # the heading's words, no "###"
    assert "#" not in citation.section

    client = Client()
    client.force_login(reader)
    response = client.get(citation.url.split("#")[0])
    assert response.status_code == 200
    shown = viewer_text(response.content.decode())
    assert shown == text  # offset for offset, so #char= lands on the quoted passage
    assert shown[citation.char_start : citation.char_end] == citation.content
