"""The words of a question that the library never mentions: the gate's coverage evidence.

Distance alone cannot tell "what is the default block size in hdfs 3" from a real question about
the GFS paper: both land near the same chunks. What tells them apart is that the question holds
a word — a name, a piece of jargon, a year — of which no readable document has a single lexeme.

Each word of the question is given a kind:

- **name**: capitalised away from the start of a sentence ("Grafana"), mixed case ("TrueTime"), or
  a letter followed by digits ("RS256", "v3"). Unmentioned names refuse the question (gate.py).
- **jargon**: any other word that is rare in everyday English — its `wordfreq` Zipf frequency is
  below `ANSWER_JARGON_MAX_ZIPF` (hdfs 1.5, kvm 2.3, tidyr 0.0, post-copy → "postcopy" 0.0).
  Unmentioned jargon puts a caveat on the answer.
- **year**: a four-digit number from 1900 to 2099. A year the user asks about is information;
  if no readable document holds it, the answer gets a caveat.
- **word**: everything else. Common English words the library happens not to use ("coordinator",
  "spreadsheets", "emoji") say little about coverage and are never reported; other numbers
  ("hdfs 3", "128-bit") are the user's own figures and are skipped.

A word counts as mentioned when its lexeme (PostgreSQL's english configuration, the one BM25 uses)
occurs in a readable document. A hyphenated word must occur as the compound ("post-copy" is not
mentioned by a text that says "post" and "copy" apart); any other word is mentioned when any of
its lexemes is. Everything is decided in one indexed query, run only when the question has such
a word; a word that the user typed twice is reported once.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from search.services.bm25 import TEXT_SEARCH_CONFIG

# A word: starts with a letter or digit, may hold inner ' . + - _ (ids like "spark.sql", "U+1D11E").
_WORD = re.compile(r"[^\W_][\w'’+.-]*[^\W_]|[^\W_]")
# What ends a sentence or opens a new clause whose first word is capitalised by habit.
_CLAUSE_OPENERS = '.?!:;"“‘(['
_YEAR = re.compile(r"(19|20)\d\d")
MAX_TERMS = 30  # a pasted paragraph is not a question about names; check its first few only
KINDS = ("name", "jargon", "year")


@dataclass(frozen=True)
class Term:
    text: str  # as the user typed it
    kind: str  # one of KINDS


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


def _kind(word: str, starts_clause: bool, jargon_below: float) -> str | None:
    if _looks_like_name(word, starts_clause):
        return "name"
    if word[0].isdigit():
        return "year" if _YEAR.fullmatch(word) else None
    if len(word) < 2 or any(ch.isdigit() for ch in word):
        return None
    return "jargon" if zipf(word) < jargon_below else None


def question_terms(query: str, jargon_below: float | None = None) -> list[Term]:
    """The names, jargon and years of `query`, in order, each once."""
    below = float(settings.ANSWER_JARGON_MAX_ZIPF) if jargon_below is None else jargon_below
    terms: list[Term] = []
    seen: set[str] = set()
    for match in _WORD.finditer(query):
        word = match.group(0).rstrip(".'’")
        if not word or word.lower() in seen:
            continue
        before = query[: match.start()].rstrip()
        kind = _kind(word, not before or before[-1] in _CLAUSE_OPENERS, below)
        if kind is not None:
            seen.add(word.lower())
            terms.append(Term(word, kind))
    return terms[:MAX_TERMS]


# One round trip: each term's lexemes, and whether a readable document holds them. A hyphenated
# term needs its compound lexeme; a term whose words are all stop words has no lexeme and drops
# out (nothing to check).
_MISSING_SQL = f"""
WITH terms AS (
    SELECT t.ord, t.term, u.lexeme
      FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, ord)
     CROSS JOIN LATERAL unnest(to_tsvector('{TEXT_SEARCH_CONFIG}', t.term)) AS u
     WHERE position('-' IN t.term) = 0 OR position('-' IN u.lexeme) > 0
)
SELECT terms.term
  FROM terms
 GROUP BY terms.ord, terms.term
HAVING NOT bool_or(EXISTS (
           SELECT 1
             FROM search_documentlexeme AS dl
             JOIN documents_document AS d ON d.id = dl.document_id
            WHERE dl.lexeme = terms.lexeme AND d.folder_id = ANY(%(folders)s)))
 ORDER BY terms.ord
"""


def unmentioned_terms(terms: list[Term], folder_ids: list[int]) -> list[Term]:
    """The `terms` of which no document in `folder_ids` holds a lexeme (none when nothing to check)."""
    if not terms or not folder_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_MISSING_SQL, {"terms": [t.text for t in terms], "folders": folder_ids})
        missing = {row[0] for row in cursor.fetchall()}
    return [t for t in terms if t.text in missing]


def quoted_list(words: list[str]) -> str:
    """'a', 'a' or 'b', 'a', 'b' or 'c': how a message names several words."""
    quoted = [f"'{word}'" for word in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
