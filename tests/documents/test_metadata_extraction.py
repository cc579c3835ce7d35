"""Issue 26: every corpus file's title, authors and date as a reader would name them, and each
format's sources of metadata on small files built here (PDF, Word, HTML, Markdown, text)."""

from __future__ import annotations

import datetime
import io
from pathlib import Path

import docx
import pymupdf
import pytest

from documents.extraction.metadata import DocumentMetadata, extract_metadata
from documents.extraction.pdf import extract_pdf
from documents.extraction.people import byline_people, date_from_text, looks_like_a_person, people
from documents.services.upload import content_type_for, title_from_name
from tests.corpus import CORPUS_DIR, require_corpus
from tests.documents import docx_html_builders as build
from tests.documents.bad_inputs import image_only_pdf
from tests.documents.scan_builders import scanned_pdf

D = datetime.date

# What a reader calls each document: the title on its first page (not the PDF's metadata title when
# that is a file name or a section's name), its byline's people, and its date (the one its first
# page states, to the PDF creation date's day when that falls in the same year; the creation date
# when the page states none). Authors are left empty where the file names none credibly.
EXPECTED: dict[str, tuple[str, list[str], datetime.date | None]] = {
    "dev/api-design-manual-trolltech-2008.pdf": (
        "The Little Manual of API Design", ["Jasmin Blanchette"], D(2008, 6, 19),
    ),
    "dev/bigtable-google-2006.pdf": (
        "Bigtable: A Distributed Storage System for Structured Data",
        ["Fay Chang", "Jeffrey Dean", "Sanjay Ghemawat", "Wilson C. Hsieh", "Deborah A. Wallach", "Mike Burrows",
         "Tushar Chandra", "Andrew Fikes", "Robert E. Gruber"],
        D(2006, 1, 1),  # "To appear in OSDI 2006"; the file has no date
    ),
    "dev/bitcoin-nakamoto-2008.pdf": (
        "Bitcoin: A Peer-to-Peer Electronic Cash System", ["Satoshi Nakamoto"], D(2009, 3, 24),
    ),
    "dev/dynamo-amazon-2007.pdf": (
        "Dynamo: Amazon’s Highly Available Key-value Store",  # its metadata title is "System Model"
        ["Giuseppe DeCandia", "Deniz Hastorun", "Madan Jampani", "Gunavardhan Kakulapati", "Avinash Lakshman",
         "Alex Pilchin", "Swaminathan Sivasubramanian", "Peter Vosshall", "Werner Vogels"],
        D(2007, 8, 14),
    ),
    "dev/ecma-404-json-spec-2013.pdf": ("ECMA-404: The JSON Data Interchange Format", [], D(2013, 10, 9)),
    "dev/graph-of-word-tw-idf-2013.pdf": (
        "Graph-of-word and TW-IDF: New Approach to Ad Hoc IR", ["François Rousseau", "Michalis Vazirgiannis"],
        D(2013, 7, 30),
    ),
    "dev/mapreduce-google-2004.pdf": (
        "MapReduce: Simplified Data Processing on Large Clusters", ["Jeffrey Dean", "Sanjay Ghemawat"], D(2004, 1, 1),
    ),
    # A lecture handout ("28. Availability and Replication"); its metadata title is "Microsoft Word - 2002-All 9.doc".
    "dev/mit-6826-availability-replication-2002.pdf": ("Availability and Replication", [], D(2002, 4, 29)),
    "dev/prometheus-3-migration-guide.md": ("Prometheus 3.0 migration guide", [], None),
    "dev/prometheus-storage.md": ("Storage", [], None),
    "dev/promql-operators.md": ("Operators", [], None),
    "dev/raft-consensus-2014.pdf": (
        "In Search of an Understandable Consensus Algorithm", ["Diego Ongaro", "John Ousterhout"], D(2013, 3, 25),
    ),
    "dev/tor-onion-router-2004.pdf": (
        "Tor: The Second-Generation Onion Router", ["Roger Dingledine", "Nick Mathewson", "Paul Syverson"],
        D(2004, 5, 18),
    ),
    "holdout/chubby-lock-service-2006.pdf": (
        "The Chubby lock service for loosely-coupled distributed systems", ["Mike Burrows"], D(2006, 9, 6),
    ),
    "holdout/dapper-tracing-google-2010.pdf": (
        "Dapper, a Large-Scale Distributed Systems Tracing Infrastructure",
        ["Benjamin H. Sigelman", "Luiz André Barroso", "Mike Burrows", "Pat Stephenson", "Manoj Plakal",
         "Donald Beaver", "Saul Jaspan", "Chandan Shanbhag"],
        D(2010, 4, 16),
    ),
    # Scanned: the byline in capitals, each name broken over two lines; the file was made in 1999.
    "holdout/flp-impossibility-1985-scanned.pdf": (
        "Impossibility of Distributed Consensus with One Faulty Process",
        ["Michael J. Fischer", "Nancy A. Lynch", "Michael S. Paterson"],
        D(1985, 4, 1),
    ),
    "holdout/google-file-system-2003.pdf": (  # metadata title "paper.dvi"
        "The Google File System", ["Sanjay Ghemawat", "Howard Gobioff", "Shun-Tak Leung"], D(2003, 8, 12),
    ),
    "holdout/live-migration-vms-2005.pdf": (
        "Live Migration of Virtual Machines",
        ["Christopher Clark", "Keir Fraser", "Steven Hand", "Jacob Gorm Hansen", "Eric Jul", "Christian Limpach",
         "Ian Pratt", "Andrew Warfield"],
        None,
    ),
    "holdout/mit-6826-security-real-world-2002.pdf": (
        "Computer Security in the Real World", ["Butler W. Lampson"], D(2002, 5, 1),
    ),
    "holdout/note-on-distributed-computing-sun-1994.pdf": (
        "A Note on Distributed Computing", ["Jim Waldo", "Geoff Wyant", "Ann Wollrath", "Sam Kendall"], D(1994, 11, 1),
    ),
    "holdout/prometheus-feature-flags.md": ("Feature flags", [], None),
    "holdout/promql-functions.md": ("Query functions", [], None),
    "holdout/promql-querying-basics.md": ("Querying basics", [], None),
    "holdout/shazam-audio-search-2003.pdf": (
        # No year on its pages; the file's name, recorded as its title, is "ISMIR-2003-Shazam-rev2.doc".
        "An Industrial-Strength Audio Search Algorithm", ["Avery Li-Chun Wang"], D(2003, 1, 1),
    ),
    "holdout/sok-eternal-war-in-memory-2013.pdf": (
        "SoK: Eternal War in Memory", ["László Szekeres", "Mathias Payer", "Tao Wei", "Dawn Song"], D(2013, 3, 5),
    ),
    "holdout/spanner-google-2012.pdf": (
        "Spanner: Google’s Globally-Distributed Database",
        ["James C. Corbett", "Jeffrey Dean", "Michael Epstein", "Andrew Fikes", "Christopher Frost", "JJ Furman",
         "Sanjay Ghemawat", "Andrey Gubarev", "Christopher Heiser", "Peter Hochschild", "Wilson Hsieh",
         "Sebastian Kanthak", "Eugene Kogan", "Hongyi Li", "Alexander Lloyd", "Sergey Melnik", "David Mwaura",
         "David Nagle", "Sean Quinlan", "Rajesh Rao", "Lindsay Rolig", "Yasushi Saito", "Michal Szymaniak",
         "Christopher Taylor", "Ruth Wang", "Dale Woodford"],
        D(2012, 10, 11),
    ),
    "holdout/sz-lossy-compression-2016.pdf": (  # metadata title "SZ_max_err.eps"
        "Fast Error-bounded Lossy HPC Data Compression with SZ", ["Sheng Di", "Franck Cappello"], D(2015, 9, 16),
    ),
    "holdout/tao-facebook-2013.pdf": (
        "TAO: Facebook’s Distributed Data Store for the Social Graph",
        ["Nathan Bronson", "Zach Amsden", "George Cabrera", "Prasad Chakka", "Peter Dimov", "Hui Ding", "Jack Ferris",
         "Anthony Giardullo", "Sachin Kulkarni", "Harry Li", "Mark Marchukov", "Dmitri Petrov", "Lovro Puzar",
         "Yee Jiun Song", "Venkat Venkataramani"],
        D(2013, 6, 4),
    ),
    # The masthead "Journal of Statistical Software" is set larger; the metadata title is on the page.
    "holdout/tidy-data-wickham-2014.pdf": ("Tidy Data", ["Hadley Wickham"], D(2014, 8, 12)),
    "holdout/zookeeper-2010.pdf": (
        "ZooKeeper: Wait-free coordination for Internet-scale systems",
        ["Patrick Hunt", "Mahadev Konar", "Flavio P. Junqueira", "Benjamin Reed"],
        D(2010, 5, 12),
    ),
}  # fmt: skip


