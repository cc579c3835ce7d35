"""The kind of fact a question asks for, and whether the passages shown state one.

Every rule about answer types lives here: which questions expect a year, an amount of money, a
number, a quantity in a unit they name (a length of time, an amount of data, power or energy), a
percentage, a version, a person or a place (`expected_type`), what such a fact looks
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
words, `key_words`), and only when it does
not merely repeat the question: "Avery Wang" does not say who founded Shazam with Avery Wang, and
"Prometheus 3.0" beside the word "Prometheus" does not say which Prometheus version made native
histograms stable (`versioned_names`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from search.services.terms import quoted_list, spelling_variants, zipf


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


# How the caveat names the missing fact ("The question asks for a year or date; …").
PHRASES: dict[AnswerType, str] = {
    AnswerType.YEAR: "a year or date",
    AnswerType.MONEY: "a price or an amount of money",
    AnswerType.COUNT: "a number",
    AnswerType.DURATION: "a length of time",
    AnswerType.DATA_SIZE: "an amount of data (bytes or bits)",
    AnswerType.POWER: "an amount of power or energy",
    AnswerType.PERCENTAGE: "a percentage",
    AnswerType.VERSION: "a version",
    AnswerType.PERSON: "a person's name",
    AnswerType.PLACE: "a place",
}

_I = re.IGNORECASE
_MONEY_WORDS = (
    r"price[sd]?|pricing|costs?|costly|pa(?:y|id|ys)|spen[dt]|spends|charge[sd]?|fees?|revenue|funding|funded|"
    r"budget|salary|worth|dollars?|euros?|earn(?:ed|s)?|raised?"
)
_CURRENCIES = r"dollars|euros|usd|eur|gbp"
# The units a question may ask a quantity in, spelled out as questions spell them.
_TIME_UNITS = r"(nano|micro|milli)?seconds|ms|minutes|hours|days|weeks"
_DATA_UNITS = r"bytes|bits|(kilo|mega|giga|tera|peta)bytes|kb|mb|gb|tb|kib|mib|gib"
_POWER_UNITS = r"watts|kilowatts|megawatts|joules|kwh"
# Checked in this order: the first rule that matches names the type ("who wrote the first version"
# asks for a person, "how much did it cost" for money, not a quantity).
_QUESTION_RULES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (
        AnswerType.PERCENTAGE,
        re.compile(
            r"\b(what|which)\s+(percentage|percent|proportion|share|fraction)\b|\bhow many percent\b"
            r"|\b(in|as an?)\s+(percent|percentage)\b",
            _I,
        ),
    ),
    (
        AnswerType.MONEY,
        re.compile(
            rf"\bhow (much|expensive)\b(?=.*\b({_MONEY_WORDS})\b)|\bhow much money\b|\bprices?\b"
            rf"|\bwhat (is|was|'s|are|were) the (cost|price)s?\b"
            # "how many dollars of damage", "what storage cost in dollars", "what does it cost them per year"
            rf"|\bwhat (does|do|did)\b[^?]*\b(spend|spends|pay|pays|charge|charges)\b"
            rf"|\bhow many ({_CURRENCIES})\b|\bin (us )?({_CURRENCIES})\b|\bcosts?\b[^?]*\bper (year|month|week|day)\b",
            _I,
        ),
    ),
    (
        AnswerType.PERSON,
        re.compile(
            r"^\W*(and\s+)?who\b|\bwho\s+(is|was|were|wrote|invented|created|designed|founded|co-?founded|leads|"
            r"led|maintains|maintained|built|developed|coined|introduced|proposed)\b",
            _I,
        ),
    ),
    (
        AnswerType.VERSION,
        re.compile(r"\b(which|what)\s+([\w.+-]+\s+){0,3}?(version|release)s?\b|\bversion of\b", _I),
    ),
    (
        AnswerType.YEAR,
        re.compile(
            r"\b(what|which)\s+(year|date|month|day)\b|\bwhen\s+(did|was|were|has|have|had)\b|\bsince when\b"
            r"|\bhow long ago\b",
            _I,
        ),
    ),
    (
        AnswerType.PLACE,
        re.compile(
            r"\bwhere\b.*\b(located|based|headquartered|headquarters|founded|born|held|hosted)\b"
            r"|\b(in|from|at)\s+(which|what)\s+([\w.-]+\s+){0,2}?(city|cities|country|countries|states?|towns?|"
            r"regions?|continents?|data\s?cent(er|re)s?|campus(es)?)\b"
            r"|\b(which|what)\s+(city|cities|country|countries|towns?)\b",
            _I,
        ),
    ),
    (AnswerType.DURATION, re.compile(rf"\bhow many ({_TIME_UNITS})\b|\bin ({_TIME_UNITS})\b", _I)),
    (
        AnswerType.DATA_SIZE,
        re.compile(
            rf"\bhow many ({_DATA_UNITS})\b|\bin ({_DATA_UNITS})\b"
            r"|\bhow much (memory|ram|disk|disk space|storage|storage space|space)\b",
            _I,
        ),
    ),
    (
        AnswerType.POWER,
        re.compile(rf"\bhow many ({_POWER_UNITS})\b|\bhow much (power|energy|electricity)\b", _I),
    ),
    (
        AnswerType.COUNT,
        re.compile(
            r"\bhow (many|much|long|often|large|big|small|far|fast|old|high|low|wide|heavy|frequently)\b"
            r"|\b(maximum|minimum|max|min)\b"
            r"|\bdefault\s+([\w.-]+\s+){0,2}?(size|number|count|rate|limit|length|timeout|interval|ttl|port|"
            r"value|period|factor|retention|duration)\b"
            r"|\bwhat(\s+(is|was|are)|'s|’s)\s+the\s+([\w-]+\s+){0,2}?(size|number|rate|limit|length|capacity|"
            r"throughput|latency|ratio)\b|\bby how much\b",
            _I,
        ),
    ),
)

# What the words that say which fact is asked for ("year", "spend") tell about the subject: nothing.
_CUE_WORDS = frozenset(
    {
        "year", "years", "date", "month", "day", "when", "since", "ago", "long", "much", "many", "often",
        "large", "big", "small", "far", "fast", "old", "high", "low", "wide", "heavy", "frequently",
        "percentage", "percent", "proportion", "share", "fraction", "version", "versions", "release", "releases",
        "who", "where", "located", "based", "headquartered", "headquarters", "city", "country", "town",
        "region", "state", "price", "prices", "cost", "costs", "pay", "paid", "spend", "spent", "money",
        "expensive", "maximum", "minimum", "max", "min", "default", "number", "size", "rate", "value",
        "first", "today", "now", "currently", "cities", "countries", "towns", "regions", "states",
    }
)  # fmt: skip
_STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "did", "for", "from", "has",
        "have", "had", "how", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was",
        "were", "what", "which", "why", "will", "with", "you", "your", "i", "my", "me", "we", "our", "they",
        "their", "there", "these", "those", "into", "than", "then", "also", "about", "after", "before",
        "between", "during", "over", "under", "more", "most", "s", "get", "use", "used", "make",
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Key words are the question's rarer words: everyday words ("build", "run") say little about the subject.
KEY_WORD_MAX_ZIPF = 5.0
_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))

_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"hundreds?|thousands?|millions?|billions?|dozens?|once|twice|half|single|double"
)
# A number and the unit it is counted in: "150ms", "2 hours", "10–20 seconds", "64-bit", "two bytes".
_QUANTITY = rf"(?<![\w.])(\d[\d,.]*|({_NUMBER_WORDS})\b)(\s?[-–]\s?\d[\d,.]*)?[\s-]?"
_MONTHS = (
    r"Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?"
)
_NOT_NAMES = frozenset(
    {
        "The", "This", "That", "These", "Those", "In", "On", "At", "For", "From", "With", "When", "Where",
        "What", "Which", "Figure", "Table", "Section", "Chapter", "Page", "Abstract", "Introduction",
        "Conclusion", "Related", "Work", "Proceedings", "Conference", "Symposium", "Journal", "University",
        "Inc", "Corporation", "Google", "Amazon", "Facebook", "Microsoft", "Yahoo", "Sun", "Research",
        "Laboratory", "Laboratories", "Systems", "System", "Computer", "Science", "Department", "ACM", "IEEE",
    }
)  # fmt: skip
_FACT_PATTERNS: dict[AnswerType, re.Pattern[str]] = {
    AnswerType.YEAR: re.compile(
        rf"\b(1[5-9]\d\d|20\d\d)s?\b|\b({_MONTHS})\.?\s+\d{{1,2}}\b|\b\d{{1,2}}\s+({_MONTHS})\b"
        r"|\b\d{4}-\d\d-\d\d\b"
    ),
    AnswerType.MONEY: re.compile(
        r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(k|m|bn|million|billion|thousand)?\s?(dollars?|euros?|pounds|cents|USD|EUR|GBP)\b"
        r"|\b(USD|EUR|GBP|US\$)\s?\d",
        _I,
    ),
    AnswerType.COUNT: re.compile(rf"\d|\b({_NUMBER_WORDS})\b", _I),
    AnswerType.DURATION: re.compile(
        # not a decade ("the 1990s")
        rf"(?!(1[5-9]|20)\d\ds\b){_QUANTITY}(ns|[µμu]s|ms|s|secs?|seconds?|(nano|micro|milli)seconds?|"
        r"mins?|minutes?|hrs?|hours?|h|days?|weeks?|months?|years?)\b",
        _I,
    ),
    AnswerType.DATA_SIZE: re.compile(
        rf"{_QUANTITY}((?-i:B|[KMGTP]B|[KMGT]iB|[KMG]b|kB)|bytes?|bits?|(kilo|mega|giga|tera|peta)bytes?)\b", _I
    ),
    AnswerType.POWER: re.compile(
        rf"{_QUANTITY}((?-i:[mkMG]?W|[kM]?J|[kMG]?Wh)|(kilo|mega)?watts?|(kilo)?joules?)\b", _I
    ),
    AnswerType.PERCENTAGE: re.compile(
        r"\d\s?(%|percent\b|per cent\b)|\b(half|a third|a quarter|two thirds)\b|\b\d+\s+(in|out of)\s+\d", _I
    ),
    # "v2.40", "version 3", "1.2.3", "Qt 4.3" — not a bare decimal such as "0.75" or "Figure 3.2".
    AnswerType.VERSION: re.compile(
        r"\b[vV]\d+(\.\d+)*\b|\b(?i:version|release)\s+v?\d|\b\d+\.\d+\.\d+\b"
        r"|\b(?!(?:Figure|Table|Section|Chapter|Page|Eq)\b)[A-Z][\w+-]*\s+\d+(\.\d+)+\b"
    ),
    AnswerType.PERSON: re.compile(
        r"\b([A-Z][a-z]+)(\s+[A-Z]\.)?\s+([A-Z][a-z]{2,})\b|\b[A-Z]\.\s?([A-Z]\.\s?)?[A-Z][a-z]{2,}\b"
        r"|\b[A-Z][a-z]{2,}\s+et al\b"
    ),
    AnswerType.PLACE: re.compile(
        r"\b(in|at|from|near|based in|located in)\s+(the\s+)?[A-Z][a-z]{2,}\b|,\s+[A-Z]{2}\b(\s+\d{5})?"
    ),
}
# What looks like a figure but states nothing: citation markers ("[32]", "[7][2]"), identifiers
# ("CVE-2012-0003" is no year), numbered figures, tables and sections ("Figure 3", "Section 5.3"),
# and a heading's own number ("6 Objects", "2.2 Service Level Agreements"). On the dev near-miss set
# these alone "stated" the number asked for ("the default SOCKS port of Tor Browser" met by "the
# standard SOCKS [32] proxy interface").
_REFERENCE = re.compile(
    r"\[\d+(?:\s*[,–-]\s*\d+)*\]"
    # identifiers that hold a number as part of a name: "CVE-2012-0003", "dapper-2010-1", "ECMA-404"
    r"|\b[A-Za-z]+-\d[\w-]*"
    r"|\b(?:Figure|Fig\.|Table|Section|Sec\.|Chapter|Appendix|Eq\.|Equation|Algorithm|Listing)\s*\d+(?:\.\d+)*[a-z]?\b"
    r"|^\s*\d+(?:\.\d+)*\.?\s+(?=[A-Z][a-z])"
)
# A line of a table of contents ("7 Arrays ........ 2"): its numbers are sections and pages.
_CONTENTS_LINE = re.compile(r"(?:\.\s?){4,}")


def without_references(sentence: str) -> str:
    """`sentence` without the numbers that only point elsewhere (`_REFERENCE`); nothing of a
    contents line."""
    if _CONTENTS_LINE.search(sentence):
        return ""
    return _REFERENCE.sub(" ", sentence)


def ordinary_words(text: str) -> frozenset[str]:
    """The words `text` writes in lower case: a capitalised phrase made of them is a term of the
    text ("JavaScript Object Notation" beside "an object structure"), not a person's or a place's
    name."""
    return frozenset(m.group(0) for m in _WORD.finditer(text) if m.group(0).islower())


@dataclass(frozen=True)
class AnswerTypeCheck:
    expected: AnswerType | None  # what the question asks for, if its wording says so
    met: bool  # a passage states such a fact where it speaks of the question's key words
    key_words: tuple[str, ...] = ()  # the question's words a fact must stand beside, rarest first

    @property
    def unmet(self) -> AnswerType | None:
        return None if self.met or self.expected is None else self.expected


def expected_type(question: str) -> AnswerType | None:
    """The kind of fact `question` asks for, or None when its wording does not say."""
    for answer_type, rule in _QUESTION_RULES:
        if rule.search(question):
            return answer_type
    return None


def stem(word: str) -> str:
    """A crude suffix strip, enough to match "keys"/"key", "applies"/"apply", "hashing"/"hash"."""
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + replacement
    return word


def words(text: str) -> list[str]:
    """The words of `text`, case-folded, without stop words or one- and two-letter scraps."""
    found = (m.group(0).casefold() for m in _WORD.finditer(text))
    return [w for w in found if len(w) > 2 and w not in _STOPWORDS]


def content_words(text: str) -> set[str]:
    return {stem(w) for w in words(text)}


def key_words(question: str) -> tuple[str, ...]:
    """The question's subject words, rarest first: its rarer words when it has any, else all of
    them; never the words that only say which kind of fact is asked for."""
    subject = list(dict.fromkeys(w for w in words(question) if w not in _CUE_WORDS))
    rare = [w for w in subject if zipf(w) <= KEY_WORD_MAX_ZIPF]
    return tuple(sorted(rare or subject, key=zipf))


def holds_fact(text: str, answer_type: AnswerType, ordinary: frozenset[str] = frozenset(), question: str = "") -> bool:
    """Whether `text` states a fact of `answer_type` (a year, an amount, a name …) at all, not
    counting the numbers that only point elsewhere (`without_references`). `ordinary`: the words
    the surrounding text writes in lower case (`ordinary_words`), which no name is made of.
    `question`: what a fact only repeats from it does not answer it ("who founded Shazam with Avery
    Wang" is not answered by "Avery Wang", "what changed since 2010" not by "2010")."""
    text = without_references(text)
    pattern = _FACT_PATTERNS[answer_type]
    if answer_type == AnswerType.COUNT:
        return bool(pattern.search(text))  # digit by digit: an echo of one digit says nothing
    by_name = answer_type in (AnswerType.PERSON, AnswerType.PLACE)
    echo = _echo(question, by_name)
    if not by_name:
        return any(not echo(m.group(0)) for m in pattern.finditer(text))
    return any(_is_name(m.group(0), ordinary) and not echo(m.group(0)) for m in pattern.finditer(text))


# The words a place pattern starts with ("in Oslo", "based in Oslo"): not part of the name.
_PLACE_LEADS = frozenset({"in", "at", "from", "near", "based", "located"})


def _echo(question: str, by_name: bool) -> Callable[[str], bool]:
    """Whether a fact found in a passage only repeats the question: for a year, an amount or a
    version, every word of it is one of the question's; for a name, any of its words is (an
    author's byline "Avery Li-Chun Wang" does not say who founded Shazam with Avery Wang)."""
    asked = {m.group(0).casefold() for m in _WORD.finditer(question)}

    def echoes(found: str) -> bool:
        found_words = _WORD.findall(found)
        said = [w for w in found_words if w.casefold() not in _PLACE_LEADS]
        if said and all(w.casefold() in asked for w in said):
            return True
        return by_name and any(w.casefold() in asked for w in found_words if w[:1].isupper() and len(w) > 2)

    return echoes


def _is_name(found: str, ordinary: frozenset[str]) -> bool:
    """Whether the capitalised words `found` name someone or somewhere: "The Chubby lock service"
    holds an everyday word (`_NOT_NAMES`), "Object Notation" words the text also writes in lower
    case; "Mike Burrows" neither."""
    capitalised = [w for w in found.replace(".", " ").replace(",", " ").split() if w[:1].isupper()]
    if set(capitalised) & _NOT_NAMES:
        return False
    return not any(w.casefold() in ordinary for w in capitalised if len(w) > 2)


def sentence_texts(text: str) -> list[str]:
    """`text` cut into sentences (the chunker's rules), each a verbatim substring."""
    from documents.chunking_text import Level, split_units

    found: list[str] = []
    for start, end in split_units(text, 0, len(text), Level.PARAGRAPH):
        found.extend(text[a:b] for a, b in split_units(text, start, end, Level.SENTENCE))
    return found


def states_fact_beside(
    sentences: list[str],
    answer_type: AnswerType,
    keys: Iterable[str],
    ordinary: frozenset[str] = frozenset(),
    question: str = "",
) -> bool:
    """Whether a sentence mentioning a key word states such a fact (one the question does not
    state itself). The sentence alone: counting its neighbours too let dev near-miss questions
    pass as answered (the figure in the next sentence is about something else)."""
    stems = {stem(spelt) for k in keys for spelt in (k, *spelling_variants(k))}  # "colour" meets "color"
    for sentence in sentences:
        if stems and not stems & content_words(sentence):
            continue
        if holds_fact(sentence, answer_type, ordinary, question):
            return True
    return False


_VERSIONED = (
    re.compile(r"([\w.+-]+)\s+(?:version|release)s?\b", _I),  # "which Prometheus version"
    re.compile(r"\b(?:version|release)s?\s+of\s+([\w.+-]+)", _I),  # "which version of ZFP"
)


def versioned_names(question: str) -> set[str]:
    """The names whose version a question asks for: "prometheus" in "which Prometheus version",
    "zfp" in "which version of ZFP". Every version of it holds the name ("Prometheus 3.0"), so
    the name says nothing about which version is meant."""
    found = {m.group(1).casefold() for pattern in _VERSIONED for m in pattern.finditer(question)}
    return found - _STOPWORDS - _CUE_WORDS - {"the", "latest", "current", "new", "newer", "older"}


def check_answer_type(question: str, passages: list[str]) -> AnswerTypeCheck:
    """What `question` asks for, and whether one of `passages` (those the answer shows) states it."""
    expected = expected_type(question)
    if expected is None:
        return AnswerTypeCheck(None, True)
    keys = key_words(question)
    if expected == AnswerType.VERSION:
        keys = tuple(k for k in keys if k not in versioned_names(question)) or keys
    # The words all the passages shown write in lower case: one passage is too short a sample.
    ordinary = frozenset().union(*(ordinary_words(p) for p in passages))
    met = any(states_fact_beside(sentence_texts(p), expected, keys, ordinary, question) for p in passages)
    return AnswerTypeCheck(expected, met, keys)


def unmet_message(answer_type: AnswerType | str, keys: Iterable[str] = ()) -> str:
    """The caveat's plain words: "The question asks for a year or date; none of the closest
    passages states one where it mentions 'nakamoto' or 'satoshi'"."""
    said = f"The question asks for {PHRASES[AnswerType(answer_type)]}; none of the closest passages states one"
    shown = list(keys)[:3]
    return said + (f" where it mentions {quoted_list(shown)}" if shown else "")
