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
- **word**: any other word of two or more letters, with its `wordfreq` Zipf frequency in the
  question's language (English: hdfs 1.5, kvm 2.3, tidyr 0.0, "emoji" 3.2, "coordinator" 3.9). A
  word rarer than `ANSWER_JARGON_MAX_ZIPF` is jargon: unmentioned jargon puts a caveat on the
  answer, unless the encoder reads the question's language and the word is that language's own
  everyday word, far commoner in it than in any other large language ("shrink", "squiggle":
  `own_language_word`): the reader's paraphrase, which the dense leg reads, not a term of art.
  Common words the library happens not to use say little about coverage and are not reported;
  and a word common in any language the library holds names nothing ("senha" in a
  library holding Portuguese: `Term.languages`). A word built from an everyday English word with a
  prefix or suffix is as common as that word ("unsaved", "offsite", "freshly": `word_zipf`).
- **version**: a dotted number right after a name or a rare word ("prometheus 3.1", "Qt 4.3"):
  the release asked about, checked like a year (`version_after`). "a decimal like 4.7" is no
  version: an everyday word comes before it.
- **identifier**: a token shaped like a configuration key, a flag or a dotted path
  (`identifier_shape`: "max_samples_per_send", "spark.sql.shuffle.partitions", "--query.timeout").
  Its lexemes are common words ("max", "send"), so a lexeme check says nothing: it is checked as
  a phrase, all its lexemes adjacent, as the chunks' search_vector holds them. Absent from every
  readable document, it refuses like an unknown name; held by the library but by none of the top
  passages, it gives a caveat (retrieval.unseen_terms).
- **phrase**: two or more capitalised words in a row away from the start of a clause, one of them
  an everyday word ("Bitcoin Core", "Segregated Witness", "Cloud Bigtable": `name_phrases`). The
  capital makes the everyday word part of a name, so the words must stand together in a document:
  absent as a phrase from every readable document, the question is refused; held, but by none of
  the documents the top passages come from, it gives a caveat. Pairs of names ("Bigtable SSTable",
  "Spanner Paxos") are checked word by word only, as names.
- A name joined by a slash ("PL/pgSQL", "TCP/IP") is one term, held where the whole or all of its
  halves are (`_slashed_names`). A qualified name in code, one of whose parts names a class
  ("csv.Sniffer.has_header", "Timer.timeit"), is held where the whole is or where one document
  holds all of its parts (`_qualified_parts`): a reference page lists the method under its
  class's heading.
- A word of a file path ("kcore" of "/proc/kcore") or of an e-mail address ("gnu.org" of
  "info-lilypond@gnu.org") is held where the path or address is, as the index reads either as one
  lexeme, or else where the word is (`_in_file_paths`, `_held_in_its_path`).
- Other numbers ("hdfs 3", "128-bit", "0.75") are the user's own figures and are skipped, and so
  are contractions ("aren't", "we'll") and question words typed without their apostrophe ("whats",
  "hows": `QUESTION_WORDS`).

`term_coverage` then says, in one indexed query, whether each term occurs in a readable document
and whether it occurs in the top passages (a name phrase: in their documents). A term occurs where
its lexeme does (PostgreSQL's english configuration, the one BM25 uses); a hyphenated term occurs
where its compound lexeme does, or all of its parts ("shopping-cart" is covered by a text saying
"shopping" and "cart"); a word the variants of the question's language spell apart
occurs where either spelling does ("flavour" in a text saying "flavor", "contacto" in one saying
"contato": `spelling_variants`), and a Portuguese word the other variant says with another word
occurs where that word does when the library lacks the reader's own ("ecrã" in a text saying only
"tela": `question_variants`).
A readable document holds a lexeme when the packed postings BM25 reads (documents.LexemeBlock) have
a row for it in a readable folder: rows exist only for the stored chunks that hold the lexeme.
Identifiers and phrases are matched with `search_vector @@ phraseto_tsquery(...)` on chunks of
readable folders (the GIN index): never a tsquery parsed from the user's text.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from documents.languages import base_language
from documents.lexical.reads import one_document_holds_all, term_occurrences
from ragsite.wording import alternatives

# A word: starts with a letter or digit, may hold inner ' . + - _ (ids like "spark.sql", "U+1D11E").
_WORD = re.compile(r"[^\W_][\w'’+.-]*[^\W_]|[^\W_]")
# What ends a sentence or opens a new clause whose first word is capitalised by habit.
_CLAUSE_OPENERS = '.?!:;"“‘(['
_YEAR = re.compile(r"(19|20)\d\d")
MAX_TERMS = 30  # a pasted paragraph is not a question about names; check its first few only
KINDS = ("name", "year", "version", "word", "identifier", "phrase")
# Kinds matched as a phrase (all lexemes adjacent) rather than lexeme by lexeme.
PHRASE_KINDS = frozenset({"identifier", "phrase"})
_DOTTED = re.compile(r"v?\d+(\.\d+)+")
# The word before a dotted number: "prometheus" in "prometheus 3.1", "Qt" in "Qt v4.3".
_WORD_BEFORE = re.compile(r"([^\W\d_][\w.+-]*)\s+$")


