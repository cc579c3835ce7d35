"""English answer-type rules: which wording asks for which kind of fact, and what each kind of
fact looks like in an English passage. The engine that applies them is
search/services/answer_type.py (`AnswerTypeRules`)."""

from __future__ import annotations

import re

from search.services.answer_rules.shapes import (
    CITATION_MARKER,
    COLOUR_SHAPES,
    COPYRIGHT_YEARS,
    COUNT_DIGIT,
    DATA_SIZE_UNITS,
    EXTENSION_SHAPES,
    IPV4_ADDRESS,
    KEY_SHAPES,
    MANUAL_PAGE,
    NUMBERED_NAME,
    PATH_SHAPES,
    PORT_SHAPES,
    PORT_WORD,
    POWER_SYMBOLS,
    SECTION_NUMBER,
    VERSION_SHAPES,
)
from search.services.answer_type import AnswerType as T
from search.services.answer_type import AnswerTypeRules

_I = re.IGNORECASE
_MONEY_WORDS = (
    r"price[sd]?|pricing|costs?|costly|pa(?:y|id|ys)|spen[dt]|spends|charge[sd]?|fees?|revenue|funding|funded|"
    r"budget|salary|worth|dollars?|euros?|earn(?:ed|s)?|raised?"
)
_CURRENCIES = r"dollars|euros|usd|eur|gbp"
# What "how much" asks an amount of that is no money, though a money word follows ("spend", "cost").
_NOT_MONEY = r"time|memory|ram|disk|space|storage|cpu|bandwidth"
# The units a question may ask a quantity in, spelled out as questions spell them.
_TIME_UNITS = r"(nano|micro|milli)?seconds|ms|minutes|hours|days|weeks|months|years"
_DATA_UNITS = r"bytes|bits|(kilo|mega|giga|tera|peta)bytes|kb|mb|gb|tb|kib|mib|gib"
_POWER_UNITS = r"watts|kilowatts|megawatts|joules|kwh"
# What holds an amount of data: its size is one ("file size", "the size of the download").
_FILE_NOUNS = r"file|download|installer"
_FILE_DETERMINERS = r"an?\s+|the\s+|each\s+|one\s+|its\s+"
# What a file system keeps: where it is located is a path ("Where is the rndc configuration file located?").
_STORED_NOUNS = r"files?|folders?|director(?:y|ies)"
# What "how long" asks the length of, rather than a time: "how long can a name be".
_LENGTH_NOUNS = (
    r"names?|identifiers?|strings?|keys?|passwords?|passphrases?|lines?|words?|paths?|fields?|columns?|labels?|"
    r"titles?|messages?|filenames?|texts?|values?|urls?|hostnames?|usernames?|comments?|queries|query|tokens?"
)
# "maximum", "min", "max-age": not the first half of a compound that names a kind of thing ("a
# min-heap or a max-heap" asks which kind).
_EXTREME = r"(?<!-)\b(maximum|minimum|max|min)\b(?!-\w)|(?<!\ba )(?<!\ban )(?<!-)\b(max|min)-(?=\w)"
# "the largest value", "the smallest integer": a superlative of a quantity asks for a limit too, as
# "maximum" does; "the largest company" asks which one.
_UPPER_SUPERLATIVES = r"largest|biggest|highest|greatest|longest"
_LOWER_SUPERLATIVES = r"smallest|lowest|shortest"
_SUPERLATIVE = (
    rf"\b({_UPPER_SUPERLATIVES}|{_LOWER_SUPERLATIVES})\s+(?:[\w.-]+\s+){{0,2}}?"
    r"(values?|numbers?|sizes?|lengths?|integers?|counts?|amounts?|depths?|widths?|heights?)\b"
)
# "How long can the note be?", "how long should the token be so nobody guesses it": a length, as a
# number of characters or bytes states it, not a time ("how long can a session be idle" is one).
_LENGTH_BE = (
    r"\s+(can|could|may|should|must)\s+(?:(?!\b(?:timeouts?|intervals?|delays?|periods?|ttl|lifetimes?|"
    r"durations?|waits?|pauses?|sessions?|retention|expir\w*)\b)[^?])*?\b(?:be|get|grow)\s*(?:[?.!,]|$|\b(?:so|before|if|that|at)\b)"
)
# Checked in this order: the first rule that matches names the type ("who wrote the first version"
# asks for a person, "how much did it cost" for money, not a quantity).
_QUESTION_RULES: tuple[tuple[T, re.Pattern[str]], ...] = (
    (
        T.PERCENTAGE,
        re.compile(
            r"\b(what|which)\s+(percentage|percent|proportion|share|fraction)\b|\bhow many percent\b"
            r"|\b(in|as an?)\s+(percent|percentage)\b",
            _I,
        ),
    ),
    (
        T.MONEY,
        re.compile(
            # "how much time do analysts spend", "how much ram does an exemplar cost": a time, an amount of data
            rf"\bhow (much|expensive)\b(?!\s+({_NOT_MONEY})\b)(?=.*\b({_MONEY_WORDS})\b)|\bhow much money\b|\bprices?\b"
            # "the cost of maintaining an index", "the cost of bzip2 compared with gzip": work, not money
            rf"|\bwhat (is|was|'s|are|were) the (cost|price)s?\b(?!\s+of\s+\w+ing\b)(?![^?]*\bcompared\b)"
            # "how many dollars of damage", "what storage cost in dollars", "what does it cost them per year"
            rf"|\bwhat (does|do|did)\b[^?]*\b(spend|spends|pay|pays|charge|charges)\b"
            rf"|\bhow many ({_CURRENCIES})\b|\bin (us )?({_CURRENCIES})\b|\bcosts?\b[^?]*\bper (year|month|week|day)\b",
            _I,
        ),
    ),
    (
        T.PERSON,
        re.compile(
            r"^\W*(and\s+)?who\b|\bwho\s+(is|was|were|wrote|invented|created|designed|founded|co-?founded|leads|"
            r"led|maintains|maintained|built|developed|coined|introduced|proposed)\b",
            _I,
        ),
    ),
    (
        T.VERSION,
        re.compile(
            # Not where the question asks for another thing of a version ("Which database did the first
            # version of Chubby use?").
            r"\b(which|what)\s+((is|was|are|were)\s+)?(?!(year|date|month|day)s?\b)"
            r"((?!(did|does|do|is|was|are|were|has|have|had|can|could|will|would|should)\b)[\w.+-]+\s+){0,3}?"
            r"(version|release)s?\b"
            r"|^(?!\W*(which|what)\s+(?!(version|release)s?\b)([\w-]+\s+){1,3}(did|does|do|is|was|are|were|has|have|had|"
            r"can|could|will|would|should)\b)[^?]*\bversion of\b",
            _I,
        ),
    ),
    (
        T.YEAR,
        re.compile(
            r"\b(what|which)\s+(year|date|month|day)\b|\bwhen\s+(did|was|were|has|have|had)\b|\bsince when\b"
            r"|\bhow long ago\b",
            _I,
        ),
    ),
    (
        T.PLACE,
        re.compile(
            # Not where a file or folder is kept: a path says that ("Where is the rndc configuration file located?").
            rf"\bwhere\b(?![^?]*\b({_STORED_NOUNS})\b).*\b(located|based|headquartered|headquarters|founded|born|held|"
            r"hosted)\b"
            r"|\b(in|from|at)\s+(which|what)\s+([\w.-]+\s+){0,2}?(city|cities|country|countries|states?|towns?|"
            r"regions?|continents?|data\s?cent(er|re)s?|campus(es)?)\b"
            r"|\b(which|what)\s+(city|cities|country|countries|towns?)\b",
            _I,
        ),
    ),
    (
        T.KEY,
        re.compile(
            # A key to press, not a key of data ("which key signs the release" asks for no shortcut).
            r"\bkeyboard shortcuts?\b|\bshortcut keys?\b|\bhot ?keys?\b|\bkey ?(combination|binding|stroke)s?\b"
            r"|\b(which|what) (shortcut|keys?)\b(?=.*\bpress)|\bwhat (do|should|can) (i|you) press\b"
            r"|\b(which|what|is there an?) shortcuts?\b",
            _I,
        ),
    ),
    (
        T.PATH,
        re.compile(
            r"\b(in|into|to|under|from)\s+(which|what)\s+(folders?|directory|directories)\b"
            r"|\b(which|what)\s+((is|are)\s+)?(the\s+)?(folders?|directory|directories)\b|\bwhere\b[^?]*\b(folder|directory)\b"
            rf"|\bwhere\b(?=[^?]*\b({_STORED_NOUNS})\b)[^?]*\blocated\b",
            _I,
        ),
    ),
    (
        T.PORT,
        re.compile(
            r"\b(which|what)\s+((is|are)\s+)?(the\s+)?(default\s+)?((tcp|udp|network)\s+)?ports?\b(?!\s+(of\s+call|wine))"
            r"|\b(on|at|to)\s+(which|what)\s+ports?\b|\bport numbers?\b|\bdefault\s+((tcp|udp)\s+)?port\b",
            _I,
        ),
    ),
    (
        T.EXTENSION,
        # An extension of files' names, not an add-on ("which extension adds …").
        re.compile(
            # Not where the question asks how many ("how many files … before it needs the ZIP64 extensions").
            r"^(?![^?]*\bhow many\b)[^?]*?(?:"
            r"\b(file\s?)?(name\s)?extensions?\b(?=[^?]*\bfiles?\b)|\bfiles?\b[^?]*\bextensions?\b"
            r"|\bfile ?name extensions?\b)",
            _I,
        ),
    ),
    (
        T.COLOUR,
        re.compile(r"\b(which|what)\s+((is|are)\s+)?(the\s+)?(default\s+)?colou?rs?\b", _I),
    ),
    (
        T.DURATION,
        re.compile(
            rf"\bhow many ({_TIME_UNITS})\b|\bin ({_TIME_UNITS})\b|\bhow much time\b"
            # "how long does X keep Y", "how long is the timeout": a time, as "quanto tempo" asks; not
            # the length of a thing ("how long can an identifier be"), which is a count.
            # nor a length the question names ("how long can i make a varchar column's length limit")
            rf"|\bhow long\b(?!\s+ago\b)(?![^?]*\blengths?\b)"
            rf"(?!\s+(is|are|was|were|can|could|may|should|must)\s+(an?\s+|the\s+)?"
            rf"([\w.-]+\s+){{0,2}}?({_LENGTH_NOUNS})\b)(?!{_LENGTH_BE})",
            _I,
        ),
    ),
    (
        T.DATA_SIZE,
        re.compile(
            rf"\bhow many ({_DATA_UNITS})\b|\bin ({_DATA_UNITS})\b"
            r"|\bhow much (memory|ram|disk|disk space|storage|storage space|space)\b"
            # The size of a file or a download is an amount of data, not a count ("the maximum file size");
            # sorting "by file size" asks for none.
            rf"|(?<!\bby )\b({_FILE_NOUNS})\s+sizes?\b"
            rf"|(?<!\bby )(?<!\bby the )\bsizes?\s+of\s+({_FILE_DETERMINERS})?(single\s+)?({_FILE_NOUNS})s?\b"
            rf"|\bhow (big|large) (is|are|was|were|can) ({_FILE_DETERMINERS})?(single\s+)?({_FILE_NOUNS})s?\b",
            _I,
        ),
    ),
    (
        T.POWER,
        re.compile(rf"\bhow many ({_POWER_UNITS})\b|\bhow much (power|energy|electricity)\b", _I),
    ),
    (
        T.COUNT,
        re.compile(
            r"\bhow (many|much|long|often|large|big|small|far|fast|old|high|low|wide|heavy|frequently|deep|deeply)\b"
            # "where does it keep the highest id" asks for a place
            rf"|{_EXTREME}|^(?!\W*where\b)[^?]*?{_SUPERLATIVE}"
            # Not "the default value": that may be a word or a string ("the default value of PS1 is
            # 'octave:\#> '"), which the default rule below asks for.
            r"|\bdefault\s+([\w.-]+\s+){0,2}?(size|number|count|rate|limit|length|timeout|interval|ttl|port|"
            r"period|factor|retention|duration)\b"
            r"|\bwhat(\s+(is|was|are)|'s|’s)\s+the\s+([\w-]+\s+){0,2}?(size|number|rate|limit|length|capacity|"
            r"throughput|latency|ratio)\b|\bby how much\b"
            r"|\b(what|which)\s+([\w-]+\s+){0,2}?(size|length|capacity)\s+(does|do|did|is|are|was|can|will)\b",
            _I,
        ),
    ),
    (
        T.DEFAULT,
        # "What is the default isolation level?", "Which codec does it use by default?": what something is
        # by default, once no rule above asks for a number. "Default" capitalised names a thing ("the
        # Default filter"), so only the word in lower case counts.
        re.compile(r"(?:^|[,;:])\W*(and\s+)?(?i:what|which)\b[^?]*\b(defaults?|by default)\b"),
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
        "expensive", "maximum", "minimum", "max", "min", "default", "defaults", "number", "size", "rate", "value",
        "length", "lengths",
        "first", "today", "now", "currently", "cities", "countries", "towns", "regions", "states",
        "shortcut", "shortcuts", "key", "keys", "keyboard", "hotkey", "hotkeys", "keystroke", "combination",
        "folder", "folders", "directory", "directories", "port", "ports", "extension", "extensions",
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
_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))

