"""One evaluation run: extract once, then per strategy build an index, query it, and remove it.

Strategies run one after another, so at most one eval folder exists at a time and a crash or
Ctrl-C leaves nothing behind (the folder is removed in `finally`).
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from tqdm import tqdm

from bench.peer_lexical import ts_rank_cd_contents
from evaluation.answers import AnswerCheck, check_answer
from evaluation.contexts import ContextBook, is_contextual
from evaluation.dataset import OodQuery, Query, Question, flatten
from evaluation.gate import Evidence
from evaluation.index import (
    Corpus,
    EmbeddingCache,
    IndexStats,
    corpus_paths,
    create_folder,
    extract_corpus,
    populate,
    remove_folder,
)
from evaluation.metrics import TOP_K, Rank, first_answer_rank, normalised_needle
from search.services.retrieval import SearchResult, retrieve, words_shared
from search.services.terms import PHRASE_KINDS

# ts_rank_cd: the lexical ranking most PostgreSQL RAG stacks use, scored as a yardstick for BM25.
LEGS: tuple[str, ...] = ("dense", "bm25", "hybrid", "ts_rank_cd")


@dataclass
class StrategyRun:
    strategy: str
    stats: IndexStats
    ranks: dict[str, list[Rank]]  # leg -> first answering rank per query, in query order
    in_distances: list[float | None]  # best dense distance per in-domain query
    ood_distances: list[float | None]
    destroyed: list[str]  # ids of questions whose needle no chunk holds whole
    in_unknown: list[list[str]] = field(default_factory=list)  # names the gate found unmentioned, per query
    ood_unknown: list[list[str]] = field(default_factory=list)
    in_evidence: list[Evidence] = field(default_factory=list)  # what each query gave the gate
    ood_evidence: list[Evidence] = field(default_factory=list)
    nearmiss_evidence: list[Evidence] = field(default_factory=list)
    in_answers: list[AnswerCheck] = field(default_factory=list)  # the answer written per query
    ood_answers: list[AnswerCheck] = field(default_factory=list)
    nearmiss_answers: list[AnswerCheck] = field(default_factory=list)
    query_seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time: comparable across runs on a busy machine


@dataclass
class Evaluation:
    run_id: str
    corpus_dirs: list[str]
    corpus: Corpus
    questions: list[Question]
    queries: list[Query]
    ood: list[OodQuery] | None
    cache: EmbeddingCache
    nearmiss: list[OodQuery] | None = None  # covered topics, answers not in the corpus
    runs: dict[str, StrategyRun] = field(default_factory=dict)
    lost_in_extraction: list[str] = field(default_factory=list)  # needles absent from every extracted text
    seconds: float = 0.0
    contexts: ContextBook | None = None  # for "S+ctx" strategies (evaluate --contexts / --write-contexts)


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


def run_evaluation(
    *,
    corpus_dirs: Sequence[Path],
    questions: list[Question],
    strategies: Sequence[str],
    ood: list[OodQuery] | None = None,
    nearmiss: list[OodQuery] | None = None,
    progress: bool = True,
    contexts: ContextBook | None = None,
) -> Evaluation:
    started = time.perf_counter()
    queries = flatten(questions)
    files = corpus_paths(list(corpus_dirs))
    per_strategy = len(files) + len(queries) * len(LEGS) + len(ood or []) + len(nearmiss or [])
    with tqdm(total=len(files) + per_strategy * len(strategies), file=sys.stderr, disable=not progress,
              unit="step", dynamic_ncols=True) as bar:  # fmt: skip
        bar.set_description("extracting")
        corpus = extract_corpus(list(corpus_dirs), tick=bar.update)
        evaluation = Evaluation(
            run_id=new_run_id(),
            corpus_dirs=[str(d) for d in corpus_dirs],
            corpus=corpus,
            questions=questions,
            queries=queries,
            ood=ood,
            nearmiss=nearmiss,
            cache=EmbeddingCache(),
            lost_in_extraction=_lost_in_extraction(corpus, questions),
            contexts=contexts,
        )
        for strategy in strategies:
            evaluation.runs[strategy] = run_strategy(evaluation, strategy, bar)
    evaluation.seconds = time.perf_counter() - started
    return evaluation


def _lost_in_extraction(corpus: Corpus, questions: list[Question]) -> list[str]:
    return [q.id for q in questions if not any(normalised_needle(q.needle) in f.normalised_text for f in corpus.files)]


def run_strategy(evaluation: Evaluation, strategy: str, bar: tqdm) -> StrategyRun:
    cpu_started = time.process_time()
    folder = create_folder(evaluation.run_id, strategy)
    try:
        bar.set_description(f"{strategy}: indexing")
        book = evaluation.contexts if is_contextual(strategy) else None
        stats = populate(folder, evaluation.corpus, strategy, evaluation.cache, tick=bar.update, contexts=book)
        bar.set_description(f"{strategy}: querying")
        started = time.perf_counter()
        ranks, in_gate, in_answers = _query_all(folder.pk, evaluation.queries, bar)
        ood = [_gate_inputs(folder.pk, q.text, bar) for q in evaluation.ood or []]
        nearmiss = [_gate_inputs(folder.pk, q.text, bar) for q in evaluation.nearmiss or []]
        ood_gate, nearmiss_gate = [e for e, _ in ood], [e for e, _ in nearmiss]
        destroyed = [
            q.id for q in evaluation.questions if not any(normalised_needle(q.needle) in c for c in stats.contents)
        ]
        run = StrategyRun(
            strategy,
            stats,
            ranks,
            in_distances=[e.best_distance for e in in_gate],
            ood_distances=[e.best_distance for e in ood_gate],
            destroyed=destroyed,
            in_unknown=[_names(e) for e in in_gate],
            ood_unknown=[_names(e) for e in ood_gate],
            in_evidence=in_gate,
            ood_evidence=ood_gate,
            nearmiss_evidence=nearmiss_gate,
            in_answers=in_answers,
            ood_answers=[a for _, a in ood],
            nearmiss_answers=[a for _, a in nearmiss],
        )
        run.query_seconds = time.perf_counter() - started
        run.cpu_seconds = time.process_time() - cpu_started
        return run
    finally:
        remove_folder(folder.pk)


def _names(evidence: Evidence) -> list[str]:
    return [c.term.text for c in evidence.coverage if c.term.kind in {"name", *PHRASE_KINDS} and not c.in_library]


def _query_all(
    folder_id: int, queries: list[Query], bar: tqdm
) -> tuple[dict[str, list[Rank]], list[Evidence], list[AnswerCheck]]:
    ranks: dict[str, list[Rank]] = {leg: [] for leg in LEGS}
    evidence: list[Evidence] = []
    answers: list[AnswerCheck] = []
    for query in queries:
        for leg in LEGS:
            if leg == "ts_rank_cd":
                contents = ts_rank_cd_contents(query.text, [folder_id], TOP_K)
                ranks[leg].append(first_answer_rank(contents, query.question.needle))
                bar.update(1)
                continue
            # The same call /api/search makes, minus the gate: refused queries still show their ranks.
            result = retrieve(query=query.text, folder_ids=[folder_id], k=TOP_K, mode=leg)
            ranks[leg].append(first_answer_rank((h.content for h in result.hits), query.question.needle))
            if leg == "hybrid":
                evidence.append(_evidence(result))
                answers.append(check_answer(result, query.question.needle))
            bar.update(1)
    return ranks, evidence, answers


def _gate_inputs(folder_id: int, text: str, bar: tqdm) -> tuple[Evidence, AnswerCheck]:
    result = retrieve(query=text, folder_ids=[folder_id], k=TOP_K, mode="hybrid")
    bar.update(1)
    return _evidence(result), check_answer(result, None)


def _evidence(result: SearchResult) -> Evidence:
    """What the gate saw: the distance, every word's coverage (so the jargon line can be swept), the reader,
    the kind of fact asked for with whether the top passages state one, and the question's language
    with the languages the library holds."""
    return Evidence(
        best_distance=result.best_distance,
        coverage=tuple(result.coverage),
        rerank_score=result.rerank_score,
        refuse_names=settings.ANSWER_REFUSE_UNKNOWN_NAMES,
        rerank_min_score=settings.RERANK_MIN_SCORE if result.reranker else None,
        answer_type=result.answer_type,
        unmet_answer_type=result.unmet_answer_type,
        answer_type_words=tuple(result.answer_type_words),
        answer_type_sentence=result.answer_type_sentence,
        words_shared=words_shared(result),
        language=result.language,
        languages_held=tuple(result.languages_held),
    )
