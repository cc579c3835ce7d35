"""Shared cases for the BM25 leg's tests: a small folder beside the dev corpus, folder mixes,
random queries, and the comparison with the oracle (tests/search/bm25_oracle.py)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from tests.conftest import ingest_file_inline
from tests.corpus import dev_questions
from tests.factories import FolderFactory

SMALL_TEXTS = {
    "Ring notes": "Dynamo hashes every key with MD5 to place it on the ring. Replicas hold the key too.\n\n"
    "Vector clocks order versions; a quorum of replicas answers reads and writes.",
    "Log notes": "A log-structured merge tree writes sorted runs and compacts them. Bloom filters skip runs.",
    "Short": "Consistency, availability, partitions: pick what the workload needs.",
    # The parser reads each path as one lexeme; the index adds its last component ("sources.list").
    "Apt notes": "Mirrors are listed in /etc/apt/sources.list and mounts in /etc/fstab. "
    "Every install is logged to /var/log/dpkg.log.",
}
# Questions naming a file that the small folder writes only inside a path.
FILE_NAME_QUESTIONS = ["sources.list", "Which mounts does fstab hold?", "dpkg.log install", "/etc/apt/sources.list"]


@pytest.fixture
def small_folder(tmp_path: Path, memoised_pipeline: None) -> Any:
    folder = FolderFactory(name="Small public folder", is_public=True)
    for title, text in SMALL_TEXTS.items():
        path = tmp_path / f"{title.replace(' ', '-').lower()}.txt"
        path.write_text(text + "\n")
        ingest_file_inline(path, folder, title=title)
    return folder


def assert_same_top(got: list[tuple[int, float]], want: list[tuple[int, float]], label: str) -> None:
    """Same ids in the same order, scores within 1e-6.

    Only mathematically tied scores (duplicate text) may swap places: the leg and the oracle sum
    a chunk's terms in different orders, which can move a tie by one rounding step.
    """
    assert len(got) == len(want), label
    want_scores = dict(want)
    for (got_id, got_score), (want_id, want_score) in zip(got, want, strict=True):
        assert got_score == pytest.approx(want_score, abs=1e-6), label
        if got_id != want_id:
            assert abs(got_score - want_score) < 1e-9, (label, got, want)
            assert got_id not in want_scores or abs(want_scores[got_id] - got_score) < 1e-9, (label, got, want)


def random_queries(count: int, seed: int) -> list[str]:
    """Queries of 1–12 words drawn from the indexed vocabulary, rare and common words alike."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT u.lexeme FROM documents_chunk AS c CROSS JOIN LATERAL unnest(c.search_vector) AS u"
            " GROUP BY u.lexeme ORDER BY count(*) DESC, u.lexeme"
        )
        vocabulary = [row[0] for row in cursor.fetchall()]
    rng = random.Random(seed)
    common = vocabulary[:300]
    queries = []
    for _ in range(count):
        words = rng.sample(vocabulary, rng.randint(0, 6)) + rng.sample(common, rng.randint(1, 6))
        queries.append(" ".join(words))
    return queries


def phrasings() -> list[str]:
    return [q for question in dev_questions() for q in question["queries"]]


def folder_mixes(dev_corpus: dict[str, Any], small_folder: Any) -> dict[str, list[int]]:
    dev = next(iter(dev_corpus.values())).folder_id
    empty = FolderFactory(name="Empty folder")
    return {
        "library": [dev],
        "one small folder of the library": [small_folder.pk],
        "library + small folder": [dev, small_folder.pk],
        "small folder + an empty one": [small_folder.pk, empty.pk],
    }
