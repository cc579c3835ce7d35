"""The kind of fact a question asks for, whether the passages shown state one, and the gate's caveat
when they do not (search/services/answer_type.py, issue 27)."""

from __future__ import annotations

import pytest

from search.services.answer_type import (
    AnswerType,
    check_answer_type,
    expected_type,
    holds_fact,
    key_words,
    unmet_message,
    versioned_names,
)
from search.services.gate import AnswerState, GateInputs, Reason, decide


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What year was Satoshi Nakamoto born?", AnswerType.YEAR),
        ("when did nokia sell qt to digia", AnswerType.YEAR),
        ("In which year did Facebook replace TAO's MySQL storage?", AnswerType.YEAR),
        ("What date was Prometheus 3.0 released?", AnswerType.YEAR),
        ("How much did Amazon spend to build Dynamo?", AnswerType.MONEY),
        ("how much does cloud spanner cost per node hour", AnswerType.MONEY),
        ("What is the price of a GFS chunkserver?", AnswerType.MONEY),
        ("How many transactions per second can the Bitcoin network process?", AnswerType.COUNT),
        ("Maximum block size in Bitcoin?", AnswerType.COUNT),
        ("what's the block size limit in bitcoin?", AnswerType.COUNT),
        ("What is the default block size inside a Bigtable SSTable?", AnswerType.COUNT),
        ("What chunk size does the Google File System use?", AnswerType.COUNT),
        ("How much did buffering writes in memory reduce tail latency at peak load?", AnswerType.COUNT),
        ("What percentage of Tor relays are exit relays?", AnswerType.PERCENTAGE),
        ("what fraction of shopping-cart requests saw one version", AnswerType.PERCENTAGE),
        ("Which Qt version introduced the function-pointer based connect() syntax?", AnswerType.VERSION),
        ("Which Prometheus release introduced the atan2 binary operator?", AnswerType.VERSION),
        ("who created json", AnswerType.PERSON),
        ("Who wrote the first version of the Dapper collectors?", AnswerType.PERSON),
        ("Where is Trolltech headquartered?", AnswerType.PLACE),
        ("In which city was the paper written?", AnswerType.PLACE),
        ("In which data center did the authors deploy live migration?", AnswerType.PLACE),
        ("In which US states are the replicas located?", AnswerType.PLACE),
        ("In which cities or regions are the trace repositories located?", AnswerType.PLACE),
        ("In which countries was the service live?", AnswerType.PLACE),
        ("how accurate is the estimate in percent", AnswerType.PERCENTAGE),
        ("What does Google spend per month to store the traces?", AnswerType.MONEY),
        ("How many milliseconds does a remote call take?", AnswerType.DURATION),
        ("what does 12h34m56s come out to in seconds", AnswerType.DURATION),
        ("How many bytes of RAM does Prometheus use per series?", AnswerType.DATA_SIZE),
        ("How much memory does an exemplar use?", AnswerType.DATA_SIZE),
        # The size of a file or a download is an amount of data; sorting by it asks for none.
        ("What is the maximum file size the store supports?", AnswerType.DATA_SIZE),
        ("max size of a file you can put in the lock service", AnswerType.DATA_SIZE),
        ("How big is the download of the installer?", AnswerType.DATA_SIZE),
        ("Which option sorts the listing by file size?", None),
        ("how much energy or power does compression save", AnswerType.POWER),
        ("How many watts does the master draw?", AnswerType.POWER),
        ("how long does a chubby session lease last", AnswerType.DURATION),
        ("How long does Prometheus keep samples by default?", AnswerType.DURATION),
        ("How long is the timeout?", AnswerType.DURATION),
        ("How long are WAL files kept after a checkpoint?", AnswerType.DURATION),
        ("how long ago was Raft published", AnswerType.YEAR),
        ("How long can a PostgreSQL identifier be?", AnswerType.COUNT),  # the length of a thing, not a time
        ("How long is a table name allowed to be?", AnswerType.COUNT),
        # "how long can/should … be" asks a length, unless a time is what it sizes or it ends in a state.
        ("how long can the little note attached to a whole zip file be", AnswerType.COUNT),
        ("how long should the random code in a reset link be so nobody can guess it", AnswerType.COUNT),
        ("How long should the timeout be?", AnswerType.DURATION),
        ("how long can a session be idle?", AnswerType.DURATION),
        # "a max-heap" is a kind of heap; "max-age" is a value.
        ("Does heapq implement a min-heap or a max-heap?", None),
        # "How many" asks a number, though the question names extensions (of a format, not of file names).
        ("How many files can a ZIP archive hold before it needs the ZIP64 extensions?", AnswerType.COUNT),
        ("What extension do backup files have?", AnswerType.EXTENSION),
        ("What max-age does the server send by default?", AnswerType.COUNT),
        ("How many dollars of damage did the virus cause?", AnswerType.MONEY),
        ("What storage cost in dollars does Google pay for trace data?", AnswerType.MONEY),
        ("what does it cost google per year to run its chubby cells", AnswerType.MONEY),
        # A condition, a mechanism, a reason: no particular kind of fact.
        ("when does raft start a new election", None),
        ("where does my client get the list of available relays from", None),
        ("Where is insignificant whitespace permitted in a JSON text?", None),
        ("how does bitcoin stop people spending the same coin twice?", None),
        ("What does a shadow stack cost in performance?", None),  # a cost, but not in money
        # The unit a quantity is given in, and the way a figure is worked out: no quantity asked for.
        ("In which unit is the rate-limit environment variable of mod_ratelimit given?", None),
        ("what unit does KeepAliveTimeout use", None),
        ("how does the cache guess how long a page stays fresh when the server only says when it last changed", None),
        ("How does Prometheus decide how many shards to run?", None),
        ("How many shards does Prometheus decide to run?", AnswerType.COUNT),  # a count, as before
        ("How long does the cache keep a page fresh?", AnswerType.DURATION),
        # What something is by default, when that is no number: a default, stated as one.
        ("What is the default sampler in the OpenTelemetry SDKs?", AnswerType.DEFAULT),
    ],
)
def test_expected_type_reads_the_wording(question: str, expected: AnswerType | None) -> None:
    assert expected_type(question) == expected


