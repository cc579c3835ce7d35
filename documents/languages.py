"""Languages the library knows how to read: ISO 639-1 codes and PostgreSQL's text-search configurations.

A document's `language` (and each chunk's, where a document mixes languages) is an ISO 639-1 code,
or "" while it has not been detected. The keyword index reads a text with the configuration of its
language; a language PostgreSQL has no stemmer for is read with `simple` (lower-cased words, no
stemming, no stop words), so its words are still found exactly.
"""

from __future__ import annotations

from collections.abc import Iterable

# PostgreSQL's built-in snowball configurations (`\dF` on PostgreSQL 18), by ISO 639-1 code.
TEXT_SEARCH_CONFIGS: dict[str, str] = {
    "ar": "arabic",
    "ca": "catalan",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "nl": "dutch",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
FALLBACK_CONFIG = "simple"
# A document whose language is not detected yet ("") is read as every chunk was read before
# languages were detected (documents.lexical.index.TEXT_SEARCH_CONFIG, migration 0017).
UNDETECTED_CONFIG = "english"


def base_language(code: str) -> str:
    """The ISO 639-1 part of a language tag: "pt-BR" and "pt_PT" read as "pt"."""
    return code.replace("_", "-").split("-")[0].casefold()


def text_search_config(language: str) -> str:
    """The text-search configuration that reads `language`; `simple` for one without a stemmer."""
    return TEXT_SEARCH_CONFIGS.get(base_language(language), FALLBACK_CONFIG)


def query_configs(languages: Iterable[str]) -> list[str]:
    """The configurations a query over documents in `languages` (their codes, "" for one not yet
    detected) is read with, each once; `UNDETECTED_CONFIG` when there is none."""
    configs = {text_search_config(language) if language else UNDETECTED_CONFIG for language in languages}
    return sorted(configs or {UNDETECTED_CONFIG})
