"""Detect the languages of documents indexed before (or without) detection, and re-read them.

A document's chunks keep their text, vectors and embedding keys: only their language, the
document's language and the keyword index (search_vector, lexeme counts, packed postings) are
written again, in one transaction, so nothing is re-embedded and search sees the old index or
the new one, never a mix.
"""

from __future__ import annotations

from django.db import transaction

from documents.extraction.language import chunk_languages
from documents.lexical.index import lexical_index_replace
from documents.models import Chunk, Document


def document_languages_detect(document_id: int) -> str | None:
    """Detect the languages of an indexed document's stored chunks and re-index its keywords.

    Returns the document's language, or None when it is gone or has no index in place. The
    document row is locked first, as an ingest storing new chunks locks it, so the two never
    interleave.
    """
    with transaction.atomic():
        indexed = Document.objects.select_for_update().filter(pk=document_id, indexed_at__isnull=False)
        if not indexed.exists():
            return None
        language = document_languages_store(document_id)
        lexical_index_replace(document_id)
    return language


def document_languages_store(document_id: int) -> str:
    """Detect and store the languages of a document's stored chunks and its main one, in the
    caller's transaction; the keyword index is the caller's to rewrite (`lexical_index_replace`).
    A backup import derives languages this way, as it derives the keyword index."""
    chunks = list(Chunk.objects.filter(document_id=document_id).order_by("ordinal").only("pk", "content"))
    languages = chunk_languages([chunk.content for chunk in chunks])
    for chunk, language in zip(chunks, languages.chunks, strict=True):
        chunk.language = language
    Chunk.objects.bulk_update(chunks, ["language"], batch_size=1000)
    Document.objects.filter(pk=document_id).update(language=languages.document)
    return languages.document
