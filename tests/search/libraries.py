"""Small libraries whose documents' languages the test states, for the language tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from documents.lexical.index import lexical_index_replace
from documents.models import Chunk, Document
from tests.conftest import ingest_file_inline
from tests.factories import DocumentFactory, FolderFactory

# Debian's reference manual in Portuguese says "palavra-passe" where a Brazilian reader asks "senha".
PASSWORD_TEXT = (
    "Para mudar a palavra-passe de um utilizador, execute o comando passwd no terminal. O comando pede "
    "a palavra-passe atual e depois a nova palavra-passe duas vezes. Uma palavra-passe forte tem pelo "
    "menos doze caracteres e mistura letras, algarismos e símbolos."
)
MODEL_TEXT = (
    "O modelo de linguagem usado neste capítulo tem sete mil milhões de parâmetros e foi treinado com "
    "textos técnicos. Um modelo maior responde melhor, mas precisa de mais memória."
)
RAFT_TEXT = (
    "Raft uses a heartbeat mechanism to trigger leader election. When servers start up, they begin as "
    "followers. A follower that hears nothing from a leader for an election timeout becomes a candidate "
    "and asks the other servers to elect it as the new leader of the cluster. Each server stores a "
    "current term number, which increases monotonically over time."
)


def library_in_languages(tmp_path: Path, name: str, documents: list[tuple[str, str, str]]) -> Any:
    """A public folder holding `documents` (name, text, language). Detection at ingest is another
    part's: these tests state each document's language."""
    folder = FolderFactory(name=name, is_public=True)
    for title, text, language in documents:
        path = tmp_path / f"{title}.txt"
        path.write_text(text)
        document = ingest_file_inline(path, folder, title=title)
        Document.objects.filter(pk=document.pk).update(language=language)
        Chunk.objects.filter(document=document).update(language=language)
    return folder


def document_of_passages(folder: object, title: str, texts: list[str], language: str = "") -> Document:
    """An indexed document of one chunk per text, in `language` ("" as not yet detected), keyword
    index written as ingestion writes it; one fixed vector, no encoder."""
    document: Document = DocumentFactory(
        folder=folder, title=title, text="\n\n".join(texts), indexed=True, chunk_count=len(texts), language=language
    )
    vector = [0.01 * (i % 7) for i in range(settings.EMBEDDING_DIMS)]
    for ordinal, text in enumerate(texts):
        Chunk.objects.create(
            document=document,
            ordinal=ordinal,
            content=text,
            char_start=0,
            char_end=len(text),
            language=language,
            embedding=vector,
            embedding_key=f"{title}-{ordinal}",
        )
    lexical_index_replace(document.pk)
    return document