# "one" as a pronoun counts nothing: "the one found in .gitmodules", "at any one time", "one another"; nor
# as part of a word ("a one-off optimization").
_ONE = r"(?<!\bthe )(?<!\bthis )(?<!\bthat )(?<!\bwhich )(?<!\bno )(?<!\bany )(?<!\beach )one\b(?!\s+another\b|-)"
# "once" counts as a frequency ("once a day", "run once.", "only once"), not as the conjunction that opens
# a clause ("Once each patch is reviewed, …").
_ONCE = (
    r"once(?=\s+(?:a|an|per|every|each)\s+(?:second|minute|hour|day|night|week|month|year|time|run|session)s?\b"
    r"|\s*[.,;:!?)]|\s*$|\s+(?:more|again|only|or|and)\b)|(?<=\bonly )once|(?<=\bjust )once|(?<=\bleast )once"
    r"|(?<=\bthan )once|(?<=\bexactly )once"
)
_NUMBER_WORDS = (
    rf"{_ONE}|{_ONCE}|"
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"hundreds?|thousands?|millions?|billions?|dozens?|twice|half|single|double"
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
        "Inc", "Ltd", "LLC", "Corp", "Corporation", "Company", "Group", "Foundation", "Institute", "Research",
        "Labs", "Laboratory", "Laboratories", "Technologies", "Services", "Software", "Networks", "Systems",
        "System", "Computer", "Science", "Department",
    }
)  # fmt: skip
_FACT_PATTERNS: dict[T, re.Pattern[str]] = {
    T.YEAR: re.compile(
        rf"\b(1[5-9]\d\d|20\d\d)s?\b|\b({_MONTHS})\.?\s+\d{{1,2}}\b|\b\d{{1,2}}\s+({_MONTHS})\b"
        r"|\b\d{4}-\d\d-\d\d\b"
    ),
    T.MONEY: re.compile(
        r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(k|m|bn|million|billion|thousand)?\s?(dollars?|euros?|pounds|cents|USD|EUR|GBP)\b"
        r"|\b(USD|EUR|GBP|US\$)\s?\d",
        _I,
    ),
    T.COUNT: re.compile(rf"{COUNT_DIGIT}|\b({_NUMBER_WORDS})\b", _I),
    T.DURATION: re.compile(
        # not a decade ("the 1990s")
        rf"(?!(1[5-9]|20)\d\ds\b){_QUANTITY}(ns|[µμu]s|ms|s|secs?|seconds?|(nano|micro|milli)seconds?|"
        r"msecs?|usecs?|nsecs?|mins?|minutes?|hrs?|hours?|h|days?|weeks?|months?|years?)\b"
        # a length of time written without a figure, as "how long" is often answered: "a minute"
        r"|\b(an?|half an?|a few|several)\s+(seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b"
        # the unit written once for a figure given apart, as a manual's entry does: "(default 0.3) seconds",
        # "Number of seconds before an SSL session expires … Default: | SSLSessionCacheTimeout 300"
        rf"|\(\s*default\s+\d[\d.]*\s*\)\s+({_TIME_UNITS})\b"
        rf"|\b(number of|amount of|in)\s+({_TIME_UNITS}|time)\b[\s\S]*?"
        rf"(?<![\w.:])(?!(?:19|20)\d\d\b)\d+(?![\w.:]|\s*%|\s+(?:{_MONTHS})\b)",
        _I,
    ),
    T.DATA_SIZE: re.compile(rf"{_QUANTITY}({DATA_SIZE_UNITS})\b", _I),
    T.POWER: re.compile(rf"{_QUANTITY}({POWER_SYMBOLS}|(kilo|mega)?watts?|(kilo)?joules?)\b", _I),
    T.PERCENTAGE: re.compile(
        r"\d\s?(%|percent\b|per cent\b)|\b(half|a third|a quarter|two thirds)\b(?!-)|\b\d+\s+(in|out of)\s+\d", _I
    ),
    # "v2.40", "version 3", "1.2.3", "Qt 4.3", "iOS 9.0" — not a bare decimal such as "0.75" or "Figure 3.2".
    T.VERSION: re.compile(
        rf"{VERSION_SHAPES}|\b(?i:version|release)\s+v?\d"
        # releases of a name, the name before or after them: "EpiInfo versions 5 and 6", "versions 5 up to 12
        # of Stata" (whose they are tells another name's apart: answer_type._of_another)
        r"|\b[A-Z][\w+-]*\s+(?i:versions|releases)\s+v?\d+"
        r"|\b(?i:versions|releases)\s+v?\d+(?:\s+(?:up\s+)?(?:to|and|through)\s+\d+)?\s+of\s+[A-Z][\w+-]*"
        r"|\b(?!(?:Figure|Table|Section|Chapter|Page|Eq)\b)(?:[A-Z]|[a-z]{1,2}(?=[A-Z]))[\w+-]*\s+\d+(\.\d+)+\b"
        # "Wireshark before 2.2", "Previous to 2.30, …": a release bounded
        r"|\b[A-Z][\w+-]*\s+(?:before|after|since|until|prior to)\s+v?\d+(\.\d+)+\b"
        r"|(?:(?<=[Pp]revious to )|(?<=[Pp]rior to ))v?\d+\.\d+\b"
    ),
    T.PERSON: re.compile(
        r"\b([A-Z][a-z]+)(\s+[A-Z]\.)?\s+([A-Z][a-z]{2,})\b|\b[A-Z]\.\s?([A-Z]\.\s?)?[A-Z][a-z]{2,}\b"
        r"|\b[A-Z][a-z]{2,}\s+et al\b"
    ),
    # "press the Enter key": a capitalised key name before "key".
    T.KEY: re.compile(rf"{KEY_SHAPES}|\b(?-i:[A-Z][a-z]*)\s+key\b", _I),
    T.PLACE: re.compile(
        r"\b(in|at|from|near|based in|located in)\s+(the\s+)?[A-Z][a-z]{2,}\b|,\s+[A-Z]{2}\b(\s+\d{5})?"
    ),
    T.PATH: re.compile(PATH_SHAPES),
    # "port 5432", "TCP port 873", "the SMTP port (25)", "localhost:8080", "22/tcp".
    T.PORT: re.compile(rf"\bports?\s+(number\s+)?({PORT_WORD}\s+){{0,2}}?\(?\d{{2,5}}\b|{PORT_SHAPES}", _I),
    T.EXTENSION: re.compile(EXTENSION_SHAPES),
    T.COLOUR: re.compile(
        rf"{COLOUR_SHAPES}|\b(black|white|red|green|blue|yellow|gr[ae]y|orange|purple|pink|brown|violet|cyan|magenta"
        r"|gold|silver|beige)\b",
        _I,
    ),
}
# What looks like a figure but states nothing: citation markers ("[32]", "[7][2]"), manual pages
# ("git-submodule(1)"), identifiers ("CVE-2012-0003" is no year), numbered figures, tables and
# sections ("Figure 3", "Section 5.3"), and a heading's own number ("6 Objects", "2.2 Service Level
# Agreements"). On the dev near-miss set these alone "stated" the number asked for ("the default SOCKS
# port of Tor Browser" met by "the standard SOCKS [32] proxy interface").
_REFERENCE = re.compile(
    rf"{CITATION_MARKER}|{NUMBERED_NAME}|{MANUAL_PAGE}|{SECTION_NUMBER}|{IPV4_ADDRESS}|{COPYRIGHT_YEARS}"
    r"|\b(?:Figure|Fig\.|Table|Section|Sec\.|Chapter|Appendix|Eq\.|Equation|Algorithm|Listing)\s*\d+(?:\.\d+)*[a-z]?\b"
    r"|^\s*\d+(?:\.\d+)*\.?\s+(?=[A-Z][a-z])"
)
_VERSIONED = (
    re.compile(r"([\w.+-]+)\s+(?:version|release)s?\b", _I),  # "which Prometheus version"
    re.compile(r"\b(?:version|release)s?\s+of\s+([\w.+-]+)", _I),  # "which version of ZFP"
)
# What a count question counts: the last word before the verb or preposition after "how many" (an
# English noun comes after its modifiers: "how many WAL segment files"), another name for it in brackets,
# and what it is of ("how many levels of undo"); or the noun after "the (maximum) number of".
_UNTIL = (
    r"(?=\s*\([^()]*\))?(?:\s*\((?P<aside>[^()]*)\))?(?=\s+(?:are|is|can|could|do|does|did|were|was|will|would|"
    r"should|must|may|might|shall|has|have|had|in|of|on|per|at|for|by|to|from|with|exist|there|make|take|get)\b"
    r"|\s*[?.!]|\s*$)"
)
_COUNTED = (
    re.compile(
        rf"\bhow many\s+(?:[\w-]+\s+){{0,2}}?(?P<noun>[\w-]+?){_UNTIL}"
        r"(?:\s+of\s+(?:the\s+)?(?P<of>[\w-]+))?",
        _I,
    ),
    re.compile(rf"\bnumber\s+of\s+(?:the\s+)?(?:[\w-]+\s+){{0,2}}?(?P<noun>[\w-]+?){_UNTIL}", _I),
)
# A question about how long a text may be: "the maximum length of a savepoint name", "the line length of a
# query command", "how long can the note be"; not a length of time ("the default length of a lease").
_LENGTH_CUE = re.compile(
    r"^(?![^?]*\b(?:leases?|periods?|intervals?|timeouts?|delays?|ttl|sessions?|times?)\b)[^?]*(?:"
    rf"\blengths?\b|\bhow long\b(?:\s+(is|are|was|were|can|could|may|should|must)\s+(an?\s+|the\s+|each\s+)?"
    rf"([\w.-]+\s+){{0,2}}?({_LENGTH_NOUNS})\b|{_LENGTH_BE}))",
    _I,
)
# What such a length is counted in, and the word itself where it opens the clause its limit ends ("the
# length must be greater than zero and cannot exceed 10485760").
_LENGTH_UNITS = frozenset(
    {"characters", "chars", "bytes", "letters", "digits", "octets", "bits", "symbols", "codepoints", "kb", "mb",
     "kib", "mib", "kilobytes", "megabytes", "length"}
)  # fmt: skip
_KIND_NOUNS = frozenset({"kind", "type", "sort", "form", "category", "variety", "mode"})
# A question that asks for a limit, and the words that state one: "up to 255", "at most", "no more than".
_LIMIT_CUE = re.compile(rf"\bat (most|least)\b|{_EXTREME}|{_SUPERLATIVE}|\blimits?\b", _I)
_LIMIT_STATED = re.compile(
    # "min" and its words, not "minutes" or "mining"; a setting named after one ("min_wal_size") is one.
    r"\b(max\w*|min(?:imum|imums|ima|imal|imally|[_-]\w+)?|limit\w*|up to|at most|at least|no more than|more than"
    r"|fewer than|less than|no (?:longer|larger|bigger|greater) than"
    r"|exceed\w*|cap|capped)\b",
    _I,
)
# The side a limit's words bound; "more than", "less than" bound either ("never more than 100" is a maximum).
_UPPER_BOUND = re.compile(
    r"max|maximum|maximal|at most|up to|no (?:more|longer|larger|bigger|greater) than|cap|capped"
    rf"|(?:{_UPPER_SUPERLATIVES})\b.*",
    _I,
)
_LOWER_BOUND = re.compile(rf"min|minimum|minimal|at least|(?:{_LOWER_SUPERLATIVES})\b.*", _I)
# A question about the unit a quantity is given in, about how a figure is worked out ("how does the
# cache guess how long a page stays fresh": a heuristic is the answer, not a length of time), or why.
_NO_KIND = re.compile(
    r"\b(which|what)\s+units?\b|\bin\s+(which|what)\s+units?\b"
    r"|\b(guess|guesses|guessed|decide|decides|determine|determines|estimate|estimates|infer|infers|"
    r"work out|works out|figure out|figures out|calculate|calculates|compute|computes)\s+"
    r"how\s+(long|many|much|often|large|big)\b"
    # "How does ppdc handle a Letter default media size?": a way, not the size it names.
    r"|^\W*how\s+(?:does|do|did|should|will|would)\s+[^?]*?\b(?:handle|handles|treat|treats|deal|deals|behave|behaves)\b"
    # "Why is the COMBINING_CHARS option not set by default?" asks for a reason; "why …, and how long is
    # each line" asks for a number too.
    r"|^\W*why\b(?![^?]*\band\s+(?:by\s+)?(?:how|what|which)\b)",
    _I,
)
# What asks for a setting's default, limit or count, once the question names a setting.
_SETTING_CUE = re.compile(
    r"\bdefaults?\b|\bmaximum\b|\bminimum\b|\bmax\b|\bmin\b|\blimits?\b|\bhow (many|much|long|large|big|often)\b", _I
)
# What follows "the default is" when the sentence states no value: "a reasonable default is used", "the
# default is taken from the environment".
_NO_VALUE = r"(?:used|taken|read|inherited|derived|determined|computed|set|subject|chosen|applied|given)\b"
# A sentence that states a default value in words: "the default value is replica", "defaults to on",
# "is off by default", "(default: none)", "Read Committed is the default isolation level", "the default
# isolation level is Read Committed", "if omitted, the current directory is used". The bare word, as a
# question asks with it ("the default codec"), states none.
_DEFAULT_STATED = (
    rf"\bdefaults?\s+(?:value\s+|setting\s+)?(?:is|are|was|to|of)\s+(?!{_NO_VALUE})\S|\(default\b"
    r"|\bdefault:\s*\S"
    r"|\b(?:if|when)\s+(?:it\s+is\s+|this\s+is\s+)?(?:omitted|not\s+(?:specified|given|supplied))\b"
    r"|\b(?:is|are|was|becomes)\s+(?:the|a)\s+(?:[\w-]+\s+){0,2}?default\b"
    r"|\bdefault\s+(?:[\w-]+\s+){1,3}?(?:is|are|was|will be)\s+\S"
)
_DEFAULT_VALUE = re.compile(rf"{_DEFAULT_STATED}|\bby default\b", _I)
# "the default mode is spring", "The default background object is …": what the sentence states the default
# of; not "the default value", "the default is", "by default to", which name nothing.
_DEFAULT_OF = re.compile(
    r"(?<!\bby )\bdefault\s+((?:(?!(?:values?|settings?|is|are|was|were|to|of|for|in|when|if|and|or|on|off|behaviou?r|"
    r"case|configuration|choice|will|can|used|as|with|by|this|that|the|a|an|one|ones)\b)[a-z][\w-]*\s*){1,3})",
    _I,
)
# A sentence that states what the default value is, as "the default value of REPORTTIME" asks: as above, but
# "by default" only after the value ("is off by default"), never "by default this does not output …".
_VALUE_STATED = re.compile(rf"{_DEFAULT_STATED}|\b(?:is|are|was)\s+(?:\S+\s+){{1,2}}?by default\b", _I)
# A sentence that goes on about the one before it: a pronoun ("Its default value is …"), the default or
# limit of what that one describes ("The default is three.", "Default is 10 seconds.", "The maximum depth is
# 4095."), or what holds when the option it describes is left out ("This is optional and if not specified,
# …", "If omitted, …").
# Not any "This …" or "By default, …": "This Ecma Standard was adopted …", "This defaults to 50, which is
# the default for --depth", "By default, null values …" open sentences about something else as often; nor
# "They …", which went on about a paper's subject to a decade it names ("They look at … in the 1970s").
_CONTINUATION = re.compile(
    r"^\W*(?:it|its|this is optional|if (?:not (?:given|set|specified|supplied)|omitted)"
    r"|(?:the )?(?:default|maximum|minimum|limit)s?)\b",
    _I,
)
# A version question asking when something came, and a sentence saying it came in a version ("New in
# version 3.2", "Beginning in PostgreSQL 15", "In PostgreSQL 9.0 and later"); not one bounding what
# works ("prior to 3.7.0", "before 3.16.0").
_SINCE_CUE = re.compile(r"\b(since|added|introduced|new in|first (?:appeared|added|introduced|supported))\b", _I)
_SINCE_STATED = re.compile(
    r"\b(since|added|introduced|new in|changed in|beginning (?:in|with)|starting (?:in|with|from)|as of|first|appeared"
    r"|available (?:in|from|since)|from (?:version|release)|(?:and|or) (?:later|newer|above)|onwards?)\b",
    _I,
)
# A question about a default ("the default session timeout").
_DEFAULT_CUE = re.compile(
    r"\bdefaults?\b|\bout of the box\b|\bunless\s+(?:i|you|we|told)\b"
    r"|\b(?:if|when)\s+(?:i|you|we)\s+(?:don'?t|do not|never)\s+(?:say|tell|give|set|pass|choose|pick|specify)\b"
    r"|\bnot\s+(?:given|supplied|specified|passed)\b|\bleave\b[^?]*\bout\b|\bleft\s+out\b|\bomitted\b",
    _I,
)
# What a sentence says to state a default: "default" itself, what holds unless told otherwise ("unless …",
# "if omitted", "otherwise"), or what holds as a rule ("typically each block is 64KB").
_DEFAULT_SAID = re.compile(
    r"\bdefault\w*|\bunless\b|\bif\s+(?:not|no)\b|\b(?:omitted|not\s+(?:given|supplied|specified|set))\b"
    r"|\botherwise\b|\bout of the box\b"
    r"|\b(?:typically|normally|usually|initially)\b",
    _I,
)
# Thanks, which name nobody a question asks for (citations/writers/prose.py reads them as no prose, too).
THANKS = re.compile(
    r"\b(?:we|I)\s+(?:would\s+(?:also\s+)?like\s+to\s+|also\s+|wish\s+to\s+)?(?:thank|acknowledge)\b"
    r"|\bthanks\s+(?:go\s+)?to\b|\bgrateful\s+to\b",
    _I,
)
_AUTHORSHIP_CUE = re.compile(r"\b(?:wrote|written|writes|authored|authors?)\b", _I)