@pytest.mark.parametrize(
    ("text", "answer_type", "holds"),
    [
        ("The paper was published in 2008.", AnswerType.YEAR, True),
        ("It shipped on March 3 with the new parser.", AnswerType.YEAR, True),
        ("80 bytes * 6 * 24 * 365 = 4.2MB per year.", AnswerType.YEAR, False),
        ("The purchase orders must be less than $5000.", AnswerType.MONEY, True),
        ("The cluster cost 2 million dollars to build.", AnswerType.MONEY, True),
        ("An atomic clock is not that expensive.", AnswerType.MONEY, False),
        ("Each block is 64KB in size.", AnswerType.COUNT, True),
        ("It may take up to two hours to remove expired blocks.", AnswerType.COUNT, True),
        ("Blocks are removed eventually.", AnswerType.COUNT, False),
        ("Elections time out after 150–300ms.", AnswerType.DURATION, True),
        ("It may take up to two hours to remove expired blocks.", AnswerType.DURATION, True),
        ("The clock drifts by at most 200 microseconds.", AnswerType.DURATION, True),
        ("A session lease lasts a minute unless it is renewed.", AnswerType.DURATION, True),
        ("Expired blocks go within half an hour.", AnswerType.DURATION, True),
        ("Three replicas hold each chunk.", AnswerType.DURATION, False),  # a number, but no unit of time
        ("The service went live in the 1990s.", AnswerType.DURATION, False),  # a decade, not seconds
        ("Each span takes about 426 bytes.", AnswerType.DATA_SIZE, True),
        ("Chunks are 64 MB; handles are 64-bit.", AnswerType.DATA_SIZE, True),
        ("A sample takes 16B in memory.", AnswerType.DATA_SIZE, True),
        ("We introduced a limit on file size (256kBytes).", AnswerType.DATA_SIZE, True),
        ("Sizes are given in MBytes.", AnswerType.DATA_SIZE, False),  # a unit with no amount
        ("Each server keeps 5 b-trees.", AnswerType.DATA_SIZE, False),
        ("Each master draws 200W.", AnswerType.POWER, True),
        ("It saves 30 kWh a month.", AnswerType.POWER, True),
        ("The masters run for two weeks.", AnswerType.POWER, False),
        ("99.94% of requests saw exactly one version.", AnswerType.PERCENTAGE, True),
        ("Most requests saw exactly one version.", AnswerType.PERCENTAGE, False),
        ("When adding QSslSocket in Qt 4.3, we were forced to add downcasts.", AnswerType.VERSION, True),
        ("The socket class was added later.", AnswerType.VERSION, False),
        ("BM25 uses b = 0.75 while TW-IDF uses 0.003.", AnswerType.VERSION, False),  # decimals are no versions
        ("As shown in Figure 3.2, the latency grows.", AnswerType.VERSION, False),
        ("Native histograms became stable in v3.8.", AnswerType.VERSION, True),
        # A numbered heading's number, a network address and a copyright notice's year state no fact.
        ("8.14.3. jsonb Containment and Existence", AnswerType.VERSION, False),
        ("host postgres all 192.168.93.0/24 ident", AnswerType.VERSION, False),
        ("Copyright 2026 The Apache Software Foundation.", AnswerType.YEAR, False),
        ("© 2004–2023 the authors; the server first shipped in 2011.", AnswerType.YEAR, True),
        ("The service was designed by Mike Burrows at Google.", AnswerType.PERSON, True),
        ("The Chubby lock service is used by Google.", AnswerType.PERSON, False),
        ("The company is based in Oslo.", AnswerType.PLACE, True),
        ("The company is based on open standards.", AnswerType.PLACE, False),
    ],
)
def test_holds_fact_finds_each_kind(text: str, answer_type: AnswerType, holds: bool) -> None:
    assert holds_fact(text, answer_type) is holds


