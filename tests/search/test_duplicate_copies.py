"""The same file in several folders takes one slot: each passage once, its other readable copies
listed in `also_in` (search, answer API and page), unreadable copies never named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from search.services.retrieval import search_chunks
from tests.conftest import bearer, ingest_file_inline
from tests.factories import FolderFactory, UserFactory

TEXT = (
    "Dynamo hashes every key with MD5 to place it on a ring of storage nodes.\n\n"
    "Each key is replicated on the next three nodes clockwise, its preference list."
)
OTHER = "Bigtable assigns each tablet to one tablet server at a time; the master tracks live servers."
QUESTION = "How does Dynamo place and replicate keys on the ring?"


@pytest.fixture
def copies(tmp_path: Path, memoised_pipeline: None) -> dict[str, Any]:
    reader = UserFactory(username="copy-reader")
    folders = {name: FolderFactory(name=name, readers=[reader]) for name in ("Team A", "Team B")}
    folders["Secret"] = FolderFactory(name="Secret")  # the reader may not read it
    path = tmp_path / "dynamo-notes.txt"
    path.write_text(TEXT)
    documents = {
        name: ingest_file_inline(path, folder, title=f"Dynamo notes ({name})") for name, folder in folders.items()
    }
    other = tmp_path / "bigtable.txt"
    other.write_text(OTHER)
    ingest_file_inline(other, folders["Team A"], title="Bigtable notes")
    return {"reader": reader, "folders": folders, "documents": documents}


@pytest.mark.django_db
def test_each_passage_takes_one_slot_and_lists_its_readable_copies(copies: dict[str, Any]) -> None:
    result = search_chunks(user=copies["reader"], query=QUESTION, k=10)
    keys = [(h.sha256, h.char_start, h.char_end) for h in result.hits]
    assert len(keys) == len(set(keys))
    dynamo = [h for h in result.hits if h.sha256 == copies["documents"]["Team A"].sha256]
    assert dynamo
    assert len(dynamo) == copies["documents"]["Team A"].chunk_count  # every passage, once
    first = dynamo[0]
    shown, other = ("Team A", "Team B") if first.folder_name == "Team A" else ("Team B", "Team A")
    assert [(o.document_id, o.folder_name) for o in first.also_in] == [(copies["documents"][other].pk, other)]
    assert all(o.folder_name != "Secret" for h in result.hits for o in h.also_in)
    assert shown in {"Team A", "Team B"}


@pytest.mark.django_db
def test_the_apis_and_the_page_list_the_other_copies(copies: dict[str, Any]) -> None:
    client = Client()
    headers = bearer(copies["reader"])
    search = client.get("/api/search", {"q": QUESTION}, **headers).json()
    top = search["items"][0]
    assert [o["document"]["folder"]["name"] for o in top["also_in"]] in (["Team A"], ["Team B"])
    assert top["also_in"][0]["document"]["folder"]["name"] != top["document"]["folder"]["name"]
    copy = top["also_in"][0]
    assert (copy["document_id"], copy["folder_id"], copy["folder"]) == (
        copy["document"]["id"], copy["document"]["folder"]["id"], copy["document"]["folder"],
    )  # deprecated fields, one release  # fmt: skip
    answer = client.post("/api/answer", {"question": QUESTION}, content_type="application/json", **headers).json()
    quotes = [c["quote"] for c in answer["citations"]]
    assert len(quotes) == len(set(quotes))
    assert answer["citations"][0]["also_in"][0]["document"]["folder"]["name"] in {"Team A", "Team B"}
    assert answer["citations"][0]["also_in"] == top["also_in"]  # one shape in both APIs
    client.force_login(copies["reader"])
    page = client.get("/", {"q": QUESTION}).content.decode()
    assert "Also in" in page
    assert "Secret" not in page
