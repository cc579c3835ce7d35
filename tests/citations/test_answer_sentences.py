"""The extractive writer states the fact: it picks the sentence that answers from any shown source,
never quotes non-prose (references, acknowledgements, author lines, captions, headers, table and
code debris), and never joins sentences across the layout's paragraph breaks.

Fixture passages are laid out as the extractor lays out the corpus (a PDF paragraph is one line,
paragraphs are separated by a blank line); the writer runs with the real encoder."""

from __future__ import annotations

import pytest

from citations.markers import Part
from citations.writers import Source
from citations.writers.extractive import ELLIPSIS, ExtractiveWriter, Form, asked_form, quoted_pieces, states_form
from citations.writers.openai_compat import OpenAICompatibleWriter
from citations.writers.prose import units
from evaluation.answers import in_one_piece, non_prose_kind
from tests.citations.fakes import FakeLLM, fake_openai_server, hit


def quoted(parts: list[Part]) -> str:
    return "".join(p.text for p in parts if p.n is None)


def cited(parts: list[Part]) -> list[int]:
    return [p.n for p in parts if p.n is not None]


DYNAMO_RING = Source(
    1,
    "Dynamo's partitioning scheme relies on consistent hashing to distribute the load across multiple storage "
    "hosts. In consistent hashing, the output range of a hash function is treated as a fixed circular space or "
    "ring. Each node in the system is assigned a random value within this space which represents its position "
    "on the ring.",
    0.31,
    "4 System Architecture > 4.2 Partitioning Algorithm",
)
DYNAMO_INTERFACE = Source(
    2,
    "Dynamo treats both the key and the object supplied by the caller as an opaque array of bytes. It applies a "
    "MD5 hash on the key to generate a 128-bit identifier, which is used to determine the storage nodes that are "
    "responsible for serving the key.",
    0.36,
    "4 System Architecture > 4.1 System Interface",
)


def test_a_better_sentence_of_a_later_source_is_the_one_quoted_and_cited() -> None:
    parts = ExtractiveWriter().write("Which hash function does Dynamo use?", [DYNAMO_RING, DYNAMO_INTERFACE])
    assert "MD5" in quoted(parts)
    assert cited(parts)[0] == 2  # the source that states it is cited first
    for piece, n in quoted_pieces(parts):
        assert piece in (DYNAMO_RING, DYNAMO_INTERFACE)[n - 1].text


PROMQL_DELTA = Source(
    1,
    "delta should only be used with gauges and native histograms where the components behave like gauges "
    "(so-called gauge histograms). When combining rate() with an aggregation operator, always take a rate() "
    "first, then aggregate.",
    0.30,
    "Functions > delta()",
)
PROMQL_RATE = Source(
    2,
    "rate()\n\nrate(v range-vector) calculates the per-second average rate of increase of the time series in the "
    "range vector. Breaks in monotonicity (such as counter resets due to target restarts) are automatically "
    'adjusted for.\n\nrate(http_requests_total{job="api-server"}[5m])\n\nrate should only be used with counters '
    "(for both floats and histograms).",
    0.34,
    "Functions > rate()",
)


def test_what_a_function_does_is_answered_by_its_definition() -> None:
    parts = ExtractiveWriter().write("what does the rate() function do in PromQL?", [PROMQL_DELTA, PROMQL_RATE])
    assert "rate(v range-vector) calculates the per-second average rate of increase" in quoted(parts)
    assert 'rate(http_requests_total{job="api-server"}[5m])' not in quoted(parts)  # code is no sentence


BITCOIN_REFERENCES = Source(
    1,
    "Any needed rules and incentives can be enforced with this consensus mechanism.\n\nReferences\n\n"
    '[1] W. Dai, "b-money," http://www.weidai.com/bmoney.txt, 1998.\n\n'
    '[2] H. Massias, X.S. Avila, and J.-J. Quisquater, "Design of a secure timestamping service with minimal '
    'trust requirements," In 20th Symposium on Information Theory in the Benelux, May 1999.\n\n'
    '[3] S. Haber, W.S. Stornetta, "How to time-stamp a digital document," In Journal of Cryptology, vol 3, '
    "no 2, pages 99-111, 1991.",
    0.42,
)
BITCOIN_TITLE = Source(
    2,
    "Bitcoin: A Peer-to-Peer Electronic Cash System\n\nSatoshi Nakamoto satoshin@gmx.com www.bitcoin.org\n\n"
    "Abstract. A purely peer-to-peer version of electronic cash would allow online payments to be sent directly "
    "from one party to another without going through a financial institution.",
    0.45,
)


def test_who_wrote_the_paper_never_quotes_the_references() -> None:
    parts = ExtractiveWriter().write("Who wrote the Bitcoin paper?", [BITCOIN_REFERENCES, BITCOIN_TITLE])
    text = quoted(parts)
    assert text  # prose is quoted: the sources are shown, the gate decides the caveat
    for marker in ("W. Dai", "Massias", "Stornetta", "satoshin@", "References"):
        assert marker not in text


MAPREDUCE_END = Source(
    1,
    "Third, redundant execution can be used to reduce the impact of slow machines, and to handle machine "
    "failures and data loss.\n\nAcknowledgements\n\nJosh Levenberg has been instrumental in revising and "
    "extending the user-level MapReduce API with a number of new features. We would like to thank Mohit Aron, "
    "Howard Gobioff, Markus Gutschke, and Josh Redstone for their work in developing GFS.",
    0.4,
)


