"""Help with a question the library cannot read as typed: a respelling, or the language it reads.

Both are looked for only when a word of the question occurs in no readable document
(retrieval.py calls them then):

- `foreign_language`: the question's language, when it is confidently not English (py3langid,
  whose model ships in its package, loaded once per process on first use). The index stems
  English (`documents.lexical.index.TEXT_SEARCH_CONFIG`), so a question in another language mostly finds nothing; the
  reader is told which language the library reads instead of being asked to check the spelling.
- `respelt_query`: the question with each such word replaced by the library word one edit away
  (a letter deleted, inserted, replaced, or two swapped: "leeder" → "leader") that the readable
  documents hold most often. The candidates are checked in one query against the keyword index
  (`documents.lexical.reads.words_held`), under the same folder ids as the search: a suggestion
  never reveals a word of a document the reader may not read.
"""

from __future__ import annotations

import functools
import re
import string
from typing import TYPE_CHECKING

from django.utils.translation import gettext, gettext_noop

from documents.lexical.reads import words_held
from search.services.terms import zipf

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

LIBRARY_LANGUAGE = gettext_noop("English")  # said in the reader's language by language_sentence
_LIBRARY_LANGUAGE_CODE = "en"

# A detector reads a few words poorly ("Dynamo" → Lithuanian, "quorum" → Latin): only a question of
# several words is judged, and only when the detector is sure it is not English. Measured on
# "¿Cómo elige Raft a un líder?" (es 0.48, en 0.001), "Wie funktioniert Bigtable?" (de 0.46, en 0.02)
# against "Bigtable tablet server" (fr 0.15) and "hinted handoff" (en 0.17).
FOREIGN_MIN_WORDS = 3
FOREIGN_MIN_PROBABILITY = 0.35
ENGLISH_MAX_PROBABILITY = 0.05
_LETTERS = re.compile(r"[^\W\d_]+")


@functools.cache
def _identifier() -> LanguageIdentifier:
    """py3langid's identifier with normalised probabilities: its model loads in about a second."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def foreign_language(query: str) -> str | None:
    """The ISO 639-1 code of the language `query` is written in, when it is surely not English;
    None when it is English or the words are too few to tell."""
    if len(_LETTERS.findall(query)) < FOREIGN_MIN_WORDS:
        return None
    ranked = dict(_identifier().rank(query))
    language, probability = max(ranked.items(), key=lambda item: item[1])
    if language == _LIBRARY_LANGUAGE_CODE or probability < FOREIGN_MIN_PROBABILITY:
        return None
    return language if ranked.get(_LIBRARY_LANGUAGE_CODE, 0.0) < ENGLISH_MAX_PROBABILITY else None


def language_sentence() -> str:
    """What a reader of a question in another language is told."""
    return gettext(
        "The library reads %(language)s only, and this question does not look like %(language)s: "
        "ask it in %(language)s."
    ) % {"language": gettext(LIBRARY_LANGUAGE)}


# A shorter word has too many neighbours one edit away ("etcd" → "etc"): it is left as typed.
RESPELL_MIN_LETTERS = 5


def one_edit_away(word: str) -> set[str]:
    """Every lower-case word one deletion, insertion, replacement or swap of neighbours from `word`."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deleted = {a + b[1:] for a, b in splits if b}
    swapped = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaced = {a + c + b[1:] for a, b in splits if b for c in string.ascii_lowercase}
    inserted = {a + c + b for a, b in splits for c in string.ascii_lowercase}
    return (deleted | swapped | replaced | inserted) - {word}


def respelt_query(query: str, unheld: list[str], folder_ids: list[int]) -> str | None:
    """`query` with each word of `unheld` (words no readable document holds) replaced by the
    library word one edit away that most readable chunks hold; None when no word has one."""
    words = [w for w in dict.fromkeys(w.lower() for w in unheld) if w.isalpha() and len(w) >= RESPELL_MIN_LETTERS]
    candidates = {word: {c for c in one_edit_away(word) if len(c) >= RESPELL_MIN_LETTERS} for word in words}
    pool = sorted(set().union(*candidates.values())) if candidates else []
    if not pool or not folder_ids:
        return None
    held = words_held(pool, folder_ids)
    respelt = query
    for word, near in candidates.items():
        best = max((c for c in near if c in held), key=lambda c: (held[c], zipf(c), c), default=None)
        if best is not None:
            respelt = _replace_word(respelt, word, best)
    return respelt if respelt != query else None


def _replace_word(text: str, typed: str, word: str) -> str:
    """`text` with every `typed` (whatever its case) replaced by `word`, capitalised where it was."""

    def same_case(found: re.Match[str]) -> str:
        return word.capitalize() if found.group(0)[:1].isupper() else word

    return re.sub(rf"\b{re.escape(typed)}\b", same_case, text, flags=re.IGNORECASE)
