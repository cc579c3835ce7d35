"""After a bulk load, create_search_indexes completes the keyword index from the stored chunks:
every block of packed postings, the folder lengths folded to one row per folder, the indexes back."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from documents.bulk_indexes import REBUILT_INDEXES, create_search_indexes, drop_search_indexes
from documents.lexical.models import FolderLength, LexemeBlock
from tests.conftest import ingest_text
from tests.factories import FolderFactory
from tests.search.bm25_oracle import packed_postings, vector_postings
from tests.search.test_folder_lengths import assert_lengths_agree

pytestmark = pytest.mark.django_db(transaction=True)  # VACUUM runs outside a transaction


def test_create_search_indexes_rebuilds_the_keyword_index_a_load_deferred(
    tmp_path: Path, memoised_pipeline: None
) -> None:
    folder = FolderFactory(name="Loaded")
    ingest_text(tmp_path, folder, "Ring", "Dynamo places keys on a consistent hashing ring.\n" * 40)
    ingest_text(tmp_path, folder, "Gossip", "Nodes gossip about membership and failures.\n" * 40)
    expected = vector_postings([folder.pk])
    ddl = drop_search_indexes()
    LexemeBlock.objects.all().delete()  # as a load that defers the packed postings leaves them
    assert set(ddl) == set(REBUILT_INDEXES)

    seconds = create_search_indexes(ddl)

    assert packed_postings([folder.pk]) == expected
    assert_lengths_agree()
    assert FolderLength.objects.filter(folder_id=folder.pk).count() == 1
    assert set(REBUILT_INDEXES) | {"packed postings"} <= set(seconds)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_indexes WHERE indexname = ANY(%s)", [list(REBUILT_INDEXES)])
        assert cursor.fetchone() == (len(REBUILT_INDEXES),)
