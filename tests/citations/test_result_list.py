"""The search page's result list and the browse pages, over the indexed dev corpus (Django client)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from search.services.grouping import search_documents
from tests.conftest import dev_reader

pytestmark = [pytest.mark.django_db, pytest.mark.corpus]

BROAD = "how is data used by the system"  # words nearly every dev document holds: more than one page
BIGTABLE = "What is the default block size inside a Bigtable SSTable?"


def _reader_client(name: str) -> tuple[Any, Client]:
    user = dev_reader(name)
    client = Client()
    client.force_login(user)
    return user, client


def _listed(content: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<li class="result" data-document="(\d+)">', content)]


def test_the_result_list_pages_through_every_matching_document(dev_corpus: dict[str, Any]) -> None:
    user, client = _reader_client("list-reader")
    expected = search_documents(user=user, query=BROAD, page=1, page_size=50)
    assert expected.total > 10
    first = client.get("/", {"q": BROAD}).content.decode()
    assert 'id="answer"' in first  # the answer stays above the list
    assert first.index('id="answer"') < first.index('id="results"')
    assert f"{expected.total} matching documents, page 1 of 2." in first
    assert _listed(first) == [d.document_id for d in expected.documents[:10]]
    assert 'id="results-next"' in first
    assert 'id="results-prev"' not in first
    second = client.get("/", {"q": BROAD, "page": 2}).content.decode()
    assert _listed(second) == [d.document_id for d in expected.documents[10:]]
    assert 'id="results-prev"' in second
    assert 'id="results-next"' not in second
    beyond = client.get("/", {"q": BROAD, "page": 3}).content.decode()
    assert 'id="results-beyond"' in beyond
    bad = client.get("/", {"q": BROAD, "page": "two"})
    assert bad.status_code == 400
    assert "The result page must be a whole number from 1." in bad.content.decode()


def _facet_links(content: str) -> list[tuple[str, int]]:
    section = content[content.index('id="facets"') : content.index("</fieldset>", content.index('id="facets"'))]
    links = re.findall(r'<a href="([^"]+)"[^>]*>[^<]*</a> <span class="facet-count">(\d+)</span>', section)
    return [(html.unescape(url), int(count)) for url, count in links]


def _matching(content: str) -> int:
    found = re.search(r'id="results-count">(\d+) matching document', content)
    assert found is not None
    return int(found.group(1))


def test_each_facet_counts_the_documents_its_link_lists(dev_corpus: dict[str, Any]) -> None:
    _, client = _reader_client("facet-reader")
    content = client.get("/", {"q": BROAD}).content.decode()
    counted = re.search(r'id="facets-count">(\d+) documents? found<', content)
    assert counted is not None
    assert int(counted.group(1)) == _matching(content) > 10  # the list's documents, every page
    links = _facet_links(content)
    assert len(links) >= 3  # a type, a year and a folder at least
    for url, count in links:
        assert _matching(client.get("/" + url).content.decode()) == count, url


def test_snippets_mark_the_query_words_and_link_to_the_passage(dev_corpus: dict[str, Any]) -> None:
    _, client = _reader_client("snippet-reader")
    content = client.get("/", {"q": BIGTABLE + " <script>x</script>"}).content.decode()
    assert "<script>x" not in content
    bigtable = dev_corpus["bigtable-google-2006.pdf"]
    first = re.search(r'<li class="result" data-document="(\d+)">(.*?)</li>\s*</ul>', content, re.S)
    assert first is not None
    assert int(first.group(1)) == bigtable.pk
    block = first.group(2)
    assert "bigtable-google-2006" in block
    assert "PDF" in block
    assert f"{bigtable.page_count} pages" in block
    links = re.findall(
        r'<a class="snippet-link" data-chunk="\d+" href="(/documents/\d+/view#char=(\d+),(\d+))">', block
    )
    sources = re.findall(r'<a class="snippet-link source-link" href="#cite-(\d+)">', block)  # shown once, above
    assert 1 <= len(links) + len(sources) <= 3
    marked = {m.lower() for m in re.findall(r"<mark>(.*?)</mark>", block)}
    assert not links or {"sstable", "block"} & marked, marked
    for _url, start, end in links:
        assert int(start) < int(end) <= len(bigtable.canonical_text)


def test_library_lists_readable_folders_and_their_indexed_documents(dev_corpus: dict[str, Any]) -> None:
    _, client = _reader_client("browse-reader")
    folder_id = next(iter(dev_corpus.values())).folder_id
    index = client.get("/library/").content.decode()
    assert f'href="/library/folders/{folder_id}/"' in index
    assert f"<td>{len(dev_corpus)}</td>" in index
    page = client.get(f"/library/folders/{folder_id}/").content.decode()
    titles = re.findall(r'<a class="document-link" href="/library/documents/\d+/">(.*?)</a>', page)
    assert titles == sorted(d.title for d in dev_corpus.values())
    reverse = client.get(f"/library/folders/{folder_id}/", {"sort": "-title"}).content.decode()
    assert re.findall(r'class="document-link" href="/library/documents/\d+/">(.*?)</a>', reverse) == titles[::-1]
    by_date = client.get(f"/library/folders/{folder_id}/", {"sort": "-date"}).content.decode()
    newest_first = sorted(dev_corpus.values(), key=lambda d: (d.indexed_at, d.pk), reverse=True)
    assert re.findall(r'class="document-link" href="/library/documents/\d+/">(.*?)</a>', by_date) == [
        d.title for d in newest_first
    ]
    assert client.get(f"/library/folders/{folder_id}/", {"sort": "size"}).status_code == 400
    assert client.get(f"/library/folders/{folder_id}/", {"page": "x"}).status_code == 400
    assert client.get(f"/library/folders/{folder_id}/", {"page": 2}).status_code == 404  # 13 documents: one page


def test_library_folder_pages_hold_25_documents(
    client: Client, db: None, memoised_pipeline: None, tmp_path: Any
) -> None:
    from tests.conftest import ingest_text
    from tests.factories import FolderFactory

    folder = FolderFactory(name="Many notes", is_public=True)
    for n in range(27):
        ingest_text(tmp_path, folder, f"Note {n:02d}", f"Note number {n} says little.")
    first = client.get(f"/library/folders/{folder.pk}/").content.decode()
    second = client.get(f"/library/folders/{folder.pk}/", {"page": 2}).content.decode()
    assert first.count('class="document-link"') == 25
    assert second.count('class="document-link"') == 2
    assert "27 documents, page 1 of 2." in first
    assert 'rel="next" href="?page=2"' in first


def test_document_page_shows_outline_links_and_a_search_box(dev_corpus: dict[str, Any]) -> None:
    _, client = _reader_client("document-page-reader")
    bigtable = dev_corpus["bigtable-google-2006.pdf"]
    content = client.get(f"/library/documents/{bigtable.pk}/").content.decode()
    assert '<h1 id="document-heading">bigtable-google-2006</h1>' in content
    outline = re.findall(r'<li class="outline-depth-(\d)"><a href="([^"]+)">(.*?)</a>', content)
    assert len(outline) >= 5, outline
    assert any("Implementation" in title for _, _, title in outline), outline
    for _depth, url, _title in outline:
        start, end = (int(x) for x in url.rsplit("=", 1)[1].split(","))
        assert url.startswith(f"/documents/{bigtable.pk}/view#char=")
        assert 0 <= start < end <= len(bigtable.canonical_text)
    assert f'href="/documents/{bigtable.pk}/view"' in content
    assert f'href="/documents/{bigtable.pk}/pages/1"' in content
    assert f'href="/documents/{bigtable.pk}/file"' in content
    assert f'<input type="hidden" name="document" value="{bigtable.pk}">' in content
    markdown = dev_corpus["prometheus-storage.md"]
    page = client.get(f"/library/documents/{markdown.pk}/").content.decode()
    assert "/pages/1" not in page  # no page images for Markdown
    assert "Markdown" in page


def test_result_lines_and_browse_pages_show_authors_date_and_tags(dev_corpus: dict[str, Any]) -> None:
    from datetime import date

    from documents.models import Document, Tag

    user, client = _reader_client("metadata-reader")
    bigtable = dev_corpus["bigtable-google-2006.pdf"]
    authors = ["Fay Chang", "Jeffrey Dean", "Sanjay Ghemawat", "Wilson C. Hsieh"]
    Document.objects.filter(pk__in=[d.pk for d in dev_corpus.values()]).update(published=None)  # two dated only
    Document.objects.filter(pk=bigtable.pk).update(authors=authors, published=date(2006, 11, 6))
    bigtable.tags.add(Tag.objects.create(name="Storage"), Tag.objects.create(name="Google"))
    Document.objects.filter(pk=dev_corpus["raft-consensus-2014.pdf"].pk).update(published=date(2014, 6, 19))

    match = search_documents(user=user, query=BIGTABLE, page=1, page_size=5).documents[0]
    assert (match.document_id, match.authors, match.published, match.tags) == (
        bigtable.pk, authors, date(2006, 11, 6), ["Google", "Storage"],
    )  # fmt: skip
    content = client.get("/", {"q": BIGTABLE}).content.decode()
    own = rf'<li class="result" data-document="{bigtable.pk}">(.*?)<ul class="result-snippets">'
    line = re.search(own, content, re.S)
    assert line is not None
    assert "Fay Chang, Jeffrey Dean, Sanjay Ghemawat et al. · 6 November 2006" in line.group(1)
    assert re.findall(r'<li class="tag">(.*?)</li>', line.group(1)) == ["Google", "Storage"]
    api = client.get("/api/search", {"q": BIGTABLE, "group": "document", "page_size": 3}).json()
    first = api["documents"][0]
    assert (first["authors"], first["published"], first["tags"]) == (authors, "2006-11-06", ["Google", "Storage"])

    page = client.get(f"/library/documents/{bigtable.pk}/").content.decode()
    assert '<dd id="document-authors" title="Fay Chang, Jeffrey Dean, Sanjay Ghemawat, Wilson C. Hsieh">' in page
    assert "Sanjay Ghemawat et al.</dd>" in page
    assert '<dd id="document-published">6 November 2006</dd>' in page
    assert re.findall(r'<li class="tag">(.*?)</li>', page) == ["Google", "Storage"]
    folder = client.get(f"/library/folders/{bigtable.folder_id}/", {"sort": "-published"}).content.decode()
    titles = re.findall(r'class="document-link" href="/library/documents/(\d+)/">', folder)
    assert [int(pk) for pk in titles[:2]] == [dev_corpus["raft-consensus-2014.pdf"].pk, bigtable.pk]  # undated last
    oldest = client.get(f"/library/folders/{bigtable.folder_id}/", {"sort": "published"}).content.decode()
    assert [int(pk) for pk in re.findall(r'href="/library/documents/(\d+)/">', oldest)[:2]] == [
        bigtable.pk, dev_corpus["raft-consensus-2014.pdf"].pk,
    ]  # fmt: skip
