"""The words of a question and where the library holds them: the gate's coverage evidence.

Distance alone cannot tell "what is the default block size in hdfs 3" from a real question about
the GFS paper: both land near the same chunks. What tells them apart is that the question holds
a word — a name, a piece of jargon, a year — of which no readable document has a single lexeme.

`question_terms` picks the words worth checking, each with a kind and how common it is:

- **name**: capitalised away from the start of a sentence ("Grafana"), mixed case ("TrueTime"), or
  a letter followed by digits ("RS256", "v3"). Unmentioned names refuse the question (gate.py), and
  so does an unmentioned word in no everyday vocabulary, however it is typed ("grafana", "etcd":
  `names_something`).
- **year**: a four-digit number from 1900 to 2099. A year the user asks about is information;
  if no readable document holds it, the answer gets a caveat.
- **word**: any other word of two or more letters, with its `wordfreq` Zipf frequency (hdfs 1.5,
  kvm 2.3, tidyr 0.0, "emoji" 3.2, "coordinator" 3.9). A word rarer than
  `ANSWER_JARGON_MAX_ZIPF` is jargon: unmentioned jargon puts a caveat on the answer. Common English
  words the library happens not to use say little about coverage and are not reported.
- **version**: a dotted number right after a name or a rare word ("prometheus 3.1", "Qt 4.3"):
  the release asked about, checked like a year (`version_after`). "a decimal like 4.7" is no
  version: an everyday word comes before it.
- Other numbers ("hdfs 3", "128-bit", "0.75") are the user's own figures and are skipped, and so
  are contractions ("aren't", "we'll").

`term_coverage` then says, in one indexed query, whether each term occurs in a readable document
and whether it occurs in the top passages. A term occurs where its lexeme does (PostgreSQL's
english configuration, the one BM25 uses); a hyphenated term occurs where its compound lexeme
does, or all of its parts ("shopping-cart" is covered by a text saying "shopping" and "cart").
A readable document holds a lexeme when the packed postings BM25 reads (search_lexemeblock) have
a row for it in a readable folder: rows exist only for the stored chunks that hold the lexeme.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from django.db import connection

from documents.lexical_index import TEXT_SEARCH_CONFIG

# A word: starts with a letter or digit, may hold inner ' . + - _ (ids like "spark.sql", "U+1D11E").
_WORD = re.compile(r"[^\W_][\w'’+.-]*[^\W_]|[^\W_]")
# What ends a sentence or opens a new clause whose first word is capitalised by habit.
_CLAUSE_OPENERS = '.?!:;"“‘(['
_YEAR = re.compile(r"(19|20)\d\d")
MAX_TERMS = 30  # a pasted paragraph is not a question about names; check its first few only
KINDS = ("name", "year", "version", "word")
_DOTTED = re.compile(r"v?\d+(\.\d+)+")
# The word before a dotted number: "prometheus" in "prometheus 3.1", "Qt" in "Qt v4.3".
_WORD_BEFORE = re.compile(r"([^\W\d_][\w.+-]*)\s+$")


@dataclass(frozen=True)
class Term:
    text: str  # as the user typed it
    kind: str  # one of KINDS
    zipf: float = 0.0  # how common the word is in everyday English (0 for names' own spelling checks too)

    def is_jargon(self, line: float) -> bool:
        return self.kind == "word" and self.zipf < line


@dataclass(frozen=True)
class TermCoverage:
    term: Term
    in_library: bool  # some readable document holds it
    in_passages: bool  # one of the top passages holds it


def _looks_like_name(word: str, starts_clause: bool) -> bool:
    letters = [ch for ch in word if ch.isalpha()]
    if not letters or len(word) == 1:
        return False  # a number; "I", a variable like "M": too short to name anything
    if any(ch.isdigit() for ch in word):
        return word[0].isalpha()  # "RS256", "v3"; but "128-bit", "64KB", "99th" are quantities
    if any(ch.isupper() for ch in word[1:]):
        return True
    return word[0].isupper() and not starts_clause


@functools.lru_cache(maxsize=4096)
def zipf(word: str) -> float:
    """How common `word` is in everyday English (wordfreq's Zipf scale: 0 unknown .. 7 "the").

    A hyphenated word is looked up joined ("post-copy" → "postcopy"): its parts are common words,
    the compound is jargon. Possessives count as the word ("amazon's" → "amazon")."""
    from wordfreq import zipf_frequency  # loads its word lists on first use, not at import

    key = word.lower().replace("’", "'")
    key = key.removesuffix("'s").replace("-", "").replace("'", "")
    return float(zipf_frequency(key, "en"))


# Below this Zipf frequency a word is in no everyday English vocabulary: "etcd" 0, "dynamodb" 1.4,
# "hbase" 1.4, "elasticsearch" 1.8, "redis" 2.0 (just under), against "backslash" 2.1, "regex" 2.2,
# "kubernetes" 2.3, "whitepaper" 2.5. Tuned on the dev near-miss set, where every lower-case system
# name the library lacks ("hbase", "riak", "etcd", "cockroachdb", "logql") falls under it.
UNFAMILIAR_MAX_ZIPF = 2.0


def names_something(term: Term) -> bool:
    """Whether `term` names a thing even when typed in lower case: a name ("Grafana", "RS256"), or
    a word no English vocabulary knows ("grafana", "mapreduce.job.reduces"). A hyphenated word is
    one when one of its parts is ("grafana-agent"), not when its parts are words ("backslash-u",
    "shopping-cart": `zipf` looks those up joined, and finds nothing)."""
    if term.kind == "name":
        return True
    if term.kind != "word":
        return False
    if "-" in term.text:
        return any(zipf(part) < UNFAMILIAR_MAX_ZIPF for part in term.text.split("-") if len(part) > 1)
    return zipf(term.text) < UNFAMILIAR_MAX_ZIPF


# "aren't", "we're", "I'll": a contraction is grammar, not a topic (its pieces are stop words).
_CONTRACTION = re.compile(r"['’](t|re|ve|ll|d|m)$", re.IGNORECASE)


def version_after(word: str, before: str) -> bool:
    """Whether `word` is a release of what precedes it: a dotted number ("3.1", "v2.55") after a
    capitalised or rare word ("Prometheus 3.1", "hadoop 3.3"), not after an everyday one ("a decimal
    like 4.7", "the 0.75 used by BM25")."""
    previous = _WORD_BEFORE.search(before + " ")
    if not _DOTTED.fullmatch(word) or previous is None:
        return False
    name = previous.group(1)
    return name[0].isupper() or zipf(name) < VERSION_NAME_MAX_ZIPF


# A word rarer than this names a product when a dotted number follows it ("prometheus" 3.1, "qt" 3.2,
# "hadoop" 2.6); "like" (6.3), "the", "version" (4.9) do not.
VERSION_NAME_MAX_ZIPF = 4.0


def _kind(word: str, starts_clause: bool, before: str = "") -> str | None:
    if _CONTRACTION.search(word):
        return None
    if version_after(word, before):
        return "version"
    if _looks_like_name(word, starts_clause):
        return "name"
    if word[0].isdigit():
        return "year" if _YEAR.fullmatch(word) else None
    if len(word) < 2 or any(ch.isdigit() for ch in word):
        return None
    return "word"


def question_terms(query: str) -> list[Term]:
    """The names, years and words of `query`, in order, each once (case-insensitively)."""
    terms: list[Term] = []
    seen: set[str] = set()
    for match in _WORD.finditer(query):
        word = match.group(0).rstrip(".'’")
        if not word or word.lower() in seen:
            continue
        before = query[: match.start()].rstrip()
        kind = _kind(word, not before or before[-1] in _CLAUSE_OPENERS, before)
        if kind is not None:
            seen.add(word.lower())
            terms.append(Term(word, kind, round(zipf(word), 2)))
    return terms[:MAX_TERMS]


# One round trip: per term, whether a readable document and whether one of the top passages holds
# it. A term whose words are all stop words has no lexeme and drops out (nothing to check).
_COVERAGE_SQL = f"""
WITH lexemes AS (
    SELECT t.ord, t.term, u.lexeme, position('-' IN u.lexeme) > 0 AS compound
      FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, ord)
     CROSS JOIN LATERAL unnest(to_tsvector('{TEXT_SEARCH_CONFIG}', t.term)) AS u
),
-- The top passages' own lexemes, from their few rows (a postings lookup by lexeme would read
-- every posting of a common word in a large library).
passage_lexemes AS (
    SELECT u.lexeme FROM documents_chunk AS c CROSS JOIN LATERAL unnest(c.search_vector) AS u
     WHERE c.id = ANY(%(passages)s)
),
found AS (
    SELECT l.ord, l.term, l.compound,
           -- A lexeme has packed rows in a folder only for chunks stored there: one index probe.
           EXISTS (SELECT 1
                     FROM search_lexemeblock AS b
                    WHERE b.lexeme = l.lexeme AND b.folder_id = ANY(%(folders)s::bigint[])) AS in_library,
           l.lexeme IN (SELECT lexeme FROM passage_lexemes) AS in_passages
      FROM lexemes AS l
)
SELECT term,
       bool_or(compound AND in_library) OR coalesce(bool_and(in_library) FILTER (WHERE NOT compound), false),
       bool_or(compound AND in_passages) OR coalesce(bool_and(in_passages) FILTER (WHERE NOT compound), false)
  FROM found
 GROUP BY ord, term
 ORDER BY ord
"""


def term_coverage(terms: list[Term], folder_ids: list[int], passage_ids: list[int]) -> list[TermCoverage]:
    """Where `terms` occur: in documents of `folder_ids`, in the chunks `passage_ids` (one query;
    none when there is nothing to check). Terms without a lexeme (stop words) are left out."""
    if not terms or not folder_ids:
        return []
    params: dict[str, Any] = {"terms": [t.text for t in terms], "folders": folder_ids, "passages": passage_ids}
    with connection.cursor() as cursor:
        cursor.execute(_COVERAGE_SQL, params)
        found = {row[0]: (bool(row[1]), bool(row[2])) for row in cursor.fetchall()}
    return [TermCoverage(t, *found[t.text]) for t in terms if t.text in found]


def quoted_list(words: list[str]) -> str:
    """'a', 'a' or 'b', 'a', 'b' or 'c': how a message names several words."""
    quoted = [f"'{word}'" for word in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
