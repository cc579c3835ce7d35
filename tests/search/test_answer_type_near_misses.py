"""Wordings that let a near-miss question pass for answered, each from a logged case of a manual
(search/services/answer_type.py with search/services/answer_rules/en.py and pt.py): a superlative
asks for a limit, a text's length is counted in characters or bytes, a default asked of one thing is
not met by another thing's default, the oldest release that will do is met only by a bound, and a
manual's entry line names what the sentences under it describe."""

from __future__ import annotations

import pytest

from search.services.answer_type import AnswerType, check_answer_type, expected_type


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # A year asked of a release is a year, not the release.
        ("In which year was ImageMagick version 7 first released?", AnswerType.YEAR),
        ("For how many years does each SQLite release receive security fixes?", AnswerType.DURATION),
        ("How deeply can cluster subgraphs be nested?", AnswerType.COUNT),
        # A superlative of a quantity asks for a limit; "where … the highest id" asks for a place.
        ("What is the largest value allowed for arrowsize?", AnswerType.COUNT),
        ("What is the highest colour number accepted by the %F prompt escape?", AnswerType.COUNT),
        ("where does sqlite remember the highest id number it ever gave out", None),
        ("Which is the largest company in the survey?", None),
        # "What is the minimum GCC version": a release, after "is the" and up to three words.
        ("What is the minimum GCC version needed to compile ImageMagick 6?", AnswerType.VERSION),
        ("Which is the oldest Windows version that FFmpeg builds run on?", AnswerType.VERSION),
        ("Which database did the first version of Chubby use to store its data?", None),
    ],
)
def test_questions_that_ask_for_a_year_a_length_of_time_or_a_limit(question: str, kind: AnswerType | None) -> None:
    assert expected_type(question) == kind


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Em que posição fica a legenda de um gráfico por padrão?", AnswerType.DEFAULT),
        # "a que horas … por padrão" asks for a number.
        ("A que horas o apt-daily roda por padrão?", AnswerType.COUNT),
    ],
)
def test_portuguese_where_by_default_asks_what_holds_by_default(question: str, kind: AnswerType) -> None:
    assert expected_type(question, "pt") == kind


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        ("How deeply can cluster subgraphs be nested?", "Clusters may be nested up to 4 levels deep.", True),
        ("What is the largest value allowed for arrowsize?", "The maximum value allowed for arrowsize is 10.", True),
        ("What is the largest value allowed for arrowsize?", "An arrowsize of 2 draws arrowheads twice as large.",
         False),
        # "What is the smallest …" asks for the lower side.
        ("What is the smallest value allowed for arrowsize?", "The maximum value allowed for arrowsize is 10.",
         False),
    ],
)  # fmt: skip
def test_a_superlative_is_met_by_a_limit_of_its_side(question: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage]).met is met


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        ("What is the maximum length of a MIFF header?", "MIFF header files may contain more than one image.",
         False),
        ("What is the maximum length of a MIFF header?", "A MIFF header may hold at most 4096 characters.", True),
        ("What is the maximum length of a savepoint name?",
         "A string or BLOB length may be up to 2147483647 bytes.", False),  # no savepoint, no name
        # The length's own word may open the clause its limit ends.
        ("What is the maximum length n allowed in varchar(n)?",
         "For varchar(n), if specified, the length must be greater than zero and cannot exceed 10485760.", True),
        ("how long can the comment of a zip file be",
         "The comment of a zip file should be no longer than 65535 bytes.", True),
        # A length of time is no text's length.
        ("What is the default length of the grace period?", "The grace period is 45 seconds by default.", True),
    ],
)  # fmt: skip
def test_a_texts_length_is_counted_in_characters_or_bytes(question: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage]).met is met


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        ("What is the default maxiter of the sfdp layout?",
         'For sfdp, the default mode is "spring", which corresponds to a spring-electrical model.', False),
        ("What is the default maxiter of the sfdp layout?", 'By default, sfdp uses overlap="prism0".', False),
        ("What is the default maxiter of the sfdp layout?", "For sfdp, the default maxiter is 600.", True),
        ("What is the default time unit in the output of python -m timeit?",
         "By default, timeit() temporarily turns off garbage collection during the timing.", False),
        ("What is the default time unit in the output of python -m timeit?",
         "By default, timeit() prints the time in the unit that fits best.", True),
        # "What is the default?" names no thing: another word for it will do.
        ("Which number-up values does CUPS support, and what is the default?",
         "CUPS supports 1, 2, 4, 6, 9, and 16-Up formats; the default format is 1-Up.", True),
    ],
)  # fmt: skip
def test_a_default_asked_of_one_thing_is_not_met_by_another_things_default(
    question: str, passage: str, met: bool
) -> None:
    check = check_answer_type(question, [passage])
    assert (check.expected, check.met) == (AnswerType.DEFAULT, met)


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        ("Which minimum Visual Studio version is required to build ImageMagick on Windows?",
         "If you are using the Visual Studio 6.0 IDE, make sure no check is next to the format option.", False),
        ("Which minimum Visual Studio version is required to build ImageMagick on Windows?",
         "Building ImageMagick requires Visual Studio 2017 or later.", True),
        ("Which version of texi2html is needed to produce the HTML manual?",
         "To produce the HTML manual, upgrade to version 1.78 of texi2html if necessary.", True),
        # "Since which version is X required" asks when it came, not the oldest release that will do.
        ("Since which Python version is the digestmod argument of hmac.new() required?",
         "Deprecated since version 3.4, removed in version 3.8: MD5 as implicit default digest for digestmod.", True),
    ],
)  # fmt: skip
def test_the_oldest_release_that_will_do_is_met_only_by_a_bound(question: str, passage: str, met: bool) -> None:
    check = check_answer_type(question, [passage])
    assert (check.expected, check.met) == (AnswerType.VERSION, met)


