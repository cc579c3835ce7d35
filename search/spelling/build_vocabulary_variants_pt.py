"""Write search/spelling/vocabulary_variants_pt.tsv: words European and Brazilian Portuguese use for one
thing ("ficheiro" / "arquivo", "ecrã" / "tela", "palavra-passe" / "senha"). Run from the repository root:

    python search/spelling/build_vocabulary_variants_pt.py

Derived from the message catalogues Debian ships in both variants: every program with a catalogue in
/usr/share/locale/pt/LC_MESSAGES (pt-PT) and in /usr/share/locale/pt_BR/LC_MESSAGES, read with Python's
`gettext` (the ISO code lists, iso_*, are left out: they name countries and languages, not things). For
each message translated in both, the two translations are compared word by word; where they differ in
one word (a hyphenated compound counts as one: "palavra-passe"), that pair of words is counted. A pair
is kept when

- it is seen in `MIN_MESSAGES` messages of `MIN_CATALOGUES` programs or more (one translator's choice is
  not a variety's word);
- each word marks its variety: over all those translations it occurs `MARKER_RATIO` times as often in
  its own variety as in the other (Laplace-smoothed), which drops synonyms both varieties use
  ("mostrar" / "exibir", "requer" / "exige") and differences of inflection ("inválido" / "inválida");
- both are Portuguese words (wordfreq's Portuguese list, Zipf `MIN_ZIPF` or more) but not everyday
  ones (Zipf `MAX_ZIPF` or more: "só" / "apenas" would widen every question that says it), and
  neither is an English word of Zipf `MAX_ENGLISH_ZIPF` or more ("status", "widget", "link"), so an
  English question never gains a word;
- it is not already a pair of spellings (search/spelling/spelling_variants_pt.tsv: "selecção" /
  "seleção"), nor two spellings of one word once accents, hyphens and the case are set aside
  ("sub-processo" / "subprocesso", "arménio" / "armênio"), nor one word in its two numbers
  ("informação" / "informações").

The header of the written file names each catalogue's Debian package and version.
"""

from __future__ import annotations

import gettext
import re
import subprocess
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from wordfreq import zipf_frequency

OUT = Path(__file__).with_name("vocabulary_variants_pt.tsv")
SPELLINGS = Path(__file__).with_name("spelling_variants_pt.tsv")
EUROPEAN = Path("/usr/share/locale/pt/LC_MESSAGES")
BRAZILIAN = Path("/usr/share/locale/pt_BR/LC_MESSAGES")
LEFT_OUT = re.compile(r"^iso_")

MIN_MESSAGES = 3
MIN_CATALOGUES = 2
MARKER_RATIO = 2.0
MIN_ZIPF = 2.0
MAX_ZIPF = 5.5  # everyday words ("só", "apenas", "muitos") say nothing of a question's subject
MAX_ENGLISH_ZIPF = 3.0

WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


@dataclass(frozen=True)
class Catalogue:
    name: str
    european: Mapping[str, str]
    brazilian: Mapping[str, str]


@dataclass
class Evidence:
    messages: int = 0
    catalogues: frozenset[str] = frozenset()


def words(text: str) -> list[str]:
    return WORD.findall(text.casefold())


def substitution(european: str, brazilian: str) -> tuple[str, str] | None:
    """The one word that differs between two translations of a message, as (pt-PT, pt-BR); None when
    they differ in more or fewer words than one."""
    first, second = words(european), words(brazilian)
    start = 0
    while start < min(len(first), len(second)) and first[start] == second[start]:
        start += 1
    end = 0
    while end < min(len(first), len(second)) - start and first[-1 - end] == second[-1 - end]:
        end += 1
    left, right = first[start : len(first) - end], second[start : len(second) - end]
    if len(left) == 1 and len(right) == 1:
        return left[0], right[0]
    return None


def _translations(catalogue: Catalogue) -> Iterable[tuple[str, str]]:
    for msgid, european in catalogue.european.items():
        brazilian = catalogue.brazilian.get(msgid)
        if msgid and european and brazilian:  # the empty msgid holds the catalogue's header
            yield european, brazilian


def _plain(word: str) -> str:
    decomposed = unicodedata.normalize("NFD", word.replace("-", ""))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _singular(word: str) -> str:
    if word.endswith("ões"):
        return word.removesuffix("ões") + "ão"
    return word.removesuffix("s")


