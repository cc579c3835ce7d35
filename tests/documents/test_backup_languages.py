"""A restored library reads each document in its language: the import derives the languages from
the chunks' text, as ingestion does, before it rebuilds the keyword index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from documents.models import Chunk, Document
from tests.conftest import ingest_text
from tests.documents.backup_library import library_wipe
from tests.factories import FolderFactory

pytestmark = pytest.mark.django_db(transaction=True)

PORTUGUESE = (
    "A ligação ao servidor de base de dados é aberta quando o primeiro pedido chega. Uma ligação que "
    "fica parada mais tempo do que o limite é fechada pelo servidor e aberta de novo no pedido seguinte. "
    "O número máximo de ligações abertas ao mesmo tempo é definido no ficheiro de configuração do "
    "servidor, e cada ligação guarda a memória que os seus pedidos usam até ser fechada."
)


def _stems(document: Document) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT u.lexeme FROM documents_chunk AS c, unnest(c.search_vector) AS u WHERE c.document_id = %s",
            [document.pk],
        )
        return {lexeme for (lexeme,) in cursor.fetchall()}


def test_an_exported_portuguese_document_is_restored_in_portuguese(
    tmp_path: Path, backup_media: Path, settings: Any, memoised_pipeline: None
) -> None:
    ingested = ingest_text(tmp_path, FolderFactory(name="Notas"), "Ligações", PORTUGUESE)
    assert ingested.language == "pt"
    assert "fech" in _stems(ingested)  # the portuguese configuration: "fechada" → 'fech'
    export = tmp_path / "export"
    call_command("library_export", str(export), verbosity=0)
    library_wipe(backup_media)
    settings.MEDIA_ROOT = str(tmp_path / "fresh-media")
    call_command("library_import", str(export), verbosity=0)

    restored = Document.objects.get(title="Ligações")
    assert restored.language == "pt"
    assert set(Chunk.objects.filter(document=restored).values_list("language", flat=True)) == {"pt"}
    assert _stems(restored) == _stems(ingested)