@dataclass(frozen=True)
class Term:
    text: str  # as the user typed it
    kind: str  # one of KINDS
    zipf: float = 0.0  # how common the word is in the question's language (languages[0])
    # The languages its everyday words are looked up in: the question's, then the library's others.
    languages: tuple[str, ...] = ("en",)
    path: str = ""  # the file path it was typed in ("/proc/kcore" for "kcore"): held where that path is

    def is_jargon(self, line: float) -> bool:
        return self.kind == "word" and self.zipf < line

    @property
    def words(self) -> list[str]:
        """A phrase's words ("Bitcoin Core" → Bitcoin, Core); any other term is one word."""
        return self.text.split() if self.kind == "phrase" else [self.text]


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


ENGLISH = "en"


@functools.lru_cache(maxsize=8192)
def zipf(word: str, language: str = ENGLISH) -> float:
    """How common `word` is in everyday `language` (wordfreq's Zipf scale: 0 unknown .. 7 "the").

    A hyphenated word is looked up joined ("post-copy" → "postcopy"): its parts are common words,
    the compound is jargon. Possessives count as the word ("amazon's" → "amazon")."""
    from wordfreq import zipf_frequency  # loads its word lists on first use, not at import

    key = word.lower().replace("’", "'")
    key = key.removesuffix("'s").replace("-", "").replace("'", "")
    return float(zipf_frequency(key, language))


def everyday_zipf(word: str, languages: tuple[str, ...]) -> float:
    """How common `word` is in the one of `languages` that uses it most: "senha" is an everyday
    word of a library holding Portuguese, whatever language the question reads as."""
    return max(word_zipf(word, language) for language in languages)


# The languages whose wordfreq lists are large enough (tens of millions of words) to tell a
# language's own everyday word from a term the world shares (`own_language_word`).
REFERENCE_LANGUAGES = ("en", "pt", "es", "fr", "de", "it", "nl")
# How many Zipf steps commoner in its own language than in any other reference language a word is
# when it is that language's everyday word ("shrink" 3.7 in English and at most 1.9 elsewhere,
# "squiggle", "scrambled"), not a term of art ("regex", "docker", "timeout", "cassandra": about as
# common in all of them). Chosen on the English dev-data sets: docs/history/evaluation-changes.md,
# change 53.
OWN_LANGUAGE_MARGIN = 1.5


def own_language_word(term: Term) -> bool:
    """Whether `term` is an everyday word of the question's own language rather than a term many
    languages share: much commoner in it than in every other reference language, the form typed
    looked up in each (`zipf`: joined if hyphenated, without a possessive's "'s"). A reader's
    paraphrase ("the squiggle for my home folder") is no term of art the library lacks."""
    language = base_language(term.languages[0]) if term.languages else ENGLISH
    if term.kind != "word" or language not in REFERENCE_LANGUAGES:
        return False
    typed = term.text.casefold()
    elsewhere = max(zipf(typed, other) for other in REFERENCE_LANGUAGES if other != language)
    return zipf(typed, language) - elsewhere >= OWN_LANGUAGE_MARGIN


def word_zipf(word: str, language: str = ENGLISH) -> float:
    """How common `word` is in `language`, whatever form it is typed in: the most common of the
    word and its base forms (`base_forms`). wordfreq counts each inflected form apart, and a
    language that inflects much spreads an everyday word over many rare forms: Portuguese "entro"
    (3.9) is "entrar" (5.3), "guardados" (3.4) is "guardar" (4.4), "impeço" (1.8) is "impedir" (4.6)."""
    return max(zipf(form, language) for form in (word, *base_forms(word, language)))


# Portuguese inflections, each (ending, the endings of its base forms): a participle or a verb in
# the first person becomes the infinitive, a plural the singular, a feminine or diminutive the plain
# masculine. Crude on purpose: a base form only ever makes a word more everyday, never rarer.
_PORTUGUESE_BASE_ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mente", ("",)),  # "automaticamente" → "automatica": a feminine, turned below
    ("ados", ("ar",)),
    ("adas", ("ar",)),
    ("ado", ("ar",)),
    ("ada", ("ar",)),
    ("idos", ("er", "ir")),
    ("idas", ("er", "ir")),
    ("ido", ("er", "ir")),
    ("ida", ("er", "ir")),
    ("ído", ("ir",)),  # "incluído" → "incluir"
    ("ída", ("ir",)),
    ("eço", ("edir", "ecer")),  # "impeço" → "impedir", "conheço" → "conhecer"
    ("ço", ("çar", "zer", "cer")),  # "começo" → "começar", "faço" → "fazer"
    ("jo", ("ger", "gir")),  # "protejo" → "proteger"
    ("ou", ("ar",)),  # "inventou" → "inventar"
    ("ei", ("ar",)),  # "instalei" → "instalar"
    ("eu", ("er",)),  # "mexeu" → "mexer"
    ("iu", ("ir",)),
    ("inhas", ("as",)),
    ("inhos", ("os",)),
    ("inha", ("a",)),  # "bolinha" → "bola"
    ("inho", ("o",)),
    ("ões", ("ão",)),
    ("ães", ("ão",)),
    ("ãos", ("ão",)),
    ("ais", ("al",)),
    ("éis", ("el",)),
    ("eis", ("el",)),
    ("ns", ("m",)),
    ("as", ("a", "o", "ar")),
    ("os", ("o",)),
    ("es", ("e", "", "er", "ir")),
    ("s", ("",)),  # "emails" → "email"
    ("o", ("ar", "er", "ir")),  # "entro" → "entrar", "descubro" → "descubrir": not a word, no harm
    ("a", ("o", "ar")),  # "alfabética" → "alfabético", "instala" → "instalar"
    ("am", ("ar",)),
    ("em", ("er", "ir", "ar")),  # "usem" → "usar": the subjunctive of a verb in -ar
    ("guem", ("gar",)),  # "apaguem" → "apagar"
    ("quem", ("car",)),  # "fiquem" → "ficar"
    ("gue", ("gar",)),
    ("que", ("car",)),
)
_BASE_ENDINGS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {"pt": _PORTUGUESE_BASE_ENDINGS}
# A base form keeps at least this many letters before its ending: "pão" is no inflection of "pa".
_BASE_MIN_STEM = 3


