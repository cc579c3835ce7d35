"""Hybrid retrieval: dense (pgvector HNSW) + lexical (BM25 in SQL), fused by their scaled scores,
optionally reordered by a reader (search/services/rerank.py), and judged by the gate.

`retrieve` is the one code path; `search_chunks` resolves the caller's readable folders and
document filters first (search/services/scope.py) and calls it. Folder ids enter both legs'
WHERE clauses, so ranking and BM25 statistics only ever see readable text; the filters' allowed
documents enter them too, under the folder ids; nothing is filtered after ranking.

SQL per search, independent of the results: folder ids (1, or 2 with a folder narrowed), the
text-search configurations of the languages they hold (1: documents/lexical/reads.py), the
dense leg (set_config + SELECT in one transaction), the BM25 leg (under a filter allowing a large
share of the library, also the readable chunk count and one query per round of its walk
through the score order, search/services/bm25_packed.py) and its candidates' vector
distances (which mend the dense ranking; a second HNSW probe only when HNSW provably missed a
nearer chunk), the coverage check of the question's names, jargon and years (only when it has
any), for hybrid the languages the library holds (the dense leg's share in fusion follows what the encoder
reads, search/services/fusion.py), and one hydration query. Outside a transaction the BM25 leg
runs on a second connection while the dense leg runs on the caller's (search/services/side_leg.py),
and the coverage check runs there while the caller hydrates;
`timings_ms` then holds each step's own time, plus "bm25_wait" and "terms_wait", how long the
caller still waited for them.

The gate (search/services/gate.py) decides answered / caveat / refused from the nearest distance,
the words no readable document mentions, and the reader's best score. Every mode runs the dense
leg for this decision — mode="bm25" asks it for a single row — so a question is refused or not
regardless of the ranking mode. The decision is `state`: it says whether the hits answer the
question, never which hits are listed. A search returns the ranked hits it found under the ACL in
every state; the answer writer (citations/services/answer.py) writes nothing from a refused one.

The question is read in the language it reads as among those the product reads
(`question_reading`, search/services/question_reading.py; one query for the library's languages):
its word checks and its answer-type rules are that language's. A question in a language the
library holds no document in says so (`language`: the gate's one sentence naming the languages
held). When a word of a question in a held language occurs in no readable document,
query_help.py looks for the library word it was likely meant to be (`suggestion`).
"""

from __future__ import annotations

import functools
import math
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from django.conf import settings
from django.utils.translation import gettext, gettext_noop

from documents.filters import Filters
from documents.languages import base_language
from documents.lexical.reads import readable_chunk_count, words_held
from search.services.answer_type import check_answer_type
from search.services.bm25_packed import KeywordLeg, bm25_packed
from search.services.dense import MAX_EF_SEARCH, DenseLeg, candidate_distances, dense_candidates, dense_mended
from search.services.facets import Facets, facet_counts
from search.services.fusion import keyword_match, reads, relative_score_fusion, search_dense_share
from search.services.gate import AnswerState, GateDecision, GateInputs, decide
from search.services.hydration import Ranked, SearchHit, hydrate
from search.services.query_embedding import clean_query, embed_query, vector_literal
from search.services.query_help import respelt_query
from search.services.question_reading import QuestionReading, question_reading
from search.services.rerank import Reranker, RerankError, get_reranker, reader_text
from search.services.scope import Scope, search_scope
from search.services.side_leg import leg_beside, timed
from search.services.terms import (
    PHRASE_KINDS,
    Term,
    TermCoverage,
    lexical_query,
    names_something,
    own_language_word,
    question_terms,
    term_coverage,
    word_list_languages,
)

if TYPE_CHECKING:
    from documents.selectors import AnyUser

Mode = Literal["dense", "bm25", "hybrid"]
MODES: tuple[str, ...] = ("dense", "bm25", "hybrid")


