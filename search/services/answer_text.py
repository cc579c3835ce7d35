"""How the answer-type check (search/services/answer_type.py) reads passages and questions: the
sentences of a passage, a manual's entries for its settings, the settings a question names, the
figures it repeats, and the headings a passage sits under."""

from __future__ import annotations

import re

# A setting's name: words joined by "_" or ".", or a command-line flag ("wal_buffers", "query.max-samples",
# "--rules.max-concurrent-evals"), where a part may be a placeholder a manual writes for any name
# ("submodule.<name>.update"); never a plain hyphenated word ("read-only") or a number ("3.0").
SETTING = re.compile(r"(?<![\w.-])(?:--?)?[A-Za-z][A-Za-z0-9]*(?:[._-](?:[A-Za-z0-9]+|<[A-Za-z0-9_-]+>))+(?![\w<-])")


def setting_names(question: str) -> tuple[str, ...]:
    """The settings a question names, case-folded and without a flag's dashes."""
    return tuple(dict.fromkeys(name for name, _ in settings_in(question)))


def settings_in(text: str) -> list[tuple[str, int]]:
    """Each setting `text` names (case-folded, without dashes) and where."""
    found = []
    for match in SETTING.finditer(text):
        name = match.group(0)
        bare = name.lstrip("-")
        if name.startswith("--") or "_" in bare or "<" in bare or re.search(r"[A-Za-z]{2}\.[A-Za-z]{2}", bare):
            found.append((bare.casefold(), match.start()))
    return found


def sentences_with_entries(text: str) -> list[tuple[str, str]]:
    """`text` cut into sentences (the chunker's rules, each a verbatim substring), each with the short line
    above it that names what its paragraphs describe, or "" (a manual's entry: "Maximum frame length",
    "FUNCNEST <S>", "--version=<version>"): one pass over the passage gives both."""
    from documents.chunking_text import Level, split_units

    found: list[tuple[str, str]] = []
    entry = ""
    for start, end in split_units(text, 0, len(text), Level.PARAGRAPH):
        paragraph = text[start:end].strip()
        sentences = [text[a:b] for a, b in split_units(text, start, end, Level.SENTENCE)]
        if _short_line(paragraph) and not paragraph.endswith(":"):
            found.extend((sentence, "") for sentence in sentences)
            entry = paragraph
            continue
        found.extend((sentence, entry) for sentence in sentences)
    return found


# The name a manual's entry line opens with: "CELLSPACING" of 'CELLSPACING="value"', "MaxCopies" of "MaxCopies
# number", "--version" of "--version=<version>"; and a name as a question writes it.
_ENTRY_NAME = re.compile(r"[‘'\"`]?(-{0,2}[A-Za-z][\w.:-]*?)[.:]?(?=[\s=(<’'\"`]|$)")
_QUESTION_NAME = re.compile(r"-{0,2}[A-Za-z][\w.:-]*\w")


def entry_names_asked(entry: str, question: str) -> bool:
    """Whether the name `entry` (a `sentences_with_entries` line) opens with is a name `question` writes as a whole:
    "autovacuum" does not name "autovacuum_naptime". A capitalised word opens a title ("Legenda", "Maximum
    frame length"), which names no one thing."""
    match = _ENTRY_NAME.match(entry)
    if match is None or match.group(1).istitle():
        return False
    name = match.group(1).casefold()
    return any(word.casefold() == name for word in _QUESTION_NAME.findall(question))


# A reference manual lists its settings as entries: a short line naming the setting ("max_connections
# (integer)", "--storage.tsdb.retention.time"), then paragraphs that describe it and rarely name it again
# ("The default is typically 100 connections."). At most this many words make such a heading line.
ENTRY_HEADING_MAX_WORDS = 6


# A Texinfo manual's definition line opens with a colon and the names its call returns (Octave's ": val =
# history_size ()", ": [a, b] = f (x)"); the setting's name comes after them.
_DEFINITION_LEAD = re.compile(r":\s+(?:[\w\[\],\s]{1,40}?=\s*)?")


def entry_heading(paragraph: str) -> str | None:
    """The setting whose entry `paragraph` heads, as written, if it does: a short line that starts with
    a setting's name, or with a definition line's lead (`_DEFINITION_LEAD`) and then the name, and is no
    sentence ("max_connections (integer)", ": old_val = history_size (new_val)", not "max_connections
    sets the number …")."""
    lead = _DEFINITION_LEAD.match(paragraph)
    named = SETTING.match(paragraph, lead.end() if lead else 0)
    heads = named is not None and bool(settings_in(named.group(0))) and _short_line(paragraph)
    return named.group(0) if heads and named else None


def _short_line(paragraph: str) -> bool:
    """A paragraph short enough to head an entry (ENTRY_HEADING_MAX_WORDS) that ends no sentence."""
    return len(paragraph.split()) <= ENTRY_HEADING_MAX_WORDS and not paragraph.rstrip().endswith((".", "?", "!"))


def _names_its_setting(sentence: str, setting: str) -> bool:
    return any(name == setting.lstrip("-").casefold() for name, _ in settings_in(sentence))


def entry_sentences(text: str) -> list[str]:
    """`text` cut into sentences (`sentences_with_entries`), each sentence of a setting's entry that does not name
    that setting read with its name before it: "max_connections: The default is typically 100
    connections." states max_connections' default where the sentence alone names no setting, and
    "history_size: The default value is 1000, but may be overridden by the environment variable
    OCTAVE_HISTSIZE" history_size's, the value standing nearer to it than to the setting the sentence
    names (`_states_setting_value`)."""
    from documents.chunking_text import Level, split_units

    found: list[str] = []
    setting: str | None = None
    for start, end in split_units(text, 0, len(text), Level.PARAGRAPH):
        paragraph = text[start:end]
        heads = entry_heading(paragraph)
        if heads:
            setting = heads
            continue
        sentences = [text[a:b] for a, b in split_units(text, start, end, Level.SENTENCE)]
        found.extend(s if setting is None or _names_its_setting(s, setting) else f"{setting}: {s}" for s in sentences)
    return found


# A figure a question names: a release, a number of two characters or more ("0.54", "2.6.0", "F11", "1996"). One
# digit ("Samba 4", "3 colunas") is in too many sentences to tie one to the question.
_FIGURE = re.compile(r"(?<![\w.,])\w*\d[\w.,]*\w(?![\w])")


def question_figures(question: str) -> frozenset[str]:
    """The figures `question` names (`_FIGURE`), case-folded."""
    return frozenset(m.group(0).casefold() for m in _FIGURE.finditer(question))


def repeats_figure(sentence: str, figures: frozenset[str]) -> bool:
    """Whether `sentence` names one of the question's `figures` as a whole token ("0.54", not "0.545")."""
    return bool(figures) and not figures.isdisjoint(m.group(0).casefold() for m in _FIGURE.finditer(sentence))


def own_heading(section: str) -> str:
    """The last heading of a passage's section path: the one its sentences sit right under. The
    headings above it name a whole chapter ("Chapter 8. I18N and L10N"), not what the sentence says."""
    return section.split(">")[-1].strip()


def outer_heading(section: str) -> str:
    """The first heading of a passage's section path: what the whole page or chapter is about (a
    reference page's own name, "dassl")."""
    return section.split(">")[0].strip()