RULES = AnswerTypeRules(
    language="en",
    question_rules=_QUESTION_RULES,
    fact_patterns={**_FACT_PATTERNS, T.DEFAULT: _DEFAULT_VALUE},
    reference=_REFERENCE,
    cue_words=_CUE_WORDS,
    stopwords=_STOPWORDS,
    suffixes=_SUFFIXES,
    not_names=_NOT_NAMES,
    place_leads=frozenset({"in", "at", "from", "near", "based", "located"}),
    number_words=re.compile(rf"^({_NUMBER_WORDS})$", _I),
    versioned=_VERSIONED,
    version_fillers=frozenset({"the", "latest", "current", "new", "newer", "older"}),
    counted=_COUNTED,
    length_cue=_LENGTH_CUE,
    length_units=_LENGTH_UNITS,
    setting_cue=_SETTING_CUE,
    default_value=_DEFAULT_VALUE,
    kind_nouns=_KIND_NOUNS,
    of_words=frozenset({"of"}),
    number_nouns=frozenset({"number"}),
    limit_cue=_LIMIT_CUE,
    limit_stated=_LIMIT_STATED,
    upper_bound=_UPPER_BOUND,
    lower_bound=_LOWER_BOUND,
    no_kind=_NO_KIND,
    continuation=_CONTINUATION,
    articles=frozenset({"the"}),
    degree_words=frozenset({"most", "least", "more", "less"}),
    since_cue=_SINCE_CUE,
    since_stated=_SINCE_STATED,
    least_version_cue=re.compile(r"\b(minimum|min|oldest|earliest|required|requires?|needs?|needed)\b", _I),
    version_bound=re.compile(
        r"\bor\s+(later|newer|higher|above|greater|better)\b|\bat least\b|\bminimum\b|\brequire[sd]?\b|\bneeds?\b"
        r"|\bneeded\b|\bupgrad(e|ed|ing)\s+to\b|\b(earlier|older|later|newer|higher|lower)\s+than\b|\bprior to\b"
        r"|\bbefore\b|>=|≥|\d\+",
        _I,
    ),
    release_bounds=r"(?:before|after|since|until|prior\s+to|up\s+to|from)",
    since_when=re.compile(r"\bsince when\b", _I),
    default_cue=_DEFAULT_CUE,
    default_said=_DEFAULT_SAID,
    default_of=_DEFAULT_OF,
    default_stated=re.compile(_DEFAULT_STATED, _I),
    any_value=re.compile(r"\bdefault\s+(?:value|setting)\b", _I),
    value_stated=_VALUE_STATED,
    thanks=THANKS,
    authorship_cue=_AUTHORSHIP_CUE,
)