def _metadata(path: Path) -> DocumentMetadata:
    return extract_metadata(path, content_type_for(path.name), fallback_title=title_from_name(path.name))


def test_every_corpus_file_is_listed() -> None:
    corpus = require_corpus()
    files = sorted(
        f"{p.parent.name}/{p.name}" for d in ("dev", "holdout") for p in (corpus / d).iterdir() if p.suffix != ".jsonl"
    )
    assert files == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_title_authors_and_date(name: str) -> None:
    require_corpus()
    title, authors, published = EXPECTED[name]
    found = _metadata(CORPUS_DIR / name)
    assert (found.title, found.authors, found.published) == (title, authors, published)


def _pdf(tmp_path: Path, *, title: str, body: str, meta: dict[str, str]) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), title, fontsize=22)
    page.insert_text((72, 120), "Ada Lovelace and Charles Babbage", fontsize=12)
    page.insert_text((72, 140), "Analytical Engine Society", fontsize=12)
    page.insert_text((72, 180), "Abstract", fontsize=12)
    for line in range(20):
        page.insert_text((72, 200 + 14 * line), f"{body} {line}", fontsize=10)
    doc.set_metadata(meta)
    path = tmp_path / "report.pdf"
    doc.save(path)
    return path


@pytest.mark.parametrize("meta_title", ["paper.dvi", "Microsoft Word - notes.doc", "System Model", ""])
def test_pdf_title_is_the_pages_largest_line_when_metadata_disagrees(tmp_path: Path, meta_title: str) -> None:
    path = _pdf(tmp_path, title="Tables of the Engine", body="The engine computes tables.", meta={"title": meta_title})
    found = _metadata(path)
    assert found.title == "Tables of the Engine"
    assert found.authors == ["Ada Lovelace", "Charles Babbage"]  # the byline, not the society


