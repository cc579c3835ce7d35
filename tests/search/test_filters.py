"""Document filters in both legs, against an oracle: exact brute force, filtered in Python.

The oracle reads every readable chunk (vectors and lexemes) and ranks them itself: cosine
distance with numpy for the dense leg, Okapi BM25 from the chunks' own lexemes for the lexical
leg, with N, avgdl and df over every readable folder (a filter must not change a score), and
only then keeps the allowed documents' chunks. Each leg must return the oracle's top k under
each filter, among them a filter matching one document of the library, for which the leg must
still return that document's passages, however far down the whole library they would rank.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from django.db import connection
from django.http import QueryDict

from documents.filters import FilterError, Filters, parse_filters
from documents.lexical.index import K1, B
from documents.models import Chunk, Document, Tag
from search.services.bm25_packed import bm25_packed
from search.services.dense import dense_candidates
from search.services.query_embedding import embed_query, vector_literal
from search.services.retrieval import FILTER_MATCHES_NOTHING, search_chunks
from search.services.scope import search_scope
from tests.conftest import dev_reader
from tests.factories import FolderFactory
from tests.search.bm25_cases import assert_same_top
from tests.search.bm25_oracle import oracle_configs, oracle_lexemes

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

QUERIES = [
    "How does Dynamo use vector clocks to reconcile divergent versions?",
    "leader election randomized timeouts",
    "PromQL binary operators vector matching",
    "JSON number grammar",
]


def _by_name(dev_corpus: dict[str, Any], stem: str) -> Document:
    return next(d for name, d in dev_corpus.items() if name.startswith(stem))


@pytest.fixture
def described(dev_corpus: dict[str, Any]) -> dict[str, Any]:
    """Metadata on the dev corpus (rolled back after each test): tags, authors, dates."""
    systems, spec = Tag.objects.create(name="Systems"), Tag.objects.create(name="Spec")
    dated = {
        "dynamo-amazon-2007": (dt.date(2007, 10, 14), ["Giuseppe DeCandia", "Werner Vogels"], [systems]),
        "raft-consensus-2014": (dt.date(2014, 6, 19), ["Diego Ongaro", "John Ousterhout"], [systems]),
        "bigtable-google-2006": (dt.date(2006, 11, 6), ["Fay Chang"], [systems]),
        "ecma-404-json-spec-2013": (dt.date(2013, 10, 1), ["Ecma International"], [spec]),
    }
    for stem, (published, authors, tags) in dated.items():
        document = _by_name(dev_corpus, stem)
        Document.objects.filter(pk=document.pk).update(published=published, authors=authors)
        document.tags.set(tags)
    return {"systems": systems, "spec": spec, "dynamo": _by_name(dev_corpus, "dynamo-amazon-2007")}


def _filters(**params: str | list[str]) -> Filters:
    query = QueryDict(mutable=True)
    for name, value in params.items():
        query.setlist(name, value if isinstance(value, list) else [value])
    return parse_filters(query.getlist)


def filter_cases(dev_corpus: dict[str, Any], described: dict[str, Any]) -> dict[str, Filters]:
    folder = next(iter(dev_corpus.values())).folder_id
    return {
        "folder": _filters(folder=str(folder)),
        "type pdf": _filters(type="pdf"),
        "type markdown": _filters(type="markdown"),
        "tag": _filters(tag="systems"),
        "two tags": _filters(tag=["Systems", "spec"]),
        "author": _filters(author="diego ongaro"),
        "date range": _filters(**{"from": "2006", "to": "2008-12-31"}),
        "from only": _filters(**{"from": "2013-01-01"}),
        # One document of the library: the JSON spec, far from most of the questions.
        "one document": _filters(document=str(_by_name(dev_corpus, "ecma-404-json-spec-2013").pk)),
        "tag and type and year": _filters(tag="systems", type="pdf", to="2010"),
    }


# --- the oracle --------------------------------------------------------------------------------


def _readable_chunks(folder_ids: list[int]) -> list[Chunk]:
    return list(
        Chunk.objects.filter(document__folder_id__in=folder_ids, embedding__isnull=False)
        .select_related("document")
        .order_by("id")
    )


def oracle_dense(vector: np.ndarray, chunks: list[Chunk], allowed: set[int], limit: int) -> list[tuple[int, float]]:
    query = vector / np.linalg.norm(vector)
    scored = []
    for chunk in chunks:
        if chunk.document_id not in allowed:
            continue
        emb = np.asarray(chunk.embedding, dtype=np.float64)
        scored.append((chunk.id, 1.0 - float(emb @ query) / float(np.linalg.norm(emb))))
    return sorted(scored, key=lambda row: (row[1], row[0]))[:limit]


def _lexemes(folder_ids: list[int]) -> dict[int, dict[str, int]]:
    """chunk id -> {lexeme: tf} for every readable chunk, from its own search_vector."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1)
                 FROM documents_chunk AS c JOIN documents_document AS d ON d.id = c.document_id
                CROSS JOIN LATERAL unnest(c.search_vector) AS u
                WHERE d.folder_id = ANY(%s)""",
            [folder_ids],
        )
        postings: dict[int, dict[str, int]] = defaultdict(dict)
        for chunk_id, lexeme, tf in cursor.fetchall():
            postings[chunk_id][lexeme] = tf
    return postings


def oracle_bm25(
    query: str, folder_ids: list[int], chunks: list[Chunk], allowed: set[int], limit: int
) -> list[tuple[int, float]]:
    terms = sorted(oracle_lexemes(query, folder_ids))  # the leg is handed the text as is
    postings = _lexemes(folder_ids)
    lengths = {c.id: c.lexeme_count for c in chunks}
    n = len(lengths)
    avgdl = sum(lengths.values()) / n
    scores: dict[int, float] = {}
    for term in terms:  # statistics over every readable chunk: the filter plays no part here
        holders = [cid for cid, tfs in postings.items() if term in tfs]
        idf = math.log(1 + (n - len(holders) + 0.5) / (len(holders) + 0.5))
        for cid in holders:
            tf, dl = postings[cid][term], lengths[cid]
            scores[cid] = scores.get(cid, 0.0) + idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
    document_of = {c.id: c.document_id for c in chunks}
    kept = [(cid, s) for cid, s in scores.items() if document_of[cid] in allowed]
    return sorted(kept, key=lambda row: (-row[1], row[0]))[:limit]


# --- the legs against the oracle ---------------------------------------------------------------


@pytest.mark.parametrize("exact_max", [10_000, 0], ids=["exact scan", "hnsw iterative scan"])
def test_dense_leg_equals_brute_force_under_every_filter(
    dev_corpus: dict[str, Any], described: dict[str, Any], settings: Any, exact_max: int
) -> None:
    settings.SEARCH_FILTER_EXACT_MAX_CHUNKS = exact_max
    user = dev_reader()
    chunks = None
    for label, filters in filter_cases(dev_corpus, described).items():
        scope = search_scope(user, filters)
        assert scope.documents, label
        chunks = chunks or _readable_chunks(scope.folder_ids)
        for text in QUERIES:
            vector = embed_query(text)[0]
            got = dense_candidates(vector_literal(vector), scope.folder_ids, 20, scope.documents, scope.chunk_count)
            want = oracle_dense(np.asarray(vector, dtype=np.float64), chunks, set(scope.documents), 20)
            assert [pk for pk, _ in got] == [pk for pk, _ in want], f"{label}: {text}"
            assert np.allclose([d for _, d in got], [d for _, d in want], atol=1e-5), label


def test_bm25_leg_equals_the_oracle_under_every_filter_and_scores_do_not_move(
    dev_corpus: dict[str, Any], described: dict[str, Any]
) -> None:
    user = dev_reader()
    unfiltered = search_scope(user, None)
    chunks = _readable_chunks(unfiltered.folder_ids)
    for label, filters in filter_cases(dev_corpus, described).items():
        scope = search_scope(user, filters)
        for text in QUERIES:
            got = bm25_packed(
                text, scope.folder_ids, 20, scope.documents, scope.chunk_count, configs=oracle_configs(scope.folder_ids)
            ).hits
            want = oracle_bm25(text, scope.folder_ids, chunks, set(scope.documents or []), 20)
            assert_same_top(got, want, f"{label}: {text}")
    # Unfiltered, the same oracle agrees too; and a chunk's score is one number, filter or not.
    everything = {c.document_id for c in chunks}
    for text in QUERIES:
        whole = bm25_packed(text, unfiltered.folder_ids, 1000, configs=oracle_configs(unfiltered.folder_ids)).hits
        assert_same_top(whole, oracle_bm25(text, unfiltered.folder_ids, chunks, everything, 1000), text)
        one = search_scope(user, _filters(type="markdown"))
        scores = dict(whole)
        for pk, score in bm25_packed(
            text, one.folder_ids, 50, one.documents, one.chunk_count, configs=oracle_configs(one.folder_ids)
        ).hits:
            assert score == pytest.approx(scores[pk], abs=1e-9)


def test_a_filter_matching_one_document_still_returns_its_passages(
    dev_corpus: dict[str, Any], described: dict[str, Any]
) -> None:
    user = dev_reader()
    spec = _by_name(dev_corpus, "ecma-404-json-spec-2013")
    question = QUERIES[0]  # about Dynamo: the JSON spec is nowhere near the top of the library
    unfiltered = search_chunks(user=user, query=question, k=10)
    assert spec.pk not in {h.document_id for h in unfiltered.hits}
    for mode in ("hybrid", "dense", "bm25"):
        result = search_chunks(user=user, query=question, k=10, mode=mode, filters=_filters(document=str(spec.pk)))
        assert result.filtered
        assert result.filter_matches == 1
        assert {h.document_id for h in result.hits} <= {spec.pk}, mode
        assert result.candidates, mode
        assert set(Chunk.objects.filter(pk__in=result.candidates).values_list("document_id", flat=True)) == {spec.pk}
    # The gate judges the filtered passages: the nearest one is the spec's, not Dynamo's.
    dense = search_chunks(user=user, query=question, k=10, mode="dense", filters=_filters(document=str(spec.pk)))
    assert dense.best_distance is not None
    assert unfiltered.best_distance is not None
    assert dense.best_distance > unfiltered.best_distance


def test_hybrid_hits_keep_to_every_filter(dev_corpus: dict[str, Any], described: dict[str, Any]) -> None:
    user = dev_reader()
    for label, filters in filter_cases(dev_corpus, described).items():
        allowed = set(search_scope(user, filters).documents or [])
        for text in QUERIES[:2]:
            result = search_chunks(user=user, query=text, k=20, filters=filters, facets=True)
            candidates = Chunk.objects.filter(pk__in=result.candidates).values_list("document_id", flat=True)
            assert set(candidates) <= allowed, label
            assert {h.document_id for h in result.hits} <= allowed, label
            assert result.facets is not None, label
            assert result.facets.documents == len(set(candidates)), label


def test_a_filter_matching_nothing_says_so_and_searches_nothing(
    dev_corpus: dict[str, Any], described: dict[str, Any]
) -> None:
    user = dev_reader()
    for filters in (_filters(author="Nobody At All"), _filters(tag="spec", type="markdown"), _filters(to="1900")):
        result = search_chunks(user=user, query=QUERIES[0], filters=filters, facets=True)
        assert result.filter_matches == 0
        assert result.refused
        assert not result.hits
        assert not result.candidates
        assert result.message == FILTER_MATCHES_NOTHING
        assert result.facets is not None
        assert result.facets.documents == 0
    empty = FolderFactory(name="Nothing indexed here", is_public=True)
    result = search_chunks(user=user, query=QUERIES[0], filters=_filters(folder=str(empty.pk)))
    assert result.filter_matches == 0
    assert not result.hits


def test_facets_count_the_documents_found(dev_corpus: dict[str, Any], described: dict[str, Any]) -> None:
    user = dev_reader()
    result = search_chunks(user=user, query="vector clocks replicas consistency", k=20, facets=True)
    facets = result.facets
    assert facets is not None
    found = set(Chunk.objects.filter(pk__in=result.candidates).values_list("document_id", flat=True))
    documents = Document.objects.filter(pk__in=found)
    assert facets.documents == len(found)
    types = {f.value: f.count for f in facets.type}
    assert sum(types.values()) == len(found)
    assert types.get("pdf", 0) == documents.filter(content_type="application/pdf").count()
    years = {f.value: f.count for f in facets.year}
    assert sum(years.values()) == documents.filter(published__isnull=False).count()
    tags = {f.value: f.count for f in facets.tag}
    assert tags.get("Systems", 0) == documents.filter(tags=described["systems"]).count()
    (folder,) = facets.folder
    assert (folder.count == len(found) and folder.label == "Dev corpus") or folder.label


def test_parse_filters_refuses_what_names_nothing(described: dict[str, Any]) -> None:
    bad = {
        "type": "exe",
        "from": "2024-13-01",
        "to": "yesterday",
        "folder": "abc",
        "document": "-1",
    }
    for name, value in bad.items():
        with pytest.raises(FilterError) as caught:
            _filters(**{name: value})
        assert repr(value) in caught.value.message or value in caught.value.message, name
    with pytest.raises(FilterError, match="after"):
        _filters(**{"from": "2010", "to": "2009"})
    parsed = _filters(
        type=["PDF", "pdf"], tag=["SYSTEMS", "systems"], author=" Werner Vogels ", to="2008-02", folder=""
    )
    assert parsed.types == ("pdf",)
    assert parsed.tag_names == ("SYSTEMS",)  # as given: a name is never looked up (no oracle)
    assert parsed.tags == ("systems",)
    assert parsed.authors == ("Werner Vogels",)
    assert parsed.date_to == dt.date(2008, 2, 29)
    assert parsed.folder is None
    assert ("tag", "SYSTEMS") in parsed.params()
    assert _filters(tag="no such tag").tags == ("no such tag",)  # matches nothing, refused by no one
    assert ("to", "2008-02-29") in parsed.params()