def derive_pairs(catalogues: Iterable[Catalogue], spellings: set[frozenset[str]]) -> list[tuple[str, str]]:
    """The (pt-PT, pt-BR) word pairs the rules of this module's docstring keep, sorted."""
    evidence: dict[tuple[str, str], Evidence] = defaultdict(Evidence)
    uses: dict[str, Counter[str]] = {"pt": Counter(), "br": Counter()}
    for catalogue in catalogues:
        for european, brazilian in _translations(catalogue):
            uses["pt"].update(words(european))
            uses["br"].update(words(brazilian))
            pair = substitution(european, brazilian)
            if pair is not None:
                seen = evidence[pair]
                seen.messages += 1
                seen.catalogues = seen.catalogues | {catalogue.name}

    def marks(word: str, own: str, other: str) -> bool:
        return uses[own][word] + 1 >= MARKER_RATIO * (uses[other][word] + 1)

    kept = []
    for (european, brazilian), seen in evidence.items():
        if seen.messages < MIN_MESSAGES or len(seen.catalogues) < MIN_CATALOGUES:
            continue
        if not (marks(european, "pt", "br") and marks(brazilian, "br", "pt")):
            continue
        if any(
            not MIN_ZIPF <= zipf_frequency(w, "pt") < MAX_ZIPF or zipf_frequency(w, "en") >= MAX_ENGLISH_ZIPF
            for w in (european, brazilian)
        ):
            continue
        if _plain(european) == _plain(brazilian) or frozenset((european, brazilian)) in spellings:
            continue
        if _singular(european) == _singular(brazilian):  # "informação" / "informações": the other number
            continue
        kept.append((european, brazilian))
    return sorted(kept)


def spelling_pairs(path: Path = SPELLINGS) -> set[frozenset[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {frozenset(line.split("\t")) for line in lines if line and not line.startswith("#")}


def read_catalogue(path: Path) -> dict[str, str]:
    with path.open("rb") as handle:
        catalogue: dict[str | tuple[str, int], str] = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    # Plural forms are keyed (msgid, n); the singular is enough to compare the two variants.
    return {
        key if isinstance(key, str) else key[0]: text
        for key, text in catalogue.items()
        if isinstance(key, str) or key[1] == 0
    }


def installed_catalogues() -> list[Catalogue]:
    names = sorted({p.name for p in EUROPEAN.glob("*.mo")} & {p.name for p in BRAZILIAN.glob("*.mo")})
    return [
        Catalogue(name.removesuffix(".mo"), read_catalogue(EUROPEAN / name), read_catalogue(BRAZILIAN / name))
        for name in names
        if not LEFT_OUT.match(name)
    ]


def debian_package(path: Path) -> str:
    """'package version' of the Debian package that installed `path`."""
    owner = subprocess.run(["dpkg", "-S", str(path)], capture_output=True, text=True, check=True).stdout
    package = owner.split(":", 1)[0].strip()
    version = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True, check=True
    ).stdout
    return f"{package} {version}"


def main() -> None:
    catalogues = installed_catalogues()
    pairs = derive_pairs(catalogues, spelling_pairs())
    packages = sorted({debian_package(root / f"{c.name}.mo") for c in catalogues for root in (EUROPEAN, BRAZILIAN)})
    header = [
        "# Portuguese vocabulary variants: the word pt-PT uses, a tab, the word pt-BR uses for the same thing.",
        "# Derived from the gettext message catalogues Debian ships in both variants (/usr/share/locale/pt and",
        "# /usr/share/locale/pt_BR): one-word differences between the two translations of a message, kept",
        f"# when seen in {MIN_MESSAGES}+ messages of {MIN_CATALOGUES}+ programs, each word marking its variety",
        f"# ({MARKER_RATIO:g}x as frequent there), both Portuguese words (wordfreq Zipf {MIN_ZIPF:g} to",
        f"# {MAX_ZIPF:g}), neither an English word (Zipf >= {MAX_ENGLISH_ZIPF:g}). Built by",
        "# search/spelling/build_vocabulary_variants_pt.py (its docstring says how); do not edit by hand.",
        "# The catalogues, from these Debian packages:",
        *(f"#   {package}" for package in packages),
    ]
    lines = [f"{a}\t{b}" for a, b in pairs]
    OUT.write_text("\n".join([*header, *lines]) + "\n", encoding="utf-8")
    print(f"{len(lines)} pairs from {len(catalogues)} catalogues written to {OUT}")


if __name__ == "__main__":
    main()
