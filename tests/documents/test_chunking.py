"""Chunking: pure tests on built texts, with a word-count fake tokenizer or the model's own.

The product's chunker (strategy E) and the strategies the evaluation compares it with
(evaluation/chunkers.py) keep the same invariants; E is tested through both entry points."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from documents import chunking
from documents.chunking import CHUNKER_VERSION, HEADING_CHARS, ChunkSpan, embedded_text
from documents.chunking_text import Level, split_units
from documents.embedding import ENCODER_WINDOW_TOKENS, count_tokens
from documents.extraction.types import Section
from evaluation.chunkers import STRATEGIES, chunk_document, pipeline_stamp


def fake_count(text: str) -> int:
    """Whitespace words plus two specials, like [CLS] and [SEP]."""
    return len(text.split()) + 2


def md_sections(text: str) -> list[Section]:
    """Sections as the Markdown extractor reports them: start = offset of the heading title."""
    return [Section(m.start(2), len(m.group(1)), m.group(2)) for m in re.finditer(r"^(#{1,3}) +(.+)$", text, re.M)]


def sentence(i: int, words: int = 12) -> str:
    return f"Sentence {i} " + " ".join(f"w{i}x{j}" for j in range(words)) + "."


def paragraph(first: int, count: int) -> str:
    return " ".join(sentence(i) for i in range(first, first + count))


DOC = "\n\n".join(
    [
        "Preamble text before any heading.",
        "# Guide",
        "## Install",
        paragraph(0, 6),
        paragraph(6, 6),
        paragraph(12, 6),
        "### Linux",
        paragraph(18, 30),  # one paragraph far over 1000 characters
        "## Usage",
        "Run the tool. It reads the configuration file (e.g. config.toml) and prints a report.",
        paragraph(48, 10),
    ]
)
DOC_SECTIONS = md_sections(DOC)


def chunks_of(text: str = DOC, **kwargs: object) -> list[ChunkSpan]:
    kwargs.setdefault("title", "Manual")
    kwargs.setdefault("sections", md_sections(text))
    kwargs.setdefault("page_starts", [])
    kwargs.setdefault("strategy", "E")
    return chunk_document(text, **kwargs)  # type: ignore[arg-type]


def assert_invariants(text: str, chunks: list[ChunkSpan], max_tokens: int = ENCODER_WINDOW_TOKENS) -> None:
    for c in chunks:
        assert c.content == text[c.char_start : c.char_end]
        assert c.content
        assert c.content == c.content.strip()
        assert c.token_count <= max_tokens
    assert [c.char_start for c in chunks] == sorted(c.char_start for c in chunks)


def covered(text: str, chunks: list[ChunkSpan]) -> bool:
    """Every non-space character lies in some chunk: nothing of the document is lost."""
    mask = [False] * len(text)
    for c in chunks:
        mask[c.char_start : c.char_end] = [True] * (c.char_end - c.char_start)
    return all(mask[i] or ch.isspace() for i, ch in enumerate(text))


# --- invariants, all strategies ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_chunk_is_the_canonical_slice_and_fits_the_real_window(strategy: str) -> None:
    chunks = chunks_of(strategy=strategy)
    assert chunks
    assert_invariants(DOC, chunks)
    for c in chunks:
        assert count_tokens(embedded_text(c.context, c.content)) == c.token_count
    assert covered(DOC, chunks)


DENSE = "\n\n".join(
    [
        "# Numbers",
        " ".join(f"{i * 7919:x}-{i}.{i * 31}%" for i in range(400)),  # many word-pieces per character
        "# Tabelle",
        "Größe Äpfel naïve café Straße ÉTÉ ŒUVRE; 東京は日本の首都です。大阪は二番目に大きい都市です。" * 30,
        "# Code",
        "```\n" + "\n".join(f"x_{i} = f({i}, '{i:04d}')  # {i}" for i in range(200)) + "\n```",
    ]
)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dense_text_never_exceeds_the_window(strategy: str) -> None:
    chunks = chunks_of(DENSE, strategy=strategy)
    assert_invariants(DENSE, chunks)
    assert covered(DENSE, chunks)
    for c in chunks:
        assert count_tokens(embedded_text(c.context, c.content)) <= ENCODER_WINDOW_TOKENS


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_small_token_budget_is_respected(strategy: str) -> None:
    chunks = chunks_of(strategy=strategy, count_tokens=fake_count, max_tokens=30)
    assert_invariants(DOC, chunks, max_tokens=30)
    assert all(fake_count(embedded_text(c.context, c.content)) <= 30 for c in chunks)
    assert covered(DOC, chunks)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_output_is_deterministic(strategy: str) -> None:
    assert chunks_of(strategy=strategy) == chunks_of(strategy=strategy)


# --- blind windows -------------------------------------------------------------------------------


def test_a_cuts_a_sentence_apart_that_e_keeps_whole() -> None:
    known = "The quorum must acknowledge every write before the leader replies."
    text = "x" * 480 + " " + known + "\n\n" + paragraph(0, 4)
    assert text.index(known) < 512 < text.index(known) + len(known)
    a = chunk_document(text, title="T", sections=[], page_starts=[], strategy="A")
    e = chunk_document(text, title="T", sections=[], page_starts=[], strategy="E")
    assert not any(known in c.content for c in a)
    assert any(known in c.content for c in e)


def test_a_is_fixed_512_character_windows() -> None:
    text = "abcdefgh" * 300
    chunks = chunk_document(text, title="T", sections=[], page_starts=[], strategy="A", count_tokens=fake_count)
    assert [(c.char_start, c.char_end) for c in chunks] == [
        (0, 512),
        (512, 1024),
        (1024, 1536),
        (1536, 2048),
        (2048, 2400),
    ]


def test_b_overlaps_by_64_characters() -> None:
    text = "abcdefgh" * 300
    chunks = chunk_document(text, title="T", sections=[], page_starts=[], strategy="B", count_tokens=fake_count)
    assert [c.char_start for c in chunks] == [0, 448, 896, 1344, 1792, 2240]
    for prev, nxt in pairwise(chunks):
        assert prev.char_end - nxt.char_start == 64
    assert chunks[-1].char_end == len(text)


def test_blind_chunks_are_labelled_with_the_section_they_start_in() -> None:
    chunks = chunks_of(strategy="A")
    assert chunks[0].section == ""
    assert all(c.context == "" for c in chunks)
    assert chunks[-1].section == "Guide > Usage"


# --- boundaries ------------------------------------------------------------------------------------


def test_boundary_chunks_stay_inside_one_section_and_open_with_its_heading() -> None:
    chunks = chunks_of(strategy="C")
    heading_starts = {m.start(): m.group(0) for m in re.finditer(r"^#{1,3} .+$", DOC, re.M)}
    for c in chunks:
        inner = [h for pos, h in heading_starts.items() if c.char_start < pos < c.char_end]
        own = c.section.split(" > ")[-1]
        assert all(h.lstrip("# ") == own for h in inner), f"chunk {c.char_start} holds a following heading {inner}"
    firsts: dict[str, ChunkSpan] = {}
    for c in chunks:
        firsts.setdefault(c.section, c)
    assert firsts["Guide > Install"].content.startswith("# Guide\n\n## Install")  # bare parent joins its child
    assert firsts["Guide > Install > Linux"].content.startswith("### Linux")
    assert firsts["Guide > Usage"].content.startswith("## Usage")


def test_a_heading_never_stands_alone_before_a_full_paragraph() -> None:
    body = paragraph(0, 7)  # close to the 1000-character target on its own
    text = f"## Background\n\n{body}\n\n## Next\n\nMore."
    chunks = chunks_of(text, strategy="C", count_tokens=fake_count)
    assert chunks[0].content == f"## Background\n\n{body}"
    assert chunks[0].section == "Background"


def reference(entries: int, names: tuple[str, ...] = ("setting_{i} (integer)",)) -> str:
    """A manual's reference section: each entry's name lines, then its description."""
    parts = ["## Settings"]
    for i in range(entries):
        parts.extend(name.format(i=i) for name in names)
        parts.append(paragraph(i * 3, 3))
    return "\n\n".join(parts)


@pytest.mark.parametrize(
    "names", [("setting_{i} (integer)",), ("-m{i} <msg>", "--message{i}=<msg>"), ("Table {i}. Options",)]
)
def test_an_entrys_name_lines_open_the_chunk_of_its_description(names: tuple[str, ...]) -> None:
    """Packed greedily, a chunk often ended on an entry's name line ("geqo_threshold (integer)") and
    its description opened the next one: neither found by what the other says."""
    text = reference(24, names)
    chunks = chunks_of(text, count_tokens=fake_count)
    assert_invariants(text, chunks)
    assert covered(text, chunks)
    assert len(chunks) > 4
    first_name = names[0].split("{")[0]
    for chunk in chunks[1:]:
        assert chunk.content.startswith(first_name), chunk.content[:60]
    for chunk in chunks:
        assert chunk.content.endswith("."), chunk.content[-60:]


def test_a_list_of_short_lines_is_packed_as_before() -> None:
    """A table of contents is all short lines: carrying them would leave a chunk of one line."""
    lines = [f"2.{i}. Título da secção {i}" for i in range(150)]
    text = "\n\n".join(["## Índice", *lines, paragraph(0, 3)])
    chunks = chunks_of(text, count_tokens=fake_count)
    assert_invariants(text, chunks)
    assert covered(text, chunks)
    assert all(len(c.content) > 800 for c in chunks[:-1])


def test_a_short_paragraph_that_ends_a_sentence_stays_where_it_is() -> None:
    text = "\n\n".join(["## Notes", *(f"{paragraph(i * 3, 3)}\n\nSee above." for i in range(12))])
    with_closing = chunks_of(text, count_tokens=fake_count)
    assert all(c.content.endswith("See above.") for c in with_closing[:-1])


def test_a_name_line_stays_when_it_and_its_description_exceed_the_budget() -> None:
    """Carried over, the line would push its description over the window: it stays behind."""
    text = "\n\n".join(["## Settings", paragraph(0, 2), "limit_one (integer)", paragraph(2, 5)])
    # The description with the header "Manual > Settings" (three words) fits, with the line too not.
    window = fake_count(paragraph(2, 5)) + 3 + 1
    chunks = chunks_of(text, strategy="E", count_tokens=fake_count, max_tokens=window)
    assert_invariants(text, chunks, window)
    assert covered(text, chunks)
    assert chunks[-1].content == paragraph(2, 5)
    assert chunks[-2].content.endswith("limit_one (integer)")


def test_whole_paragraphs_are_packed_up_to_the_target() -> None:
    paragraphs = [paragraph(i * 3, 3) for i in range(8)]  # each ~ 260 characters
    text = "\n\n".join(paragraphs)
    chunks = chunk_document(text, title="T", sections=[], page_starts=[], strategy="C", count_tokens=fake_count)
    assert len(chunks) < len(paragraphs)
    for c in chunks:
        assert len(c.content) <= 1000
        parts = c.content.split("\n\n")
        assert all(p in paragraphs for p in parts), "a paragraph was cut although it fits"


def test_a_paragraph_over_the_budget_is_cut_at_sentence_ends() -> None:
    text = paragraph(0, 30)
    chunks = chunk_document(text, title="T", sections=[], page_starts=[], strategy="C", count_tokens=fake_count)
    assert len(chunks) > 2
    for c in chunks:
        assert len(c.content) <= 1000
        assert c.content.startswith("Sentence ")
        assert c.content.endswith(".")
    assert covered(text, chunks)


def test_sentence_splitting_respects_abbreviations_and_decimals() -> None:
    text = (
        "See Fig. 3 and e.g. Raft by L. Lamport et al. 2004 at 3.5 ms. Next one! "
        "Sec. 4 shows it? He said “Stop.” Then left."
    )
    units = [text[a:b] for a, b in split_units(text, 0, len(text), Level.SENTENCE)]
    assert units == [
        "See Fig. 3 and e.g. Raft by L. Lamport et al. 2004 at 3.5 ms.",
        "Next one!",
        "Sec. 4 shows it?",
        "He said “Stop.”",
        "Then left.",
    ]


def test_a_sentence_longer_than_the_budget_is_cut_between_words() -> None:
    words = [f"word{i}" for i in range(400)]
    text = " ".join(words)
    chunks = chunk_document(text, title="T", sections=[], page_starts=[], strategy="E", count_tokens=fake_count)
    assert len(chunks) >= 3
    for c in chunks:
        assert len(c.content) <= 1000
        assert all(w in words for w in c.content.split())


def test_a_gigantic_token_without_spaces_is_cut_hard_and_still_fits() -> None:
    text = "Intro line.\n\n" + "abcdefghij" * 2000
    for strategy in STRATEGIES:
        chunks = chunks_of(text, strategy=strategy, sections=[])
        assert_invariants(text, chunks)
        assert covered(text, chunks)
        if strategy in ("C", "E"):  # the short opening line may ride along past the target
            assert all(len(c.content) <= 1000 + HEADING_CHARS for c in chunks)
            assert all(len(c.content) <= 1000 for c in chunks[1:])


def test_a_code_fence_with_blank_lines_stays_one_unit() -> None:
    code = "```\nline one\n\nline two\n\nline three\n```"
    text = paragraph(0, 6) + "\n\n" + code + "\n\n" + paragraph(6, 6)
    chunks = chunk_document(text, title="T", sections=[], page_starts=[], strategy="C", target_chars=200)
    assert any(code in c.content for c in chunks)


# --- overlap ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["D", "F"])
def test_boundary_overlap_repeats_the_previous_last_sentences(strategy: str) -> None:
    chunks = chunks_of(strategy=strategy)
    overlapping = [(p, n) for p, n in pairwise(chunks) if n.char_start < p.char_end]
    assert overlapping
    for prev, nxt in overlapping:
        assert prev.section == nxt.section
        assert prev.char_end - nxt.char_start <= 2 * 0.15 * 1000
        assert nxt.content.startswith("Sentence ")  # a sentence start, not mid-sentence
        assert prev.content.endswith(DOC[nxt.char_start : prev.char_end])


@pytest.mark.parametrize("strategy", ["C", "E"])
def test_no_overlap_without_it(strategy: str) -> None:
    chunks = chunks_of(strategy=strategy)
    assert all(n.char_start >= p.char_end for p, n in pairwise(chunks))


def test_overlap_never_crosses_a_section_boundary() -> None:
    chunks = chunks_of(strategy="F")
    for prev, nxt in pairwise(chunks):
        if prev.section != nxt.section:
            assert nxt.char_start >= prev.char_end


# --- sections and context --------------------------------------------------------------------------


def test_section_paths_and_context_headers() -> None:
    e = chunks_of(strategy="E")
    by_section = {c.section: c.context for c in e}
    assert by_section == {
        "": "Manual",
        "Guide > Install": "Manual > Guide > Install",
        "Guide > Install > Linux": "Manual > Guide > Install > Linux",
        "Guide > Usage": "Manual > Guide > Usage",
    }
    assert {c.context for c in chunks_of(strategy="C")} == {""}
    assert {c.section for c in chunks_of(strategy="C")} == set(by_section)


def test_a_top_heading_repeating_the_title_is_not_doubled() -> None:
    text = "# Guide\n\nIntro.\n\n## Install\n\nSteps."
    chunks = chunks_of(text, title="Guide", strategy="E")
    assert [c.context for c in chunks] == ["Guide", "Guide > Install"]
    assert [c.section for c in chunks] == ["Guide", "Guide > Install"]


def test_a_huge_context_is_truncated_not_the_content() -> None:
    title = " ".join(f"title{i}" for i in range(500))
    chunks = chunks_of(title=title, strategy="E")
    assert_invariants(DOC, chunks)
    for c in chunks:
        assert len(c.context) < len(title)
        assert c.context.endswith("…")
        assert count_tokens(c.context) <= ENCODER_WINDOW_TOKENS // 4


def test_text_without_sections() -> None:
    text = paragraph(0, 20)
    chunks = chunk_document(text, title="Notes", sections=[], page_starts=[], strategy="E")
    assert {c.section for c in chunks} == {""}
    assert {c.context for c in chunks} == {"Notes"}
    assert covered(text, chunks)


# --- pages -----------------------------------------------------------------------------------------


def test_pages_come_from_page_starts() -> None:
    pages = [paragraph(i * 10, 4) for i in range(5)]
    text = "\n\n".join(pages)
    page_starts = [text.index(p) for p in pages]
    chunks = chunk_document(text, title="T", sections=[], page_starts=page_starts, strategy="A")
    for c in chunks:
        expected_start = max(i for i, s in enumerate(page_starts) if s <= c.char_start) + 1
        expected_end = max(i for i, s in enumerate(page_starts) if s <= c.char_end - 1) + 1
        assert (c.page_start, c.page_end) == (expected_start, expected_end)
    assert any(c.page_end > c.page_start for c in chunks)
    assert chunks[-1].page_end == 5


def test_no_page_map_means_page_one() -> None:
    assert {(c.page_start, c.page_end) for c in chunks_of(strategy="E")} == {(1, 1)}


# --- edges -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   \n\n\t  "])
def test_empty_text_gives_no_chunks(text: str) -> None:
    assert chunking.chunk_document(text, title="T", sections=[], page_starts=[]) == []


def test_unicode_offsets_are_character_offsets() -> None:
    text = "# Überblick\n\n" + "Ein Satz mit Umlauten: Größe, Maß. 😀 Emoji zählen als ein Zeichen. " * 30
    text += "\n\n# 日本語\n\n" + "これは日本語の文です。もう一つの文です。" * 60
    for strategy in STRATEGIES:
        chunks = chunks_of(text, strategy=strategy)
        assert_invariants(text, chunks)
        assert covered(text, chunks)
    sections = {c.section for c in chunks_of(text, strategy="E")}
    assert sections == {"Überblick", "日本語"}


def test_sections_out_of_range_or_unsorted_are_tolerated() -> None:
    text = "# B\n\nbee.\n\n# A\n\nay."
    sections = [Section(text.index("A\n"), 1, "A"), Section(0 + 2, 1, "B"), Section(10_000, 1, "Gone")]
    chunks = chunks_of(text, sections=sections, strategy="E")
    assert [c.section for c in chunks] == ["B", "A"]


def test_unknown_strategy_and_stamp() -> None:
    with pytest.raises(ValueError, match="unknown chunking strategy"):
        chunk_document("x", title="T", sections=[], page_starts=[], strategy="Z")
    assert pipeline_stamp("E", 1000) == f"E/1000/chunker-{CHUNKER_VERSION}"
    assert pipeline_stamp("A", 1000) == pipeline_stamp("A", 700) == f"A/512/chunker-{CHUNKER_VERSION}"
    assert embedded_text("", "body") == "body"
    assert embedded_text("T > S", "body") == "T > S\nbody"


def test_a_long_document_chunks_in_linear_time() -> None:
    """Twice the text costs the tokenizer about twice the characters, not four times: the work is
    counted (every character handed to it), not timed, so a loaded machine cannot fail it."""

    def document(parts: int) -> str:
        return "\n\n".join(f"## Part {i}\n\n" + "\n\n".join(paragraph(j, 5) for j in range(12)) for i in range(parts))

    def tokenized_chars(text: str) -> int:
        seen = 0

        def counting(piece: str) -> int:
            nonlocal seen
            seen += len(piece)
            return count_tokens(piece)

        chunks = chunks_of(text, strategy="F", count_tokens=counting)
        assert_invariants(text, chunks)
        return seen

    single, double = document(30), document(60)
    assert len(double) / len(single) < 2.05
    assert tokenized_chars(double) / tokenized_chars(single) < 2.5


def test_the_product_chunker_is_strategy_e() -> None:
    for text in (DOC, DENSE):
        product = chunking.chunk_document(text, title="Manual", sections=md_sections(text), page_starts=[])
        assert product == chunks_of(text, strategy="E")
    assert chunking.pipeline_stamp(1000) == pipeline_stamp("E", 1000) == f"E/1000/chunker-{CHUNKER_VERSION}"
