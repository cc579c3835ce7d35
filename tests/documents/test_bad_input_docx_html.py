"""The bad-input catalogue for Word files and web pages, and each format end to end.

Uses the catalogue's own helpers (tests/documents/test_bad_input.py): files go in through the
upload service, the admin or the API, and through the real pipeline.
"""

# The catalogue's fixtures (folder, media, staff_client) are imported, so arguments "redefine" them.
# ruff: noqa: F811
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from documents.extraction.sniff import DOCX, HTML
from documents.models import Document
from documents.selectors import stale_documents
from search.services.retrieval import retrieve
from tests.conftest import bearer, wait_for
from tests.documents import bad_inputs as bad
from tests.documents import docx_html_builders as build
from tests.documents.test_bad_input import (  # noqa: F401  (fixtures are used by name)
    FINISHED,
    admin_upload,
    assert_failed,
    assert_indexed,
    assert_no_orphans,
    folder,
    media,
    staff_client,
    this_tests_documents,
    upload_and_ingest,
)
from tests.factories import UserFactory

# --- processed and failed with a reason naming the problem -----------------------------------
# (A `.docx` that does not even start as a zip archive, such as text or an old binary .doc, is
# refused at upload: test_bad_input.py, NOT_WHAT_THEIR_NAME_SAYS.)


FAILING = {
    "truncated-docx": ("cut-short.docx", bad.truncated_docx, ("not a Word document", "damaged")),
    "corrupt-part-docx": ("garbled.docx", bad.docx_with_corrupt_document_part, ("is damaged", "save it again")),
    "other-zip-as-docx": ("report.docx", bad.spreadsheet_like_zip_named_docx, ("zip archive but not a Word",)),
    "scripts-only-html": ("app.html", bad.html_with_scripts_only, ("no readable text", "scripts")),
    "unknown-encoding-html": ("noise.html", bad.html_of_unrecognisable_bytes, ("could not be recognised", "UTF-8")),
}


@pytest.mark.parametrize("case", FAILING.values(), ids=FAILING.keys())
def test_bad_word_files_and_web_pages_fail_naming_the_problem(folder, media, case):
    name, build_file, words = case
    document = upload_and_ingest(folder, name, build_file())

    assert document.content_type == (DOCX if name.endswith(".docx") else HTML)
    assert_failed(document, *words)
    assert "boot()" not in document.canonical_text  # no script text is ever stored
    assert_no_orphans(media)


def test_docx_bomb_is_refused_unread_at_the_default_limit(folder, media, tmp_path, monkeypatch, settings):
    inflated = settings.DOCX_MAX_UNPACKED_BYTES // 1_048_576 + 16
    data = bad.docx_bomb(tmp_path / "bomb.docx", inflated_megabytes=inflated).read_bytes()
    assert len(data) < 2_000_000  # megabytes of zeros pack into a small upload

    def never(*args: Any) -> Any:
        raise AssertionError("no part of an archive that failed the size check may be read")

    monkeypatch.setattr("documents.extraction.docx.main_part_is_a_word_document", never)
    document = upload_and_ingest(folder, "bomb.docx", data)

    assert_failed(document, "decompression bomb", "refused unread", f"{inflated + 1:,} MB")
    assert_no_orphans(media)


def test_docx_under_a_lowered_limit_is_refused_and_over_it_is_read(folder, media, tmp_path, settings):
    settings.DOCX_MAX_UNPACKED_BYTES = 4 * 1_048_576
    bomb = upload_and_ingest(folder, "big.docx", bad.docx_bomb(tmp_path / "big.docx", 8).read_bytes())
    assert_failed(bomb, "decompression bomb")

    settings.DOCX_MAX_UNPACKED_BYTES = 16 * 1_048_576
    retried = upload_and_ingest(folder, "big-again.docx", bad.docx_bomb(tmp_path / "again.docx", 9).read_bytes())
    assert_indexed(retried)
    assert_no_orphans(media)


# --- XML document types and entities (issue 24) -----------------------------------------------

ENTITY_TEXT = f"XXE2START [&xxe;] XXE2END {build.INTRO}"  # text after the entity used to be lost


def main_part(*edits: Any) -> dict[str, Any]:
    def edit(xml: str) -> str:
        for step in edits:
            xml = step(xml)
        return xml

    return {"word/document.xml": edit}


def test_docx_whose_text_uses_an_entity_fails_instead_of_losing_words(folder, media):
    data = build.docx_with_parts_edited(
        main_part(
            build.with_doctype('<!DOCTYPE w:document [<!ENTITY xxe "inner words">]>'),
            build.replacing(build.INTRO, ENTITY_TEXT),
        )
    )
    document = upload_and_ingest(folder, "entities.docx", data)

    assert_failed(document, "part /word/document.xml declares an XML document type (DOCTYPE)")
    assert_failed(document, "refused rather than indexed with text missing", "save it again from word")
    assert document.canonical_text == ""
    assert_no_orphans(media)


