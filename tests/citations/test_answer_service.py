"""The answer service and POST /api/answer over the indexed dev corpus: numbering, attached
citations, verbatim extractive answers, the refusal path (no writer called) and access."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from citations.services import answer as answer_service
from citations.services.answer import answer_question, refusal_text
from citations.writers.extractive import quoted_pieces
from documents.models import Chunk
from tests.citations.checks import assert_markers_map_to_citations
from tests.citations.fakes import FakeLLM, fake_openai_server, hit, result
from tests.conftest import dev_reader
from tests.corpus import dev_questions, normalise
from tests.factories import DocumentFactory, FolderFactory

pytestmark = pytest.mark.django_db


class WriterSpy:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        raise AssertionError("no writer may be asked when the gate refuses")


def test_refusal_calls_no_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = WriterSpy()
    monkeypatch.setattr(answer_service, "get_writer", spy)
    monkeypatch.setattr(
        answer_service, "search_chunks", lambda **kw: result(kw["query"], [], refused=True, threshold=0.55)
    )
    answer = answer_question(user=None, question="How do I bake sourdough bread?")
    assert spy.calls == 0
    assert answer.refused
    assert answer.writer is None
    assert answer.citations == []
    assert (answer.state, answer.reasons) == ("refused", ["too_far"])
    assert answer.text == (
        "No answer: No passage is close enough to the question: the nearest is at cosine distance 0.650, "
        "above the threshold 0.550. The library does not hold an answer."
    )


def test_refusal_for_a_reader_without_access_calls_no_writer(
    dev_corpus: dict[str, Any], monkeypatch: pytest.MonkeyPatch, user_factory: Any
) -> None:
    spy = WriterSpy()
    monkeypatch.setattr(answer_service, "get_writer", spy)
    outsider = user_factory(username="outsider")
    question = dev_questions()[0]["queries"][0]
    answer = answer_question(user=outsider, question=question)
    assert spy.calls == 0
    assert answer.refused
    assert answer.passages == []
    assert answer.reasons == ["nothing_to_search"]
    assert answer.text == refusal_text(answer.message)


def test_sources_are_numbered_and_attached_by_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    # The page link depends on the type hydration read with the hit (no second query for it).
    folder = FolderFactory(name="Private shelf")
    pdf = DocumentFactory(folder=folder, original_name="paper.pdf", content_type="application/pdf", text="pdf")
    note = DocumentFactory(folder=folder, original_name="notes.md", content_type="text/markdown", text="md")
    said = "Sentence {} says something about storage systems."
    hits = [hit(i, said.format(i), document_id=pdf.pk, content_type="application/pdf") for i in range(1, 4)]
    hits += [hit(i, said.format(i), document_id=note.pk, content_type="text/markdown") for i in range(4, 8)]
    monkeypatch.setattr(answer_service, "search_chunks", lambda **kw: result(kw["query"], hits))
    answer = answer_question(user=None, question="storage systems")
    assert [c.n for c in answer.citations] == [1, 2, 3, 4]  # ANSWER_TOP_SOURCES
    assert len(answer.passages) == 7
    assert answer.passages == hits  # the hits themselves, not copies
    first, fourth = answer.citations[0].hit, answer.citations[3].hit
    assert first is hits[0]
    assert first.url == f"/documents/{pdf.pk}/view#char={hits[0].char_start},{hits[0].char_end}"
    assert first.page_url == f"/documents/{pdf.pk}/pages/1?char={hits[0].char_start},{hits[0].char_end}#passage"
    assert first.file_url == f"/documents/{pdf.pk}/file#page=1"
    assert fourth.url == f"/documents/{note.pk}/view#char={hits[3].char_start},{hits[3].char_end}"
    assert fourth.page_url is None  # a Markdown document has no pages
    assert fourth.file_url == f"/documents/{note.pk}/file"


def test_extractive_answers_over_the_dev_corpus(dev_corpus: dict[str, Any]) -> None:
    reader = dev_reader()
    questions = dev_questions()
    answered = in_answer = 0
    for question in questions:
        answer = answer_question(user=reader, question=question["queries"][0])
        if answer.refused:
            continue
        answered += 1
        assert answer.writer == "extractive"
        assert not answer.uncited
        assert answer.removed_markers == []
        by_number = {c.n: c for c in answer.citations}
        for piece, n in quoted_pieces(answer.parts):
            # Verbatim, up to the single space that joins two adjacent sentences.
            assert " ".join(piece.split()) in " ".join(by_number[n].hit.content.split()), (question["id"], piece)
        for citation in (c.hit for c in answer.citations):
            chunk = Chunk.objects.select_related("document").get(pk=citation.chunk_id)
            assert citation.content == chunk.content
            assert citation.content == chunk.document.canonical_text[citation.char_start : citation.char_end]
            assert citation.url == f"/documents/{chunk.document_id}/view#char={chunk.char_start},{chunk.char_end}"
            assert citation.is_pdf == chunk.document.is_pdf
        in_answer += normalise(question["needle"]) in normalise(answer.text)
    print(f"\nextractive: {answered}/{len(questions)} answered, needle written in {in_answer}")
    assert answered >= len(questions) * 0.8
    assert in_answer >= answered * 0.5


def test_api_answer(dev_corpus: dict[str, Any]) -> None:
    from documents.services.tokens import token_create

    _token, raw = token_create(user=dev_reader())
    question = next(q for q in dev_questions() if q["doc"] == "dynamo-amazon-2007.pdf")
    client = Client()
    response = client.post(
        "/api/answer",
        {"question": question["queries"][0]},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) >= {"answer", "refused", "threshold", "writer", "uncited", "removed_markers", "citations"}
    assert body["refused"] is False
    assert body["writer"] == "extractive"
    # The extractive writer states the fact from the nearest passage (Dynamo's MD5 key hashing),
    # cited as source 1; a neighbouring sentence of another shown source may follow it.
    parts = body["parts"]
    md5_at = next(i for i, part in enumerate(parts) if "MD5" in part.get("text", ""))
    assert next(part["cite"] for part in parts[md5_at:] if "cite" in part) == 1
    cited = {part["cite"] for part in parts if "cite" in part}
    assert cited <= {c["n"] for c in body["citations"]}
    citation = body["citations"][0]
    chunk = Chunk.objects.get(
        document_id=citation["document_id"], char_start=citation["char_start"], char_end=citation["char_end"]
    )
    assert citation["quote"] == chunk.content
    assert citation["url"] == (
        f"http://testserver/documents/{chunk.document_id}/view#char={chunk.char_start},{chunk.char_end}"
    )
    assert citation["n"] == 1
    assert citation["page_start"] >= 1
    folder = chunk.document.folder
    assert citation["folder"] == {"id": folder.pk, "name": folder.name, "path": folder.name}
    document = {"id": chunk.document_id, "title": chunk.document.title, "folder": citation["folder"], "type": "pdf"}
    assert citation["document"] == document
    assert (citation["document_id"], citation["document_title"]) == (chunk.document_id, chunk.document.title)


def test_api_answer_refuses_a_folder_the_caller_cannot_read(dev_corpus: dict[str, Any], folder_factory: Any) -> None:
    from documents.services.tokens import token_create

    hidden = folder_factory(name="Hidden")
    _token, raw = token_create(user=dev_reader())
    response = Client().post(
        "/api/answer",
        {"question": "anything", "folder": hidden.pk},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status_code == 404
    assert response.json()["detail"] == f"Folder {hidden.pk} does not exist or you may not read it."


def test_api_answer_needs_a_token_for_post(dev_corpus: dict[str, Any]) -> None:
    response = Client().post("/api/answer", {"question": "x"}, content_type="application/json")
    assert response.status_code == 401


BIGTABLE_QUESTION = "In Bigtable, why can reads of rows or columns that do not exist usually avoid disk seeks?"
RELATED_WORK = "KDB+ [22]"  # in Bigtable's related-work sentence, next to "C-Store [1, 34]"


def ask_bigtable(settings: Any) -> dict[str, Any]:
    """POST the Bigtable question with enough sources (8) for the related-work passage to be one."""
    from documents.services.tokens import token_create

    settings.ANSWER_TOP_SOURCES = 8
    _token, raw = token_create(user=dev_reader())
    response = Client().post(
        "/api/answer",
        {"question": BIGTABLE_QUESTION},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    assert body["refused"] is False
    return body


def test_extractive_answer_escapes_the_papers_own_references(dev_corpus: dict[str, Any], settings: Any) -> None:
    body = ask_bigtable(settings)
    assert body["writer"] == "extractive"
    markers = assert_markers_map_to_citations(body)
    quoted = next(p["text"] for p in body["parts"] if RELATED_WORK in p.get("text", ""))
    assert "C-Store [1, 34]" in quoted  # the parts are verbatim
    n = next(c["n"] for c in body["citations"] if RELATED_WORK in c["quote"])
    assert n in markers
    assert "KDB+ ⟦22⟧" in body["answer"]
    assert "C-Store ⟦1, 34⟧" in body["answer"]


def test_model_reply_quoting_a_papers_reference_keeps_it_as_text(dev_corpus: dict[str, Any], settings: Any) -> None:
    extractive = ask_bigtable(settings)  # the same sources, numbered the same way, for writing the reply
    n = next(c["n"] for c in extractive["citations"] if RELATED_WORK in c["quote"])
    reply = (
        "Bloom filters mean most lookups for non-existent rows or columns do not touch disk [1]. "
        f"Column stores such as KDB+ [22] and C-Store [1, 34] see similar benefits [{n}]. It is fast [99]."
    )
    with fake_openai_server(FakeLLM(reply=reply)) as llm:
        settings.ANSWER_WRITER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", llm.base_url, "tiny"
        body = ask_bigtable(settings)
    assert body["writer"] == "openai"
    assert [c["quote"] for c in body["citations"]] == [c["quote"] for c in extractive["citations"]]
    assert assert_markers_map_to_citations(body) == [1, n]
    assert body["removed_markers"] == [99]  # invented, not quoted: no source holds "[99]"
    assert f"Column stores such as KDB+ ⟦22⟧ and C-Store ⟦1, 34⟧ see similar benefits [{n}]." in body["answer"]
    assert {"text": ". Column stores such as KDB+ [22] and C-Store [1, 34] see similar benefits "} in body["parts"]
    assert "KDB+ (ref. 22)" in json.dumps(llm.requests[0]["body"])  # how the model was shown the paper's [22]


def test_openapi_documents_parts_and_the_marker_rule(client: Client) -> None:
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    answer = schemas["AnswerOut"]["properties"]
    assert "Integrations should render from parts" in answer["parts"]["description"]
    assert [ref["$ref"].rsplit("/", 1)[1] for ref in answer["parts"]["items"]["anyOf"]] == [
        "AnswerTextPart",
        "AnswerCitePart",
    ]
    assert schemas["AnswerTextPart"]["required"] == ["text"]
    assert schemas["AnswerCitePart"]["required"] == ["cite"]
    assert "⟦22⟧" in answer["answer"]["description"]