CELLSPACING = (
    'CELLSPACING="value"\n\nSpecifies the space, in points, between cells and between a cell and the table '
    "border. The default is 2. The maximum value is 127.\n\n"
    'CELLPADDING="value"\n\nSpecifies the space, in points, between a cell\'s border and its content. The '
    "maximum value is 255."
)


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        ("What is the maximum CELLSPACING of a table in an HTML-like label?", CELLSPACING, True),
        # The next entry's limit is CELLPADDING's.
        ("What is the maximum CELLSPACING of a table in an HTML-like label?",
         CELLSPACING.split("\n\n", 2)[2], False),
        ("What is the typical default value of FUNCNEST?",
         "FUNCNEST <S>\n\nInteger. If greater than or equal to zero, the maximum nesting depth of shell functions. "
         "The default value is determined when the shell is configured, but is typically 500.", True),
        # An entry names a thing only as a whole name: "autovacuum" is not "autovacuum_naptime".
        ("How long does autovacuum take to process a 1 TB table?",
         "autovacuum_naptime (integer)\n\nSpecifies the minimum delay between runs on any given "
         "database. The default is one minute (1min).", False),
        # A capitalised word opens a title, no entry's name.
        ("Qual é o tamanho máximo da legenda?", "Legenda\n\nA entrada padrão é o cabeçalho da coluna, 12 pontos.",
         False),
        # "Default is 10 seconds." goes on about the sentence before it.
        ("What is the default Timeout of weboptions?",
         "'Timeout' — Specify the timeout value of weboptions for the connection in seconds.\n\n"
         "Default is 10 seconds.", True),
    ],
)  # fmt: skip
def test_a_manual_entrys_name_speaks_for_the_sentences_under_it(question: str, passage: str, met: bool) -> None:
    language = "pt" if "Qual" in question else "en"
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "language", "kind"),
    [
        # A way asked: "how does X handle" names a size it does not ask for.
        ("How does ppdc handle a Letter default media size in non-English PPD files?", "en", None),
        # "how much" of time or memory is no money, though "spend" or "cost" follows.
        ("how much ram does a single exemplar cost in prometheus", "en", AnswerType.DATA_SIZE),
        ("how much time do analysts spend on data cleaning", "en", AnswerType.DURATION),
        ("How much did the migration cost?", "en", AnswerType.MONEY),
        # The cost of doing something, or of one thing against another, is work, not money.
        ("What is the cost of maintaining an index on an expression?", "en", None),
        ("What is the cost of bzip2 compression compared with gzip?", "en", None),
        ("What is the cost of the commercial license?", "en", AnswerType.MONEY),
        # "the first production version of Dapper" is what used the probability asked for.
        ("What uniform sampling probability did the first production version of Dapper use?", "en", None),
        ("Which version of ZFP added the fixed-rate mode?", "en", AnswerType.VERSION),
        # A length a chain may get to is a number, not a time.
        ("how long can a chain of stored differences get at most when git packs objects", "en", AnswerType.COUNT),
        # Prices named, not asked for.
        ("Nos gráficos de cotações, de que lado ficam o eixo de preços e o eixo de volume?", "pt", None),
        ("Qual é o preço da licença comercial?", "pt", AnswerType.MONEY),
    ],
)
def test_what_a_question_asks_beside_the_words_it_names(question: str, language: str, kind: AnswerType | None) -> None:
    assert expected_type(question, language) == kind


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        ("Qual é o número de porta padrão do servidor MariaDB?", "pt",
         "A porta padrão dos bancos de dados MariaDB e MySQL é 3306.", True),
        ("Qual porta usa o syslog do servidor MariaDB por padrão?", "pt",
         "O porto padrão do servidor MariaDB é o de sempre.", False),
        ("Before which version could escaped newlines be used anywhere outside HTML strings in DOT?", "en",
         "Previous to 2.30, the language allowed escaped newlines to be used anywhere outside of HTML strings.",
         True),
        ("Since when must hmac.new() be given a digestmod?", "en",
         "Deprecated since version 3.4: calling hmac.new() without a digestmod.", True),
        ("How long is the matchparen search timeout?", "en", "The matchparen search uses a timeout of 300 msec.",
         True),
        ("Which fourcc is stored by default for MPEG-4?", "en",
         "The default fourcc for MPEG-4 will be 'FMP4'.", True),
    ],
)  # fmt: skip
def test_releases_ports_and_times_as_manuals_write_them(question: str, language: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        ("How many points does locator() collect by default before it stops?", "en",
         "locator() continues until n (default 512) points have been selected.", True),
        # A list's number counts nothing: "1)" opens no aside.
        ("How many transactions per second can the network process?", "en",
         "1) New transactions are broadcast to all nodes.", False),
        # The noun after an aside is read only where the number closes it; before, as ever.
        ("How many replica servers does a Chubby cell consist of?", "en",
         "A Chubby cell consists of a small set of servers (typically five) known as replicas.", True),
        ("How many cores does the RISC-V virt machine support?", "en",
         "Up to 8 generic RV32GC/RV64GC cores, with optional extensions.", True),
        ("Quantos tipos diferentes de parênteses há no editor de fórmulas?", "pt",
         "Existem 8 (oito) diferentes tipos de parênteses disponíveis no editor de fórmulas.", True),
        ("Quantos tipos diferentes de parênteses há no editor de fórmulas?", "pt",
         "O editor de fórmulas tem 3 tipos de escala.", False),
    ],
)  # fmt: skip
def test_what_a_number_counts_past_an_aside_a_slash_or_an_adjective(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        # "The default is three." goes on from the sentence naming what it counts.
        ("how many autovacuum processes can run at once by default",
         "Specifies the maximum number of autovacuum processes that may be running at any one time. "
         "The default is three.", True),
        ("how many autovacuum processes can run at once by default",
         "Specifies the maximum number of autovacuum tables that may be vacuumed at any one time. "
         "The default is three.", False),
    ],
)  # fmt: skip
def test_a_bare_number_counts_what_the_sentence_before_names(question: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage]).met is met