@dataclass
class SearchResult:
    query: str
    threshold: float
    best_distance: float | None
    hits: list[SearchHit] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)  # names in the query no readable text mentions
    timings_ms: dict[str, float] = field(default_factory=dict)
    state: str = AnswerState.REFUSED.value  # answered | caveat | refused (search/services/gate.py)
    reasons: list[str] = field(default_factory=list)
    message: str = ""  # why refused, or the caveat, as a person reads it
    missing_terms: list[str] = field(default_factory=list)  # jargon and years no readable document holds
    unseen_terms: list[str] = field(default_factory=list)  # years, identifiers... held, but by no top passage
    answer_type: str | None = None  # the kind of fact the question asks for (search/services/answer_type.py)
    unmet_answer_type: str | None = None  # that kind, when none of the top passages states it
    answer_type_words: list[str] = field(default_factory=list)  # the words such a fact had to stand beside
    answer_type_sentence: str | None = None  # the shown sentence that states that kind of fact
    reranker: str | None = None  # the reader that reordered the hits, if one ran
    rerank_score: float | None = None  # the reader's best score among the candidates
    notice: str = ""  # e.g. why the reader was skipped
    coverage: list[TermCoverage] = field(default_factory=list)  # the question's words: in the library? on top?
    filtered: bool = False  # document filters narrowed the search
    filter_matches: int | None = None  # with filters: how many readable indexed documents pass them
    candidates: list[int] = field(default_factory=list)  # the fused ranking's chunk ids, best first
    facets: Facets | None = None  # counts beside the filters, when asked for (search/services/facets.py)
    dense_leg: DenseLeg | None = None  # the hybrid search's mended dense ranking, for the grouped list
    suggestion: str | None = None  # the question respelt with library words ("Did you mean …?")
    language: str | None = None  # the question's language when the library holds none in it (query_help)
    question_language: str = "en"  # the language the question is read in (question_reading)
    languages_held: list[str] = field(default_factory=lambda: ["en"])  # the readable library's, main first

    @property
    def refused(self) -> bool:
        return self.state == AnswerState.REFUSED

    def judge(self, decision: GateDecision) -> None:
        self.state = decision.state.value
        self.reasons = [r.value for r in decision.reasons]
        self.message = decision.message


class _Clock:
    """Milliseconds per stage, in the order the stages ran."""

    def __init__(self) -> None:
        self.start = self.mark = time.perf_counter()
        self.timings: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round((now - self.mark) * 1000, 3)
        self.mark = now

    def done(self) -> dict[str, float]:
        self.timings["total"] = round((time.perf_counter() - self.start) * 1000, 3)
        return self.timings


FILTER_MATCHES_NOTHING = gettext_noop(  # said in the active language
    "No document you may read matches these filters: change or clear them to search."
)


def search_chunks(
    *,
    user: AnyUser,
    query: str,
    k: int = 10,
    mode: str = "hybrid",
    filters: Filters | None = None,
    facets: bool = False,
) -> SearchResult:
    """Search what `user` may read, narrowed by `filters`; with `facets`, the counts beside the
    filters too (one more query)."""
    validate(k=k, mode=mode)
    started = time.perf_counter()
    scope = search_scope(user, filters)
    result = retrieve(query=query, folder_ids=scope.folder_ids, k=k, mode=mode, scope=scope)
    result.timings_ms["folders"] = round((time.perf_counter() - started) * 1000 - result.timings_ms["total"], 3)
    if facets:
        counted = time.perf_counter()
        result.facets = facet_counts(user=user, chunk_ids=result.candidates, folder_ids=scope.folder_ids)
        result.timings_ms["facets"] = round((time.perf_counter() - counted) * 1000, 3)
    result.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 3)
    return result


