"""What an answer may quote: sentences of prose, cut where the page's layout cuts them.

A source's text is cut into paragraphs (blank lines), each paragraph into lines (a line break
in the canonical text is the layout's: a PDF paragraph is one line, a Markdown code block or
list is several; a hard-wrapped text's line that stops in mid-sentence is one line with the next,
`_unwrapped`), and each line into sentences (the chunker's rules). Two sentences are next to
each other only inside one paragraph, so a figure caption, its own paragraph, is never joined to
the sentence before it, and neither is the tail of a sentence the figure cut in two.

Some text is not prose and is never an answer sentence, though it stays in the document's text,
the viewer and search:

- everything after a "References", "Bibliography" or "Acknowledgements" heading, and a passage
  whose section is one of these;
- reference-list entries ("[1] W. Dai, "b-money," …, 1998."), acknowledgements ("We thank …"),
  author and affiliation lines (an e-mail address, "University of …");
- the section's heading where it stands as a line of the text;
- figure and table captions ("Figure 4: Server states. …"), running headers and footers
  ("Proceedings of …", a page number);
- table debris and code: lines made mostly of numbers, symbols or identifiers rather than words;
- a paragraph's opening words when it begins in lower case with an everyday word: the end of a
  sentence a figure or a page break cut off ("most one leader in a given term.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from search.services.answer_rules.en import THANKS
from search.services.answer_type import EMAIL

MIN_WORDS = 4  # a shorter line is a heading, a label or a scrap
PLAIN_SHARE = 0.6  # of a sentence's tokens that must be plain words
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_PLAIN = re.compile(r"^[(\"'“‘]?[A-Za-z][a-z'’-]*[)\"'”’]?[,.;:!?]?[)\"'”’]?$")
# In-text citation markers ("[1, 34]", "[22]", "[3–5]") are part of prose, not debris.
_CITATION_MARKER = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")
_SENTENCE_END = re.compile(r"[.!:;)\]\"'”’]\s*$")
_BACK_MATTER = re.compile(
    r"^\s*(\d+(\.\d+)*\.?\s+)?(references|bibliography|works cited|acknowledge?ments?)\s*:?\s*$", re.IGNORECASE
)
_REFERENCE_ENTRY = re.compile(r"^\s*(\[\d+\]|\d+\.\s+[A-Z]\.|\[[A-Z][A-Za-z+]*\d*\])\s+\S")
_REFERENCE_SIGNS = (
    re.compile(r"\bIn (Proc\.|Proceedings|Journal)\b"),
    re.compile(r"\bpp?\.\s*\d+"),
    re.compile(r"\b(vol|no)\.?\s*\d+", re.IGNORECASE),
    re.compile(r"\b(pages|volume)\s+\d+"),
    re.compile(r"(^|[,;]\s*)([A-Z]\.\s*-?){1,3}[A-Z][a-z]+,"),  # "W. Dai,", "J.-J. Quisquater,"
    re.compile(r"\bet al\.,"),
    re.compile(r"[,.]\s*((Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+)?(19|20)\d\d\.?\s*$"),
    re.compile(r"“[^”]+,”|\"[^\"]+,\""),  # a quoted title ending in a comma
)
_ACKNOWLEDGEMENT = re.compile(
    rf"{THANKS.pattern}|\b(supported|funded|sponsored)\s+(in\s+part\s+)?by\b[^.]*"
    r"\b(grant|NSF|DARPA|foundation|award|council)",
    re.IGNORECASE,
)
_CAPTION = re.compile(r"^\s*(Figure|Fig\.|Table|Listing|Algorithm|Exhibit)\s*\d+[a-z]?\s*[:.]", re.IGNORECASE)
_AFFILIATION = re.compile(
    rf"{EMAIL.pattern}|\{{[\w,\s.]+\}}@|\b(University|Universit[äé]|Institute|College|Laborator(y|ies))\b"
)
# A paper's front-matter permission notice ("Permission to make digital or hard copies … without
# fee", "Unlimited copying without fee is permitted"), which the extractor often joins to the
# authors' addresses in one footnote paragraph: boilerplate, never an answer.
_PERMISSION_NOTICE = re.compile(
    r"\b(copy|copies|copying)\b[^.]{0,80}\bwithout fee\b|\bwithout fee\b[^.]{0,80}\b(copy|copies|copying)\b",
    re.IGNORECASE,
)
# "Mike Burrows, Google Inc.": an author line ending in its company, which the full stop of
# "Inc." would otherwise pass off as the end of a sentence.
_COMPANY_LINE = re.compile(r"^[^.!?]{0,80},\s*[^,.!?]*\b(Inc|Corp|Corporation|Ltd|LLC|GmbH|Labs?)\.?\s*$")
_HEADER = re.compile(
    r"^\s*(page\s+)?\d+\s*$|^\s*(Proceedings of|To appear in|Published in|Copyright|©)|\bISBN\b|\bDOI\b",
    re.IGNORECASE,
)
# A lower-case paragraph that starts with one of these continues a sentence begun elsewhere.
_CONTINUATIONS = frozenset(
    {
        "a", "an", "the", "and", "or", "but", "nor", "of", "in", "on", "at", "to", "for", "from", "by", "with",
        "as", "than", "that", "which", "who", "whom", "whose", "where", "when", "while", "if", "is", "are", "was",
        "were", "be", "been", "being", "has", "have", "had", "most", "more", "less", "least", "many", "much",
        "some", "any", "all", "each", "every", "both", "either", "neither", "its", "their", "his", "her", "our",
        "your", "this", "these", "those", "it", "they", "not", "also", "only", "even", "so", "such", "into",
        "onto", "over", "under", "between", "among", "through", "during", "after", "before", "about", "against",
        "without", "within", "upon", "per", "via",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Unit:
    start: int  # offsets of the sentence in the source's text
    end: int
    paragraph: int  # which paragraph (or line) of the text it sits in: only neighbours there are adjacent
    order: int  # its index among the text's sentences: reading order
    prose: bool  # may be quoted as an answer sentence


def _lines(text: str) -> list[tuple[int, int]]:
    from documents.chunking_text import Level, split_units

    found: list[tuple[int, int]] = []
    for start, end in split_units(text, 0, len(text), Level.PARAGRAPH):
        found.extend(_unwrapped(text, split_units(text, start, end, Level.LINE)))
    return found


def _unwrapped(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A paragraph's lines, those a hard-wrapped text (a manual's preformatted text: Vim's help)
    breaks in mid-sentence joined again: a line that ends no sentence and is followed by one going
    on in lower case ("By default Vim scrolls three lines when" / "moving vertically, …") is one
    line with it, so the sentence it cuts is read whole."""
    joined: list[tuple[int, int]] = []
    for start, end in lines:
        if joined and _wraps(text[joined[-1][0] : joined[-1][1]], text[start:end]):
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def _wraps(line: str, following: str) -> bool:
    return (
        not _SENTENCE_END.search(line)
        and following.lstrip()[:1].islower()
        and len(_WORD.findall(line)) >= MIN_WORDS
        and _running_text(line)
        and _running_text(following)
    )


