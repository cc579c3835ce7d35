"""How a search reads its question: the library's languages, the one the question is in, and the
text-search configurations its words become lexemes with. Read once per search; retrieval and the
grouped result list both use it, so their keyword legs and fusion shares agree, and every keyword
read of the search (BM25, the word checks, a respelling) is handed its `configs`.

The question's language is told among the languages the product reads, not only those the library
holds (search/services/query_help.py `question_language`): a question surely in another language
(an English one in a library of Portuguese documents) is read as that language (`foreign`), and
the reader is told which languages the library holds. Its words still become lexemes with every
configuration the library holds, so a name or a command it shares with the documents is found.

A question whose language can be told among several the library holds is parsed with that
language's configuration alone: parsed with every held language's too, a Portuguese question's
"de", "que", "o" (no English stop words) become lexemes that match English sections and push the
passage that answers down (Portuguese dev set, docs/EVALUATION.md). One the detector cannot judge
(a few words), or a library of one language, is parsed with every configuration the library holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from documents.languages import query_configs, text_search_config
from documents.selectors import document_languages
from search.services.query_help import language_told, question_language
from search.services.terms import question_variants


@dataclass(frozen=True)
class QuestionReading:
    languages_held: list[str]  # the readable library's main languages, main first ("en" when none is known)
    language: str  # the language the question reads as: one of them, or `foreign`
    configs: list[str]  # the text-search configurations its words are parsed with
    # Each word → the other words it is searched and checked with (terms.question_variants).
    variants: Mapping[str, tuple[str, ...]]

    @property
    def foreign(self) -> str | None:
        """The question's language when the library holds no document in it."""
        return None if self.language in self.languages_held else self.language


def question_reading(query: str, folder_ids: list[int]) -> QuestionReading:
    """The reading of `query` in `folder_ids` (one query: the documents' languages, from which both
    the languages held and the configurations follow; a second only when a word has another
    variant's word for the same thing, to see whether the library holds the reader's own)."""
    languages = document_languages(folder_ids)
    held = [language for language in languages if language] or ["en"]  # "": not yet detected
    language = question_language(query, held)
    told = language in held and language_told(query, held)
    configs = [text_search_config(language)] if told else query_configs(languages)
    return QuestionReading(held, language, configs, question_variants(query, language, folder_ids, configs))