def validate(*, k: int, mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    # One HNSW scan returns at most ef_search rows, and pgvector caps ef_search: so is k.
    # (The API's own, smaller limit is search.schemas.MAX_K.)
    if not 1 <= k <= MAX_EF_SEARCH:
        raise ValueError(f"k must be between 1 and {MAX_EF_SEARCH}, not {k}")


def retrieve(
    *,
    query: str,
    folder_ids: list[int],
    k: int = 10,
    mode: str = "hybrid",
    scope: Scope | None = None,
) -> SearchResult:
    """Rank chunks of `folder_ids` for `query`; the caller vouches that those folders are readable.

    `scope`: its allowed documents narrow both legs (its folder ids must be `folder_ids`).
    """
    validate(k=k, mode=mode)
    clock = _Clock()
    text = clean_query(query)
    threshold = settings.ANSWER_MAX_DISTANCE
    result = SearchResult(query=text, threshold=threshold, best_distance=None)
    scope = scope or Scope(folder_ids)
    result.filtered = scope.filtered
    result.filter_matches = None if scope.documents is None else len(scope.documents)
    if not folder_ids or not text or scope.documents == []:
        # Nothing to search: answer before touching the chunk tables (or the model).
        result.judge(decide(GateInputs(None, threshold)))
        if scope.documents == []:  # said plainly; never a search of everything instead
            result.message = gettext(FILTER_MATCHES_NOTHING)
        result.timings_ms = clock.done()
        return result
    per_leg = max(settings.SEARCH_CANDIDATES_PER_LEG, k)
    # The question's languages and how its words become lexemes: once per search, for every
    # keyword read below, the dense leg's share in fusion and the word checks.
    reading = question_reading(text, folder_ids)
    result.languages_held, result.question_language = reading.languages_held, reading.language
    result.language = reading.foreign
    # Started first: the lexical leg needs no query vector, so it also overlaps the embedding.
    handoff: Future[str] = Future()
    keywords = lexical_query(text, reading.variants)
    lexical = leg_beside(_lexical_leg, keywords, scope, per_leg, handoff, reading.configs) if mode != "dense" else None
    literal = _query_vector(text, handoff)
    clock.lap("embed")
    # mode="bm25" still asks the dense leg for its nearest chunk: the gate needs it.
    dense_limit = per_leg if mode != "bm25" else 1
    dense = dense_candidates(literal, folder_ids, dense_limit, scope.documents, scope.chunk_count)
    clock.lap("dense")
    bm25: list[tuple[int, float]] = []
    match = 0.0
    if lexical is not None:
        step, _own_ms = lexical.result()
        clock.lap("bm25_wait" if lexical.beside else "bm25")
        bm25, match = step.leg.hits, keyword_match(step.leg.hits, step.leg.ceiling)
        clock.timings |= {"bm25": step.bm25_ms, "distances": step.distances_ms}  # own times, wherever run
        if step.distances:
            dense = dense_mended(dense, step.distances, literal, folder_ids, dense_limit, scope.documents)
            clock.lap("mend")
    result.best_distance = dense[0][1] if dense else None
    if mode == "hybrid":  # mended as search/services/grouping.py mends its own: the page's list reuses it
        result.dense_leg = DenseLeg.of(literal, folder_ids, scope.documents, dense_limit, dense)
    share = _dense_share(result, match) if mode == "hybrid" else None
    ranked = _rank(dense if mode != "bm25" else [], bm25, mode, share)
    result.candidates = [r.chunk_id for r in ranked]
    clock.lap("fuse")
    _judge_and_hydrate(result, ranked, literal, folder_ids, clock, k=k, reading=reading)
    result.timings_ms = clock.done()
    return result


def _query_vector(text: str, handoff: Future[str]) -> str:
    """The query vector (as a pgvector literal), handed to the lexical leg too."""
    try:
        literal = vector_literal(embed_query(text)[0])
        handoff.set_result(literal)
        return literal
    finally:
        if not handoff.done():
            handoff.cancel()  # no vector: the lexical leg stops waiting for one


@dataclass
class _LexicalStep:
    leg: KeywordLeg  # (chunk id, BM25 score) best first, and the most a passage could score
    distances: list[tuple[int, float]]  # their exact vector distances, to mend the dense leg with
    bm25_ms: float
    distances_ms: float


# A lexical leg waits at most this long for the query vector (the caller embeds it meanwhile).
_VECTOR_WAIT_SECONDS = 120


def _lexical_leg(keywords: str, scope: Scope, limit: int, vector: Future[str], configs: list[str]) -> _LexicalStep:
    """BM25 candidates of the keyword query text (terms.lexical_query), then their exact distances
    once the query vector exists.

    Beside, the distances are measured while the caller's dense leg still runs (at 100k chunks
    the BM25 leg is the faster one), so mending the dense ranking costs no query on the way.
    """
    leg = functools.partial(bm25_packed, configs=configs)
    found, bm25_ms = timed(leg, (keywords, scope.folder_ids, limit, scope.documents, scope.chunk_count))
    if not found.hits or not settings.SEARCH_MEND_DENSE:
        return _LexicalStep(found, [], bm25_ms, 0.0)
    literal = vector.result(timeout=_VECTOR_WAIT_SECONDS)
    ids = [pk for pk, _ in found.hits]
    distances, distances_ms = timed(candidate_distances, (literal, scope.folder_ids, ids, scope.documents))
    return _LexicalStep(found, distances, bm25_ms, distances_ms)


def _judge_and_hydrate(
    result: SearchResult,
    ranked: list[Ranked],
    vector: str,
    folder_ids: list[int],
    clock: _Clock,
    *,
    k: int,
    reading: QuestionReading,
) -> None:
    """Check the question's words (one query), judge, and hydrate the hits the gate lets through.

    With the coverage check beside (side_leg), the caller hydrates meanwhile whatever the nearest
    distance alone lets through; if the check then refuses, those hits are dropped. In a
    transaction, the old order: the check, then hydration only if not refused.
    """
    top_ids = [r.chunk_id for r in ranked[: settings.ANSWER_TOP_SOURCES]]
    coverage = leg_beside(term_coverage, _read_question(result), folder_ids, top_ids, reading.configs, reading.variants)
    hits = None
    if coverage.beside:
        hits = hydrate(ranked[: _hydrate_count(k, _configured_reader(), len(ranked))], vector, folder_ids)
        clock.lap("hydrate")
    result.coverage, own_ms = coverage.result()
    clock.lap("terms_wait" if coverage.beside else "terms")
    clock.timings["terms"] = own_ms
    result.unknown_names, result.missing_terms = unmentioned_words(result.coverage)
    result.unseen_terms = unseen_terms(result.coverage)
    _help_with_question(result, folder_ids, reading.configs)
    clock.lap("help")
    result.judge(decide(_gate_inputs(result)))
    reranker = _reranker(result)
    if hits is None:
        hits = hydrate(ranked[: _hydrate_count(k, reranker, len(ranked))], vector, folder_ids)
        clock.lap("hydrate")
    result.hits = hits
    if reranker is not None:
        _rerank(result, reranker)
        clock.lap("rerank")
    rechecked = _recheck_unseen(result, folder_ids, top_ids, reading)
    if _check_answer_type(result, reading, folder_ids) or rechecked or reranker is not None:
        result.judge(decide(_gate_inputs(result)))
    result.hits = result.hits[:k]


def _read_question(result: SearchResult) -> list[Term]:
    """The question's terms, read in the library's language it reads as (`question_reading`).
    Each term's everyday words are looked up in that language,
    then in the library's others: a common word of any of them is never an unknown name. A library
    whose languages are not detected yet reads as English."""
    return question_terms(result.query, word_list_languages([result.question_language, *result.languages_held]))


def _help_with_question(result: SearchResult, folder_ids: list[int], configs: list[str]) -> None:
    """A respelling, looked for only when a word of a question in a language the library holds
    occurs in no readable document (one query; none otherwise). A question in another language
    is told the languages held instead (`language`, set from its reading)."""
    unheld = [c.term.text for c in result.coverage if not c.in_library and c.term.kind in HELP_KINDS]
    if unheld and result.language is None:
        result.suggestion = respelt_query(result.query, unheld, folder_ids, configs)


# The words a misspelling or another language shows up as: single words, as typed.
HELP_KINDS = frozenset({"word", "name"})


def _recheck_unseen(
    result: SearchResult, folder_ids: list[int], judged_ids: list[int], reading: QuestionReading
) -> bool:
    """After duplicates collapsed and the reader reordered, the passages shown first may not be the
    fused ones the years, versions, identifiers and phrases were judged on: judge them again on those shown (one query,
    only when they differ and one is at stake). True when `unseen_terms` was recomputed."""
    shown_ids = [h.chunk_id for h in result.hits[: settings.ANSWER_TOP_SOURCES]]
    at_stake = [c.term for c in result.coverage if c.term.kind in UNSEEN_KINDS and c.in_library]
    if not at_stake or shown_ids == judged_ids:
        return False
    shown = {c.term.text: c for c in term_coverage(at_stake, folder_ids, shown_ids, reading.configs, reading.variants)}
    result.coverage = [shown.get(c.term.text, c) for c in result.coverage]
    result.unseen_terms = unseen_terms(result.coverage)
    return True


def _check_answer_type(result: SearchResult, reading: QuestionReading, folder_ids: list[int]) -> bool:
    """Whether the passages shown first state the kind of fact the question asks for (their text is
    in hand; two queries only for a question naming its subject: `library_wide_names`). True when
    they do not, and the gate must judge again."""
    shown = result.hits[: settings.ANSWER_TOP_SOURCES]
    check = check_answer_type(
        result.query,
        [h.content for h in shown],
        result.question_language,
        reading.variants,
        [h.section for h in shown],
        functools.partial(library_wide_names, folder_ids=folder_ids, configs=reading.configs),
    )
    result.answer_type = check.expected.value if check.expected else None
    result.unmet_answer_type = check.unmet.value if check.unmet else None
    result.answer_type_words = list(check.key_words)
    result.answer_type_sentence = check.stated_by
    return result.unmet_answer_type is not None


# A name the library writes in at least this many passages, and this share of all it holds, is what
# the whole library is about ("LilyPond" in LilyPond's manual, "GIMP" in GIMP's help): a sentence
# need not repeat it to be about the question's subject. Fewer passages than that are too few to
# tell a library's subject from a name it often mentions.
LIBRARY_WIDE_MIN_PASSAGES = 10
LIBRARY_WIDE_MIN_SHARE = 0.2


def library_wide_names(names: list[str], *, folder_ids: list[int], configs: list[str]) -> frozenset[str]:
    """Which of `names` the readable library writes throughout (`LIBRARY_WIDE_MIN_SHARE`)."""
    held = words_held(names, folder_ids, configs=configs)
    floor = max(LIBRARY_WIDE_MIN_PASSAGES, LIBRARY_WIDE_MIN_SHARE * readable_chunk_count(folder_ids))
    return frozenset(name for name, passages in held.items() if passages >= floor)


# The kinds judged against the top passages too: the library holds them, the passages shown must.
UNSEEN_KINDS = frozenset({"year", "version", "identifier", "phrase"})


def unseen_terms(coverage: list[TermCoverage]) -> list[str]:
    """The question's years, versions, identifiers and name phrases that the library holds but none
    of the top passages does ("what came in prometheus 3.1" answered from passages on 3.0; a
    `tls_config` question answered from passages that never mention it). A name phrase is judged
    on the passages' documents (terms.term_coverage).

    Single-word names are not judged so: a name often points at the document rather than the fact
    asked for ("the Fischer-Lynch-Paterson result"), and the passage holding the answer need not
    repeat it. Measured: on the holdout set, two in-domain questions of that kind lost their plain
    answer to such a rule."""
    return [c.term.text for c in coverage if c.term.kind in UNSEEN_KINDS and c.in_library and not c.in_passages]


def unmentioned_words(
    coverage: list[TermCoverage], *, jargon_line: float | None = None, refuse_names: bool | None = None
) -> tuple[list[str], list[str]]:
    """(names that refuse, jargon/years/other names that caveat) among the words no readable document holds.

    A name is what `names_something` says: capitalised or not ("Grafana", "grafana"), an identifier
    ("tls_config"), a name phrase ("Bitcoin Core"). A phrase one of whose words is already unknown
    is not said twice. `jargon_line`: one line for every language (the evaluation's sweep); None,
    the line of the question's language (`_jargon_line`)."""
    refuse = settings.ANSWER_REFUSE_UNKNOWN_NAMES if refuse_names is None else refuse_names
    absent = [c.term for c in coverage if not c.in_library]
    absent_words = {t.text for t in absent if t.kind != "phrase"}
    absent = [t for t in absent if t.kind != "phrase" or not absent_words.intersection(t.words)]
    names = [t.text for t in absent if names_something(t) and refuse]
    missing = [
        t.text
        for t in absent
        if t.text not in names
        and (
            t.kind in {"name", "year", "version", *PHRASE_KINDS}
            or (t.is_jargon(_jargon_line(t) if jargon_line is None else jargon_line) and not _paraphrase(t))
        )
    ]
    return names, missing


def _paraphrase(term: Term) -> bool:
    """Whether `term` is an everyday word of the question's language (`own_language_word`) that the
    encoder reads: the dense leg finds the passage a paraphrase speaks of. Where the encoder does
    not read the language, the question's words are all the evidence there is."""
    language = base_language(term.languages[0]) if term.languages else ""
    return reads(language, settings.EMBEDDING_LANGUAGES) and own_language_word(term)


def _jargon_line(term: Term) -> float:
    """The jargon line in the question's language (`ANSWER_JARGON_LANGUAGE_LINES`), else the default one."""
    language = base_language(term.languages[0]) if term.languages else ""
    return settings.ANSWER_JARGON_LANGUAGE_LINES.get(language, settings.ANSWER_JARGON_MAX_ZIPF)


def _gate_inputs(result: SearchResult) -> GateInputs:
    return GateInputs(
        best_distance=result.best_distance,
        threshold=result.threshold,
        unknown_names=tuple(result.unknown_names),
        missing_terms=tuple(result.missing_terms),
        unseen_terms=tuple(result.unseen_terms),
        rerank_score=result.rerank_score,
        rerank_min_score=settings.RERANK_MIN_SCORE if result.reranker else None,
        language=result.language,
        languages_held=tuple(result.languages_held),
        unmet_answer_type=result.unmet_answer_type,
        answer_type_words=tuple(result.answer_type_words),
        words_shared=words_shared(result),
    )


# A word at least this common in the question's language, in its base form too (wordfreq zipf,
# `word_zipf`), is everyday and says nothing of a subject: "quantas", "quanto", "tempo", "deve"
# are; "tomar" (5.2), "posso" and "usar" (5.4) are not. How the line was chosen is in
# docs/history/evaluation-changes.md (change 32).
EVERYDAY_WORD_ZIPF = 5.5


def words_shared(result: SearchResult) -> int | None:
    """How many of the question's words (names, years, words not everyday; not phrases) the top
    passages hold, when the encoder does not read the question's language; None when it does (the
    distance says). An everyday word ("quantas", "tempo") is in any text, so sharing it says nothing;
    nor does one common word beside a subject the library never names (`subject_unheld`)."""
    if reads(result.question_language, settings.EMBEDDING_LANGUAGES):
        return None
    subject = [c for c in result.coverage if _tells_the_subject(c.term)]
    if subject_unheld(subject):
        return 0
    return sum(1 for c in subject if c.in_passages)


# A word the library holds keeps the question on the library's subject only when it is about as
# specific as the word it lacks: at most this many Zipf steps commoner (half a step, about three
# times as frequent). "humano" (5.0) beside a missing "ossos" (4.2) is not; "guardada" (4.4) beside a
# missing "dólar" (4.2) is. How the line was chosen: docs/history/evaluation-changes.md, change 34.
HELD_WORD_MAX_COMMONER = 0.5


def subject_unheld(subject: list[TermCoverage]) -> bool:
    """Whether the library never names the question's most specific word (its rarest, names
    included) and holds at most one of its words, a much commoner one: "Quantos ossos tem o corpo
    humano?" shares only "humano" with a manual that never says "ossos". "Em que ano foi lançado o
    PipeWire?" is held by its rarest word, however few it shares."""
    if not subject:
        return False
    rarest = min(subject, key=lambda c: c.term.zipf)
    held = [c for c in subject if c.in_library]
    if rarest.in_library or len(held) > 1:
        return False
    return not held or held[0].term.zipf - rarest.term.zipf >= HELD_WORD_MAX_COMMONER


def _tells_the_subject(term: Term) -> bool:
    if term.kind == "phrase":
        return False
    return term.kind != "word" or term.zipf < EVERYDAY_WORD_ZIPF


def _hydrate_count(k: int, reranker: Reranker | None, available: int) -> int:
    # Room for the reader's candidates, and for copies of one file that collapse into one hit.
    wanted = max(k, settings.RERANK_CANDIDATES if reranker else 0)
    return min(available, 2 * wanted)


def _configured_reader() -> Reranker | None:
    """The reader, if one is configured and usable; no notice (that is `_reranker`'s job)."""
    try:
        return get_reranker()
    except RerankError:
        return None


def _reranker(result: SearchResult) -> Reranker | None:
    try:
        return get_reranker()
    except RerankError as exc:
        result.notice = gettext("The reranker is not used (%(error)s); passages are in fused order.") % {"error": exc}
        return None


def _rerank(result: SearchResult, reranker: Reranker) -> None:
    """Reorder the top RERANK_CANDIDATES by the reader's score; on failure keep the fused order."""
    head = result.hits[: settings.RERANK_CANDIDATES]
    try:
        scores = reranker.score(result.query, [reader_text(h.context, h.content) for h in head])
    except RerankError as exc:
        result.notice = gettext("The reranker failed (%(error)s); passages are in fused order.") % {"error": exc}
        return
    for hit, score in zip(head, scores, strict=True):
        hit.rerank_score = score
    # Stable, also in reverse: passages the reader ties keep their fused order.
    head.sort(key=lambda h: h.rerank_score if h.rerank_score is not None else -math.inf, reverse=True)
    result.hits = head + result.hits[len(head) :]
    result.reranker = reranker.name
    result.rerank_score = head[0].rerank_score if head else None


def _dense_share(result: SearchResult, match: float) -> float:
    """The dense leg's share in fusion, for what the encoder reads (the question's language and the
    library's: `question_reading`) and how much of the question the keyword leg's best passage
    matches (`match`; search/services/fusion.py, `search_dense_share`)."""
    return search_dense_share(result.query, result.question_language, result.languages_held, match)


def _rank(
    dense: list[tuple[int, float]],
    bm25: list[tuple[int, float]],
    mode: str,
    dense_share: float | None = None,
) -> list[Ranked]:
    """The hits of `mode`; hybrid fuses the legs with the dense leg's `dense_share`, which it needs."""
    bm25_scores = dict(bm25)
    if mode == "dense":
        return [Ranked(pk, 1.0 - dist, rank, None, None) for rank, (pk, dist) in enumerate(dense, start=1)]
    if mode == "bm25":
        return [Ranked(pk, score, None, rank, score) for rank, (pk, score) in enumerate(bm25, start=1)]
    if dense_share is None:
        raise ValueError("hybrid ranking needs the dense leg's share")
    fused = relative_score_fusion(dense, bm25, dense_share=dense_share)
    return [Ranked(f.chunk_id, f.score, f.ranks[0], f.ranks[1], bm25_scores.get(f.chunk_id)) for f in fused]
