"""Filtered searches beside the unfiltered ones, on the benchmark's own library.

Two tags are put on the benchmark folder's documents, in id order: `bench-rare` on one document
in a thousand (at least one) and `bench-half` on every second one. Each query is then searched
three ways in the same pass — no filter, `tag=bench-rare`, `tag=bench-half` — the way the search
page does it: `search.services.scope.search_scope` resolves the filter to allowed documents (its
queries are timed with the search), `retrieve` ranks under that scope, and `facet_counts`
counts the found documents (timed apart). Every hit must belong to an allowed document; a
filtered search that returned a hit outside its filter would be a wrong result, not a slow one,
and stops the benchmark.
"""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from bench.searches import percentiles
from documents.filters import parse_filters
from documents.models import Document, Tag
from search.services.facets import facet_counts
from search.services.retrieval import retrieve
from search.services.scope import search_scope

STAGES = ("scope", "dense", "bm25", "distances", "mend", "terms", "hydrate")
CASES = {"none": None, "rare (0.1 % of documents)": "bench-rare", "half (50 % of documents)": "bench-half"}


def tag_documents(folder_ids: list[int]) -> dict[str, int]:
    """Tag the benchmark's documents as they are now (again at every size); how many carry each tag."""
    ids = list(Document.objects.filter(folder_id__in=folder_ids).order_by("pk").values_list("pk", flat=True))
    rare = max(1, len(ids) // 1000)
    chosen = {"bench-rare": ids[:: len(ids) // rare][:rare], "bench-half": ids[::2]}
    through = Document.tags.through
    with transaction.atomic():
        for name, documents in chosen.items():
            tag, _ = Tag.objects.get_or_create(name=name)
            through.objects.filter(tag=tag).delete()
            through.objects.bulk_create([through(document_id=pk, tag_id=tag.pk) for pk in documents])
    return {name: Tag.objects.get(name=name).documents.count() for name in chosen}


def time_filtered(queries: list[str], folder_ids: list[int], rounds: int) -> dict[str, Any]:
    """Per case: search (scope + retrieve) and facet milliseconds, hits, and documents allowed."""
    tagged = tag_documents(folder_ids)
    user = get_user_model().objects.filter(username="bench-reader").first()
    user = user or get_user_model().objects.create_user(username="bench-reader", is_staff=True)
    samples: dict[str, dict[str, list[float]]] = {case: {"search": [], "facets": [], "hits": []} for case in CASES}
    stages: dict[str, dict[str, list[float]]] = {case: {} for case in CASES}
    allowed: dict[str, int] = {}
    for tag in CASES.values():  # warm each case's plans once
        if _search(user, queries[0], tag)[3] == 0:
            raise AssertionError(f"tag={tag} allows no document: a benchmark of nothing (are its documents indexed?)")
    for _ in range(rounds):
        for text in queries:
            for case, tag in CASES.items():
                search_ms, facets_ms, hits, documents, timings = _search(user, text, tag)
                for stage in STAGES:
                    stages[case].setdefault(stage, []).append(timings.get(stage, 0.0))
                samples[case]["search"].append(search_ms)
                samples[case]["facets"].append(facets_ms)
                samples[case]["hits"].append(float(hits))
                allowed[case] = documents
    return {
        "tagged_documents": tagged,
        "cases": {
            case: {
                "allowed_documents": allowed[case],
                "search": percentiles(s["search"]),
                "facets": percentiles(s["facets"]),
                "searches_with_hits": sum(1 for h in s["hits"] if h) / len(s["hits"]),
                "stages": {stage: percentiles(v) for stage, v in stages[case].items()},
            }
            for case, s in samples.items()
        },
    }


def _search(user: Any, text: str, tag: str | None) -> tuple[float, float, int, int, dict[str, float]]:
    started = time.perf_counter()
    scope = search_scope(user, parse_filters(lambda name: [tag] if tag and name == "tag" else []))
    scoped = time.perf_counter()
    result = retrieve(query=text, folder_ids=scope.folder_ids, k=10, scope=scope)
    searched = time.perf_counter()
    facet_counts(user=user, chunk_ids=result.candidates, folder_ids=scope.folder_ids)
    counted = time.perf_counter()
    if scope.documents is not None:
        allowed = set(scope.documents)
        stray = [hit.document_id for hit in result.hits if hit.document_id not in allowed]
        if stray:
            raise AssertionError(f"filter tag={tag} returned documents outside it: {stray[:5]}")
    documents = len(scope.documents) if scope.documents is not None else -1
    timings = result.timings_ms | {"scope": (scoped - started) * 1000}
    return (searched - started) * 1000, (counted - searched) * 1000, len(result.hits), documents, timings
