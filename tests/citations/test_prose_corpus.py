"""Sentences of the real corpus that cite other papers in the text ("the Paxos algorithm [9, 23]")
are prose an answer may quote; the reference list they point to is not."""

from __future__ import annotations

import pytest

from citations.writers.prose import units
from documents.extraction.dispatch import extract_document
from tests.corpus import DEV_DIR, HOLDOUT_DIR, require_corpus

pytestmark = pytest.mark.corpus


def paragraph_units(path_name: str, words: str) -> tuple[str, list[tuple[str, bool]]]:
    """The extracted paragraph of a dev paper holding `words`, and its sentences with whether each is prose."""
    require_corpus()
    text = extract_document(DEV_DIR / path_name, "application/pdf").text
    at = text.index(words)
    start = text.rfind("\n\n", 0, at) + 2
    end = text.find("\n\n", at)
    paragraph = text[start : end if end >= 0 else len(text)]
    return paragraph, [(paragraph[u.start : u.end], u.prose) for u in units(paragraph)]


@pytest.mark.parametrize(
    ("path_name", "words"),
    [
        # Most of these two lines' tokens are markers: read as debris until markers counted as prose.
        ("raft-consensus-2014.pdf", "such as Chubby [2, 4], ZooKeeper [10, 11], and Spanner [5]."),
        ("raft-consensus-2014.pdf", "applied to Paxos [17, 18, 3, 24, 1, 26]."),
        ("bigtable-google-2006.pdf", "Paxos algorithm [9, 23]"),
    ],
)
def test_a_sentence_citing_papers_in_the_text_is_prose(path_name: str, words: str) -> None:
    _paragraph, found = paragraph_units(path_name, words)
    citing = [(sentence, prose) for sentence, prose in found if words in " ".join(sentence.split())]
    assert citing, found
    assert all(prose for _sentence, prose in citing), citing


def test_the_reference_list_the_markers_point_to_is_not_prose() -> None:
    _paragraph, found = paragraph_units("bitcoin-nakamoto-2008.pdf", "W. Dai")
    entries = [sentence for sentence, _prose in found if "Dai" in sentence]
    assert entries
    assert not any(prose for sentence, prose in found if "Dai" in sentence)


def holdout_units(path_name: str, words: str) -> list[tuple[str, bool]]:
    text = extract_document(HOLDOUT_DIR / path_name, "application/pdf").text
    at = text.index(words)
    start = text.rfind("\n\n", 0, at) + 2
    end = text.find("\n\n", at)
    paragraph = text[start : end if end >= 0 else len(text)]
    return [(paragraph[u.start : u.end], u.prose) for u in units(paragraph)]


def test_an_author_line_ending_in_its_company_is_not_prose() -> None:
    require_corpus()
    found = holdout_units("chubby-lock-service-2006.pdf", "Mike Burrows, Google Inc.")
    assert ("Mike Burrows, Google Inc.", False) in [(" ".join(s.split()), p) for s, p in found]


def test_a_full_stop_inside_a_parenthesis_ends_no_sentence() -> None:
    # The chunker's splitter ends a sentence at "Inc." inside "(SAS Institute Inc. 2013)"; the
    # writer's sentence runs on to the full stop that closes it.
    require_corpus()
    found = holdout_units("tidy-data-wickham-2014.pdf", "I will focus particularly on tools provided by R")
    whole = [(" ".join(s.split()), p) for s, p in found if "SAS Institute Inc." in s]
    assert whole == [
        (
            "I will focus particularly on tools provided by R, because it has many existing tidy tools, but I "
            "will also touch on other statistical programming environments, such as SAS (SAS Institute Inc. "
            "2013), SPSS (IBM Corporation 2013) and Stata (StataCorp. 2013).",
            True,
        )
    ]


@pytest.mark.parametrize(
    ("directory", "path_name", "words"),
    [
        ("dev", "dynamo-amazon-2007.pdf", "Permission to make digital or hard copies"),
        ("holdout", "google-file-system-2003.pdf", "Permission to make digital or hard copies"),
        ("holdout", "note-on-distributed-computing-sun-1994.pdf", "Unlimited copying without fee"),
    ],
)
def test_a_permission_notice_is_not_prose(directory: str, path_name: str, words: str) -> None:
    require_corpus()
    base = DEV_DIR if directory == "dev" else HOLDOUT_DIR
    text = extract_document(base / path_name, "application/pdf").text
    at = text.index(words)
    paragraph = text[text.rfind("\n\n", 0, at) + 2 : text.find("\n\n", at)]
    found = units(paragraph)
    assert found
    assert not any(u.prose for u in found)


def test_an_address_footnote_joined_to_a_permission_notice_is_not_prose() -> None:
    # The scanned FLP paper's first-page footnote as its OCR text reads (the extractor joins the
    # authors' addresses and the ACM notice into one paragraph ending in a full stop).
    footnote = (
        "Box 2158, Yale Station, New Haven, CT 06520; N. A. Lynch, Laboratory for Computer Science, "
        "Massachusetts Institute of Technology, 545 Technology Square, Cambridge, MA 02139; M. S. Paterson, "
        "Department of Computer Science, University of Warwick, Coventry CV4 7AL, England Permission to copy "
        "without fee all or part of this material is granted provided that the copies are not made or "
        "distributed for direct commercial advantage, the ACM copyright notice and the title of the "
        "publication and its date appear, and notice is given that copying is by permission of the "
        "Association for Computing Machinery."
    )
    found = units(footnote)
    assert found
    assert not any(u.prose for u in found)
    # A sentence that only mentions a fee stays prose.
    plain = "Clients pay a small fee for each lookup, and the service copies the data to three replicas."
    assert all(u.prose for u in units(plain))
