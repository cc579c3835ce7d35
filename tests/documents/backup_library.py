"""A small real library for the backup tests, and its fingerprint: what a restore must reproduce.

The fingerprint holds no database ids and no storage names, only what a person or a search can
observe: every search's hits and scores for every kind of reader, the permission matrix, every
document's metadata and stamps, the original files' bytes (as sha256), the chunks with their
vectors (bit for bit), lexical vectors, BM25 postings and statistics, accounts and groups.
It runs in this process or, with `python -m tests.documents.backup_library`, against another
database (DATABASE_URL, MEDIA_ROOT) and prints JSON.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

QUERIES = (
    "how is data stored on disk in blocks",
    "vector matching operators",
    "column layout engine",
    "double spending proof of work",
    "JSON value grammar",
)
READERS = (None, "alice", "bob", "carol", "outsider", "boss")
MODES = ("hybrid", "dense", "bm25")
CORPUS_FILES = (
    "prometheus-storage.md",
    "promql-operators.md",
    "prometheus-3-migration-guide.md",
    "bitcoin-nakamoto-2008.pdf",
)


def build_library(corpus: Path, tmp: Path) -> dict[str, Any]:
    """Folders with different permissions holding real corpus files and fixture PDFs."""
    from documents.models import Document
    from documents.services.tokens import token_create
    from tests.conftest import ingest_file_inline
    from tests.documents import bad_inputs, pdf_builders
    from tests.factories import DocumentFactory, FolderFactory, GroupFactory, StaffFactory, UserFactory

    engineering, editors = GroupFactory(name="engineering"), GroupFactory(name="editors")
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    carol, boss = UserFactory(username="carol"), StaffFactory(username="boss")
    UserFactory(username="outsider")
    alice.groups.add(engineering)
    carol.groups.add(editors)
    public = FolderFactory(name="Public notes", is_public=True)
    eng = FolderFactory(name="Engineering", readers=[engineering])
    eng.writer_groups.add(editors)
    drafts = FolderFactory(name="Drafts", parent=eng, readers=[bob])
    ops = FolderFactory(name="Ops", readers=[bob, editors])
    ops.writer_users.add(carol)
    private = FolderFactory(name="Private")
    files = {
        public: ["prometheus-storage.md", ("layout.pdf", pdf_builders.two_column_paper())],
        eng: ["promql-operators.md"],
        drafts: ["prometheus-3-migration-guide.md", ("outline.pdf", pdf_builders.outline_doc())],
        ops: ["bitcoin-nakamoto-2008.pdf", "prometheus-storage.md"],  # the same bytes as in Public notes
        private: [("scan.pdf", bad_inputs.image_only_pdf())],  # fails: no extractable text
    }
    # The copy in Ops gets its own title: chunk contexts differ, so no two chunks tie exactly in a ranking
    # (exact ties between identical vectors come back in HNSW's arbitrary order, in any library).
    titles = {("Ops", "prometheus-storage.md"): "Prometheus storage (ops copy)"}
    for folder, entries in files.items():
        for entry in entries:
            if isinstance(entry, str):
                path = corpus / entry
            else:
                path = tmp / entry[0]
                path.write_bytes(entry[1])
            ingest_file_inline(path, folder, title=titles.get((folder.name, path.name)))
    DocumentFactory(folder=private, title="Waiting", text="Queued and never processed.")
    Document.objects.filter(folder=public).update(uploaded_by=alice)
    _ocr_and_context_writer_traces()
    _metadata_traces()
    token_create(user=alice, name="backup test")
    return {"alice": alice, "boss": boss, "public": public, "ops": ops}


def _metadata_traces() -> None:
    """Tags, and a staff correction (issue 26): a restore keeps both, and which fields were corrected."""
    import datetime

    from documents.models import Document
    from documents.services.metadata import document_metadata_correct, documents_tag, tag_get_or_create

    papers = Document.objects.filter(original_name__endswith=".pdf")
    documents_tag(papers, tag_get_or_create("Papers"), add=True)
    documents_tag(
        papers.filter(original_name="corpus-bitcoin-nakamoto-2008.pdf"), tag_get_or_create("Ledger"), add=True
    )
    layout = Document.objects.get(original_name="corpus-layout.pdf")
    document_metadata_correct(layout.pk, {"authors": ["Ada Lovelace"], "published": datetime.date(1843, 7, 1)})


def _ocr_and_context_writer_traces() -> None:
    """What OCR and the context writer leave (set on the rows: neither needs to run for the backup)."""
    from documents.models import ChunkContext, Document, OcrPage

    layout = Document.objects.get(original_name="corpus-layout.pdf")
    Document.objects.filter(pk=layout.pk).update(
        warnings=["Page 2 could not be read (OCR found no words)."],
        context_failures=1,
        context_cache_hits=3,
        context_prompt_tokens=9000,
        context_cached_prompt_tokens=4096,
        context_completion_tokens=310,
        context_seconds=2.75,
    )
    OcrPage.objects.create(
        document=layout, number=1, mean_confidence=91.5, word_count=2,
        words=[[72.0, 90.5, 120.25, 102.0, "Column", 0, 0], [124.0, 90.5, 160.0, 102.0, "layout", 0, 0]],
    )  # fmt: skip
    OcrPage.objects.create(document=layout, number=2, mean_confidence=None, word_count=0, words=[])
    for n in range(3):
        ChunkContext.objects.create(
            document_hash="d" * 64, chunk_hash=f"{n:064x}", model="test-writer", prompt_version=2, context=f"Part {n}."
        )


def library_wipe(media_root: Path) -> None:
    """Remove every library row, account, token and stored file: the state of a fresh install."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from documents.models import ApiToken, ChunkContext, Folder

    ApiToken.objects.all().delete()
    ChunkContext.objects.all().delete()
    Folder.objects.all().delete()
    get_user_model().objects.all().delete()
    Group.objects.all().delete()
    shutil.rmtree(media_root, ignore_errors=True)