@functools.lru_cache(maxsize=8192)
def base_forms(word: str, language: str = ENGLISH) -> tuple[str, ...]:
    """The forms `word` may be an inflection or a derivation of, in `language` (lower case): its
    dictionary form (`dictionary_form`: "moons" → "moon", "confiro" → "conferir", "tidies" → "tidy");
    for English also the everyday word it is derived from (`derived_base`); for Portuguese also the
    forms its endings give, two steps at most ("guardados" → "guardado", "guardar"), after its
    hyphenated pronoun and a repeating prefix (`_portuguese_stems`), which catch what a dictionary
    does not list ("bolinha" → "bola", "regravar" → "gravar")."""
    lemma = dictionary_form(word, language)
    found = dict.fromkeys([lemma] if lemma else [])
    if base_language(language) == ENGLISH:
        derived = derived_base(word, language)
        found.update(dict.fromkeys([derived] if derived else []))
        return tuple(found)
    endings = _BASE_ENDINGS.get(base_language(language), ())
    frontier = _portuguese_stems(word.casefold()) if base_language(language) == PORTUGUESE else [word.casefold()]
    found.update(dict.fromkeys(f for f in frontier if f != word.casefold()))
    for _step in range(2):
        frontier = [
            form[: len(form) - len(ending)] + base
            for form in frontier
            for ending, bases in endings
            if form.endswith(ending) and len(form) - len(ending) >= _BASE_MIN_STEM
            for base in bases
        ]
        found.update(dict.fromkeys(f for f in frontier if f != word.casefold()))
    return tuple(found)


# A word shorter than this has no dictionary form here: a short token is as often an abbreviation or a
# name ("aws", read as the plural of "aw") as a word.
DICTIONARY_FORM_MIN_LETTERS = 4


def dictionary_form(word: str, language: str = ENGLISH) -> str | None:
    """The form a dictionary lists `word` under in `language` (simplemma's lemma, from the dictionaries
    it ships), when it knows the word and that form differs: "moons" → "moon", "confiro" → "conferir".
    None for a short word, a word it does not know, or a language it has no dictionary of."""
    key = word.casefold()
    if len(key) < DICTIONARY_FORM_MIN_LETTERS:
        return None
    import simplemma  # its dictionaries load per language, on first use

    try:
        if not simplemma.is_known(key, lang=base_language(language)):
            return None
        lemma: str = simplemma.lemmatize(key, lang=base_language(language)).casefold()
    except ValueError:  # "Unsupported language"
        return None
    return lemma if lemma != key else None


PORTUGUESE = "pt"
# Pronouns written after a Portuguese verb with a hyphen ("bloqueá-lo", "chama-se", "diga-me").
_PORTUGUESE_CLITICS = frozenset(
    {"me", "te", "se", "nos", "vos", "lhe", "lhes", "o", "a", "os", "as", "lo", "la", "los", "las", "no", "na", "nas"}
)
# Before "-lo", "-la" … an infinitive drops its "r" and marks the vowel: "bloqueá-lo" is "bloquear" + "o".
_PORTUGUESE_CLITIC_VOWELS = {"á": "ar", "ê": "er", "í": "ir", "ô": "or"}
# A prefix that repeats what the verb does: "regravar" (2.5) is "gravar" (4.4) again. The rest of the
# word keeps `DERIVED_BASE_MIN_LETTERS` letters: "rede" is no "re" + "de".
_PORTUGUESE_PREFIXES = ("re",)


def _portuguese_stems(word: str) -> list[str]:
    """`word` (lower case) and the words it is written with: a verb without the pronoun hyphenated
    after it ("bloqueá-lo" → "bloquear", "chama-se" → "chama"), a word without a repeating prefix
    ("regravar" → "gravar"). Endings are then taken off each (`base_forms`)."""
    head, _, tail = word.partition("-")
    if tail in _PORTUGUESE_CLITICS and head:
        if tail.startswith("l") and head[-1] in _PORTUGUESE_CLITIC_VOWELS:
            head = head[:-1] + _PORTUGUESE_CLITIC_VOWELS[head[-1]]
        word = head
    stems = [word]
    stems += [
        word[len(prefix) :]
        for prefix in _PORTUGUESE_PREFIXES
        if word.startswith(prefix) and len(word) - len(prefix) >= DERIVED_BASE_MIN_LETTERS
    ]
    return stems