def test_pdf_metadata_title_and_author_trusted_when_the_page_agrees(tmp_path: Path) -> None:
    meta = {"title": "Tables of the Engine", "author": "Administrator", "creationDate": "D:19990211093000Z"}
    path = _pdf(tmp_path, title="Tables of the Engine", body="The engine computes tables.", meta=meta)
    found = _metadata(path)
    assert (found.title, found.published) == ("Tables of the Engine", D(1999, 2, 11))
    assert "Administrator" not in found.authors


def test_pdf_without_text_takes_its_metadata_title_unless_it_is_a_file_name(tmp_path: Path) -> None:
    for meta_title, expected in (("Harbour Charts", "Harbour Charts"), ("scan0001.pdf", "scan")):
        doc = pymupdf.open(stream=image_only_pdf(), filetype="pdf")
        doc.set_metadata({"title": meta_title})
        path = tmp_path / "scan.pdf"
        doc.save(path)
        assert _metadata(path).title == expected


def _docx(*, title: str = "", creator: str = "", created: datetime.datetime | None = None) -> bytes:
    document = docx.Document(io.BytesIO(build.manual_docx()))
    props = document.core_properties
    props.title, props.author = title, creator
    if created is not None:
        props.created = created
    stream = io.BytesIO()
    document.save(stream)
    return stream.getvalue()


def test_word_core_properties(tmp_path: Path) -> None:
    path = tmp_path / "manual.docx"
    path.write_bytes(
        _docx(title="Field Survey Handbook", creator="Grace Hopper", created=datetime.datetime(2021, 5, 4))
    )
    assert _metadata(path) == DocumentMetadata("Field Survey Handbook", ["Grace Hopper"], D(2021, 5, 4))


def test_word_without_a_core_title_takes_its_title_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "manual.docx"
    path.write_bytes(_docx(creator="python-docx"))  # the library's placeholder author is nobody's name
    found = _metadata(path)
    assert (found.title, found.authors) == (build.TITLE, [])


def test_html_heading_title_and_meta_tags(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Tide tables | Harbour office</title>"
        '<meta name="author" content="Mary Somerville">'
        '<meta name="citation_publication_date" content="2019-03-02"></head>'
        "<body><nav>Home</nav><h1>Tide tables</h1><p>High water is at noon.</p></body></html>"
    )
    assert _metadata(path) == DocumentMetadata("Tide tables", ["Mary Somerville"], D(2019, 3, 2))
    path.write_text("<html><head><title>Harbour rules</title></head><body><p>No wake.</p></body></html>")
    assert _metadata(path) == DocumentMetadata("Harbour rules")


