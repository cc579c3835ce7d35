"""The kind of fact a question asks for, and whether the passages shown state one.

The engine of the answer-type rules lives here; the rules themselves, one module per language,
in search/services/answer_rules/ (en.py, pt.py), each an `AnswerTypeRules` that `rules_for` picks by
language code (English unless told). They say which questions expect a year, an amount of money, a
number, a quantity in a unit they name (a length of time, an amount of data, power or energy), a
percentage, a version, a person, a place, a key to press, a folder, a port, a file name extension, a
colour or what something is by default when that is no number (`expected_type`), what such a fact looks
like in a passage (`holds_fact`), and whether the passages the answer shows state one where they
speak of the question's own subject (`unmet_answer_type`). The gate (gate.py) turns an unmet type
into a caveat; the extractive writer (citations/writers/extractive.py) prefers sentences that
hold the expected fact.

Why: distance and word coverage cannot tell "What year was Satoshi Nakamoto born?" from a real
question about the Bitcoin paper, since every word is in the library and the nearest passage is
close. But the question asks for a year, and none of the passages shown holds one beside the
words it asks about; a reader should be told so instead of reading "4.2MB per year" as the answer.

The rules are deliberately narrow: a question gets a type only when its wording makes the kind of
fact plain ("when did", "how much did … spend", "who wrote"); "when does raft elect a leader"
asks for a condition and "where does the client get the list" for a mechanism, so they get none.
A fact counts only in a sentence that also mentions one of the question's key words (its rarer
words, `key_words`) — itself, or through the section heading it sits under where it repeats a figure
of the question ("0.54": `own_heading`, `repeats_figure`) — and only when it does
not merely repeat the question: "Avery Wang" does not say who founded Shazam with Avery Wang, and
"Prometheus 3.0" beside the word "Prometheus" does not say which Prometheus version made native
histograms stable (`versioned_names`).

Two rules keep manuals honest. A question that names a setting (an identifier such as
`wal_buffers`, `query.max-samples` or `--storage.tsdb.retention.time`) and asks for its default,
limit or count is met only by a sentence that names that setting and states a value ("defaults to
on" counts for a default; a sentence of the setting's entry in a manual names it through the entry's
heading line: `entry_sentences`); and "how many X" is met only by a number that counts X ("two
functions" does not say how many segments, "three components" how many flares, "256 levels of
transparency" how many levels of undo: `_counts`), "at most how many" only by a number stated as a limit.
And "which version added X" is met only by a sentence saying something came in a version ("added in",
"since", "Beginning in PostgreSQL 15"), not by one bounding what works ("before 3.16.0").
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from django.utils.translation import gettext, pgettext_lazy

from search.services.answer_text import (
    SETTING,
    entry_names_asked,
    entry_sentences,
    outer_heading,
    own_heading,
    question_figures,
    repeats_figure,
    sentences_with_entries,
    setting_names,
    settings_in,
)
from search.services.terms import Variants, quoted_list, spelling_variants, word_zipf, zipf

if TYPE_CHECKING:
    from django_stubs_ext import StrPromise


class AnswerType(StrEnum):
    YEAR = "year"
    MONEY = "money"
    COUNT = "count"  # a count or quantity: a number, with or without a unit
    DURATION = "duration"  # a number of seconds, days …: the question names a unit of time
    DATA_SIZE = "data_size"  # a number of bytes or bits: the question names one, or asks how much memory
    POWER = "power"  # watts or joules: the question asks how much power or energy
    PERCENTAGE = "percentage"
    VERSION = "version"
    PERSON = "person"
    PLACE = "place"
    KEY = "key"  # a key or key combination: the question asks for a keyboard shortcut
    DEFAULT = "default"  # what something is by default, when that is no number ("the default font")
    PATH = "path"  # a folder or directory: the question asks in which one something is
    PORT = "port"  # a network port: the question asks which port
    EXTENSION = "extension"  # a file name's extension: the question asks which one files have
    COLOUR = "colour"  # a colour: the question asks which one


# How the caveat names the missing fact ("The question asks for a year or date; …"), in the active language.
PHRASES: dict[AnswerType, StrPromise] = {
    AnswerType.YEAR: pgettext_lazy("the kind of fact asked for", "a year or date"),
    AnswerType.MONEY: pgettext_lazy("the kind of fact asked for", "a price or an amount of money"),
    AnswerType.COUNT: pgettext_lazy("the kind of fact asked for", "a number"),
    AnswerType.DURATION: pgettext_lazy("the kind of fact asked for", "a length of time"),
    AnswerType.DATA_SIZE: pgettext_lazy("the kind of fact asked for", "an amount of data (bytes or bits)"),
    AnswerType.POWER: pgettext_lazy("the kind of fact asked for", "an amount of power or energy"),
    AnswerType.PERCENTAGE: pgettext_lazy("the kind of fact asked for", "a percentage"),
    AnswerType.VERSION: pgettext_lazy("the kind of fact asked for", "a version"),
    AnswerType.PERSON: pgettext_lazy("the kind of fact asked for", "a person's name"),
    AnswerType.PLACE: pgettext_lazy("the kind of fact asked for", "a place"),
    AnswerType.KEY: pgettext_lazy("the kind of fact asked for", "a key or key combination"),
    AnswerType.DEFAULT: pgettext_lazy("the kind of fact asked for", "a default"),
    AnswerType.PATH: pgettext_lazy("the kind of fact asked for", "a folder or path"),
    AnswerType.PORT: pgettext_lazy("the kind of fact asked for", "a port number"),
    AnswerType.EXTENSION: pgettext_lazy("the kind of fact asked for", "a file name extension"),
    AnswerType.COLOUR: pgettext_lazy("the kind of fact asked for", "a colour"),
}

DEFAULT_LANGUAGE = "en"
# The languages with rules, by code: the module search/services/answer_rules/<code>.py holds its `RULES`.
LANGUAGES = ("en", "pt")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_BRACKETED = re.compile(r"\(([^()]*)\)")
# Key words are the question's rarer words: everyday words ("build", "run") say little about the subject.
KEY_WORD_MAX_ZIPF = 5.0
# A line of a table of contents ("7 Arrays ........ 2"): its numbers are sections and pages.
_CONTENTS_LINE = re.compile(r"(?:\.\s?){4,}")
_COUNT_KINDS = frozenset({AnswerType.COUNT, AnswerType.DURATION, AnswerType.DATA_SIZE, AnswerType.PERCENTAGE})
# The facts a manual's entry states of the thing its line names (its default, limit, size, port), which the
# sentences under the line state without naming it again. A release, a person or a key under an entry is
# as often another thing's (`python` near-miss pym-21: "New in version 3.9." under a zoneinfo entry).
_ENTRY_KINDS = _COUNT_KINDS | {AnswerType.DEFAULT, AnswerType.PORT}
# A sentence that opens with "the" and a word the sentence before it says goes on about that one only
# when the word is this rare: a term ("the lookback period"), not an everyday noun ("the service").
NAMED_AGAIN_MAX_ZIPF = 4.0
# A release named right after a word saying when something came: up to two small words, a name, perhaps a
# word for "version", and the number ("… in PostgreSQL 15", "… do GnuCash versão 2.4").
_RELEASE_NAMED = re.compile(
    r"(?:\s+\w{1,3}){0,2}\s+(?P<release>(?:[A-Z][\w+-]*(?:\s+\w+)?|(?i:version|release|versão))\s+v?\d+(?:\.\d+)*)\b"
)
# How far (in words) a number may stand from the word it counts: "two commonly used internal WAL functions".
COUNTED_WINDOW = 6
# How far a text's length may stand before its limit: "the length must be greater than zero and cannot
# exceed 10485760".
LENGTH_WINDOW = 12


def ordinary_words(text: str) -> frozenset[str]:
    """The words `text` writes in lower case: a capitalised phrase made of them is a term of the
    text ("JavaScript Object Notation" beside "an object structure"), not a person's or a place's
    name."""
    return frozenset(m.group(0) for m in _WORD.finditer(text) if m.group(0).islower())


# An e-mail address: the line holding one is an author's or a contact's.
EMAIL = re.compile(r"\S+@\S+\.\w+")
# A sentence's words and numbers ("1.024", "2,5") and each mark of punctuation on its own.
_TOKEN = re.compile(r"[^\W_]+(?:[.,]\d+)*|[^\w\s]")
_ORDINAL = re.compile(r"^\d+(?:[ºª°]|st|nd|rd|th|o|a)$", re.IGNORECASE)


def _names_asked(name: str, asked: tuple[str, ...]) -> bool:
    """Whether the setting `name` a sentence names is one of the `asked`: itself, or the last part of
    a dotted name asked ("has_header" in the entry for "csv.sniffer.has_header", under its class)."""
    return any(name == whole or ("." in whole and whole.rsplit(".", 1)[1] == name) for whole in asked)


def _of_another(version: str, question: str) -> bool:
    """Whether `version` is written after a name the question does not say, when it asks for the version
    of a name: "Android 2.3" does not say which iOS version is needed; "Linux 2.6.0" does say which
    version of the kernel Linux."""
    said = version.split()
    if len(said) > 3 and said[-2] == "of":  # "versions 5 up to 12 of Stata"
        name = said[-1]
    elif len(said) < 2 or not said[0].isalpha() or said[0].casefold().startswith(_VERSION_WORDS):
        return False
    else:
        name = said[0]
    return name.casefold() not in {w.casefold() for w in _WORD.findall(question)}


_VERSION_WORDS = ("version", "versão", "release", "lançamento")
# A name after a question's first word ("Impress", "iOS"): the question says whose version it asks for.
_NAME_IN_QUESTION = re.compile(r"(?<=\S)\s+\W*(?:[A-Z]|[a-z]{1,2}[A-Z])\w*")


def _release_named(sentence: str, came: re.Match[str] | None) -> str | None:
    """The release `sentence` says something came in: right after the words `came` found (the rules'
    `since_stated`: "Beginning in", "A partir do"), a name and its number ("PostgreSQL 15", "GnuCash
    versão 2.4"); None if it names none so."""
    release = _RELEASE_NAMED.match(sentence, came.end()) if came else None
    return release.group("release") if release else None


# The transport protocols a port belongs to: a port of one is not the port of another.
_TRANSPORT = re.compile(r"\b(tcp|udp|sctp)\b", re.IGNORECASE)


def _same_transport(question: str, sentence: str) -> bool:
    """False only when the question and the sentence name transports and none is the same."""
    asked = {t.casefold() for t in _TRANSPORT.findall(question)}
    said = {t.casefold() for t in _TRANSPORT.findall(sentence)}
    return not asked or not said or bool(asked & said)


def _as_one(match: re.Match[str]) -> str:
    """The match with its word for "one" (the first group named one…) written as the digit."""
    name = next(n for n, said in match.groupdict().items() if n.startswith("one") and said)
    start, end = match.start(name) - match.start(), match.end(name) - match.start()
    return match.group(0)[:start] + "1" + match.group(0)[end:]


@dataclass(frozen=True)
class Counted:
    """What a count question counts: the noun's stems, and the stem of what it is of, if it says."""

    nouns: frozenset[str]
    of: str | None
    # How many words before a number with no word after it may name what it counts: a length's own word
    # may open the clause ("the length must be greater than zero and cannot exceed 10485760").
    window: int = COUNTED_WINDOW


@dataclass(frozen=True)
class Asked:
    """What one question asks beyond its kind of fact, read once (`AnswerTypeRules.asked`) for every
    sentence `AnswerTypeRules.satisfied` judges."""

    kind: AnswerType
    question: str
    since_when: bool  # "since when": a release answers it as well as a date (`since_when`)
    since_version: bool  # "since which version", "which version added" (`since_cue`)
    names_release: bool  # a name after its first word says whose release it asks for ("Impress")
    default: bool  # what holds by default (`default_cue`)
    limit_sides: frozenset[str]  # the sides of a limit it asks for: "upper", "lower", "either" (`limit_cue`)
    settings: tuple[str, ...]  # the settings whose default, limit or count it asks for (`setting_cue`)
    value_in_words: bool  # such a setting's value may be a word ("defaults to on"; `_value_in_words`)
    counted: Counted | None  # what "how many" counts (`counted_thing`)
    authorship: bool  # who wrote something (`authorship_cue`)
    least_version: bool  # the oldest release that will do (`least_version_cue`)
    default_things: frozenset[str]  # the stems naming the thing whose default it asks ("maxiter"; `default_of`)


@dataclass(frozen=True)
class AnswerTypeRules:
    """One language's rules. `kind` reads what a question asks for; `satisfied` whether a sentence
    states it. The patterns are data (each language module fills them); how they combine is here."""

    language: str
    question_rules: tuple[tuple[AnswerType, re.Pattern[str]], ...]  # checked in order, the first match wins
    fact_patterns: dict[AnswerType, re.Pattern[str]]  # what each kind of fact looks like in a passage
    reference: re.Pattern[str]  # numbers that only point elsewhere: "[32]", "Figure 3"
    cue_words: frozenset[str]  # words that say which kind of fact is asked for, not about what
    stopwords: frozenset[str]
    suffixes: tuple[tuple[str, str], ...]  # (suffix, replacement) for the crude stemmer
    not_names: frozenset[str]  # capitalised words that are no part of a person's or place's name
    place_leads: frozenset[str]  # the words a place pattern starts with ("in Oslo"): not the name
    number_words: re.Pattern[str]  # one word that is a number ("two", "dozens")
    versioned: tuple[re.Pattern[str], ...]  # the name whose version is asked for, as group 1
    version_fillers: frozenset[str]  # words that stand where that name would ("the latest version")
    # What a count question counts: "how many <noun>", "the number of <noun>", each with the group `noun`,
    # optionally `aside` (another name for it in brackets) and `of` (what it is of: "levels of undo").
    counted: tuple[re.Pattern[str], ...]
    setting_cue: re.Pattern[str]  # a question about a default, limit or count
    default_value: re.Pattern[str]  # a sentence stating a default in words ("defaults to on")
    # A question asking how long a text may be ("the maximum length of a savepoint name", "how long can the
    # note be"), and the units such a length is counted in ("255 characters", "65535 bytes"): it counts them.
    length_cue: re.Pattern[str] = re.compile(r"(?!)")
    length_units: frozenset[str] = frozenset()
    # Nouns that name a kind of the noun after them ("types of transition"): a count of them counts that noun.
    kind_nouns: frozenset[str] = frozenset()
    of_words: frozenset[str] = frozenset()  # the small words that say what a noun is of ("of", "de", "do")
    # The nouns that say a bare number further on counts what follows their "of" ("number", "número"): "The
    # number of concurrent rule evaluations can be configured with …, which is set to 4 by default."
    number_nouns: frozenset[str] = frozenset()
    # Where the word for "one" that is also an article counts ("só uma", "uma única"): groups named one….
    single: re.Pattern[str] = re.compile(r"(?!)")
    # A question asking for a limit ("no máximo", "at most"), and a sentence stating one ("até 255", "up to 4").
    limit_cue: re.Pattern[str] = re.compile(r"(?!)")
    limit_stated: re.Pattern[str] = re.compile(r"(?!)")
    # Which side a limit's words bound, when they say ("at most", "no máximo"; "at least", "pelo menos"); any
    # other word of a limit ("limit", "até") bounds either side.
    upper_bound: re.Pattern[str] = re.compile(r"(?!)")
    lower_bound: re.Pattern[str] = re.compile(r"(?!)")
    # Keys rarer than this (wordfreq, base forms too) name the question's subject ("tmpfs", "rsync"): a
    # sentence must say one of them for its fact to count. None: any key will do.
    name_key_max_zipf: float | None = None
    # Wording that asks for no fact of a kind though it holds a rule's words: the unit a quantity is
    # given in ("in which unit"), or the way a figure is worked out ("how does the cache guess how long").
    no_kind: re.Pattern[str] = re.compile(r"(?!)")
    # A sentence that goes on about the one before it without naming its subject again: "Its default
    # value is …", "The default is three." (`goes_on`).
    continuation: re.Pattern[str] = re.compile(r"(?!)")
    articles: frozenset[str] = frozenset()  # the definite articles ("the", "o"): "The lookback period is …"
    # Small words of degree that stand inside what a number counts: "the 15 most significant digits".
    degree_words: frozenset[str] = frozenset()
    # A version question that asks when something came ("since which version", "which version added"), and
    # a sentence saying that something came in a version ("added in 3.35.0", "desde o LibreOffice 5.3.4").
    since_cue: re.Pattern[str] = re.compile(r"(?!)")
    since_stated: re.Pattern[str] = re.compile(r"(?!)")
    # A version question asking for the oldest release that will do ("which minimum libuv version", "which
    # gdb version is required"), and a sentence bounding the releases that do ("1.0.0 or higher", "at
    # least", "requires"): "If you are using the Visual Studio 6.0 IDE" states no minimum.
    least_version_cue: re.Pattern[str] = re.compile(r"(?!)")
    version_bound: re.Pattern[str] = re.compile(r"(?!)")
    # Words between a name and a release that bound the releases meant ("Wireshark before 2.2"), as a
    # pattern's text (`_releases_named`).
    release_bounds: str = r"(?!)"
    # A question asking since when something holds, which a release answers as well as a date ("since when"
    # is answered by "Beginning in PostgreSQL 15").
    since_when: re.Pattern[str] = re.compile(r"(?!)")
    # A question asking what something is by default, and a sentence saying what holds by default: "the
    # default session timeout" is not answered by "after the session has been idle for s/3 ms".
    default_cue: re.Pattern[str] = re.compile(r"(?!)")
    default_said: re.Pattern[str] = re.compile(r"(?!)")
    # A question asking for a setting's value whatever it is ("the default value of …"): a word may state it;
    # and a sentence stating such a value, where the question asks what it is by default (`_states_default`).
    any_value: re.Pattern[str] = re.compile(r"(?!)")
    # The thing a sentence states the default of, as group 1 ("the default mode is spring": "mode").
    default_of: re.Pattern[str] = re.compile(r"(?!)")
    # A sentence saying what a default is, not only what happens by default ("the default is 12", "(default:").
    default_stated: re.Pattern[str] = re.compile(r"(?!)")
    value_stated: re.Pattern[str] | None = None
    # A sentence crediting people (thanks), which names nobody a question asks for; and a question asking
    # who wrote something, which an author's line (a name beside an e-mail address) answers and no other does.
    thanks: re.Pattern[str] = re.compile(r"(?!)")
    authorship_cue: re.Pattern[str] = re.compile(r"(?!)")

    def goes_on(self, sentence: str, before: str) -> bool:
        """Whether `sentence` goes on about the sentence `before` it: it opens with a pronoun or with the
        default or limit of what that sentence describes (`continuation`), or with a definite article and
        a word that sentence says ("… less than the lookback period ago. The lookback period is 5 minutes
        by default")."""
        if not before:
            return False
        if self.continuation.search(sentence):
            return True
        opening = _WORD.findall(sentence)[:2]
        if len(opening) < 2 or opening[0].casefold() not in self.articles:
            return False
        word = opening[1].casefold()
        if word in self.stopwords or zipf(word, self.language or DEFAULT_LANGUAGE) > NAMED_AGAIN_MAX_ZIPF:
            return False  # "The service is live in …" after "a music recognition service" may be another one
        return self.stem(word) in {self.stem(w) for w in self.words(before)}

    def kind(self, question: str) -> AnswerType | None:
        """The kind of fact `question` asks for, or None when its wording does not say. A question
        about a named setting's default or limit asks for its value (a number, or a word it
        defaults to)."""
        if self.no_kind.search(question):
            return None
        named_setting = bool(setting_names(question)) and bool(self.setting_cue.search(question))
        for answer_type, rule in self.question_rules:
            if rule.search(question):
                # A named setting's default is met only where the setting is named (`satisfied`).
                by_value = answer_type in (AnswerType.DEFAULT, AnswerType.PORT)
                return AnswerType.COUNT if by_value and named_setting else answer_type
        return AnswerType.COUNT if named_setting else None

    def asked(self, kind: AnswerType, question: str) -> Asked:
        """What `question` asks beyond `kind`, read once for all the sentences `satisfied` judges."""
        settings = setting_names(question) if kind in _COUNT_KINDS and self.setting_cue.search(question) else ()
        return Asked(
            kind=kind,
            question=question,
            since_when=bool(self.since_when.search(question)),
            since_version=bool(self.since_cue.search(question)),
            names_release=bool(_NAME_IN_QUESTION.search(question)),
            default=bool(self.default_cue.search(question)),
            limit_sides=frozenset(self._bound_sides(self.limit_cue, question)),
            settings=settings,
            value_in_words=bool(settings) and kind == AnswerType.COUNT and self._value_in_words(question),
            counted=self.counted_thing(question) if kind == AnswerType.COUNT else None,
            authorship=bool(self.authorship_cue.search(question)),
            # "Since which version is X required" asks when it came, not the oldest release that will do.
            least_version=kind == AnswerType.VERSION
            and bool(self.least_version_cue.search(question))
            and not self.since_cue.search(question),
            default_things=frozenset(self._default_things(question)),
        )

    def satisfied(self, asked: Asked, sentence: str, ordinary: frozenset[str] = frozenset(), before: str = "") -> bool:
        """Whether `sentence` states the fact the question `asked` asks for: for a named setting's
        default or limit, only where it names the setting and states a value; for "how many X", only a
        number that counts X; otherwise any such fact the question does not state itself. `before`: the
        sentence it goes on from (`goes_on`), which may name the setting or the limit for it ("Specifies
        the maximum number of autovacuum processes … The default is three.")."""
        kind, question = asked.kind, asked.question
        came = self.since_stated.search(sentence) if kind in (AnswerType.YEAR, AnswerType.VERSION) else None
        since = _release_named(sentence, came)
        if since and kind == AnswerType.YEAR and asked.since_when:
            return True  # "since when" is answered by the release it came in
        if since and kind == AnswerType.VERSION and asked.since_version:
            # "since which version": "Beginning in PostgreSQL 15", a release of the name asked about
            return not (asked.names_release and _of_another(since, question))
        if kind != AnswerType.DEFAULT and asked.default and not self.default_said.search(f"{before} {sentence}"):
            return False  # "the default session timeout" is not "idle for s/3 ms"
        if kind == AnswerType.PERSON and not self._may_name_someone_asked(sentence, asked):
            return False
        if kind == AnswerType.PORT and not _same_transport(question, sentence):
            return False  # "which TCP port" is not answered by "UDP port 514"
        if kind == AnswerType.DEFAULT and not self._states_default(asked, sentence):
            return False
        if asked.settings:
            read = f"{before} {sentence}" if before else sentence
            return self._states_setting_value(asked, read, ordinary)
        if kind == AnswerType.COUNT:
            sentence = self.single.sub(_as_one, sentence)
        if not self.holds_fact(sentence, kind, ordinary, question):
            return False
        if kind in _COUNT_KINDS and not self._states_limit_asked(asked, f"{before} {sentence}"):
            return False  # "at most how many" is not answered by a number that is no limit, nor by "at least one"
        if kind == AnswerType.VERSION and asked.since_version and not came:
            return False  # "which version added X" is not answered by "readable by SQLite version 3.1.3"
        if kind == AnswerType.VERSION and asked.least_version and not self.version_bound.search(f"{before} {sentence}"):
            return False
        return asked.counted is None or self._counts(sentence, asked.counted, before)

    def _states_default(self, asked: Asked, sentence: str) -> bool:
        """Whether `sentence` may state the default asked for: one the question asks the value of ("the
        default value of REPORTTIME") only where it says what the value is (`value_stated`), not merely that
        something happens by default."""
        if self._default_of_another(asked, sentence):
            return False
        if self.value_stated is None or not self.any_value.search(asked.question):
            return True
        return bool(self.value_stated.search(sentence))

    def _default_of_another(self, asked: Asked, sentence: str) -> bool:
        """Whether `sentence` states the default of another thing than the one the question names ("the
        default maxiter"): every thing it names the default of is one the question does not say ("the default
        mode is spring"); or it names none and says only what happens by default, not about the thing ("By
        default, timeit() temporarily turns off garbage collection" for "the default time unit"). "What is
        the default?" names no thing."""
        asked_of = asked.default_things
        if not asked_of:
            return False
        stated_of = self._default_things(sentence)
        if stated_of:
            return not stated_of & self._stems(asked.question)
        by_default_only = not self.default_stated.search(sentence)
        return by_default_only and not asked_of & self._stems(sentence)

    def _default_things(self, text: str) -> set[str]:
        """The stems of the words naming what `text` states or asks the default of (`default_of`)."""
        return {stem for match in self.default_of.finditer(text) for stem in self._stems(match.group(1))}

    def _stems(self, text: str) -> set[str]:
        return {self.stem(word.casefold()) for word in _WORD.findall(text)}

    def _states_limit_asked(self, asked: Asked, said: str) -> bool:
        """Whether `said` states a limit where the question asks for one (`limit_cue`), and one of the side
        asked for when it asks for one side only: "How many readers at most" is not answered by "at least
        one active reader", nor "the maximum length" by "defaults to a minimum of 7". True where the
        question asks for no limit."""
        if not asked.limit_sides:
            return True
        stated = self._bound_sides(self.limit_stated, said)
        if not stated:
            return False
        sides = asked.limit_sides - {"either"}
        return len(sides) != 1 or "either" in stated or bool(sides & stated)

    def _bound_sides(self, words: re.Pattern[str], text: str) -> set[str]:
        """Which sides the limits `words` finds in `text` bound: "upper", "lower", or "either"."""
        sides: set[str] = set()
        for match in words.finditer(text):
            said = match.group(0)
            upper, lower = self.upper_bound.fullmatch(said), self.lower_bound.fullmatch(said)
            sides.add("upper" if upper and not lower else "lower" if lower and not upper else "either")
        return sides

    def _may_name_someone_asked(self, sentence: str, asked: Asked) -> bool:
        """Whether `sentence` may name the person `question` asks for: no sentence of thanks does, and an
        author's line ("Avery Li-Chun Wang avery@shazamteam.com Shazam Entertainment") answers only who
        wrote something, not who founded it."""
        if self.thanks.search(sentence):
            return False
        return not EMAIL.search(sentence) or asked.authorship

    def _states_setting_value(self, asked: Asked, sentence: str, ordinary: frozenset[str]) -> bool:
        """Whether `sentence` names an `asked` setting and states a value nearer to it than to any
        other setting it names ("the default of wal_writer_delay is 200 ms" beside "wal_buffers"
        states no value for wal_buffers)."""
        kind, settings = asked.kind, asked.settings
        mentions = settings_in(sentence)
        if not any(_names_asked(name, settings) for name, _ in mentions):
            return False
        blank = sentence
        for match in SETTING.finditer(sentence):  # a setting's own digits ("log2_size") state no value
            blank = blank[: match.start()] + " " * len(match.group(0)) + blank[match.end() :]
        blank = without_references(blank, self)
        values = [m.start() for m in self.fact_patterns[kind].finditer(blank)]
        if asked.value_in_words:
            values += [m.start() for m in self.default_value.finditer(blank)]
        if kind != AnswerType.COUNT and not self.holds_fact(blank, kind, ordinary, asked.question):
            return False
        for at in values:
            nearest = min(mentions, key=lambda mention: abs(mention[1] - at))
            if _names_asked(nearest[0], settings):
                return True
        return False

    def _value_in_words(self, question: str) -> bool:
        """Whether a named setting's value may be a word ("defaults to on"): the question asks what it is
        by default, not for a number ("the default number of bytes of secrets.token_bytes" is not met by
        "a reasonable default is used"), or asks for its value whatever it is ("the default value of
        listen_addresses": "The default value is localhost")."""
        if self.any_value.search(question):
            return True
        for answer_type, rule in self.question_rules:
            if rule.search(question):
                return answer_type in (AnswerType.DEFAULT, AnswerType.PORT)
        return True

    def counted_thing(self, question: str) -> Counted | None:
        """What a count question counts (`counted`): the noun's stems (with another name in brackets, and
        the noun after a kind noun: "quantos tipos de transição" counts transitions too) and the stem of
        what it is of ("níveis de desfazer")."""
        for pattern in self.counted:
            match = pattern.search(question)
            if not match or not match.group("noun"):
                continue
            groups = match.groupdict()
            nouns = {self.stem(match.group("noun").casefold())}
            aside = groups.get("aside") or ""
            nouns |= {self.stem(w.casefold()) for w in _WORD.findall(aside) if w.casefold() not in self.stopwords}
            of = self.stem(groups["of"].casefold()) if groups.get("of") else None
            if of and nouns & self._kind_stems():
                return Counted(frozenset(nouns | {of}), None)
            return Counted(frozenset(nouns), of)
        if self.length_cue.search(question):
            return Counted(frozenset(self.stem(unit) for unit in self.length_units), None, LENGTH_WINDOW)
        return None

    def _counts(self, sentence: str, counted: Counted, before: str = "") -> bool:
        """Whether a number in `sentence` counts what is asked: the words right after it name the counted
        noun ("64 WAL segment files", "três transições diferentes") and not as something else's
        ("256 níveis de transparência" for levels of undo); or, when no word follows it ("keeps 3 of them",
        "é 256."), the noun stands within `COUNTED_WINDOW` words before it. A number right after a
        capitalised word is part of a name ("Type 1"), and an ordinal ("50º") counts nothing. `before`: the
        sentence this one goes on from, which names what a bare number counts ("Specifies the maximum
        number of autovacuum processes … The default is three.")."""
        tokens, stems = self._tokens(sentence)
        named_before = bool(before) and self._names_counted_anywhere(before, counted)
        for i in range(len(tokens)):
            if not self._is_count(tokens, i):
                continue
            run = self._words_after(tokens, i)
            if run:
                if any(self._names_counted(tokens, stems, j, counted) for j in run):
                    return True
                if self._counted_of_it(tokens, stems, i, run, counted):
                    return True
                continue
            window = range(max(0, i - counted.window), i)
            if named_before or any(self._names_counted(tokens, stems, j, counted) for j in window):
                return True
            if self._number_of_counted(tokens, i, counted):
                return True
            after_aside = self._words_after(tokens, i + 1) if self._closes_aside(tokens, i) else []
            if any(self._names_counted(tokens, stems, j, counted) for j in after_aside):
                return True  # "n (default 512) points": the noun follows the aside
        return False

    def _number_of_counted(self, tokens: list[str], i: int, counted: Counted) -> bool:
        """Whether a "number of" before the bare number at `i` names the counted noun among the few words after
        its "of" ("The number of concurrent rule evaluations can be configured with …, which is set to 4")."""
        for k in range(i - 2):
            if tokens[k].casefold() in self.number_nouns and tokens[k + 1].casefold() in self.of_words:
                run = self._words_after(tokens, k + 1)
                if any(self._counted_noun(tokens[j], counted) for j in run):
                    return True
        return False

    def _counted_noun(self, word: str, counted: Counted) -> bool:
        """Whether `word` is the counted noun in its singular or plural: the crude stemmer cuts "rules" to
        "rul" and leaves "rule" whole ("the number of concurrent rule evaluations" for "how many rules")."""
        folded = word.casefold()
        return self.stem(folded) in counted.nouns or self.stem(folded + "s") in counted.nouns

    def _tokens(self, text: str) -> tuple[list[str], list[str]]:
        """`text`'s tokens, without the numbers that only point elsewhere, and their stems."""
        tokens = _TOKEN.findall(without_references(text, self))
        return tokens, [self.stem(t.casefold()) for t in tokens]

    def _names_counted_anywhere(self, text: str, counted: Counted) -> bool:
        """Whether any word of `text` names what is counted (`_names_counted`)."""
        tokens, stems = self._tokens(text)
        return any(self._names_counted(tokens, stems, j, counted) for j in range(len(tokens)))

    @staticmethod
    def _closes_aside(tokens: list[str], i: int) -> bool:
        """Whether the number at `i` ends an aside in brackets opened a few words before ("(default 512)"),
        not a list's number ("1) New transactions …")."""
        opened = "(" in tokens[max(0, i - 3) : i] and ")" not in tokens[max(0, i - 3) : i]
        return opened and i + 1 < len(tokens) and tokens[i + 1] == ")"

    def _counted_of_it(self, tokens: list[str], stems: list[str], i: int, run: list[int], counted: Counted) -> bool:
        """Whether the number at `i` counts what the question's noun is of, written after it: "a falha
        de dois discos" for "quantas falhas de disco", "the failure of two disks" for "how many disk
        failures" does not say (the question names no "of")."""
        if counted.of is None or i < 2 or tokens[i - 1].casefold() not in self.of_words:
            return False
        return stems[i - 2] in counted.nouns and any(stems[j] == counted.of for j in run)

    def _is_number(self, token: str) -> bool:
        return (token[0].isdigit() or bool(self.number_words.match(token))) and not _ORDINAL.match(token)

    def _is_count(self, tokens: list[str], i: int) -> bool:
        token = tokens[i]
        if not self._is_number(token):
            return False
        previous = tokens[i - 1] if i > 0 else ""
        # "Type 1", "tipo 1": a number after a name or a kind noun names one, it counts nothing.
        named = i > 1 and previous[:1].isupper() and previous.casefold() not in self.stopwords
        labelled = self.stem(previous.casefold()) in self._kind_stems()
        return not ((named or labelled) and token[0].isdigit())

    def _kind_stems(self) -> set[str]:
        return {self.stem(noun) for noun in self.kind_nouns}

    def _words_after(self, tokens: list[str], i: int) -> list[int]:
        """The words right after the number at `i` and the number words joined to it ("sete mil milhões
        de parâmetros", "two million of them"), up to punctuation or a small word (at most four) other
        than a word of degree ("the 15 most significant digits"); a "+" after digits is part of the
        number ("1000+ streams"), as is the number spelled out in brackets after it ("8 (oito) tipos"); a
        name written with a slash is one word ("8 generic RV32GC/RV64GC cores")."""
        while i + 1 < len(tokens) and self._is_number(tokens[i + 1]):
            i += 1
        if i + 1 < len(tokens) and tokens[i + 1] == "+" and tokens[i][0].isdigit():
            i += 1  # "1000+ streams": at least that many
        spelled = tokens[i + 1 : i + 4]
        if len(spelled) == 3 and spelled[0] == "(" and spelled[2] == ")" and self._is_number(spelled[1]):
            i += 3  # "8 (oito) tipos": the number spelled out again
        if i + 1 < len(tokens) and tokens[i + 1].casefold() in self.of_words and not tokens[i][0].isdigit():
            i += 1
        run: list[int] = []
        j = i + 1
        while j < len(tokens) and len(run) < 4:
            word = tokens[j]
            degree = word.casefold() in self.degree_words
            if word == "/" and run and j + 1 < len(tokens) and tokens[j + 1][0].isalnum():
                j += 1  # "RV32GC/RV64GC": the slash joins one name
                continue
            if not word[0].isalnum() or (word.casefold() in self.stopwords and not degree):
                break
            run.append(j)
            j += 1
        return run

    def _names_counted(self, tokens: list[str], stems: list[str], j: int, counted: Counted) -> bool:
        """Whether the word at `j` is the counted noun, and of the same thing when the question says of
        what ("levels of undo"): a kind noun counts the noun after its "of"."""
        stem = stems[j]
        after_of = self._of_word(tokens, stems, j)
        if stem in self._kind_stems() and after_of is not None:
            stem = after_of
        if stem not in counted.nouns:
            return False
        return counted.of is None or after_of is None or after_of == counted.of

    def _of_word(self, tokens: list[str], stems: list[str], j: int) -> str | None:
        """The stem of the word after "of"/"de" that follows the word at `j`, if one does."""
        if j + 2 < len(tokens) and tokens[j + 1].casefold() in self.of_words and tokens[j + 2][0].isalnum():
            return stems[j + 2]
        return None

    def holds_fact(
        self, text: str, answer_type: AnswerType, ordinary: frozenset[str] = frozenset(), question: str = ""
    ) -> bool:
        """Whether `text` states a fact of `answer_type` (a year, an amount, a name …) at all, not
        counting the numbers that only point elsewhere (`without_references`). `ordinary`: the words
        the surrounding text writes in lower case (`ordinary_words`), which no name is made of.
        `question`: what a fact only repeats from it does not answer it ("who founded Shazam with
        Avery Wang" is not answered by "Avery Wang", "what changed since 2010" not by "2010")."""
        text = without_references(text, self)
        pattern = self.fact_patterns[answer_type]
        if answer_type in (AnswerType.COUNT, AnswerType.DEFAULT):
            # A count digit by digit: an echo of one digit says nothing. A default only in a sentence
            # that states one ("by default", "the default is"), never the bare word the question asks with.
            return bool(pattern.search(text))
        by_name = answer_type in (AnswerType.PERSON, AnswerType.PLACE)
        echo = self._echo(question, by_name)
        if answer_type == AnswerType.VERSION:
            named = bool(_NAME_IN_QUESTION.search(question))
            found = [m.group(0) for m in pattern.finditer(text)] + self._releases_named(text, question)
            return any(not echo(version) and not (named and _of_another(version, question)) for version in found)
        if not by_name:
            return any(not echo(m.group(0)) for m in pattern.finditer(text))
        return any(self._is_name(m.group(0), ordinary) and not echo(m.group(0)) for m in pattern.finditer(text))

    def _releases_named(self, text: str, question: str) -> list[str]:
        """The releases `text` names by a number after the name whose version the question asks for
        (`versioned_names`), or after the name and a word bounding the releases ("Wireshark before 2.2"):
        "Debian 8" answers "o primeiro lançamento de Debian com systemd", "Wireshark 3.6" which release of
        Wireshark changed something. A whole number after any other name ("Samba 4", "Figura 3") is no
        version of it."""
        return [
            m.group(0)
            for name in self.versioned_names(question)
            for m in re.finditer(
                rf"\b{re.escape(name)}\s+(?:{self.release_bounds}\s+)?\d+(?:\.\d+)*\b(?![.,]\d)", text, re.IGNORECASE
            )
        ]

    def _echo(self, question: str, by_name: bool) -> Callable[[str], bool]:
        """Whether a fact found in a passage only repeats the question: for a year, an amount or a
        version, every word of it is one of the question's; for a name, any of its words is (an
        author's byline "Avery Li-Chun Wang" does not say who founded Shazam with Avery Wang)."""
        asked = {m.group(0).casefold() for m in _WORD.finditer(question)}

        def echoes(found: str) -> bool:
            found_words = _WORD.findall(found)
            said = [w for w in found_words if w.casefold() not in self.place_leads]
            if said and all(w.casefold() in asked for w in said):
                return True
            return by_name and any(w.casefold() in asked for w in found_words if w[:1].isupper() and len(w) > 2)

        return echoes

    def _is_name(self, found: str, ordinary: frozenset[str]) -> bool:
        """Whether the capitalised words `found` name someone or somewhere: "The Chubby lock
        service" holds an everyday word (`not_names`), "Object Notation" words the text also writes
        in lower case; "Mike Burrows" neither."""
        capitalised = [w for w in found.replace(".", " ").replace(",", " ").split() if w[:1].isupper()]
        if set(capitalised) & self.not_names:
            return False
        return not any(w.casefold() in ordinary for w in capitalised if len(w) > 2)

    def stem(self, word: str) -> str:
        """A crude suffix strip, enough to match "keys"/"key", "applies"/"apply", "hashing"/"hash"."""
        for suffix, replacement in self.suffixes:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
                return word[: len(word) - len(suffix)] + replacement
        return word

    def words(self, text: str) -> list[str]:
        """The words of `text`, case-folded, without stop words or one- and two-letter scraps."""
        found = (m.group(0).casefold() for m in _WORD.finditer(text))
        return [w for w in found if len(w) > 2 and w not in self.stopwords]

    def key_words(self, question: str) -> tuple[str, ...]:
        """The question's subject words, rarest first: the settings it names when it asks for a
        setting's value; else its rarer words when it has any, else all of them; never the words
        that only say which kind of fact is asked for."""
        settings = setting_names(question)
        if settings and self.kind(question) in _COUNT_KINDS and self.setting_cue.search(question):
            return settings
        subject = list(dict.fromkeys(w for w in self.words(question) if w not in self.cue_words))
        language = self.language or DEFAULT_LANGUAGE
        rare = [w for w in subject if zipf(w, language) <= KEY_WORD_MAX_ZIPF]
        return tuple(sorted(rare or subject, key=lambda w: zipf(w, language)))

    def subject_name_keys(self, keys: Iterable[str], question: str) -> list[str]:
        """The keys that name the question's subject (`name_key_max_zipf`): "tmpfs" in "qual é o
        tamanho máximo de um sistema de ficheiros tmpfs". A figure beside "ficheiros" alone is about
        another file system. A name in brackets is another name for the words before it ("um pipe
        com nome (FIFO)"), which the passage may use instead."""
        if self.name_key_max_zipf is None:
            return []
        line = self.name_key_max_zipf
        aside = {w.casefold() for inside in _BRACKETED.findall(question) for w in _WORD.findall(inside)}
        return [k for k in keys if k not in aside and word_zipf(k, self.language) < line]

    def subject_names(self, keys: Iterable[str], question: str) -> frozenset[str]:
        """The stems of `subject_name_keys`."""
        return frozenset(self.stem(k) for k in self.subject_name_keys(keys, question))

    def versioned_names(self, question: str) -> set[str]:
        """The names whose version a question asks for: "prometheus" in "which Prometheus version",
        "zfp" in "which version of ZFP". Every version of it holds the name ("Prometheus 3.0"), so
        the name says nothing about which version is meant."""
        found = {m.group(1).casefold() for pattern in self.versioned for m in pattern.finditer(question)}
        return found - self.stopwords - self.cue_words - self.version_fillers


def rules_for(language: str = DEFAULT_LANGUAGE) -> AnswerTypeRules:
    """The rules for a language code ("en", "pt", "pt-BR"); a language without rules gets rules
    that find no kind in any question, so it is never judged by another language's wording."""
    code = language.replace("_", "-").split("-")[0].casefold()
    if code not in LANGUAGES:
        return _NO_RULES
    module = importlib.import_module(f"search.services.answer_rules.{code}")
    rules: AnswerTypeRules = module.RULES
    return rules


_NEVER = re.compile(r"(?!)")
_NO_RULES = AnswerTypeRules(
    language="",
    question_rules=(),
    fact_patterns=dict.fromkeys(AnswerType, _NEVER),
    reference=_NEVER,
    cue_words=frozenset(),
    stopwords=frozenset(),
    suffixes=(),
    not_names=frozenset(),
    place_leads=frozenset(),
    number_words=_NEVER,
    versioned=(),
    version_fillers=frozenset(),
    counted=(),
    setting_cue=_NEVER,
    default_value=_NEVER,
)


def without_references(sentence: str, rules: AnswerTypeRules | None = None) -> str:
    """`sentence` without the numbers that only point elsewhere (the rules' `reference`); nothing
    of a contents line."""
    if _CONTENTS_LINE.search(sentence):
        return ""
    return (rules or rules_for()).reference.sub(" ", sentence)


@dataclass(frozen=True)
class AnswerTypeCheck:
    expected: AnswerType | None  # what the question asks for, if its wording says so
    met: bool  # a passage states such a fact where it speaks of the question's key words
    key_words: tuple[str, ...] = ()  # the question's words a fact must stand beside, rarest first
    stated_by: str | None = None  # the first shown sentence that states such a fact, when one does

    @property
    def unmet(self) -> AnswerType | None:
        return None if self.met or self.expected is None else self.expected


def expected_type(question: str, language: str = DEFAULT_LANGUAGE) -> AnswerType | None:
    """The kind of fact `question` asks for, or None when its wording does not say."""
    return rules_for(language).kind(question)


def stem(word: str) -> str:
    return rules_for().stem(word)


def words(text: str) -> list[str]:
    return rules_for().words(text)


def content_words(text: str, language: str = DEFAULT_LANGUAGE) -> set[str]:
    rules = rules_for(language)
    return {rules.stem(w) for w in rules.words(text)}


def key_words(question: str, language: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
    return rules_for(language).key_words(question)


def versioned_names(question: str, language: str = DEFAULT_LANGUAGE) -> set[str]:
    return rules_for(language).versioned_names(question)


def holds_fact(
    text: str,
    answer_type: AnswerType,
    ordinary: frozenset[str] = frozenset(),
    question: str = "",
    language: str = DEFAULT_LANGUAGE,
) -> bool:
    """Whether `text` states a fact of `answer_type` at all (`AnswerTypeRules.holds_fact`)."""
    return rules_for(language).holds_fact(text, answer_type, ordinary, question)


def asks_setting_value(question: str, rules: AnswerTypeRules) -> bool:
    """Whether `question` names a setting and asks for its default, limit or count."""
    return bool(setting_names(question)) and bool(rules.setting_cue.search(question))


def states_fact_beside(
    sentences: list[str],
    asked: Asked,
    keys: Iterable[str],
    ordinary: frozenset[str] = frozenset(),
    language: str = DEFAULT_LANGUAGE,
    variants: Variants | None = None,
    heading: str = "",
    library_wide: frozenset[str] = frozenset(),
    outer_heading: str = "",
    entries: list[str] | None = None,
) -> str | None:
    """The first sentence that mentions a key word in any of its spellings ("colour" meets "color"), or
    another word the search read it with (`variants`, the question's reading: "senha" meets
    "palavra-passe" where the library lacks "senha"), and states the fact `asked` (the question's
    reading, made once for all the passages by `check_answer_type`) asks for, one the question does not
    state itself. The sentence alone, or read with the one before it where it goes on about that
    one's subject (`AnswerTypeRules.goes_on`: "… autovacuum processes … The default is three."):
    counting any neighbour too let dev near-miss questions pass as answered (the figure in the next
    sentence is about something else). The sentences'
    own section `heading` speaks for one that repeats a figure of the question: a manual names its
    subject once, in the heading ("Os primeiros dias do GIMP"), and the sentence about the very
    release asked for does not repeat it ("A versão 0.54 foi lançada em fevereiro de 1996"). Any
    sentence under the heading would not do: under a tool's heading, the size range of the tool or
    the key of another of its commands passed for the default or the key asked for (dev near-miss).
    The heading does say the subject's name for every sentence under it: a manual lists a tool's
    options under the tool's heading ("17.2.1 syslogd") and names it nowhere in them ("Permite o
    recebimento de mensagens através da rede através da porta UDP 514"); such a sentence must still
    say another word of the question. A name the whole library writes (`library_wide`: "LilyPond" in
    LilyPond's manual) need not be in the sentence: it says nothing about which of the library's
    things the sentence is about, so nor is it the key word a sentence must mention (unless the
    question has no other). A name the passage's outermost heading says (`outer_heading`: the
    reference page "dassl") need not be either: every sentence under it is about that name ("lista
    opcional que contém 7 elementos"). A manual's entry line (`entries`: each sentence's, from
    `sentences_with_entries`) speaks for the sentences under it when it opens with a name the question writes
    whole ('CELLSPACING="value"' over "The maximum value is 127.") and the question asks for a value
    of it (`_ENTRY_KINDS`). None when no sentence does."""
    rules = rules_for(language)
    read = variants or {}
    own_keys = [k for k in keys if k not in library_wide]  # the question's words the library does not write throughout
    stems = {
        rules.stem(word)
        for k in own_keys or list(keys)
        for word in (k, *spelling_variants(k, language), *read.get(k.casefold(), ()))
    }
    names = rules.subject_names(own_keys, asked.question)
    headed = content_words(heading, language)
    titled = names & content_words(outer_heading, language)
    figures = question_figures(asked.question)
    before: set[str] = set()
    previous, previous_about = "", False
    for index, sentence in enumerate(sentences):
        own = content_words(sentence, language)
        if (
            entries
            and entries[index]
            and asked.kind in _ENTRY_KINDS
            and entry_names_asked(entries[index], asked.question)
        ):
            own = own | content_words(entries[index], language)  # "CELLSPACING" over "The maximum value is 127."
        # A sentence that repeats the question's figure under a heading naming the subject is about it.
        said = own | headed if headed and repeats_figure(sentence, figures) else own
        named = bool(titled) or _names_said(names, said | headed, before)
        about = bool((not stems or _shares_root(stems, said)) and named)
        about = about or _names_setting(sentence, keys)
        # A sentence that goes on about one about the subject is about it too, read with that one before
        # it; that one alone has stated no such fact, or the search would have ended there.
        goes_on = previous_about and rules.goes_on(sentence, previous)
        before = own
        if about and rules.satisfied(asked, sentence, ordinary):
            return sentence
        if goes_on and rules.satisfied(asked, sentence, ordinary, previous):
            return sentence
        previous, previous_about = sentence, about or goes_on
    return None


# Two words share a root where they agree on their first ROOT_LETTERS letters or more and on all of the
# shorter but its last two letters: the crude suffix strip (`AnswerTypeRules.stem`) leaves "evaluate" apart
# from "evaluation" and "mencionou" from "mencionado"; "interval" and "interface" stay apart. Six letters
# let near-miss questions of the dev-data sets pass on a neighbour's fact (docs/history/evaluation-changes.md,
# change 69).
ROOT_LETTERS = 7


def _same_root(one: str, other: str) -> bool:
    shorter = min(len(one), len(other))
    shared = next((i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b), shorter)
    return shared >= ROOT_LETTERS and shared >= shorter - 2


def _shares_root(stems: set[str], said: set[str]) -> bool:
    """Whether a word of `said` is one of `stems` or shares its root (`_same_root`)."""
    return bool(stems & said) or any(_same_root(stem, word) for stem in stems for word in said)


def _names_said(names: frozenset[str], said: set[str], before: set[str]) -> bool:
    """Whether the sentence, or the one before it, says one of the question's names (`subject_names`):
    a manual names its subject once and goes on about it ("Pode juntar segmentos de curva Bézier …
    Podem ser aplicadas três transições diferentes"); the figure must still stand beside a key word."""
    return not names or bool(names & (said | before))


def _names_setting(sentence: str, keys: Iterable[str]) -> bool:
    asked = tuple(k for k in keys if SETTING.fullmatch(k))
    folded = sentence.casefold()
    return any(k in folded for k in asked) or any(_names_asked(name, asked) for name, _ in settings_in(sentence))


def check_answer_type(
    question: str,
    passages: list[str],
    language: str = DEFAULT_LANGUAGE,
    variants: Variants | None = None,
    sections: list[str] | None = None,
    library_wide: Callable[[list[str]], frozenset[str]] | None = None,
) -> AnswerTypeCheck:
    """What `question` asks for, and whether one of `passages` (those the answer shows) states it;
    `variants`: the other words the search read the question's words with (`QuestionReading`);
    `sections`: each passage's section path ("Chapter 8 > 8.2.4. An example for Japanese"), whose
    last heading speaks for its sentences (`states_fact_beside`); `library_wide`: which of the
    question's subject names the whole library writes, asked only when the question has such names."""
    rules = rules_for(language)
    expected = rules.kind(question)
    if expected is None:
        return AnswerTypeCheck(None, True)
    keys = rules.key_words(question)
    if expected == AnswerType.VERSION:
        keys = tuple(k for k in keys if k not in rules.versioned_names(question)) or keys
    # The words all the passages shown write in lower case: one passage is too short a sample.
    ordinary = frozenset().union(*(ordinary_words(p) for p in passages))
    # A named setting's entry reads its sentences with the setting's name before them (`entry_sentences`);
    # any other entry line speaks for its sentences (`sentences_with_entries`).
    by_setting = asks_setting_value(question, rules)
    paths = sections or [""] * len(passages)
    named = rules.subject_name_keys(keys, question)
    everywhere = library_wide(named) if named and library_wide is not None else frozenset()
    asked = rules.asked(expected, question)  # read once, for every passage's sentences
    stated = (
        states_fact_beside(
            sentences,
            asked,
            keys,
            ordinary,
            language,
            variants,
            own_heading(path),
            everywhere,
            outer_heading(path),
            entries,
        )
        for p, path in zip(passages, paths, strict=True)
        for sentences, entries in [_read_passage(p, by_setting)]
    )
    stated_by = next((sentence for sentence in stated if sentence is not None), None)
    return AnswerTypeCheck(expected, stated_by is not None, keys, stated_by)


def _read_passage(passage: str, by_setting: bool) -> tuple[list[str], list[str] | None]:
    """A passage's sentences as `states_fact_beside` reads them, and each one's entry line (None where a
    named setting's entry reads them, `entry_sentences`)."""
    if by_setting:
        return entry_sentences(passage), None
    read = sentences_with_entries(passage)
    return [sentence for sentence, _ in read], [entry for _, entry in read]


def unmet_message(answer_type: AnswerType | str, keys: Iterable[str] = ()) -> str:
    """The caveat's plain words: "The question asks for a year or date; none of the closest
    passages states one where it mentions 'nakamoto' or 'satoshi'"."""
    phrase = PHRASES[AnswerType(answer_type)]
    shown = list(keys)[:3]
    if shown:
        return gettext(
            "The question asks for %(kind)s; none of the closest passages states one where it mentions %(words)s"
        ) % {"kind": phrase, "words": quoted_list(shown)}
    return gettext("The question asks for %(kind)s; none of the closest passages states one") % {"kind": phrase}
