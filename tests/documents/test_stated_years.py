"""Publication years: what each corpus PDF states of itself, against what extraction reads.

The table was written by reading every PDF's pages with PyMuPDF (page.get_text()), independently
of the code under test: the line that dates the document, or None where no page does. Where a PDF
states nothing, the year it is known by (MANIFEST.tsv) is noted, and the file's own date is what
extraction shows; those are not counted against it.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pymupdf
import pytest

from documents.extraction.metadata import extract_metadata
from documents.extraction.stated_dates import stated_date
from tests.corpus import CORPUS_DIR, require_corpus

D = datetime.date

# file: (year the document states, where it states it)
STATED_YEARS: dict[str, tuple[int | None, str]] = {
    "dev/api-design-manual-trolltech-2008.pdf": (2008, "title page: 'June 19, 2008'"),
    "dev/bigtable-google-2006.pdf": (2006, "page header: 'To appear in OSDI 2006'"),
    "dev/bitcoin-nakamoto-2008.pdf": (None, "no page dates it (known as 2008; the file is of 2009-03-24)"),
    "dev/dynamo-amazon-2007.pdf": (2007, "first page: 'SOSP 2007, …', 'Copyright 2007 ACM'"),
    "dev/ecma-404-json-spec-2013.pdf": (2013, "cover: '1st Edition / October 2013' (and a template's '© … 2009')"),
    "dev/graph-of-word-tw-idf-2013.pdf": (2013, "first page: 'CIKM'13, Oct. 27–Nov. 1, 2013', 'Copyright 2013 ACM'"),
    "dev/mapreduce-google-2004.pdf": (2004, "page header: 'To appear in OSDI 2004'"),
    "dev/mit-6826-availability-replication-2002.pdf": (2002, "page header: '2002'"),
    # This copy is the draft of the extended version (the manifest, naming the version published, says 2014).
    "dev/raft-consensus-2014.pdf": (2013, "title page: '(Draft of October 7, 2013)'"),
    "dev/tor-onion-router-2004.pdf": (None, "no page dates it (known as 2004; the file is of 2004-05-18)"),
    "holdout/chubby-lock-service-2006.pdf": (None, "no page dates it (known as 2006; the file is of 2006-09-06)"),
    "holdout/dapper-tracing-google-2010.pdf": (2010, "title page: 'Google Technical Report dapper-2010-1, April 2010'"),
    "holdout/flp-impossibility-1985-scanned.pdf": (
        1985,
        "first page: 'Journal of the A[CM], Vol. 32, No. 2, April 1985', '© 1985 ACM' (received 'March 1983')",
    ),
    "holdout/google-file-system-2003.pdf": (2003, "first page: 'SOSP'03, October 19–22, 2003', 'Copyright 2003 ACM'"),
    "holdout/live-migration-vms-2005.pdf": (None, "no page dates it (known as 2005; the file has no date)"),
    "holdout/mit-6826-security-real-world-2002.pdf": (2002, "page header: '2002'"),
    "holdout/note-on-distributed-computing-sun-1994.pdf": (1994, "title page: 'SMLI TR-94-29', 'November 1994'"),
    "holdout/shazam-audio-search-2003.pdf": (
        None,
        "no page dates it (known as 2003; the file is of 2006, its name 'ISMIR-2003-Shazam-rev2.doc')",
    ),
    "holdout/sok-eternal-war-in-memory-2013.pdf": (None, "no page dates it (known as 2013; the file is of 2013-03-05)"),
    "holdout/spanner-google-2012.pdf": (2012, "page header: 'Published in the Proceedings of OSDI 2012'"),
    "holdout/sz-lossy-compression-2016.pdf": (None, "no page dates it (known as 2016; the file is of 2015-09-16)"),
    "holdout/tao-facebook-2013.pdf": (2013, "page footer: '2013 USENIX Annual Technical Conference (USENIX ATC '13)'"),
    "holdout/tidy-data-wickham-2014.pdf": (2014, "masthead: 'August 2014, Volume 59, Issue 10.'"),
    "holdout/zookeeper-2010.pdf": (None, "no page dates it (known as 2010; the file is of 2010-05-12)"),
}
ALLOWED_WRONG_PER_SPLIT = 1


def _year(path: Path) -> int | None:
    found = extract_metadata(path, "application/pdf", fallback_title=path.stem).published
    return found.year if found is not None else None


@pytest.mark.corpus
def test_the_table_lists_every_corpus_pdf() -> None:
    corpus = require_corpus()
    pdfs = sorted(f"{split}/{p.name}" for split in ("dev", "holdout") for p in (corpus / split).glob("*.pdf"))
    assert pdfs == sorted(STATED_YEARS)


@pytest.mark.corpus
@pytest.mark.parametrize("split", ["dev", "holdout"])
def test_extracted_years_are_the_years_the_documents_state(split: str) -> None:
    require_corpus()
    stated = {name: year for name, (year, _) in STATED_YEARS.items() if name.startswith(f"{split}/") and year}
    wrong = {name: (_year(CORPUS_DIR / name), year) for name, year in stated.items()}
    wrong = {name: pair for name, pair in wrong.items() if pair[0] != pair[1]}
    assert len(wrong) <= ALLOWED_WRONG_PER_SPLIT, wrong
    assert not wrong, f"every stated year is read today; found, stated: {wrong}"


def test_the_lines_that_date_a_document() -> None:
    assert stated_date(["To appear in OSDI 2006"]) == D(2006, 1, 1)
    assert stated_date(["SOSP’03, October 19–22, 2003, Bolton Landing"]) == D(2003, 10, 1)
    assert stated_date(["2013 USENIX Annual Technical Conference (USENIX ATC ’13)  49"]) == D(2013, 1, 1)
    assert stated_date(["Copyright 2007 ACM XXX…$5.00."]) == D(2007, 1, 1)
    assert stated_date(["© Ecma International 2009", "1st Edition / October 2013"]) == D(2013, 10, 1)
    assert stated_date(["Proceedings of the Fourth Symposium, 1985"]) == D(1985, 1, 1)
    assert stated_date(["arXiv:1402.0001v2 [cs.DC] 14 Feb 2014"]) == D(2014, 2, 14)
    assert stated_date(["(Draft of October 7, 2013)"]) == D(2013, 10, 7)
    assert stated_date(["2002"]) == D(2002, 1, 1)
    # Received in 1983, published in 1985: the newest statement is the document's.
    assert stated_date(["Received March 1983", "Journal of the ACM, Vol. 32, No. 2, April 1985"]) == D(1985, 4, 1)


def test_a_year_in_a_sentence_does_not_date_the_document() -> None:
    assert stated_date(["Shazam Entertainment, Ltd. was started in 2000 with the"]) is None
    assert stated_date(["the Pwn2Own/Pwnium hacking contests in 2012."]) is None
    assert stated_date(["Reference number ISO-123:2009", "port 2049 and 1024 bytes"]) is None
    assert stated_date(["To appear in OSDI 3025"]) is None  # in the future: no document's date


def _dated_pdf(tmp_path: Path, *, venue_line: str, created: str, title: str = "") -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), venue_line, fontsize=8)
    page.insert_text((72, 100), "Tables of the Engine", fontsize=22)
    page.insert_text((72, 130), "Ada Lovelace and Charles Babbage", fontsize=12)
    for line in range(20):
        page.insert_text((72, 170 + 14 * line), f"The engine computes tables {line}.", fontsize=10)
    doc.set_metadata({"creationDate": created, "title": title})
    path = tmp_path / "engine.pdf"
    doc.save(path)
    return path


def test_the_page_wins_over_a_file_made_later_and_the_file_keeps_its_day_when_they_agree(tmp_path: Path) -> None:
    later = _dated_pdf(tmp_path, venue_line="Published in the Proceedings of ENGINE 1843", created="D:19990512050727")
    assert extract_metadata(later, "application/pdf", fallback_title="x").published == D(1843, 1, 1)
    same_year = _dated_pdf(tmp_path, venue_line="To appear in ENGINE 1999", created="D:19990512050727")
    assert extract_metadata(same_year, "application/pdf", fallback_title="x").published == D(1999, 5, 12)
    undated = _dated_pdf(tmp_path, venue_line="Analytical Engine Society", created="D:19990512050727")
    assert extract_metadata(undated, "application/pdf", fallback_title="x").published == D(1999, 5, 12)
    # No year on the page: one the producing file's name carries, not after the file was made.
    named = _dated_pdf(
        tmp_path, venue_line="Analytical Engine Society", created="D:19990512050727", title="ENGINE-1997-rev2.doc"
    )
    assert extract_metadata(named, "application/pdf", fallback_title="x").published == D(1997, 1, 1)
