"""Which language a document is written in, and each of its chunks (py3langid, which ships its model).

A chunk's language decides how the keyword index reads it (documents/languages.py). The
document's main language is the one most of its letters are written in, counting the chunks the
detector is sure of. A chunk that is too short or ambiguous to tell (code, a table, a few words)
takes the document's language; a confident chunk keeps its own, so a document that mixes
languages (a translated manual with untranslated sections) is read section by section.

Detection reads the chunk text only, never the model-written context, and costs well under a
millisecond a chunk.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

# Below this many letters a chunk's own guess is not trusted: its document's language is used.
MIN_LETTERS = 200
# The detector's probability (normalised over its 97 languages) a chunk's own guess needs.
MIN_CONFIDENCE = 0.9
# The first characters of a text read when no chunk is confident (the document's language).
WHOLE_TEXT_CHARS = 20_000


@dataclass(frozen=True)
class Languages:
    """A document's main language and each chunk's, as ISO 639-1 codes ("" when none is found)."""

    document: str
    chunks: list[str]


@functools.cache
def _identifier() -> LanguageIdentifier:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _language_code(label: str) -> str:
    """py3langid's label as an ISO 639-1 code; its labels for no language at all (`zxx`: markup,
    numbers, code) and any three-letter one are not a language the library can read by."""
    return label if len(label) == 2 else ""


def text_language(text: str) -> tuple[str, float]:
    """The language `text` is most likely written in (ISO 639-1, "" for none) and the detector's
    probability for it."""
    label, confidence = _identifier().classify(text)
    return _language_code(label), float(confidence)


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def _confident(text: str) -> str:
    """`text`'s language when it is long enough and the detector sure of it; "" otherwise."""
    if _letters(text) < MIN_LETTERS:
        return ""
    language, confidence = text_language(text)
    return language if confidence >= MIN_CONFIDENCE else ""


def chunk_languages(texts: list[str]) -> Languages:
    """The main language of a document whose chunks are `texts`, and each chunk's language."""
    own = [_confident(text) for text in texts]
    letters: Counter[str] = Counter()
    for text, language in zip(texts, own, strict=True):
        if language:
            letters[language] += _letters(text)
    # No chunk long or clear enough: the text read as one.
    document = letters.most_common(1)[0][0] if letters else text_language("\n".join(texts)[:WHOLE_TEXT_CHARS])[0]
    return Languages(document, [language or document for language in own])
