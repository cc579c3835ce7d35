"""The BM25 leg: parity with a plain-Python BM25 and with the oracle, needles of lexical questions, odd input."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from documents.lexical.index import K1, B
from search.services.bm25_packed import bm25_packed
from search.services.retrieval import retrieve
from tests.conftest import ingest_file_inline
from tests.corpus import dev_questions, normalise
from tests.factories import FolderFactory
from tests.search.bm25_oracle import bm25_oracle, oracle_configs, packed_postings_of_chunks

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]


class PythonBM25:
    """BM25 over the same stored lexemes (read with SQL `unnest`), computed in Python.

    N, n(t) and the chunk lengths are recounted from the chunks themselves, so parity also
    checks that the stored statistics (chunk_count, lexeme_total, the packed rows' counts) are right.
    """

    def __init__(self, folder_ids: list[int]) -> None:
        self.tf: dict[int, Counter[str]] = {}
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1)
                     FROM documents_chunk c JOIN documents_document d ON d.id = c.document_id
                     LEFT JOIN LATERAL unnest(c.search_vector) u ON true
                    WHERE d.folder_id = ANY(%s)""",
                [folder_ids],
            )
            for chunk_id, lexeme, tf in cursor.fetchall():
                counts = self.tf.setdefault(chunk_id, Counter())
                if lexeme is not None:
                    counts[lexeme] = tf
        self.n_chunks = len(self.tf)
        self.dl = {pk: sum(c.values()) for pk, c in self.tf.items()}
        self.avgdl = sum(self.dl.values()) / self.n_chunks
        self.df: Counter[str] = Counter(lex for c in self.tf.values() for lex in c)

    def idf(self, lexeme: str) -> float:
        n = self.df[lexeme]
        return math.log(1 + (self.n_chunks - n + 0.5) / (n + 0.5))

    def scores(self, lexemes: list[str]) -> dict[int, float]:
        result: dict[int, float] = {}
        for pk, counts in self.tf.items():
            terms = [t for t in lexemes if t in counts]
            if not terms:
                continue
            norm = K1 * (1 - B + B * self.dl[pk] / self.avgdl)
            result[pk] = sum(self.idf(t) * counts[t] * (K1 + 1) / (counts[t] + norm) for t in terms)
        return result