def test_key_words_are_the_rarer_subject_words() -> None:
    # "year" and "born"'s cue words say which fact is asked for, not what about.
    assert set(key_words("What year was Satoshi Nakamoto born?")) >= {"satoshi", "nakamoto"}
    assert "year" not in key_words("What year was Satoshi Nakamoto born?")
    assert "spend" not in key_words("How much did Amazon spend to build Dynamo?")
    assert key_words("How much did Amazon spend to build Dynamo?")[0] == "dynamo"  # rarest first


def test_the_issue_example_year_is_unmet() -> None:
    passage = (
        "A block header with no transactions would be about 80 bytes. If we suppose blocks are generated every "
        "10 minutes, 80 bytes * 6 * 24 * 365 = 4.2MB per year. With computer systems typically selling with 2GB "
        "of RAM, storage should not be a problem."
    )
    check = check_answer_type("What year was Satoshi Nakamoto born?", [passage])
    assert (check.expected, check.met, check.unmet) == (AnswerType.YEAR, False, AnswerType.YEAR)


def test_a_fact_counts_beside_the_question_words_only() -> None:
    question = "How much did Amazon spend to build Dynamo?"
    far = "Dynamo is a highly available key-value store. Copies cost $5.00 each."
    beside = "Dynamo is a highly available key-value store. Amazon spent $2 million building it."
    assert check_answer_type(question, [far]).met is False  # the amount is not in a sentence about Dynamo
    assert check_answer_type(question, [beside]).met is True
    assert check_answer_type(question, [far, beside]).met is True  # any passage shown will do
    # The check names the sentence that states the fact, for the evaluation report.
    assert check_answer_type(question, [far, beside]).stated_by == "Amazon spent $2 million building it."
    assert check_answer_type(question, [far]).stated_by is None


def test_a_number_in_another_unit_does_not_state_the_quantity_asked_for() -> None:
    question = "How many milliseconds does a remote invocation take?"
    counted = "A remote invocation crosses the network; three machines take part in each invocation."
    timed = "A remote invocation takes about 5 ms on the machines measured."
    check = check_answer_type(question, [counted])
    assert (check.expected, check.unmet) == (AnswerType.DURATION, AnswerType.DURATION)
    assert check_answer_type(question, [counted, timed]).met is True
    assert unmet_message(AnswerType.DURATION, ("invocation",)) == (
        "The question asks for a length of time; none of the closest passages states one where it mentions 'invocation'"
    )


def test_a_question_without_a_kind_is_never_unmet() -> None:
    check = check_answer_type("how does bitcoin stop double spending", ["Nothing numeric here at all."])
    assert (check.expected, check.met, check.unmet) == (None, True, None)


def test_the_gate_gives_an_unmet_type_a_caveat_in_plain_words() -> None:
    decision = decide(GateInputs(0.35, 0.65, unmet_answer_type="money", answer_type_words=("dynamo", "amazon")))
    assert decision.state == AnswerState.CAVEAT
    assert decision.reasons == [Reason.UNMET_ANSWER_TYPE]
    assert decision.message == (
        "The question asks for a price or an amount of money; none of the closest passages states one where it "
        "mentions 'dynamo' or 'amazon'; the passages below are the closest the library holds."
    )


def test_the_unmet_type_joins_other_caveats_and_never_outranks_a_refusal() -> None:
    both = decide(GateInputs(0.35, 0.65, missing_terms=("etcd",), unmet_answer_type="count"))
    assert both.reasons == [Reason.MISSING_TERMS, Reason.UNMET_ANSWER_TYPE]
    assert both.message.startswith("No document you may read mentions 'etcd'; the question asks for a number")
    refused = decide(GateInputs(0.9, 0.65, unmet_answer_type="year"))
    assert (refused.state, refused.reasons) == (AnswerState.REFUSED, [Reason.TOO_FAR])
    assert decide(GateInputs(0.35, 0.65)).state == AnswerState.ANSWERED