def library_counts() -> dict[str, int]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db.models import Sum

    from documents.lexical.models import LexemeBlock
    from documents.models import ApiToken, Chunk, ChunkContext, Document, Folder, OcrPage

    models = (Folder, Document, Chunk, OcrPage, ChunkContext, ApiToken, Group, get_user_model())
    counts = {model.__name__: model.objects.count() for model in models}
    return counts | {"postings": LexemeBlock.objects.aggregate(n=Sum("chunk_count"))["n"] or 0}


def media_files(media_root: Path) -> list[str]:
    return sorted(str(p.relative_to(media_root)) for p in media_root.rglob("*") if p.is_file())


def _digest(rows: Any) -> dict[str, Any]:
    lines = sorted(json.dumps(row, default=str) for row in rows)
    return {"rows": len(lines), "sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest()}


def _reader(username: str | None) -> Any:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser() if username is None else get_user_model().objects.get(username=username)


def _searches() -> dict[str, Any]:
    from search.services.retrieval import search_chunks

    results = {}
    for username in READERS:
        for query in QUERIES:
            for mode in MODES:
                result = search_chunks(user=_reader(username), query=query, k=8, mode=mode)
                hits = [
                    [hit.folder_name, hit.document_title, hit.char_start, hit.char_end, hit.page_start,
                     hit.dense_rank, hit.bm25_rank, _round(hit.score), _round(hit.distance), _round(hit.bm25_score)]
                    for hit in result.hits
                ]  # fmt: skip
                results[f"{username}|{mode}|{query}"] = {"refused": result.refused, "hits": hits}
    return results


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 9)


def _permissions() -> dict[str, Any]:
    from documents.models import Folder
    from documents.selectors import folders_readable_by, folders_writable_by

    matrix = {}
    for username in READERS:
        user = _reader(username)
        readable = {f.path for f in folders_readable_by(user)}
        writable = {f.path for f in folders_writable_by(user)}
        matrix[str(username)] = {f.path: [f.path in readable, f.path in writable] for f in Folder.objects.all()}
    return matrix


def _documents() -> dict[str, Any]:
    from documents.models import Document
    from documents.services.backup_export import DOCUMENT_FIELDS

    documents = {}
    for document in Document.objects.select_related("folder", "uploaded_by"):
        row = {name: getattr(document, name) for name in DOCUMENT_FIELDS}
        with document.file.open("rb") as stream:
            row["file_sha256"] = hashlib.sha256(stream.read()).hexdigest()
        row["uploaded_by"] = document.uploaded_by.username if document.uploaded_by else None
        row["tags"] = sorted(tag.name for tag in document.tags.all())
        row["language"] = document.language
        documents[f"{document.folder.path}|{document.sha256}"] = json.loads(json.dumps(row, default=str))
    return documents


def _index() -> dict[str, Any]:
    from django.db import connection

    from tests.search.bm25_oracle import packed_postings

    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT d.sha256, c.ordinal, c.section, c.content, c.context, c.char_start,
                      c.char_end, c.page_start, c.page_end, c.token_count, c.lexeme_count, c.search_vector::text,
                      c.language,
                      md5(c.embedding::text), c.embedding_key, f.name
                 FROM documents_chunk c JOIN documents_document d ON d.id = c.document_id
                 JOIN documents_folder f ON f.id = d.folder_id"""
        )
        chunks = cursor.fetchall()
        cursor.execute(
            """SELECT c.id, f.name, d.sha256, c.ordinal FROM documents_chunk c
                 JOIN documents_document d ON d.id = c.document_id JOIN documents_folder f ON f.id = d.folder_id"""
        )
        where = {pk: (folder, sha256, ordinal) for pk, folder, sha256, ordinal in cursor.fetchall()}
        cursor.execute("SELECT id FROM documents_folder")
        folder_ids = [row[0] for row in cursor.fetchall()]
    # The packed postings, decoded, by folder name, document and chunk ordinal (ids may be renumbered).
    postings = [(*where[chunk], lexeme, tf, dl) for _, chunk, lexeme, tf, dl in packed_postings(folder_ids)]
    return {"chunks": _digest(chunks), "postings": _digest(postings)}


def _extraction_traces() -> dict[str, Any]:
    """OCR pages by document, and the cache of model-written contexts (neither has a meaningful id)."""
    from documents.models import ChunkContext, OcrPage

    pages = OcrPage.objects.values_list(
        "document__folder__name", "document__sha256", "number", "mean_confidence", "word_count", "words"
    )
    contexts = ChunkContext.objects.values_list("document_hash", "chunk_hash", "model", "prompt_version", "context")
    return {"ocr_pages": _digest(pages), "chunk_contexts": _digest(contexts)}


def _accounts() -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    users = {
        u.username: [u.email, u.is_active, u.is_staff, u.is_superuser, sorted(g.name for g in u.groups.all())]
        for u in get_user_model().objects.prefetch_related("groups")
    }
    return {"users": users, "groups": sorted(Group.objects.values_list("name", flat=True))}


def library_fingerprint() -> dict[str, Any]:
    fingerprint = {
        "searches": _searches(),
        "permissions": _permissions(),
        "documents": _documents(),
        "index": _index(),
        "extraction": _extraction_traces(),
        "accounts": _accounts(),
    }
    return json.loads(json.dumps(fingerprint))


if __name__ == "__main__":
    import django

    django.setup()
    print(json.dumps(library_fingerprint()))