def query_lexemes(text: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme FROM unnest(to_tsvector('english', %s))", [text])
        return [row[0] for row in cursor.fetchall()]


def dev_folder_id(dev_corpus: dict[str, Any]) -> int:
    return next(iter(dev_corpus.values())).folder_id


def all_phrasings() -> list[str]:
    return [q for question in dev_questions() for q in question["queries"]]


def test_packed_bm25_and_the_oracle_equal_python_bm25_on_dev_questions(dev_corpus: dict[str, Any]) -> None:
    folder_id = dev_folder_id(dev_corpus)
    reference = PythonBM25([folder_id])
    phrasings = all_phrasings()
    assert len(phrasings) >= 50
    for text in phrasings:
        expected = reference.scores(query_lexemes(text))
        top = sorted(expected.items(), key=lambda item: (-item[1], item[0]))[:20]
        for got in (
            bm25_packed(text, [folder_id], 20, configs=oracle_configs([folder_id])).hits,
            bm25_oracle(text, [folder_id], 20),
        ):
            assert len(got) == len(top), text
            for (got_id, got_score), (want_id, want_score) in zip(got, top, strict=True):
                assert got_score == pytest.approx(expected[got_id], abs=1e-6), text
                # Same order; only mathematically tied scores may come out in either order.
                assert got_id == want_id or abs(got_score - want_score) < 1e-9, (text, got, top)


def test_statistics_are_sums_over_the_readable_documents(dev_corpus: dict[str, Any]) -> None:
    folder_id = dev_folder_id(dev_corpus)
    reference = PythonBM25([folder_id])
    documents = list(dev_corpus.values())
    assert sum(d.chunk_count for d in documents) == reference.n_chunks
    assert sum(d.lexeme_total for d in documents) == sum(reference.dl.values())


def test_every_lexical_question_finds_its_needle_in_bm25_top_20(dev_corpus: dict[str, Any]) -> None:
    folder_id = dev_folder_id(dev_corpus)
    report, missing = [], []
    for question in (q for q in dev_questions() if q["kind"] == "lexical"):
        needle = normalise(question["needle"])
        found_any = False
        for text in question["queries"]:
            result = retrieve(query=text, folder_ids=[folder_id], k=20, mode="bm25")
            ranks = [i for i, hit in enumerate(result.hits, start=1) if needle in normalise(hit.content)]
            report.append(f"{question['id']} rank={ranks[0] if ranks else '-':>2} {text}")
            found_any |= bool(ranks)
        if not found_any:
            missing.append(question["id"])
    print("\nBM25 top-20 needle rank per phrasing:\n" + "\n".join(report))
    assert not missing, f"lexical questions whose needle no phrasing finds in BM25 top 20: {missing}"


@pytest.fixture
def identifier_folder(tmp_path: Path, memoised_pipeline: None) -> Any:
    folder = FolderFactory(name="Identifiers")
    path = tmp_path / "identifiers.txt"
    path.write_text(
        "Incident notes\n\n"
        "The importer stopped with error TS-999 after the upload limit of 64KB was reached.\n"
        "Checksums use MD5 for legacy reasons. Only 0.00057% of requests were affected.\n\n"
        "Unrelated paragraph about gardening, tomatoes, watering schedules and compost.\n"
    )
    ingest_file_inline(path, folder, title="Incident notes")
    other = tmp_path / "other.txt"
    other.write_text("A distractor about error handling in general and requests that succeed.\n")
    ingest_file_inline(other, folder, title="Distractor")
    return folder


@pytest.mark.parametrize("identifier", ["TS-999", "64KB", "MD5", "0.00057%", "ts-999", "md5"])
def test_identifiers_are_found_by_bm25(identifier_folder: Any, identifier: str) -> None:
    result = retrieve(query=identifier, folder_ids=[identifier_folder.pk], k=5, mode="bm25")
    assert result.hits, identifier
    assert result.hits[0].document_title == "Incident notes"
    assert identifier.upper().rstrip("%") in result.hits[0].content.upper()


WEIRD_INPUTS = [
    "",
    "   ",
    "the and of a",
    "'",
    "''",
    "\\",
    "\\'",
    "a:*",
    ":*",
    "foo & bar | !baz (qux)",
    "&|!()<->",
    "!!!",
    "'; DROP TABLE documents_chunk; --",
    "\x00hash\x00",
    "\x00",
    "%s %(query)s {a}",
    "hash " * 2000,  # 10 kB
    "é ü 中文 🚀",
    "http://example.org/a'b\\c",
]


@pytest.mark.parametrize("text", WEIRD_INPUTS)
def test_arbitrary_input_never_errors(dev_corpus: dict[str, Any], text: str) -> None:
    folder_id = dev_folder_id(dev_corpus)
    bm25_packed(text.replace("\x00", ""), [folder_id], 20, configs=oracle_configs([folder_id])).hits
    for mode in ("bm25", "hybrid"):
        result = retrieve(query=text, folder_ids=[folder_id], k=5, mode=mode)
        assert isinstance(result.hits, list)


def test_query_without_lexemes_gives_an_empty_leg(dev_corpus: dict[str, Any]) -> None:
    folder_id = dev_folder_id(dev_corpus)
    assert bm25_packed("the and of", [folder_id], 20, configs=oracle_configs([folder_id])).hits == []
    assert bm25_packed("'\\:*&|!()", [folder_id], 20, configs=oracle_configs([folder_id])).hits == []


def _postings(document_id: int) -> set[tuple[Any, ...]]:
    """The document's postings as the packed rows hold them: (chunk, lexeme, tf, dl)."""
    from documents.models import Chunk

    chunk_ids = list(Chunk.objects.filter(document_id=document_id).values_list("pk", flat=True))
    return {p[1:] for p in packed_postings_of_chunks(chunk_ids)}


def _postings_from_vectors(document_id: int) -> set[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1), c.lexeme_count
                 FROM documents_chunk c, unnest(c.search_vector) u WHERE c.document_id = %s""",
            [document_id],
        )
        return {tuple(row) for row in cursor.fetchall()}


def test_postings_follow_reingest_and_delete(identifier_folder: Any) -> None:
    from documents.models import Document
    from documents.services.ingest import document_ingest

    document = Document.objects.get(folder=identifier_folder, title="Incident notes")
    before = _postings(document.pk)
    assert before
    assert before == _postings_from_vectors(document.pk)
    document_ingest(document.pk)  # replaces the chunks: new chunk ids, same lexemes
    after = _postings(document.pk)
    assert after == _postings_from_vectors(document.pk)
    assert {p[1:] for p in after} == {p[1:] for p in before}
    assert not {p[0] for p in after} & {p[0] for p in before}
    chunk_ids = [p[0] for p in after]
    document.delete()
    assert packed_postings_of_chunks(chunk_ids) == set()
