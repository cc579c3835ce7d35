"""Write search/spelling/spelling_variants_pt.tsv: Portuguese words that pt-PT and pt-BR (or the spellings
before and after the 1990 orthographic agreement) write apart. Run from the repository root:

    python search/spelling/build_spelling_variants_pt.py

Derived from wordfreq's Portuguese list (the version pinned in requirements/base.txt), words of Zipf
2.5 or more, by two rules, each pair kept only when both spellings are in that list:

- the mute consonants the agreement drops (Base IV): a c or p after a vowel and before ç or t
  ("acção" / "ação", "óptimo" / "ótimo", "contacto" / "contato");
- é and ó before m or n and a vowel, where pt-PT writes the open vowel and pt-BR the closed one
  ("económico" / "econômico", "género" / "gênero"); a stressed final "-ém" is left out, since
  "contém" / "contêm" are two forms of a verb, not two spellings.

Then `NOT_VARIANTS` are dropped (the consonant is pronounced and the shorter word is another word,
"facto" / "fato", "pacto" / "pato"; words of other languages; proper names), and `LEXICAL` pairs
added: words the two norms spell apart beyond those rules ("registo" / "registro").
"""

from __future__ import annotations

import re
from pathlib import Path

from wordfreq import iter_wordlist, zipf_frequency

OUT = Path(__file__).with_name("spelling_variants_pt.tsv")
MIN_ZIPF = 2.5
MUTE = re.compile(r"(?<=[aeiouáéíóúâêôãõ])[cp](?=[çt])")
OPEN_VOWEL = re.compile(r"[éó](?=[mn][aeiou])")
CLOSED = {"é": "ê", "ó": "ô"}

NOT_VARIANTS = frozenset(
    {
        # the consonant is pronounced; the shorter form is another word
        "facto", "factos", "pacto", "pactos", "apto", "apta", "aptas", "aptos", "rapto", "raptos", "rapta",
        "capta", "captar", "captando", "copta", "coptas", "opta", "cacto", "contracto",
        # words of other languages, abbreviations
        "act", "acts", "fact", "active", "oct", "apt", "acc", "apc", "icc", "ipc", "ipcc", "iptu", "iptv",
        "lucca", "riccardo", "ricco", "secco", "becca", "rebecca", "electro",
        # proper names
        "victor", "victoria", "victorino", "víctor", "victória", "octavio", "octávio", "egipto", "neptuno",
        "baptista", "antónia", "antónio", "amazónia", "arménia", "babilónia", "eslovénia", "estónia",
        "eugénio", "génova", "jerónimo", "letónia", "macedónia", "mónaco", "mónica", "polónia", "quénia",
        "roménia", "rómulo", "sónia", "verónica", "vénus", "fénix", "génesis",
    }
)  # fmt: skip

# The catalogue derivation (search/spelling/build_vocabulary_variants_pt.py) finds "registo" / "registro"
# too, in three programs' messages; the other five occur in no message of the catalogues Debian ships.
LEXICAL = (
    ("registo", "registro"),
    ("registos", "registros"),
    ("equipa", "equipe"),
    ("equipas", "equipes"),
    ("connosco", "conosco"),
    ("húmido", "úmido"),
)


def rule_pairs() -> list[tuple[str, str]]:
    words = set()
    for word in iter_wordlist("pt"):  # most frequent first
        if zipf_frequency(word, "pt") < MIN_ZIPF:
            break
        words.add(word)
    pairs = set()
    for word in words - NOT_VARIANTS:
        for found in MUTE.finditer(word):
            other = word[: found.start()] + word[found.end() :]
            if other in words:
                pairs.add((word, other))
        for found in OPEN_VOWEL.finditer(word):
            other = word[: found.start()] + CLOSED[found.group()] + word[found.end() :]
            if other in words:
                pairs.add((word, other))
    return sorted(pairs)


def main() -> None:
    header = [
        "# Portuguese spelling variants: pt-PT and pt-BR, and the spellings before and after the 1990",
        "# orthographic agreement. Derived from wordfreq's Portuguese word list (Zipf >= 2.5) by the",
        "# agreement's mute consonants (c or p after a vowel, before ç or t) and the open/closed",
        "# é/ê, ó/ô before m or n; false pairs removed and lexical pairs added by hand. Built by",
        "# search/spelling/build_spelling_variants_pt.py (its docstring says how); do not edit by hand.",
        "# One pair a line: the spelling with the consonant or the open vowel, a tab, the other.",
    ]
    lines = [f"{a}\t{b}" for a, b in [*rule_pairs(), *LEXICAL]]
    OUT.write_text("\n".join([*header, *lines]) + "\n", encoding="utf-8")
    print(f"{len(lines)} pairs written to {OUT}")


if __name__ == "__main__":
    main()