# English affixes that build a plain word from an everyday one: "unsaved" (2.2) is "saved" (4.7)
# undone, "offsite" (2.5) a "site" away, "freshly" (3.6) "fresh" as an adverb. Wordfreq counts the
# derived word alone, rarely written, so it reads as jargon; it names no topic its base does not.
# Not "non": "nonprofit" names a kind of body, a topic "profit" does not (a dev near-miss question
# about one was answered plainly with it).
_ENGLISH_PREFIXES = ("un", "re", "pre", "mis", "over", "under", "out", "off", "up", "down", "back")
_ENGLISH_SUFFIXES = (("ily", "y"), ("ly", ""), ("iness", "y"), ("ness", ""), ("er", ""), ("est", ""))
# The base must be an everyday word itself (as common as "site", "fresh", "saved") and not a scrap:
# "redis" is no "re" + "dis", "presto" no "pre" + "sto".
DERIVED_BASE_MIN_ZIPF = 4.0
DERIVED_BASE_MIN_LETTERS = 4


def derived_base(word: str, language: str = ENGLISH) -> str | None:
    """The everyday word `word` is built from with one English prefix or suffix ("unsaved" →
    "saved", "freshly" → "fresh", "quicker" → "quick"), or None. Other languages: None."""
    if base_language(language) != ENGLISH:
        return None
    key = word.casefold()
    bases = [key[len(prefix) :] for prefix in _ENGLISH_PREFIXES if key.startswith(prefix)]
    bases += [key[: -len(suffix)] + tail for suffix, tail in _ENGLISH_SUFFIXES if key.endswith(suffix)]
    everyday = [
        b for b in bases if len(b) >= DERIVED_BASE_MIN_LETTERS and b.isalpha() and zipf(b) >= DERIVED_BASE_MIN_ZIPF
    ]
    return max(everyday, key=zipf, default=None)


@functools.cache
def has_word_list(language: str) -> bool:
    """Whether wordfreq has a word list for `language` (an ISO 639-1 code): en, pt, es, de, fr …"""
    from wordfreq import available_languages

    return base_language(language) in available_languages()