def test_markdown_front_matter_else_first_heading(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "---\ntitle: Storage internals\nauthor: [Grace Hopper, Alan Turing]\ndate: 2020-01-31\n---\n\n"
        "# Intro\n\nText.\n"
    )
    expected = DocumentMetadata("Storage internals", ["Grace Hopper", "Alan Turing"], D(2020, 1, 31))
    assert _metadata(path) == expected
    path.write_text("---\n: [unclosed\n---\n\nSome words.\n\n## Second level first\n\nMore.\n")
    assert _metadata(path).title == "Second level first"  # bad YAML is ignored, not an error
    path.write_text("No heading at all.\n")
    assert _metadata(path).title == "notes"


def test_markdown_pages_of_a_documentation_set_are_named_with_the_set(tmp_path: Path) -> None:
    page = tmp_path / "storage.md"
    page.write_text("---\ntitle: Storage\nsort_rank: 5\n---\n\nThe local database.\n")
    read = extract_metadata
    assert read(page, "text/markdown", fallback_title="x", collection="Prometheus").title == "Prometheus: Storage"
    assert read(page, "text/markdown", fallback_title="x").title == "Storage"  # no set known: the page's title
    # The front matter's own name for its site wins over the folder's.
    page.write_text("---\ntitle: Operators\nproject: Tide Tables\n---\n\nText.\n")
    assert read(page, "text/markdown", fallback_title="x", collection="Inbox").title == "Tide Tables: Operators"
    # A title naming its set already is not prefixed again.
    page.write_text("---\ntitle: Prometheus 3.0 migration guide\n---\n\nText.\n")
    assert (
        read(page, "text/markdown", fallback_title="x", collection="Prometheus").title
        == "Prometheus 3.0 migration guide"
    )
    # A lone Markdown file (no front matter) is no page of a site: its heading alone.
    page.write_text("# Harbour notes\n\nText.\n")
    assert read(page, "text/markdown", fallback_title="x", collection="Prometheus").title == "Harbour notes"


@pytest.mark.corpus
def test_a_scanned_pdfs_title_byline_and_date_come_from_its_ocr_text(tmp_path: Path) -> None:
    require_corpus()
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf(CORPUS_DIR / "dev/raft-consensus-2014.pdf", [0]))
    extracted = extract_pdf(scan)
    assert extracted.ocr_pages, "the page was read by OCR"
    found = extract_metadata(scan, "application/pdf", fallback_title="scan", extracted=extracted)
    assert found == DocumentMetadata(
        "In Search of an Understandable Consensus Algorithm", ["Diego Ongaro", "John Ousterhout"], D(2013, 10, 7)
    )


def test_plain_text_is_named_by_its_file(tmp_path: Path) -> None:
    path = tmp_path / "harbour_rules.txt"
    path.write_text("Boats keep to the right.")
    assert _metadata(path) == DocumentMetadata("harbour rules")


def test_people_and_dates_refuse_what_is_not_one() -> None:
    assert people("Diego Ongaro, John Ousterhout; Stanford University") == ["Diego Ongaro", "John Ousterhout"]
    for not_a_person in ("Administrator", "blampson", "Google, Inc.", "MICHAEL J. FISCHER", "Palo Alto, CA 94303"):
        assert not any(looks_like_a_person(p) for p in not_a_person.split(", ")) or not byline_people(not_a_person)
    assert byline_people("Mike Burrows, Google Inc.") == ["Mike Burrows"]
    assert byline_people("United Kingdom:") == []
    assert date_from_text("(Draft of October 7, 2013)") == D(2013, 10, 7)
    assert date_from_text("D:20090324113315-06'00'") == D(2009, 3, 24)
    assert date_from_text("3000-01-01") is None  # in the future: not a document's date
    assert date_from_text("2013") is None  # a year alone is not a date


def test_a_byline_in_capitals_names_its_people_and_a_label_in_capitals_names_no_one(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Tables of the Engine", fontsize=22)
    for number, line in enumerate(["TECHNICAL REPORT", "ADA", "A. LOVELACE", "Analytical Engine Society", "AND",
                                   "CHARLES BABBAGE"]):  # fmt: skip
        page.insert_text((72, 120 + 14 * number), line, fontsize=12)
    page.insert_text((72, 220), "Abstract", fontsize=12)
    for line in range(20):
        page.insert_text((72, 240 + 14 * line), f"The engine computes tables {line}.", fontsize=10)
    path = tmp_path / "engine.pdf"
    doc.save(path)
    # "CHARLES BABBAGE" alone, with no initial, is not told from a label: left out rather than guessed.
    assert _metadata(path).authors == ["Ada A. Lovelace"]
