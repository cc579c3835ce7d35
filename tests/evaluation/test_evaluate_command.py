"""`manage.py evaluate` end to end on a two-document corpus: JSON shape, numbers, clean-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from documents.models import Chunk, Document, Folder
from evaluation.index import EVAL_FOLDER_PREFIX
from tests.conftest import DEV_FOLDER_NAME

RAFT_LIKE = """# Leader election

A server starts an election when its election timeout elapses without hearing from a leader.
The timeout is chosen at random between 150 and 300 milliseconds so that split votes are rare.

## Votes

Each server votes for at most one candidate in a given term, on a first-come-first-served basis.
"""

BREAD = """# Sourdough

Mix flour and water and leave the dough to rest for an hour before adding the starter.
Bake the loaf in a covered pot at 250 degrees for twenty minutes, then uncover it.
"""

QUESTIONS = [
    {"id": "t1", "needle": "chosen at random between 150 and 300 milliseconds", "kind": "lexical",
     "queries": ["What range is the election timeout drawn from?", "how long before a server calls an election"]},
    {"id": "t2", "needle": "Bake the loaf in a covered pot at 250 degrees", "kind": "semantic",
     "queries": ["At what temperature is the sourdough baked?", "how hot should the oven be for bread"]},
]  # fmt: skip

OOD = [{"id": "o1", "query": "Who won the 2018 FIFA World Cup final?", "kind": "far"}]


def _write_inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "raft-notes.md").write_text(RAFT_LIKE)
    (corpus / "bread.md").write_text(BREAD)
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    ood = tmp_path / "ood.jsonl"
    ood.write_text("".join(json.dumps(q) + "\n" for q in OOD))
    return corpus, questions, ood


@pytest.mark.slow
@pytest.mark.django_db
def test_evaluate_end_to_end(tmp_path: Path, folder_factory, document_factory) -> None:
    users_folder = folder_factory(name="Team handbook")
    users_document = document_factory(folder=users_folder)
    corpus, questions, ood = _write_inputs(tmp_path)
    out = tmp_path / "out"

    call_command(
        "evaluate", "--corpus", str(corpus), "--questions", str(questions), "--ood", str(ood),
        "--strategies", "A,E", "--json", str(out / "r.json"), "--markdown", str(out / "r.md"),
        "--plot", str(out / "r.png"), "--no-progress",
    )  # fmt: skip

    payload = json.loads((out / "r.json").read_text())
    assert payload["corpus"] == [str(corpus)]
    assert (payload["questions"], payload["queries"]) == (2, 4)
    assert set(payload["strategies"]) == {"A", "E"}
    for strategy in payload["strategies"].values():
        assert strategy["chunks"] >= 2
        assert (strategy["destroyed"], strategy["over_window"]) == (0, 0)
        assert set(strategy["legs"]) == {"dense", "bm25", "hybrid", "ts_rank_cd"}
        for leg in strategy["legs"].values():
            assert set(leg) >= {"R@1", "R@4", "R@8", "R@20", "MRR", "wilson"}
            assert leg["R@1"] <= leg["R@4"] <= leg["R@8"] <= leg["R@20"] <= 1.0
            assert 0.0 <= leg["MRR"] <= leg["R@20"]
            lo, hi = leg["wilson"]["R@20"]
            assert 0.0 <= lo <= leg["R@20"] <= hi <= 1.0
        # Two tiny, unrelated documents: the dense and fused rankings find both needles.
        assert strategy["legs"]["dense"]["R@20"] == 1.0
        assert strategy["legs"]["hybrid"]["R@20"] == 1.0
        assert strategy["by_kind"]["lexical"]["hybrid"]["n"] == 2
        sweep = strategy["gate"]["sweep"]
        assert [row["threshold"] for row in sweep][:2] == [0.3, 0.325]
        assert len(sweep) == 21
        assert all(r["in_answered"] + r["in_refused"] == 4 and r["ood_total"] == 1 for r in sweep)
        assert strategy["gate"]["recommended"] in [row["threshold"] for row in sweep]
        # Each shown query's answer is written and checked: the needles are in the passages shown.
        answers = strategy["answers"]
        shown = [a for a in answers["per_query"]["in"].values() if a["state"] != "refused"]
        assert shown
        assert all(a["shown"] and a["text"] for a in shown)
        counts = answers["per_state"]["in"]
        assert sum(c["n"] for c in counts.values()) == 4
        assert sum(c["fact_shown"] for c in counts.values()) == len(shown)
        assert sum(c["non_prose"] for c in counts.values()) == 0
        assert set(answers["per_state"]) == {"in", "ood"}
    tests = {(t["a"], t["b"], t["metric"]) for t in payload["sign_tests"]}
    assert {("E/hybrid", "A/hybrid", "R@20"), ("E/hybrid", "E/dense", "R@4"), ("A/hybrid", "A/bm25", "R@20")} <= tests
    assert all(set(t) >= {"wins", "losses", "p"} for t in payload["sign_tests"])
    assert "## Gate sweep" in (out / "r.md").read_text()
    assert "## What the answers say" in (out / "r.md").read_text()
    assert (out / "r.png").read_bytes()[:4] == b"\x89PNG"

    # Eval folders are gone; the user's folder and document are untouched.
    assert not Folder.objects.filter(name__startswith=EVAL_FOLDER_PREFIX).exists()
    # (The session's shared dev-corpus index may exist too; it is not this test's.)
    others = Document.objects.exclude(folder__name=DEV_FOLDER_NAME)
    assert list(others.values_list("pk", flat=True)) == [users_document.pk]
    assert not Chunk.objects.exclude(document=users_document).exclude(document__folder__name=DEV_FOLDER_NAME).exists()


@pytest.mark.django_db
def test_interrupted_strategy_removes_its_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while indexing: the KeyboardInterrupt propagates and the eval folder is gone."""
    from evaluation import runner
    from evaluation.index import Corpus, EmbeddingCache

    created: list[int] = []

    def interrupted_populate(folder: Folder, *args: object, **kwargs: object) -> None:
        created.append(folder.pk)
        Document.objects.create(folder=folder, title="t", file="x", original_name="x.md", content_type="text/markdown",
                                size=1, sha256="0" * 64)  # fmt: skip
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "populate", interrupted_populate)
    evaluation = runner.Evaluation(run_id="test", corpus_dirs=[], corpus=Corpus(files=[]), questions=[], queries=[],
                                   ood=None, cache=EmbeddingCache())  # fmt: skip
    with pytest.raises(KeyboardInterrupt), runner.tqdm(disable=True) as bar:
        runner.run_strategy(evaluation, "E", bar)
    assert created
    assert not Folder.objects.filter(pk__in=created).exists()
    assert not Document.objects.filter(folder_id__in=created).exists()