@pytest.mark.parametrize(
    ("text", "answer_type"),
    [
        ("Tor uses the standard and near-ubiquitous SOCKS [32] proxy interface.", AnswerType.COUNT),
        ("To facilitate this, transactions are hashed in a Merkle Tree [7][2][5].", AnswerType.COUNT),
        ("As described in Section 5.3, the sort program runs on the cluster.", AnswerType.COUNT),
        ("Figure 3 shows the read rate of the cluster.", AnswerType.COUNT),
        ("2.2 Service Level Agreements (SLA)", AnswerType.COUNT),  # a heading's own number
        ("6 Objects", AnswerType.COUNT),
        ("2 7 Arrays ........................................ 3", AnswerType.COUNT),  # a contents line
        ("Figure 2 plots the data of Table 1 (see [12]).", AnswerType.YEAR),
        ("CVE-2012-0003 Windows Multimedia", AnswerType.YEAR),  # an identifier, not a year
        ("Google Technical Report dapper-2010-1", AnswerType.YEAR),
        ("JSON text follows ECMA-404.", AnswerType.COUNT),
    ],
)
def test_numbers_that_only_point_elsewhere_state_no_fact(text: str, answer_type: AnswerType) -> None:
    assert holds_fact(text, answer_type) is False


def test_a_figure_beside_a_reference_still_counts() -> None:
    assert holds_fact("Each SSTable block is 64KB in size [3].", AnswerType.COUNT) is True
    assert holds_fact("Table 2 shows that 99.9% of requests finish within 300ms.", AnswerType.COUNT) is True
    assert holds_fact("64 MB chunks are much larger than file system blocks.", AnswerType.COUNT) is True


def test_capitalised_words_the_passages_write_in_lower_case_name_no_one() -> None:
    # eval/dev-nearmiss.jsonl m18: "who created json" was met by "JavaScript Object Notation".
    spec = (
        "JSON stands for JavaScript Object Notation. An object is written between curly brackets, and a "
        "notation for numbers follows the ECMAScript Language Specification; the language gives no dates."
    )
    check = check_answer_type("who created json", [spec])
    assert (check.expected, check.met) == (AnswerType.PERSON, False)
    # A name the text never writes in lower case is a name.
    credited = spec + " JSON was first specified by Douglas Crockford."
    assert check_answer_type("who created json", [credited]).met is True
    # Lower-case words of any passage shown count: one passage is a short sample.
    assert check_answer_type("who created json", ["JSON stands for JavaScript Object Notation.", spec]).met is False


def test_a_place_is_a_name_too() -> None:
    assert holds_fact("The company is based in Oslo.", AnswerType.PLACE, frozenset({"oslo"})) is False
    assert holds_fact("The results are shown in Figure 4.", AnswerType.PLACE) is False


def test_a_fact_the_question_states_itself_answers_nothing() -> None:
    byline = "Avery Li-Chun Wang avery@shazamteam.com Shazam Entertainment, Ltd."
    assert holds_fact(byline, AnswerType.PERSON, question="who co-founded shazam with avery wang") is False
    assert holds_fact(byline, AnswerType.PERSON, question="who wrote the paper") is True
    assert holds_fact("Most changes came after 2010.", AnswerType.YEAR, question="What changed after 2010?") is False
    assert holds_fact("It was released in 2012.", AnswerType.YEAR, question="What changed after 2010?") is True
    check = check_answer_type("Who founded Shazam together with Avery Wang?", [byline])
    assert (check.expected, check.met) == (AnswerType.PERSON, False)


def test_the_name_whose_version_is_asked_for_says_nothing_about_which() -> None:
    assert versioned_names("Which Prometheus version made native histograms stable?") == {"prometheus"}
    assert versioned_names("Which version of ZFP was used in the comparison?") == {"zfp"}
    assert versioned_names("In which release did it change?") == set()
    question = "Which Prometheus version made native histograms stable?"
    other = "The new UI that was released as part of Prometheus 3.0 is a complete rewrite."
    stated = "Native histograms are stable since Prometheus 3.8."
    assert check_answer_type(question, [other]).met is False
    assert check_answer_type(question, [other, stated]).met is True
    assert "prometheus" not in check_answer_type(question, [other]).key_words
