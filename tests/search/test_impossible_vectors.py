"""Chunks whose vectors have no direction (all zeros) or overflow float32 (3e38 in every place).

The import refuses them (tests/documents/test_backup_hostile.py); a library that holds some
anyway (imported before that check) still never shows a NaN: pgvector measures NaN for them,
such a chunk is no one's neighbour (a question only it answers is refused), and the API's JSON
stays JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from django.conf import settings

from documents.models import Chunk, Folder
from ragsite.api import api, error

pytestmark = pytest.mark.django_db

RING = "Dynamo hashes every key with MD5 to place it on the ring"
LOG = "A log-structured merge tree writes sorted runs and compacts them"


def strict_json(body: bytes) -> Any:
    """The body as a strict parser reads it: NaN and Infinity are not JSON."""

    def refuse(token: str) -> Any:
        raise AssertionError(f"the body holds {token}, which is not JSON: {body[:300]!r}")

    return json.loads(body, parse_constant=refuse)


@pytest.fixture(params=[0.0, 3e38], ids=["zero-vectors", "overflowing-vectors"])
def impossible_folder(request: Any, small_folder: Folder) -> Folder:
    """Every vector of the folder impossible, as after importing an export of zeros or of 3e38."""
    Chunk.objects.filter(document__folder=small_folder).update(embedding=[request.param] * settings.EMBEDDING_DIMS)
    return small_folder


@pytest.mark.parametrize("query", [RING, LOG])
def test_search_api_answers_strict_json_without_a_nan_distance(client: Any, impossible_folder: Folder, query: str):
    response = client.get("/api/search", {"q": query, "folder": impossible_folder.pk})

    assert response.status_code == 200, response.content
    body = strict_json(response.content)
    # No passage has a real distance: nothing is close enough to answer.
    assert body["state"] == "refused", body
    assert body["best_distance"] is None or math.isfinite(body["best_distance"])
    assert all(hit["distance"] is None or math.isfinite(hit["distance"]) for hit in body["items"])


@pytest.mark.parametrize("query", [RING, LOG])
def test_search_page_refuses_rather_than_answer_on_a_nan_distance(
    client: Any, impossible_folder: Folder, query: str
) -> None:
    response = client.get("/", {"q": query, "folder": impossible_folder.pk})

    assert response.status_code == 200
    page = response.content.decode()
    # Refused, as the API is: a refusal, or the documents holding the words under the line that no
    # passage answers them.
    assert any(said in page for said in ("No passage is close enough", "Nothing to search", "No passage answers this"))
    assert "distance nan" not in page.lower()


def test_the_api_never_writes_nan_or_infinity(rf: Any) -> None:
    request = rf.get("/api/search")
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match="JSON compliant"):
            api.renderer.render(request, {"best_distance": value}, response_status=200)
        with pytest.raises(ValueError, match="JSON compliant"):
            error(500, "failed", best_distance=value)