def _running_text(line: str) -> bool:
    """Mostly plain words, and no table row ("x | a palavra-passe …") nor code ("subgraph {")."""
    return "|" not in line and _mostly_plain(line.split())


PAREN_REACH = 3  # a parenthesis the splitter cut ("(SAS Institute Inc. 2013)") closes within this many sentences


def _open(text: str) -> bool:
    return text.count("(") > text.count(")")


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The chunker's sentences of one line, except that a full stop inside parentheses ("such as
    SAS (SAS Institute Inc. 2013), SPSS …") ends no sentence: a sentence left with a parenthesis
    open is joined to those after it up to the one that closes it."""
    from documents.chunking_text import Level, split_units

    spans = split_units(text, start, end, Level.SENTENCE)
    joined: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        a, b = spans[i]
        if _open(text[a:b]):
            closing = next(
                (j for j in range(i + 1, min(len(spans), i + 1 + PAREN_REACH)) if not _open(text[a : spans[j][1]])),
                None,
            )
            if closing is not None:
                joined.append((a, spans[closing][1]))
                i = closing + 1
                continue
        joined.append((a, b))
        i += 1
    return joined


def is_back_matter_heading(section: str) -> bool:
    """Whether a section (its last part, "Title > 7 References" → "7 References") holds no prose."""
    return bool(_BACK_MATTER.match(section.split(">")[-1]))


def reference_entry(line: str) -> bool:
    return bool(_REFERENCE_ENTRY.match(line)) or sum(bool(p.search(line)) for p in _REFERENCE_SIGNS) >= 2


def wordy(sentence: str) -> bool:
    """Made of words: at least MIN_WORDS, mostly plain words, not a question, a label or a scrap of a
    table or of code."""
    tokens = _CITATION_MARKER.sub(" ", sentence).split()
    if len(_WORD.findall(sentence)) < MIN_WORDS or sentence.rstrip().endswith("?"):
        return False
    if sentence.count("(") > sentence.count(")"):
        return False  # cut inside a parenthesis ("such as SAS (SAS Institute Inc."): not a whole sentence
    if sum(c.isalpha() for c in sentence) < len(sentence) // 2:
        return False
    if not _mostly_plain(tokens):
        return False
    return bool(_SENTENCE_END.search(sentence)) or len(tokens) >= 12


def _mostly_plain(tokens: list[str]) -> bool:
    """Whether at least PLAIN_SHARE of `tokens` are plain words, not numbers, symbols or identifiers."""
    return sum(bool(_PLAIN.match(t)) for t in tokens) >= PLAIN_SHARE * len(tokens)


def line_is_prose(line: str) -> bool:
    """Whether a whole line (a PDF paragraph, a Markdown line) may hold answer sentences."""
    return not (
        reference_entry(line)
        or _CAPTION.match(line)
        or _HEADER.search(line)
        or (_AFFILIATION.search(line) and len(line.split()) <= 40 and not _SENTENCE_END.search(line))
        or _COMPANY_LINE.match(line)
        or _PERMISSION_NOTICE.search(line)
    )


def sentence_is_prose(sentence: str) -> bool:
    return wordy(sentence) and not _ACKNOWLEDGEMENT.search(sentence) and not EMAIL.search(sentence)


def _continues(line: str, previous: str | None) -> bool:
    """Whether `line` begins with the end of a sentence started elsewhere (cut by a figure or a page)."""
    first = line.lstrip()[:1]
    if not first.islower():
        return False
    word = _WORD.match(line.lstrip())
    return (word is not None and word.group(0).lower() in _CONTINUATIONS) or (
        previous is not None and not _SENTENCE_END.search(previous)
    )


def units(text: str, section: str = "") -> list[Unit]:
    """The sentences of `text` in reading order, each with its paragraph and whether it is prose."""
    found: list[Unit] = []
    back_matter = is_back_matter_heading(section) if section else False
    heading = " ".join(section.split(">")[-1].split())
    previous: str | None = None
    for paragraph, (a, b) in enumerate(_lines(text)):
        line = text[a:b]
        if is_back_matter_heading(line):
            back_matter = True
        # The section's own heading, as a line of its text, is a title (or an author line the
        # extractor took for one), not a sentence.
        allowed = not back_matter and line_is_prose(line) and " ".join(line.split()) != heading
        cut = _continues(line, previous)
        for i, (s, e) in enumerate(_sentences(text, a, b)):
            prose = allowed and not (i == 0 and cut) and sentence_is_prose(text[s:e])
            found.append(Unit(s, e, paragraph, len(found), prose))
        if not _CAPTION.match(line):  # a caption sits inside the sentence it interrupts
            previous = line
    return found
