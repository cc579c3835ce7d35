"""The language a question is read in, and help with a question the library cannot read as typed.

- `question_language`: the language the question is written in, told among the languages the
  product reads (py3langid, whose model ships in its package, loaded once per process on first
  use; `documents.languages.TEXT_SEARCH_CONFIGS`): one the library holds (the readable
  documents' languages, `documents.selectors.document_languages`) unless the question is surely
  in another one (`foreign_language`). Its word checks (terms.py) and its answer-type rules
  (answer_type.py `rules_for`) are that language's.
- `foreign_language`: the question's language, when it is surely none of the library's. Such a
  question mostly finds nothing; the reader is told which languages the library holds
  (`language_sentence`) instead of being asked to check the spelling.

Looked for only when a word of the question occurs in no readable document (retrieval.py calls
it then), and the question is in a language the library holds:

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
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from documents.filters import language_label
from documents.languages import TEXT_SEARCH_CONFIGS
from documents.lexical.reads import words_held
from search.services.terms import ENGLISH, zipf

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

# A detector reads a few words poorly ("Dynamo" → Lithuanian, "quorum" → Latin): only a question of
# several words is judged, and only when the detector is sure it is none of the library's languages.
# Measured on "¿Cómo elige Raft a un líder?" (es 0.48, en 0.001), "Wie funktioniert Bigtable?"
# (de 0.46, en 0.02) against "Bigtable tablet server" (fr 0.15) and "hinted handoff" (en 0.17);
# with these lines none of the 741 English and Portuguese questions of the dev and consumed
# evaluation sets reads as a language its library does not hold (docs/retrieval.md).
FOREIGN_MIN_WORDS = 3
FOREIGN_MIN_PROBABILITY = 0.35
HELD_MAX_PROBABILITY = 0.05
_LETTERS = re.compile(r"[^\W\d_]+")


@functools.cache
def _identifier() -> LanguageIdentifier:
    """py3langid's identifier with normalised probabilities: its model loads in about a second."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _ranked(query: str) -> dict[str, float] | None:
    """The detector's probability of each language for `query`; None when its words are too few to judge."""
    if len(_LETTERS.findall(query)) < FOREIGN_MIN_WORDS:
        return None
    return dict(_identifier().rank(query))


def language_told(query: str, held: Sequence[str]) -> bool:
    """Whether `question_language` tells `query`'s language among several held ones (enough words)."""
    return len(held) > 1 and len(_LETTERS.findall(query)) >= FOREIGN_MIN_WORDS


def question_language(query: str, held: Sequence[str]) -> str:
    """The language `query` is written in: one of `held` (the library's languages, main first),
    unless it is surely another language the product reads (`foreign_language`); among `held`,
    the first when it is the only one or the question has too few words to tell."""
    ranked = _ranked(query)
    foreign = _foreign(ranked, held)
    if foreign is not None:
        return foreign
    if ranked is None or not language_told(query, held):
        return held[0] if held else ENGLISH
    return max(held, key=lambda code: ranked.get(code, 0.0))


def foreign_language(query: str, held: Sequence[str] = (ENGLISH,)) -> str | None:
    """The ISO 639-1 code of the language `query` is written in, when it is surely none of `held`
    and one the product reads (`TEXT_SEARCH_CONFIGS`); None when it may be one of them or the
    words are too few to tell."""
    return _foreign(_ranked(query), held)


def _foreign(ranked: dict[str, float] | None, held: Sequence[str]) -> str | None:
    """`foreign_language` from the detector's ranks (`_ranked`), so a question is ranked once."""
    if ranked is None:
        return None
    language, probability = max(
        ((code, p) for code, p in ranked.items() if code in TEXT_SEARCH_CONFIGS), key=lambda item: item[1]
    )
    if language in held or probability < FOREIGN_MIN_PROBABILITY:
        return None
    return language if all(ranked.get(code, 0.0) < HELD_MAX_PROBABILITY for code in held) else None


def names_list(names: Sequence[str]) -> str:
    """ "English", "English and Portuguese", "English, Portuguese and Spanish"."""
    if len(names) < 2:
        return "".join(names)
    return _("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}


def language_sentence(language: str, held: Sequence[str] = (ENGLISH,)) -> str:
    """What a reader of a question in `language`, which the library does not hold, is told."""
    return _("This library holds documents in %(held)s; the question reads as %(language)s.") % {
        "held": names_list([language_label(code) for code in held]),
        "language": language_label(language),
    }


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


def respelt_query(query: str, unheld: list[str], folder_ids: list[int], configs: list[str]) -> str | None:
    """`query` with each word of `unheld` (words no readable document holds) replaced by the
    library word one edit away that most readable chunks hold, as `configs` (the question
    reading's) read them; None when no word has one."""
    words = [w for w in dict.fromkeys(w.lower() for w in unheld) if w.isalpha() and len(w) >= RESPELL_MIN_LETTERS]
    candidates = {word: {c for c in one_edit_away(word) if len(c) >= RESPELL_MIN_LETTERS} for word in words}
    pool = sorted(set().union(*candidates.values())) if candidates else []
    if not pool or not folder_ids:
        return None
    held = words_held(pool, folder_ids, configs=configs)
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