def test_docx_with_an_external_entity_fails_and_the_file_it_names_is_never_read(folder, media, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-CONTENT-7f3a")
    data = build.docx_with_parts_edited(
        main_part(
            build.with_doctype(f'<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "{secret.as_uri()}">]>'),
            build.replacing(build.INTRO, ENTITY_TEXT),
        )
    )
    document = upload_and_ingest(folder, "external.docx", data)

    assert_failed(document, "DOCTYPE")
    assert "SECRET-CONTENT" not in document.failure_reason + document.canonical_text
    assert_no_orphans(media)


def test_docx_with_a_document_type_in_another_part_fails_naming_that_part(folder, media):
    data = build.docx_with_parts_edited({"word/styles.xml": build.with_doctype("<!DOCTYPE w:styles>")})
    document = upload_and_ingest(folder, "styled.docx", data)

    assert_failed(document, "part /word/styles.xml declares an XML document type (DOCTYPE)")
    assert_no_orphans(media)


def test_docx_using_an_undeclared_entity_fails_as_damaged(folder, media):
    data = build.docx_with_parts_edited(main_part(build.replacing(build.INTRO, ENTITY_TEXT)))
    document = upload_and_ingest(folder, "undeclared.docx", data)

    assert_failed(document, "The Word document is damaged", "xxe")
    assert_no_orphans(media)


def test_docx_with_character_references_and_escaped_markup_keeps_every_word(folder, media):
    # Character references and the five predefined entities need no DOCTYPE: they are plain XML.
    escaped = f"&#x42;rass &amp; &#66;ronze &lt;gauges&gt; &quot;calibrated&quot; &apos;weekly&apos;. {build.INTRO}"
    data = build.docx_with_parts_edited(main_part(build.replacing(build.INTRO, escaped)))
    document = upload_and_ingest(folder, "escaped.docx", data)

    assert_indexed(document)
    assert f"Brass & Bronze <gauges> \"calibrated\" 'weekly'. {build.INTRO}" in document.canonical_text
    assert build.CALIBRATION_SENTENCE in document.canonical_text
    assert_no_orphans(media)


# --- web pages --------------------------------------------------------------------------------


def test_html_in_an_undeclared_legacy_encoding_is_decoded(folder, media):
    document = upload_and_ingest(folder, "menu.html", bad.html_in_undeclared_cp1252())

    assert_indexed(document)
    assert "Café menu for the naïve visitor" in document.canonical_text
    assert "\ufffd" not in document.canonical_text
    assert_no_orphans(media)


def test_html_nested_past_the_old_depth_limit_is_indexed_whole_and_searchable(folder, media):
    depth = 400  # libxml2 stops at 256 levels unless told otherwise: rows 254-399 were lost
    document = upload_and_ingest(folder, "nested.html", bad.html_nested_rows(depth))

    assert_indexed(document)
    for row in range(depth):
        assert bad.deep_row(row) in document.canonical_text, row
    assert bad.DEEP_TAIL in document.canonical_text
    for sentence in (bad.deep_row(399), bad.DEEP_TAIL):
        hits = retrieve(query=sentence, folder_ids=[folder.pk], k=3).hits
        assert any(sentence in document.canonical_text[h.char_start : h.char_end] for h in hits), sentence
    assert_no_orphans(media)


def test_html_nested_2000_levels_deep_is_read_whole(tmp_path):
    from documents.extraction.html import extract_html

    page = tmp_path / "deep.html"
    page.write_bytes(bad.html_nested_rows(2000))  # deeper than Python's recursion limit

    text = extract_html(page).text

    assert bad.deep_row(1999) in text
    assert text.rstrip().endswith(bad.DEEP_TAIL)


@pytest.mark.parametrize("build_page", [bad.html_nested_rows, bad.html_nested_without_text])
def test_html_nested_deeper_than_the_parser_reads_fails_saying_so(folder, media, build_page):
    document = upload_and_ingest(folder, "abyss.html", build_page(100_000))

    assert_failed(document, "levels deep", "2,048", "close its tags")
    assert "scripts" not in document.failure_reason
    assert_no_orphans(media)


# --- each format end to end: upload by content, index, view, search ---------------------------


def assert_viewer_offsets_match(client: Any, document: Document) -> None:
    """Every chunk is the canonical text at its offsets, and the viewer shows that text."""
    from tests.citations.test_viewer import viewer_text

    chunks = assert_indexed(document)
    response = client.get(f"/documents/{document.pk}/view")
    assert response.status_code == 200
    shown = viewer_text(response.content.decode())
    assert shown == document.canonical_text
    for chunk in chunks:
        assert shown[chunk.char_start : chunk.char_end] == chunk.content


def assert_original_is_never_rendered(client: Any, document: Document) -> None:
    """A Word file is downloaded; a web page is shown as its source text, its scripts inert."""
    response = client.get(f"/documents/{document.pk}/file")
    assert response.status_code == 200
    assert response["X-Content-Type-Options"] == "nosniff"
    if document.content_type == DOCX:
        assert response["Content-Type"] == DOCX
        assert response["Content-Disposition"].startswith("attachment")
    else:
        assert response["Content-Type"] == "text/plain; charset=utf-8"
        assert response["Content-Security-Policy"] == "sandbox"


@pytest.mark.parametrize(
    ("name", "data", "content_type"),
    [
        ("Survey manual", build.manual_docx(), DOCX),  # no extension at all
        ("survey-manual.docx", build.manual_docx(), DOCX),
        ("survey-manual.html", build.manual_html().encode(), HTML),
        ("saved page", build.manual_html().encode("utf-16"), HTML),
    ],
    ids=["docx-unnamed", "docx", "html", "html-utf16-unnamed"],
)
def test_each_format_is_indexed_viewable_and_searchable(staff_client, folder, media, name, data, content_type):
    messages = admin_upload(staff_client, folder, [(name, data)])
    assert any("Queued 1 document" in m for m in messages), messages
    document = this_tests_documents().get(original_name=name)
    assert document.content_type == content_type
    from documents.services.ingest import document_ingest

    document = document_ingest(document.pk)
    assert document is not None

    assert_viewer_offsets_match(staff_client, document)
    sections = set(document.chunks.values_list("section", flat=True))
    assert any(build.CALIBRATION in s for s in sections), sections
    assert build.SCRIPT not in document.canonical_text
    assert_original_is_never_rendered(staff_client, document)
    result = retrieve(query=build.CALIBRATION_SENTENCE, folder_ids=[folder.pk], k=3)
    assert not result.refused
    top = result.hits[0]
    assert top.document_id == document.pk
    assert build.CALIBRATION_SENTENCE in document.canonical_text[top.char_start : top.char_end]
    # Current until its extractor's version goes up.
    assert not stale_documents().filter(pk=document.pk).exists()
    older = re.sub(r"-(\d+)$", lambda m: f"-{int(m.group(1)) - 1}", document.extractor)
    Document.objects.filter(pk=document.pk).update(extractor=older)
    assert stale_documents().filter(pk=document.pk).exists()
    assert_no_orphans(media)


def test_api_upload_recognises_a_word_file_without_an_extension(client, folder, media):
    writer = UserFactory(username="api-writer")
    folder.writer_users.add(writer)
    file = SimpleUploadedFile("exported-report", build.manual_docx(), content_type="application/octet-stream")

    response = client.post("/api/documents", {"file": file, "folder": folder.pk}, **bearer(writer))

    assert response.status_code == 202, response.content
    assert response.json()["content_type"] == DOCX
    assert_no_orphans(media)


@pytest.mark.worker
@pytest.mark.slow
def test_word_files_and_web_pages_through_a_real_worker(celery_worker_process, staff_client, folder, settings):
    files = {
        "manual.docx": build.manual_docx(),
        "manual.html": build.manual_html().encode(),
        "Unnamed export": build.manual_docx(title="Sounding Manual"),  # other bytes, no extension
        "cut-short.docx": bad.truncated_docx(),
        "app.html": bad.html_with_scripts_only(),
    }
    admin_upload(staff_client, folder, list(files.items()))

    def finished() -> bool:
        return not this_tests_documents().exclude(status__in=FINISHED).exists()

    def state() -> str:
        rows = list(this_tests_documents().values_list("original_name", "status"))
        return f"every document to finish: {rows}\n{celery_worker_process.log()[-5000:]}"

    wait_for(finished, timeout=600, what=state)
    for name in ("manual.docx", "manual.html", "Unnamed export"):
        assert_viewer_offsets_match(staff_client, this_tests_documents().get(original_name=name))
    assert_failed(this_tests_documents().get(original_name="cut-short.docx"), "not a Word document")
    assert_failed(this_tests_documents().get(original_name="app.html"), "no readable text")
    assert_no_orphans(Path(settings.MEDIA_ROOT))


def test_ingest_command_picks_up_word_files_and_web_pages_by_content(db, media, tmp_path, capsys):
    source = tmp_path / "export"
    source.mkdir()
    (source / "Field report").write_bytes(build.manual_docx())  # no extension: a Word archive
    (source / "saved-page").write_text(build.manual_html())  # no extension: HTML tags
    (source / "page.htm").write_text(build.manual_html().replace(build.TITLE, "Mirror page"))
    (source / "notes").write_text("Plain words with no name to go by.")  # not picked up
    (source / "sheet.xlsx").write_bytes(bad.spreadsheet_like_zip_named_docx())  # not picked up

    call_command("ingest", str(source), "--folder", "Exports", "--inline")

    statuses = dict(Document.objects.filter(folder__name="Exports").values_list("original_name", "status"))
    assert statuses == {"Field report": "indexed", "saved-page": "indexed", "page.htm": "indexed"}
    assert "indexed: 3" in capsys.readouterr().out
    assert_no_orphans(media)