def test_acknowledgements_are_never_quoted() -> None:
    parts = ExtractiveWriter().write("MapReduce", [MAPREDUCE_END])
    assert "Levenberg" not in quoted(parts)
    assert "thank" not in quoted(parts)
    acknowledgements = Source(1, MAPREDUCE_END.text, 0.4, "MapReduce > Acknowledgements")
    assert all(not u.prose for u in units(acknowledgements.text, acknowledgements.section))


RAFT_FIGURE = Source(
    1,
    "In this case the term will end with no leader; a new term (with a new election) will begin shortly. "
    "Raft ensures that there is at\n\n"
    "Figure 4: Server states. Followers only respond to requests from other servers. If a follower receives no "
    "communication, it becomes a candidate and initiates an election. Leaders typically operate until they "
    "fail.\n\nmost one leader in a given term.\n\nDifferent servers may observe the transitions between terms at "
    "different times, and in some situations a server may not observe an election or even entire terms.",
    0.3,
    "5 The Raft consensus algorithm > 5.1 Raft basics",
)


def test_a_caption_is_never_quoted_nor_spliced_into_a_sentence() -> None:
    prose = [RAFT_FIGURE.text[u.start : u.end] for u in units(RAFT_FIGURE.text) if u.prose]
    assert not any(s.startswith(("Figure 4", "Leaders typically", "most one leader", "Raft ensures")) for s in prose)
    for question in ("How long do Raft leaders operate?", "How many leaders can a Raft term have?"):
        parts = ExtractiveWriter().write(question, [RAFT_FIGURE])
        text = quoted(parts)
        assert "fail. most" not in text
        assert "Figure 4" not in text
        for piece, _n in quoted_pieces(parts):
            assert in_one_piece(piece, RAFT_FIGURE.text), piece


def test_sentences_of_two_paragraphs_are_never_joined_as_adjacent() -> None:
    source = Source(1, "Raft elects a leader by majority vote.\n\nThe leader sends heartbeats to every follower.")
    parts = ExtractiveWriter().write("How does the Raft leader get elected and keep followers?", [source])
    if len(quoted_pieces(parts)) > 1 or ELLIPSIS in quoted(parts):
        assert "vote. The leader" not in quoted(parts)
    for piece, _n in quoted_pieces(parts):
        assert in_one_piece(piece, source.text)


RAFT_INTRO = Source(
    1,
    "Raft is a consensus algorithm for managing a replicated log. It separates the key elements of consensus, "
    "such as leader election, log replication, and safety.",
    0.29,
    "1 Introduction",
)
RAFT_ELECTION = Source(
    2,
    "Raft uses a heartbeat mechanism to trigger leader election. When servers start up, they begin as followers. "
    "If a follower receives no communication over a period of time called the election timeout, then it assumes "
    "there is no viable leader and begins an election to choose a new leader.",
    0.33,
    "5 The Raft consensus algorithm > 5.2 Leader election",
)


def test_the_section_that_is_about_the_question_is_drawn_on() -> None:
    parts = ExtractiveWriter().write("How does Raft elect a leader?", [RAFT_INTRO, RAFT_ELECTION])
    assert cited(parts)[0] == 2
    assert "heartbeat mechanism to trigger leader election" in quoted(parts)


def test_a_language_model_reads_the_sources_in_the_order_of_their_best_sentence() -> None:
    question = "Which hash function does Dynamo use?"
    sources = [DYNAMO_RING, DYNAMO_INTERFACE]
    assert [s.n for s in ExtractiveWriter().passage_order(question, sources)] == [2, 1]
    with fake_openai_server(FakeLLM(reply="Dynamo applies MD5 [2].")) as llm:
        writer = OpenAICompatibleWriter(base_url=llm.base_url, model="tiny", timeout=5)
        parts = writer.write(question, sources)
    assert cited(parts) == [2]  # the numbers stay the sources' own
    user = llm.requests[0]["body"]["messages"][1]["content"]
    assert user.index("[2] Dynamo treats") < user.index("[1] Dynamo's partitioning")


@pytest.mark.parametrize(
    ("piece", "section", "kind"),
    [
        ('[1] W. Dai, "b-money," http://www.weidai.com/bmoney.txt, 1998.', "", "reference"),
        ("Josh Levenberg has been instrumental in revising the API.", "Acknowledgements", "acknowledgement"),
        ("We would like to thank Mohit Aron for his work.", "", "acknowledgement"),
        ("Figure 4: Server states.", "", "caption"),
        ("Leaders typically operate until they fail. most one leader in a given term.", "", "spliced"),
        ("Raft uses a heartbeat mechanism to trigger leader election.", "", None),
        (
            "The key property is the State Machine Safety Property in Figure 3: if any server has applied an entry, "
            "no other server may apply another.",
            "",
            None,
        ),
    ],
)
def test_the_evaluation_names_what_is_not_prose(piece: str, section: str, kind: str | None) -> None:
    content = RAFT_FIGURE.text if kind == "spliced" else piece
    found = hit(1, content)
    found.section = section
    assert non_prose_kind(piece, found) == kind


def test_a_figure_next_to_the_thing_asked_for_names_it() -> None:
    # Bigtable's two-pass compression: "what space reduction" is answered by a figure, not a word.
    question = "What space reduction did the two-pass compression scheme achieve on stored web page contents?"
    asked = asked_form(question, None)
    assert asked is not None
    assert asked.form == Form.NAME
    words = {w.casefold() for w in question.replace("?", " ").split()}
    assert states_form("The scheme achieved a 10-to-1 reduction in space.", asked, words)
    assert not states_form("Many clients use a two-pass custom compression scheme.", asked, words)
