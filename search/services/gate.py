"""The answer gate's second check: names in the question that the library never mentions.

Distance alone cannot tell "how does Kafka order messages" from a real question about the
storage papers: both land near the same chunks (docs/EVALUATION.md, gate). What does tell
them apart is that the question *names* something — Kafka, Grafana, RS256 — of which no
readable document holds a single word. A library that never mentions a thing cannot answer
a question about it, so the search is refused and the refusal says which names were missing.

Only name-like words count: capitalised away from the start of a sentence ("Grafana"),
mixed case ("TrueTime", "maxUnavailable"), or a letter followed by digits ("RS256", "v3";
not quantities such as "128-bit"). Plain
words are left alone — a user's "emoji" or "whitepaper" may be absent from the text that
answers them, and refusing those would cost real answers (0 of 60 dev questions are refused
by this check; see the evaluation). A name counts as mentioned when any of its lexemes
(PostgreSQL's english configuration, the same one BM25 uses) occurs in a readable document.
"""

from __future__ import annotations

import re

from django.db import connection

from search.services.bm25 import TEXT_SEARCH_CONFIG

# A word: starts with a letter or digit, may hold inner ' . + - _ (ids like "spark.sql", "U+1D11E").
_WORD = re.compile(r"[^\W_][\w'’+.-]*[^\W_]|[^\W_]")
# What ends a sentence or opens a new clause whose first word is capitalised by habit.
_CLAUSE_OPENERS = '.?!:;"“‘(['
MAX_NAMES = 20  # a pasted paragraph is not a question about names; check its first few only


def _looks_like_name(word: str, starts_clause: bool) -> bool:
    letters = [ch for ch in word if ch.isalpha()]
    if not letters:
        return False  # a number: the user's own figures need not appear in the text
    if len(word) == 1:
        return False  # "I", a variable like "M": too short to name anything
    if any(ch.isdigit() for ch in word):
        return word[0].isalpha()  # "RS256", "v3"; but "128-bit", "64KB", "99th" are quantities
    if any(ch.isupper() for ch in word[1:]):
        return True
    return word[0].isupper() and not starts_clause


def named_terms(query: str) -> list[str]:
    """Name-like words of `query`, in order, each once (case-sensitive)."""
    names: list[str] = []
    for match in _WORD.finditer(query):
        word = match.group(0).rstrip(".'’")
        before = query[: match.start()].rstrip()
        starts_clause = not before or before[-1] in _CLAUSE_OPENERS
        if word and _looks_like_name(word, starts_clause) and word not in names:
            names.append(word)
    return names[:MAX_NAMES]


# One round trip: each name's lexemes, and whether any of them occurs in a readable document.
# A name whose words are all stop words has no lexemes and drops out (nothing to check).
_UNKNOWN_SQL = f"""
WITH names AS (
    SELECT n.ord, n.name, u.lexeme
      FROM unnest(%(names)s::text[]) WITH ORDINALITY AS n(name, ord)
     CROSS JOIN LATERAL unnest(to_tsvector('{TEXT_SEARCH_CONFIG}', n.name)) AS u
)
SELECT names.name
  FROM names
 GROUP BY names.ord, names.name
HAVING NOT bool_or(EXISTS (
           SELECT 1
             FROM search_documentlexeme AS dl
             JOIN documents_document AS d ON d.id = dl.document_id
            WHERE dl.lexeme = names.lexeme AND d.folder_id = ANY(%(folders)s)))
 ORDER BY names.ord
"""


def unknown_names(query: str, folder_ids: list[int]) -> list[str]:
    """The name-like words of `query` of which no document in `folder_ids` holds any lexeme."""
    names = named_terms(query)
    if not names or not folder_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_UNKNOWN_SQL, {"names": names, "folders": folder_ids})
        return [row[0] for row in cursor.fetchall()]


def unknown_names_message(names: list[str]) -> str:
    """The refusal a person reads: which names are missing, and what that means."""
    quoted = [f"'{name}'" for name in names]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return (
        f"No document you may read mentions {listed}, so the library cannot answer a question about "
        f"{'it' if len(names) == 1 else 'them'}. Check the spelling, or ask someone to add a document that covers it."
    )