def word_list_languages(languages: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """`languages` (ISO 639-1 codes) that wordfreq has a list for, in order, each once; English when
    none has one (a library whose languages are not detected yet is read as English)."""
    known = tuple(dict.fromkeys(base_language(code) for code in languages if has_word_list(code)))
    return known or (ENGLISH,)


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
    if term.kind in {"name", *PHRASE_KINDS}:
        return True
    if term.kind != "word":
        return False
    if "-" in term.text and not _verb_and_pronoun(term):
        return any(
            everyday_zipf(part, term.languages) < UNFAMILIAR_MAX_ZIPF for part in term.text.split("-") if len(part) > 1
        )
    return everyday_zipf(term.text, term.languages) < UNFAMILIAR_MAX_ZIPF


def _verb_and_pronoun(term: Term) -> bool:
    """Whether `term` is a Portuguese verb with its pronoun hyphenated after it ("configurá-lo"):
    one word, as common as the verb, not two parts of a name."""
    return PORTUGUESE in term.languages and term.text.casefold().partition("-")[2] in _PORTUGUESE_CLITICS


# "aren't", "we're", "I'll": a contraction is grammar, not a topic (its pieces are stop words).
_CONTRACTION = re.compile(r"['’](t|re|ve|ll|d|m)$", re.IGNORECASE)
# Question words typed casually, without the apostrophe: grammar too, never a name or jargon.
# ("whats" has no lexeme the library could hold: "what" is a stop word, so it read as missing jargon;
# "whens", Zipf 1.9, even read as an unknown name.)
QUESTION_WORDS = frozenset(
    f"{word}{tail}" for word in ("what", "how", "who", "where", "when", "why") for tail in ("s", "'s", "’s")
)

# A configuration key or path: snake_case ("tls_config", "Q_PROPERTY"), or dotted words that are
# not a number or an abbreviation ("spark.sql", "prometheus.yml"; not "3.1", "e.g", "U.S").
_SNAKE = re.compile(r"[^\W_]+(_+[^\W_]+)+")
_DOTTED_WORDS = re.compile(r"[^\W\d_][\w-]*(\.[\w-]+)+")


def identifier_shape(word: str, flag: bool = False) -> bool:
    """Whether `word` is shaped like an identifier: snake_case, dotted words, or a `flag` (typed
    right after "--")."""
    if flag and word[0].isalpha():
        return True  # "--query.timeout", "--enable-feature"
    if _SNAKE.fullmatch(word):
        return True
    if not _DOTTED_WORDS.fullmatch(word):
        return False
    parts = word.split(".")
    return sum(len(part) >= 2 for part in parts) >= 2 and not all(part.isdigit() for part in parts[1:])


def version_after(word: str, before: str, language: str = ENGLISH) -> bool:
    """Whether `word` is a release of what precedes it: a dotted number ("3.1", "v2.55") after a
    capitalised or rare word ("Prometheus 3.1", "hadoop 3.3"), not after an everyday one ("a decimal
    like 4.7", "the 0.75 used by BM25")."""
    previous = _WORD_BEFORE.search(before + " ")
    if not _DOTTED.fullmatch(word) or previous is None:
        return False
    name = previous.group(1)
    return name[0].isupper() or zipf(name, language) < VERSION_NAME_MAX_ZIPF


# A word rarer than this names a product when a dotted number follows it ("prometheus" 3.1, "qt" 3.2,
# "hadoop" 2.6); "like" (6.3), "the", "version" (4.9) do not.
VERSION_NAME_MAX_ZIPF = 4.0


def _kind(word: str, starts_clause: bool, before: str = "", flag: bool = False, language: str = ENGLISH) -> str | None:
    if _CONTRACTION.search(word) or word.lower() in QUESTION_WORDS:
        return None
    if identifier_shape(word, flag):
        return "identifier"
    if version_after(word, before, language):
        return "version"
    if _looks_like_name(word, starts_clause):
        return "name"
    if word[0].isdigit():
        return "year" if _YEAR.fullmatch(word) else None
    if len(word) < 2 or any(ch.isdigit() for ch in word):
        return None
    return "word"


@dataclass(frozen=True)
class _Token:
    word: str  # as typed, without a trailing full stop or apostrophe
    start: int
    end: int
    before: str  # the query up to the word, trailing spaces dropped
    flag: bool  # typed right after "--"
    path: str = ""  # the file path or e-mail address the word is part of (`_file_paths`)

    @property
    def starts_clause(self) -> bool:
        """First word of the question, or of a sentence or clause: capitalised by habit."""
        return not self.before or self.before[-1] in _CLAUSE_OPENERS

    @property
    def capitalised(self) -> bool:
        return self.word[0].isupper() and not any(ch.isdigit() for ch in self.word)


def _tokens(query: str) -> list[_Token]:
    tokens = []
    for match in _WORD.finditer(query):
        word = match.group(0).rstrip(".'’")
        if word:
            start = match.start()
            before = query[:start]
            tokens.append(_Token(word, start, start + len(word), before.rstrip(), before.endswith("--")))
    return _in_file_paths(query, _slashed_names(query, tokens))


# An absolute file path as the keyword index reads it, one lexeme from its first "/" ("/proc/kcore",
# "/etc/apt/sources.list"; "~/.bashrc" is "/.bashrc"): a "/" that follows no letter, digit or "/"
# ("and/or", "TCP/IP" are no paths), then names joined by "/". A trailing "/" or full stop is not part of it.
_FILE_PATH = re.compile(r"(?<![\w/])/[\w.+-]+(?:/[\w.+-]+)*")


# An e-mail address, which the keyword index also reads as one lexeme ("info-lilypond@gnu.org"):
# neither "info-lilypond" nor "gnu.org" is a lexeme of a text that writes the address.
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[^\W_](?:[\w-]*[^\W_])?(?:\.[^\W_](?:[\w-]*[^\W_])?)+")


def _file_paths(query: str) -> list[tuple[int, int, str]]:
    """The file paths and e-mail addresses typed in `query`: (start, end, the whole as the index
    holds it, in lower case for an address)."""
    paths = []
    for match in _FILE_PATH.finditer(query):
        path = match.group(0).rstrip(".")
        if any(ch.isalpha() for ch in path):
            paths.append((match.start(), match.start() + len(path), path))
    paths.extend((m.start(), m.end(), m.group(0).lower()) for m in _EMAIL.finditer(query))
    return paths


def _in_file_paths(query: str, tokens: list[_Token]) -> list[_Token]:
    """`tokens`, each word of a file path marked with it. The keyword index reads "/var/backups" as
    one lexeme and its last component ("backups"), so its other parts ("var") are in no document
    even where the path is on every page: a part is held where its path is (`term_coverage`)."""
    paths = _file_paths(query)
    if not paths:
        return tokens
    return [
        next(
            (dataclasses.replace(t, path=path) for start, end, path in paths if start <= t.start and t.end <= end),
            t,
        )
        for t in tokens
    ]


def _slashed_names(query: str, tokens: list[_Token]) -> list[_Token]:
    """Words joined by "/" into a name ("PL/pgSQL", "TCP/IP", "I/O", "$HOME/.wireshark") as one
    token: the keyword index reads such a name as one lexeme ("pl/pgsql", "home/.wireshark"), so its
    halves ("PL", "HOME") are in no document even where the name is on every page. Lower-case pairs
    ("and/or", "read/write") stay two everyday words."""
    joined: list[_Token] = []
    for token in tokens:
        last = joined[-1] if joined else None
        if last is not None and query[last.end : token.start] in ("/", "/."):
            word = query[last.start : token.end]
            if any(ch.isupper() for ch in word):
                joined[-1] = _Token(word, last.start, token.end, last.before, last.flag)
                continue
        joined.append(token)
    return joined


def question_terms(query: str, languages: tuple[str, ...] = (ENGLISH,)) -> list[Term]:
    """The names, years, words and identifiers of `query`, in order, then its name phrases; each
    once (case-insensitively). `languages`: the question's language, then the library's others
    (`Term.languages`); each must have a word list (`word_list_languages`)."""
    language = languages[0]
    terms: list[Term] = []
    seen: set[str] = set()
    tokens = _tokens(query)
    for token in tokens:
        if token.word.lower() in seen:
            continue
        kind = _kind(token.word, token.starts_clause, token.before, token.flag, language)
        if kind is not None:
            seen.add(token.word.lower())
            path = token.path or _typed_in_a_path(token.word, tokens)
            terms.append(Term(token.word, kind, round(word_zipf(token.word, language), 2), languages, path))
    phrases = [
        Term(phrase, "phrase", languages=languages)
        for phrase in name_phrases(query, language)
        if phrase.lower() not in seen
    ]
    return (terms + phrases)[:MAX_TERMS]


def _typed_in_a_path(word: str, tokens: list[_Token]) -> str:
    """The file path a word typed alone is also typed in, further on: "o ifconfig … /sbin/ifconfig"
    says which file "ifconfig" is."""
    return next((t.path for t in tokens if t.path and t.word.lower() == word.lower()), "")


# A capitalised run is a name phrase when one of its words is this common in everyday English
# ("Core" 4.7, "Witness" 4.5, "Cloud" 4.5, "File" 4.8): the capital then marks it as part of a
# name. Runs of names alone ("Bigtable SSTable", "Spanner Paxos": 1.1, 2.6) need not stand together.
PHRASE_EVERYDAY_MIN_ZIPF = 4.0
# Function words ("is" 7.2, "the" 7.7, "does" 6.0): never part of a name phrase; when most of
# them are capitalised, the question is in Title Case and its capitals say nothing.
_FUNCTION_WORD_MIN_ZIPF = 6.0


def name_phrases(query: str, language: str = ENGLISH) -> list[str]:
    """Runs of two or more capitalised words, as typed ("Bitcoin Core", "Sun Microsystems
    Laboratories"), that hold an everyday word (`PHRASE_EVERYDAY_MIN_ZIPF`).

    A run starts away from the start of a clause ("What", "Is", "Whats" open none), holds only
    whitespace between its words, and ends after a possessive ("Google's lock service")."""
    tokens = _tokens(query)
    if _title_case(tokens, language):
        return []
    phrases: list[str] = []
    run: list[_Token] = []
    for token in [*tokens, None]:
        if token is not None and run and _joins(query, run[-1], token, language):
            run.append(token)
            continue
        if len(run) >= 2 and any(zipf(t.word, language) >= PHRASE_EVERYDAY_MIN_ZIPF for t in run):
            phrases.append(query[run[0].start : run[-1].end])
        run = [token] if token is not None and _name_word(token, language) else []
    return phrases


def _name_word(token: _Token, language: str = ENGLISH) -> bool:
    """Whether `token` can be part of a name phrase: capitalised, not by habit, no function word."""
    return (
        token.capitalised
        and not token.starts_clause
        and token.word.lower() not in QUESTION_WORDS
        and zipf(token.word, language) < _FUNCTION_WORD_MIN_ZIPF
    )


def _joins(query: str, last: _Token, token: _Token, language: str = ENGLISH) -> bool:
    return _name_word(token, language) and query[last.end : token.start].isspace() and not _possessive(last.word)


def _possessive(word: str) -> bool:
    return word.lower().replace("’", "'").endswith("'s")


def _title_case(tokens: list[_Token], language: str = ENGLISH) -> bool:
    function_words = [
        t
        for t in tokens
        if not t.starts_clause and len(t.word) > 1 and zipf(t.word, language) >= _FUNCTION_WORD_MIN_ZIPF
    ]
    return bool(function_words) and 2 * sum(t.capitalised for t in function_words) >= len(function_words)


@functools.lru_cache(maxsize=4096)
def spelling_variants(word: str, language: str) -> tuple[str, ...]:
    """The other spellings of a word that the variants of `language` (the question's) spell apart:
    the same word, which a reader types one way and the library's authors may have written another.

    - English: British and American, "flavour" and "flavor", "catalogue" and "catalog",
      "normalisation" and "normalization" (the breame package's lists of about 1,700 pairs).
    - Portuguese: European and Brazilian, and before and after the 1990 orthographic agreement:
      "acção", "ação"; "contacto", "contato"; "económico", "econômico"; "registo", "registro"
      (search/spelling/spelling_variants_pt.tsv, whose header names its source and how it was built);
      and a word's other number where the keyword index stems the two apart: "conexão", "conexões"
      (`portuguese_number_variant`).
    - Any other language: none. A Portuguese "saber" gains no English "sabre".
    """
    from breame.spelling import get_american_spelling, get_british_spelling

    key = word.casefold()
    found: tuple[str, ...] = ()
    if base_language(language) == ENGLISH:
        found = (get_american_spelling(key), get_british_spelling(key))
    elif base_language(language) == PORTUGUESE:
        found = (*_portuguese_spellings().get(key, ()), *portuguese_number_variant(key))
    return tuple(dict.fromkeys(v for v in found if v != key))


@functools.lru_cache(maxsize=4096)
def vocabulary_variants(word: str, language: str) -> tuple[str, ...]:
    """The words the other variant of `language` uses for the same thing: for Portuguese "ficheiro",
    "arquivo"; "ecrã", "tela"; "palavra-passe", "senha" (search/spelling/vocabulary_variants_pt.tsv,
    derived from the programs' message catalogues Debian ships in both variants; none is an English
    word), each in its spellings too ("activar" → "habilitar"). Other words than the reader's own:
    a question searches them only where the library lacks the reader's (`question_variants`)."""
    if base_language(language) != PORTUGUESE:
        return ()
    key = word.casefold()
    spelt = {key, *spelling_variants(key, language)}
    return tuple(v for v in _portuguese_variants().get(key, ()) if v not in spelt)


# PostgreSQL's Portuguese stemmer reads "conexão" as conexã and "conexões" as conexõ: the one
# plural it keeps apart from its singular ("pão"/"pães", "mão"/"mãos" stem alike; the `unaccent`
# extension, which the embedded PostgreSQL does not ship, would not join them either: conexa, conexo).
_AO_SINGULAR, _AO_PLURAL = "ão", "ões"


def portuguese_number_variant(word: str) -> tuple[str, ...]:
    """The other number of a Portuguese word in -ão/-ões ("conexão" ↔ "conexões"), so a question
    in one finds the passages that say the other; none for any other word."""
    if len(word) > len(_AO_PLURAL) + 1 and word.endswith(_AO_PLURAL):
        return (word.removesuffix(_AO_PLURAL) + _AO_SINGULAR,)
    if len(word) > len(_AO_SINGULAR) + 1 and word.endswith(_AO_SINGULAR):
        return (word.removesuffix(_AO_SINGULAR) + _AO_PLURAL,)
    return ()


PORTUGUESE_VARIANTS = Path(__file__).resolve().parent.parent / "spelling" / "spelling_variants_pt.tsv"
PORTUGUESE_VOCABULARY = Path(__file__).resolve().parent.parent / "spelling" / "vocabulary_variants_pt.tsv"


@functools.cache
def _portuguese_spellings() -> dict[str, tuple[str, ...]]:
    """Each word of search/spelling/spelling_variants_pt.tsv → its other spellings."""
    return _paired((PORTUGUESE_VARIANTS,))


@functools.cache
def _portuguese_variants() -> dict[str, tuple[str, ...]]:
    """Each word of search/spelling/spelling_variants_pt.tsv and search/spelling/vocabulary_variants_pt.tsv
    → every other word it is paired with, directly or through another ("electrónica", "eletrónica",
    "eletrônica"; "activar", "ativar", "habilitar")."""
    return _paired((PORTUGUESE_VARIANTS, PORTUGUESE_VOCABULARY))


def _paired(paths: tuple[Path, ...]) -> dict[str, tuple[str, ...]]:
    """Each word of the tab-separated pairs in `paths` → the others of its group (pairs sharing a word)."""
    groups: dict[str, set[str]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            first, second = line.split("\t")
            group = groups.get(first, {first}) | groups.get(second, {second})
            for word in group:
                groups[word] = group
    return {word: tuple(sorted(group - {word})) for word, group in groups.items()}


_LETTERS = re.compile(r"[^\W\d_]+")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")  # "palavra-passe": a word whose variant is another


# Each word of a question (case-folded) → the other words it is searched and checked with.
Variants = Mapping[str, tuple[str, ...]]


def _query_words(query: str) -> list[str]:
    """The words of `query` whose variants are looked up (case-folded, each once, in order)."""
    return list(dict.fromkeys(w.casefold() for w in (*_LETTERS.findall(query), *_COMPOUND.findall(query))))


def question_variants(
    query: str, language: str, folder_ids: list[int], configs: list[str]
) -> dict[str, tuple[str, ...]]:
    """The other words each word of `query`, read as `language`, is searched and checked with.

    Its other spellings always (`spelling_variants`: the same word). The other variant's word for
    the same thing (`vocabulary_variants`) only when no document of `folder_ids` (the readable
    ones) holds the reader's own word in any of its spellings: a Brazilian text read with "senha"
    searches no "palavra-passe", whose part "palavra" is on every page; a European one, which says
    only "palavra-passe", is found with it. One query, asked only when a word has such a pair (the
    term-coverage read: a hyphenated word is held where it is written whole, as a phrase)."""
    words = _query_words(query)
    spelt = {w: spelling_variants(w, language) for w in words}
    vocabulary = {w: others for w in words if (others := vocabulary_variants(w, language))}
    own = list(dict.fromkeys(s for w in vocabulary for s in (w, *spelt[w])))
    held = _words_held(own, folder_ids, configs) if own and folder_ids else set()
    lacking = {w: others for w, others in vocabulary.items() if held.isdisjoint((w, *spelt[w]))}
    return {w: others for w in words if (others := spelt[w] + lacking.get(w, ()))}


def _words_held(words: list[str], folder_ids: list[int], configs: list[str]) -> set[str]:
    """Those of `words` a document of `folder_ids` holds; a hyphenated one only where it is written
    whole ("palavra-passe", not a text saying "palavra" and "passe" apart)."""
    compounds = [w for w in words if "-" in w]
    singles = [w for w in words if "-" not in w]
    found = term_occurrences(singles, compounds, [False] * len(compounds), folder_ids, [], configs=configs)
    return {o.term for o in found if o.in_library}


def lexical_query(query: str, variants: Variants) -> str:
    """The text whose lexemes (to_tsvector) a query is matched by: the query, then the other words
    `variants` (the question's reading: `question_variants`) gives each of its words. A reader
    typing "catalogue" also finds the passages that say "catalog", and one typing "acção" those that
    say "ação"."""
    words = _query_words(query)
    others = [v for w in sorted(words) for v in variants.get(w, ()) if v not in words]
    return " ".join([query, *dict.fromkeys(others)]) if others else query


def _spellings(term: Term, variants: Variants) -> tuple[str, ...]:
    return (term.text, *variants.get(term.text.casefold(), ())) if term.kind == "word" else (term.text,)


def _slash_parts(term: Term) -> list[str]:
    """The halves of a name joined by "/" ("Pwn2Own/Pwnium" → Pwn2Own, Pwnium); none otherwise."""
    return [part for part in term.text.split("/") if part] if "/" in term.text and term.kind == "name" else []


# A part of a qualified name in code that names a class: capitalised, then lower case ("Sniffer", "ZipFile").
_CLASS_NAME = re.compile(r"[A-Z][a-z]")


def _qualified_parts(term: Term) -> list[str]:
    """The parts of a qualified name in code ("csv.Sniffer.has_header" → csv, Sniffer, has_header;
    "Timer.timeit"), told from a dotted setting ("storage.tsdb.retention.size") by a class's name
    with a member's after it (not "Node.js"); none otherwise. A reference page writes such a name
    apart: the method's entry ("has_header(sample)") under its class's heading, the whole only in a
    link's anchor."""
    if term.kind != "identifier" or "/" in term.text:
        return []
    parts = [part for part in term.text.split(".") if part]
    member = any(_CLASS_NAME.match(part) and len(after) >= 3 for part, after in itertools.pairwise(parts))
    return parts if member else []


def _held_whole_or_in_parts(found: dict[str, tuple[bool, bool]], term: Term) -> tuple[bool, bool] | None:
    """Where a slashed name occurs: where the whole does ("PL/pgSQL", one lexeme), or where all of its
    halves that have a lexeme do (a text saying "Pwn2Own and Pwnium")."""
    whole = found.get(term.text)
    parts = [found[p] for p in _slash_parts(term) if p in found]
    if not parts:
        return whole
    split = (all(h[0] for h in parts), all(h[1] for h in parts))
    if whole is None:
        return split
    return (whole[0] or split[0], whole[1] or split[1])


def term_coverage(
    terms: list[Term], folder_ids: list[int], passage_ids: list[int], configs: list[str], variants: Variants
) -> list[TermCoverage]:
    """Where `terms` occur: in documents of `folder_ids`, in the chunks `passage_ids` (one query;
    none when there is nothing to check). Terms without a lexeme (stop words) are left out.

    Identifiers and name phrases are matched as phrases; a name phrase counts as in the passages
    when one of their documents holds it: a name often points at the document rather than the
    fact asked for ("the 1994 Sun Microsystems Laboratories note"), and the passage holding the
    answer need not repeat it. `configs` and `variants`: the text-search configurations the terms
    are read with and the other words each is held with (the search's `QuestionReading`,
    search/services/question_reading.py)."""
    if not terms or not folder_ids:
        return []
    phrases = [t.text for t in terms if t.kind in PHRASE_KINDS]
    whole_documents = [t.kind == "phrase" for t in terms if t.kind in PHRASE_KINDS]
    qualified = list(dict.fromkeys(part for t in terms for part in _qualified_parts(t) if part not in phrases))
    spellings = {t.text: _spellings(t, variants) for t in terms if t.kind not in PHRASE_KINDS}
    parts = [part for t in terms for part in _slash_parts(t)]
    paths = [t.path for t in terms if t.path]
    occurrences = term_occurrences(
        list(dict.fromkeys([*itertools.chain.from_iterable(spellings.values()), *parts, *paths])),
        [*phrases, *qualified],
        [*whole_documents, *[False] * len(qualified)],
        folder_ids,
        passage_ids,
        configs=configs,
    )
    found = {o.term: (bool(o.in_library), bool(o.in_passages)) for o in occurrences}
    for text, spelt in spellings.items():  # a word is held where any of its spellings is
        held = [found[v] for v in spelt if v in found]
        if held:
            found[text] = (any(h[0] for h in held), any(h[1] for h in held))
    for term in terms:
        if _slash_parts(term):
            coverage = _held_whole_or_in_parts(found, term)
        else:
            coverage = _held_in_one_document(found, term, folder_ids, configs)
        if coverage is not None:
            found[term.text] = coverage
    for term in terms:
        if (coverage := _held_in_its_path(found, term)) is not None:
            found[term.text] = coverage
    return [TermCoverage(t, *found[t.text]) for t in terms if t.text in found]


def _held_in_one_document(
    found: dict[str, tuple[bool, bool]], term: Term, folder_ids: list[int], configs: list[str]
) -> tuple[bool, bool] | None:
    """Where a qualified name the library does not write whole occurs: where one document holds every
    part (`_qualified_parts`), in the passages where they all are. "Queue" on one page and "shutdown" on
    another name no method "Queue.shutdown". None when that does not hold."""
    parts = _qualified_parts(term)
    if not parts or found.get(term.text, (False, False))[0]:
        return None
    if not one_document_holds_all(parts, folder_ids, configs=configs):
        return None
    return (True, all(found.get(part, (False, False))[1] for part in parts))


def _held_in_its_path(found: dict[str, tuple[bool, bool]], term: Term) -> tuple[bool, bool] | None:
    """Where a word of a file path occurs once its path is held: where the word does, or its path
    ("kcore" of "/proc/kcore" in a text saying "/proc/kcore"); None when the library holds no such path."""
    path = found.get(term.path) if term.path else None
    if path is None or not path[0]:
        return None
    own = found.get(term.text, (False, False))
    return (True, own[1] or path[1])


def quoted_list(words: list[str]) -> str:
    """'a', 'a' or 'b', 'a', 'b' or 'c': how a message names several words."""
    return alternatives([f"'{word}'" for word in words])
