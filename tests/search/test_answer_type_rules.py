"""Answer-type rules per language behind one interface (search/services/answer_type.py
`AnswerTypeRules`, search/services/answer_rules/en.py and pt.py), and the rules that keep manuals
honest: a named setting's default or limit is met only where that setting is named with a value,
and "how many X" only by a number that counts X."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from search.services.answer_text import setting_names
from search.services.answer_type import (
    AnswerType,
    check_answer_type,
    expected_type,
    rules_for,
)
from search.services.gate import AnswerState, GateInputs, decide

RULES_DIR = Path(__file__).resolve().parents[2] / "search" / "services" / "answer_rules"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Quantos parâmetros tem o modelo de linguagem?", AnswerType.COUNT),
        ("Quando foi lançado o instalador gráfico?", AnswerType.YEAR),
        ("Em que ano saiu a primeira versão estável?", AnswerType.YEAR),
        ("Quem escreveu o manual de referência?", AnswerType.PERSON),
        ("Qual é o valor padrão de max_connections?", AnswerType.COUNT),
        ("Qual a percentagem de pedidos que falham?", AnswerType.PERCENTAGE),
        ("Quantos segundos demora o arranque?", AnswerType.DURATION),
        ("Quanta memória usa o índice?", AnswerType.DATA_SIZE),
        # O tamanho de um ficheiro ou de um download é uma quantidade de dados; ordenar por ele não pede nenhuma.
        ("Qual é o tamanho máximo de ficheiro no sistema de ficheiros?", AnswerType.DATA_SIZE),
        ("Qual é o tamanho do download do instalador?", AnswerType.DATA_SIZE),
        ("Qual é o tamanho da imagem ISO de instalação?", AnswerType.DATA_SIZE),
        ("Qual opção ordena a listagem pelo tamanho dos arquivos?", None),
        ("Quanto custa o serviço por mês?", AnswerType.MONEY),
        ("Onde fica sediada a fundação?", AnswerType.PLACE),
        ("Onde está localizado o centro de dados?", AnswerType.PLACE),
        ("onde fica o primeiro programa que o kernel corre", None),  # a path: "where is", not a place
        ("Onde ficam guardadas as chaves do apt?", None),
        ("Como configuro a rede sem fios?", None),
        ("Porque é que a pesquisa híbrida ajuda?", None),
    ],
)
def test_portuguese_questions_get_their_kind_of_fact(question: str, expected: AnswerType | None) -> None:
    assert rules_for("pt").kind(question) == expected
    assert expected_type(question, "pt-BR") == expected  # a regional code picks the language's rules


def test_english_stays_the_default_and_a_language_without_rules_asks_for_nothing() -> None:
    assert rules_for().language == "en"
    assert expected_type("What year was the protocol published?") == AnswerType.YEAR
    # English wording read with Portuguese rules, or any question in a language without rules: no kind.
    assert expected_type("What year was the protocol published?", "pt") is None
    assert expected_type("In welchem Jahr erschien das Protokoll?", "de") is None
    assert check_answer_type("In welchem Jahr erschien das Protokoll?", ["Kein Jahr."], "de").unmet is None


def test_portuguese_passages_are_judged_with_portuguese_rules() -> None:
    question = "Quantos parâmetros tem o modelo?"
    counted = "O modelo tem sete mil milhões de parâmetros, treinados em texto público."
    other = "Há duas funções internas que o modelo usa com frequência."
    assert check_answer_type(question, [counted], "pt").met is True
    assert check_answer_type(question, [other], "pt").unmet == AnswerType.COUNT
    who = "Quem escreveu o manual?"
    assert check_answer_type(who, ["O manual foi escrito por Osamu Aoki em 2003."], "pt").met is True
    assert check_answer_type(who, ["O manual descreve a instalação do Sistema."], "pt").met is False
    when = "Quando foi lançado o instalador?"
    assert check_answer_type(when, ["O instalador foi lançado a 14 de agosto de 2005."], "pt").met is True
    assert check_answer_type(when, ["O instalador foi reescrito várias vezes."], "pt").met is False
    # The year of a copyright notice is the page's, not the installer's.
    assert check_answer_type(when, ["Copyright © 2004-2023 o instalador e os seus autores."], "pt").met is False


def test_a_satisfied_sentence_is_judged_by_the_interface_alone() -> None:
    english = rules_for("en")
    when = english.asked(AnswerType.YEAR, "When was it published?")
    assert english.satisfied(when, "It was published in 2008.")
    assert not english.satisfied(when, "It was published later.")
    portuguese = rules_for("pt")
    share = portuguese.asked(AnswerType.PERCENTAGE, "Que percentagem dos pedidos falha?")
    assert portuguese.satisfied(share, "Falham 12% dos pedidos.")
    assert not portuguese.satisfied(share, "Falham poucos pedidos.")


def test_what_a_question_asks_is_read_once_for_every_sentence() -> None:
    english = rules_for("en")
    value = english.asked(AnswerType.COUNT, "What is the default value of listen_addresses?")
    assert value.settings == ("listen_addresses",)
    assert value.default
    assert value.value_in_words
    assert not value.limit_sides
    limit = english.asked(AnswerType.COUNT, "What is the maximum value of max_connections?")
    assert limit.settings == ("max_connections",)
    assert limit.limit_sides == {"upper"}
    assert not limit.value_in_words
    since = english.asked(AnswerType.VERSION, "Since which version of SQLite does it work?")
    assert since.since_version
    assert since.names_release
    assert not since.since_when
    portuguese = rules_for("pt")
    counted = portuguese.asked(AnswerType.COUNT, "Quantos tipos de transição existem no máximo?")
    assert counted.counted is not None
    assert counted.limit_sides == {"upper"}
    assert not counted.default
    assert not counted.settings


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("What is the default of wal_buffers?", ("wal_buffers",)),
        ("what's the default value of query.max-samples", ("query.max-samples",)),
        ("What does --rules.max-concurrent-evals default to?", ("rules.max-concurrent-evals",)),
        ("Is the read-only mode on by default in version 3.0?", ()),  # a hyphenated word and a number
        ("What is the default block size, e.g. in tables?", ()),
        ("What is the default value of submodule.<name>.update?", ("submodule.<name>.update",)),  # a placeholder
        ("Does a <name> tag hold a.b?", ()),
    ],
)
def test_a_setting_is_an_identifier_not_a_word_or_a_number(question: str, names: tuple[str, ...]) -> None:
    assert setting_names(question) == names


def test_a_settings_default_is_met_only_where_the_setting_is_named_with_a_value() -> None:
    question = "What is the default of wal_buffers?"
    assert expected_type(question) == AnswerType.COUNT
    named_without_value = "The wal_buffers setting sizes the shared memory used for WAL data not yet written."
    another_settings_value = "wal_buffers is read at start; the default value of wal_writer_delay is 200 milliseconds."
    unnamed_value = "The default setting of -1 selects a size equal to 1/32nd of shared memory."
    check = check_answer_type(question, [named_without_value, another_settings_value, unnamed_value])
    assert (check.expected, check.unmet, check.key_words) == (AnswerType.COUNT, AnswerType.COUNT, ("wal_buffers",))
    assert check_answer_type(question, ["The default value of wal_buffers is -1."]).met is True
    # A default stated in words counts for a default: the value of a setting need not be a number.
    assert check_answer_type("What does archive_mode default to?", ["archive_mode is off by default."]).met is True
    assert check_answer_type("What does archive_mode default to?", ["archive_mode can be set to on."]).met is False
    flag = "What is the default value of --rules.max-concurrent-evals?"
    stated = "Configure it with --rules.max-concurrent-evals, which is set to 4 by default."
    assert check_answer_type(flag, [stated]).met is True


def test_a_settings_number_is_not_met_by_a_default_said_without_a_value() -> None:
    # Asked for a number, the setting's value must be one; "a reasonable default is used" states none.
    question = "What is the default number of bytes of a token from secrets.token_bytes()?"
    entry = "secrets.token_bytes([nbytes=None])\n\nIf nbytes is None or not supplied, a reasonable default is used."
    assert check_answer_type(question, [entry]).met is False
    assert check_answer_type(question, [entry.replace("a reasonable default is used", "32 bytes are used")]).met
    # Asked what it is by default, a word will do, but not "the default is taken from" another place.
    words = "What is the default value of pack.windowMemory?"
    assert check_answer_type(words, ["pack.windowMemory defaults to 0, meaning no limit."]).met is True
    assert check_answer_type(words, ["pack.windowMemory: the default is taken from the configuration."]).met is False


def test_an_unmet_settings_default_is_a_caveat_naming_the_setting() -> None:
    check = check_answer_type("What is the default of autovacuum_naptime?", ["autovacuum_naptime is a setting."])
    decision = decide(
        GateInputs(0.3, 0.65, unmet_answer_type=check.unmet.value, answer_type_words=check.key_words)  # type: ignore[union-attr]
    )
    assert decision.state == AnswerState.CAVEAT
    assert "where it mentions 'autovacuum_naptime'" in decision.message


def test_how_many_is_met_only_by_a_number_that_counts_what_is_asked() -> None:
    question = "How many WAL segment files does the server keep?"
    assert check_answer_type(question, ["There are two commonly used internal WAL functions."]).met is False
    assert check_answer_type(question, ["The server keeps at least 64 WAL segment files."]).met is True
    assert check_answer_type(question, ["WAL segment files: the server keeps 3 of them."]).met is True
    times = "How many times was the browser exploited during the contest?"
    assert check_answer_type(times, ["The browser was exploited four times during the contest."]).met is True


def test_no_company_or_product_name_sits_inside_a_rule() -> None:
    rules = "\n".join(
        line for module in sorted(RULES_DIR.glob("*.py")) for line in module.read_text(encoding="utf-8").splitlines()
    )
    code = re.sub(r"(^|\s)#.*$", "", rules, flags=re.MULTILINE)  # comments may give examples
    code = re.sub(r'"""[\s\S]*?"""', "", code)  # so may docstrings
    for name in ("Google", "Amazon", "Facebook", "Microsoft", "Yahoo", "Prometheus", "PostgreSQL", "Debian"):
        assert name not in code


LVM = "Quantos volumes lógicos pode ter um grupo de volumes no LVM2?"
EXT4 = "Qual é o tamanho de bloco predefinido do ext4?"
SYSFS = "Em que versão do kernel Linux foi introduzido o sysfs?"
PIPEWIRE = "Em que ano foi lançado o pipewire?"
MC = "Quem criou o Midnight Commander?"
TMPFS = "Qual é o tamanho máximo de um sistema de ficheiros tmpfs?"
RSYNC = "Qual é a porta TCP predefinida do daemon rsync?"
FOOTNOTE_FONT = "Qual é o tamanho de fonte padrão do texto das notas de rodapé no Writer?"
PACKAGES = "pipewire | V:235, I:298 | 97 | motor de áudio\npipewire-bin | V:251, I:298 | 1537 | motor de áudio"


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        # "um"/"uma" is the article as often as the number, and "ext4" or "LVM2" name things.
        (LVM, "LVM2 é um gestor de volumes lógicos para o kernel Linux.", False),
        (LVM, "O LVM2 aceita até 255 volumes lógicos por grupo.", True),
        (EXT4, "O ext4 usa blocos, como o ext3.", False),
        (EXT4, "O ext4 usa por omissão blocos de 4096 bytes.", True),
        # A heading's number, a manual page's section, a table cell of bare numbers (a package's size).
        (SYSFS, "1.2.12. procfs e sysfs", False),
        (SYSFS, "O sysfs foi introduzido no kernel Linux 2.6.0.", True),
        ("Quantos volumes lógicos mostra o lvs?", "lvs(8): Reporta informação acerca de volumes lógicos", False),
        (PIPEWIRE, PACKAGES, False),
        (PIPEWIRE, "pipewire | lançado em 2017 | motor de áudio", True),
        # A capitalised phrase in quotation marks is no person's name.
        (MC, 'Midnight Commander (MC) é um "Canivete Suíço" GNU para a consola Linux.', False),
        (MC, "O Midnight Commander foi escrito por Miguel de Icaza.", True),
        # "tmpfs", "rsync" name the subject: a figure beside "ficheiros" or "TCP" alone is another's.
        (TMPFS, "No sistema de ficheiros FAT o tamanho máximo de ficheiro é (2^32 - 1) bytes.", False),
        (TMPFS, "O tmpfs pode crescer até metade da RAM, 50 %.", True),
        (RSYNC, "O exim4(8) lida com as ligações TCP para a porta SMTP (25).", False),
        (RSYNC, "O daemon rsync escuta por padrão na porta TCP 873.", True),
        # A key or identifier that ends in digits ("F11", "ext4") is no number of anything.
        (FOOTNOTE_FONT, "Para alterar uma nota de rodapé, pressione F11 para abrir a janela Estilos.", False),
        (FOOTNOTE_FONT, "O texto das notas de rodapé usa por padrão fonte de 10 pontos.", True),
        # A name in brackets is another name for the words before it.
        (
            "Qual é o tamanho de um pipe com nome (FIFO)?",
            "O tamanho do pipe é sempre zero, entre dois processos.",
            True,
        ),
    ],
)
def test_a_portuguese_fact_must_be_about_what_the_question_asks(question: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage], "pt").met is met


def test_the_name_rule_is_portuguese_and_a_port_question_asks_for_a_port() -> None:
    assert expected_type(RSYNC, "pt") == AnswerType.PORT
    english = "What is the maximum size of a tmpfs file system?"  # English keys: any of them will do
    assert check_answer_type(english, ["On a FAT file system the maximum file size is 4 GiB."]).met is True


@pytest.mark.parametrize(
    ("question", "language", "expected"),
    [
        ("What is the keyboard shortcut to insert a footnote?", "en", AnswerType.KEY),
        ("Which key combination repeats the last command?", "en", AnswerType.KEY),
        ("Is there a shortcut for merging cells?", "en", AnswerType.KEY),
        ("Which key encrypts the backups?", "en", None),  # a key of data, not one to press
        ("Qual é o atalho de teclado para inserir uma nota de rodapé?", "pt", AnswerType.KEY),
        ("Que tecla uso pra repetir o último comando?", "pt", AnswerType.KEY),
        ("Qual a combinação de teclas para unir células?", "pt", AnswerType.KEY),
        ("Qual é a tecla de atalho padrão para guardar?", "pt", AnswerType.KEY),  # not a setting's default
        ("Como crio um atalho para o programa no ambiente de trabalho?", "pt", None),  # a desktop link
        ("Que chave assina os ficheiros Release?", "pt", None),
    ],
)
def test_a_question_about_a_key_to_press_asks_for_a_key(question: str, language: str, expected: AnswerType) -> None:
    assert expected_type(question, language) == expected


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        ("What is the keyboard shortcut to insert a footnote?", "en", "To insert a footnote, press Ctrl+Alt+F.", True),
        ("What is the keyboard shortcut to insert a footnote?", "en", "Press F11 to open the footnote styles.", True),
        (
            "What is the keyboard shortcut to insert a footnote?",
            "en",
            "A footnote is inserted with Insert - Footnote.",
            False,
        ),
        ("What is the keyboard shortcut to insert a footnote?", "en", "Press Ctrl+S to save the document.", False),
        ("Which key combination cancels an edit?", "en", "To cancel the edit, press the Escape key.", True),
        ("Which key combination cancels an edit?", "en", "To cancel the edit, press CTRL-C.", True),
        ("Which key combination cancels an edit?", "en", "Super-resolution edits cancel noise.", False),
        ("Que teclas alternam as fontes instaladas?", "pt", "Alterne as fontes instaladas com SUPER-ESPAÇO.", True),
        (
            "Qual é o atalho de teclado para inserir uma nota de rodapé?",
            "pt",
            "Para inserir uma nota de rodapé, pressione Ctrl+Alt+F.",
            True,
        ),
        (
            "Qual é o atalho de teclado para inserir uma nota de rodapé?",
            "pt",
            "Para inserir uma nota de rodapé escolha Inserir - Nota de rodapé.",
            False,
        ),
        ("Que tecla apaga a nota de rodapé?", "pt", "Para apagar a nota de rodapé, prima a tecla Delete.", True),
        ("Que tecla apaga a nota de rodapé?", "pt", "Para apagar a nota de rodapé, escolha Editar - Excluir.", False),
        (
            "Qual a combinação de teclas para mover o diapositivo?",
            "pt",
            "Mova o diapositivo com Comando+Opção+Seta no macOS.",
            True,
        ),
    ],
)
def test_a_key_is_met_only_by_a_key_to_press_beside_the_subject(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert check_answer_type(question, [passage], language).met is met


# What something is by default, when that is no number: (question, language, kind, passage, met); a row
# without a passage checks the kind alone.
# fmt: off
DEFAULT_CASES = [
    ("Qual é a cor padrão da grelha?", "pt", AnswerType.COLOUR, "A cor padrão da grelha é cinzento claro.", True),
    # A colour asked for is met by a colour; the question's own words ("a cor padrão") state none.
    ("Qual é a cor padrão da grelha?", "pt", AnswerType.COLOUR, "Pode alterar a cor padrão da grelha aqui.", False),
    ("Qual é a cor padrão da grelha?", "pt", AnswerType.COLOUR, "Por padrão, o texto fica à esquerda.", False),
    ("Que fonte o Writer usa por padrão nas notas de rodapé?", "pt", AnswerType.DEFAULT,
     "Por padrão, as notas de rodapé usam a fonte Liberation Serif.", True),
    ("Que fonte o Writer usa por padrão nas notas de rodapé?", "pt", AnswerType.DEFAULT,
     "As notas de rodapé são numeradas automaticamente no Writer.", False),
    ("Qual é a função padrão da consolidação?", "pt", AnswerType.DEFAULT,
     'A função "Soma" é a função padrão da consolidação.', True),
    ("Qual é a umask predefinida no Debian Edu?", "pt", AnswerType.DEFAULT,
     "O Debian Edu usa 002 como predefinição na umask.", True),
    # "The default is taken from …" says where the default comes from, not what it is.
    ("Which codec does the server use by default?", "en", AnswerType.DEFAULT,
     "The default is the Opus codec for the server.", True),
    ("Which codec does the server use by default?", "en", AnswerType.DEFAULT,
     "The default is taken from the codec configuration of the server.", False),
    ("Qual é o ambiente de trabalho predefinido da escola?", "pt", AnswerType.DEFAULT,
     "A escola optou pelo Xfce como ambiente de trabalho predefinido.", True),
    ("Qual é o ambiente de trabalho predefinido da escola?", "pt", AnswerType.DEFAULT,
     "Como mudar o ambiente de trabalho predefinido da escola.", False),
    ("Qual é a configuração padrão do atributo Protegida?", "pt", AnswerType.DEFAULT,
     "Na condição padrão, toda célula possui o atributo Protegida.", True),
    ("Qual é a camada de trabalho padrão de um desenho?", "pt", AnswerType.DEFAULT,
     "A camada Esquema é a área de trabalho padrão de um desenho.", True),
    # "padrões", the plural Brazilian texts write after a plural noun (the Scilab help's own words).
    ("Quais são os valores padrão das tolerâncias rtol e atol da função ode?", "pt", AnswerType.DEFAULT,
     "Os valores padrões para rtol e atol são respectivamente rtol=1.d-5 e atol=1.d-7.", True),
    ("Quais são os valores padrão das tolerâncias rtol e atol da função ode?", "pt", AnswerType.DEFAULT,
     "Os valores de rtol e atol podem ser escalares ou vetores.", False),
    ("Qual o formato predefinido ao exportar?", "pt", AnswerType.DEFAULT, None, None),
    ("Que codificação usa o servidor por omissão?", "pt", AnswerType.DEFAULT, None, None),
    ("Qual é o período de tolerância padrão da cota?", "pt", AnswerType.DEFAULT, None, None),
    ("Qual é o período padrão da cota?", "pt", AnswerType.COUNT, None, None),  # a period is a number
    ("Qual é o tamanho padrão da página?", "pt", AnswerType.COUNT, None, None),
    ("Quantos segundos espera o cliente por padrão?", "pt", AnswerType.DURATION, None, None),
    ("Com que frequência corre a tarefa por omissão?", "pt", AnswerType.COUNT, None, None),  # how often
    ("Qual opção do Filtro padrão remove duplicados?", "pt", None, None, None),  # a dialog so named
    ("Em que ficheiro fica o tamanho de papel predefinido?", "pt", None, None, None),  # asks for a file
    ("Que algoritmo usa password_encryption por omissão?", "pt", AnswerType.COUNT, None, None),  # a setting
    ("What is the default transaction isolation level?", "en", AnswerType.DEFAULT,
     "Read Committed is the default isolation level.", True),
    ("What is the default transaction isolation level?", "en", AnswerType.DEFAULT,
     "The server supports four transaction isolation levels.", False),
    ("Which compression codec does Parquet use by default?", "en", AnswerType.DEFAULT,
     "Parquet compresses with Snappy by default.", True),
    ("Which compression codec does Parquet use by default?", "en", AnswerType.DEFAULT,
     "Parquet lets you choose the compression codec.", False),
    ("What is the default block size of a table file?", "en", AnswerType.COUNT, None, None),
    ("How many seconds does the client wait by default?", "en", AnswerType.DURATION, None, None),
    ("Which algorithm does password_encryption use by default?", "en", AnswerType.COUNT, None, None),
    ("Which option of the Default filter removes duplicates?", "en", None, None, None),
]
# fmt: on


@pytest.mark.parametrize(("question", "language", "kind", "passage", "met"), DEFAULT_CASES)
def test_a_default_that_is_no_number_is_met_only_by_a_sentence_stating_one(
    question: str, language: str, kind: AnswerType | None, passage: str | None, met: bool | None
) -> None:
    assert expected_type(question, language) == kind
    if passage is not None:
        assert check_answer_type(question, [passage], language).met is met


# What a count question counts, and whether a number in a sentence counts it: (question, language, passage, met).
# fmt: off
COUNT_CASES = [
    # A Portuguese noun comes before its adjectives: "três" counts the components, not the secondary flares.
    ("Quantos clarões secundários o filtro desenha?", "pt",
     "O filtro desenha três componentes: a luz central, os raios e os clarões secundários.", False),
    ("Quantos clarões secundários o filtro desenha?", "pt", "O filtro desenha 12 clarões secundários.", True),
    # Levels of transparency are no levels of undo.
    ("Quantos níveis de desfazer o editor guarda?", "pt", "O editor guarda 256 níveis de transparência.", False),
    ("Quantos níveis de desfazer o editor guarda?", "pt", "O editor guarda 20 níveis de desfazer.", True),
    ("How many levels of undo does the editor keep?", "en", "The editor keeps 256 levels of transparency.", False),
    ("How many levels of undo does the editor keep?", "en", "The editor keeps 20 levels of undo.", True),
    # Another name in brackets is counted too; a number of something else beside it is not.
    ("Quantas barras (intervalos) o histograma usa?", "pt", "O histograma usa 256 intervalos.", True),
    ("Quantas barras (intervalos) o histograma usa?", "pt",
     "O histograma mostra a mediana num intervalo de 100 valores.", False),
    # A count of kinds of X is a count of X; a number that names a kind ("tipo 1", "Type 1") counts nothing.
    ("Quantos tipos de transição se podem aplicar entre segmentos da curva?", "pt",
     "Podem ser aplicadas três transições diferentes entre segmentos da curva.", True),
    ("Quantas fontes o sistema instala?", "pt", "O sistema instala fontes Type 1 (tipo 1).", False),
    ("How many fonts does the system install?", "en", "The system installs fonts of Type 1.", False),
    # "the number of X" counts X.
    ("Qual é o número padrão de peças do filtro?", "pt", "Pode escolher entre dois tipos de quebra-cabeça no filtro.",
     False),
    ("Qual é o número padrão de peças do filtro?", "pt", "O filtro corta por padrão a imagem em 16 peças.", True),
    ("What is the default number of pieces of the filter?", "en", "The filter offers two kinds of puzzle.", False),
    ("What is the default number of pieces of the filter?", "en", "By default it cuts the image into 16 pieces.", True),
    # "uma" is the number one only where the sentence says so ("só uma", "de cada vez").
    ("Quantas seleções flutuantes pode ter uma imagem?", "pt",
     "Só se pode ter uma seleção flutuante de cada vez por imagem.", True),
    ("Quantas seleções flutuantes pode ter uma imagem?", "pt",
     "Uma seleção flutuante é uma camada temporária da imagem.", False),
    # The number after what the counted noun is of: "a falha de dois discos" counts disk failures.
    ("A quantas falhas de disco pode sobreviver um array RAID6?", "pt",
     "Um array RAID6 pode sobreviver à falha de dois discos.", True),
    ("A quantas falhas de disco pode sobreviver um array RAID6?", "pt",
     "Um array RAID6 usa a paridade de dois discos.", False),
    # "no máximo", "maximum" ask for a limit: a number that is none does not answer.
    ("Quantas camadas no máximo pode ter um desenho?", "pt", "Um desenho novo tem 3 camadas.", False),
    ("Quantas camadas no máximo pode ter um desenho?", "pt", "Um desenho pode ter até 255 camadas.", True),
    ("What is the maximum number of layers in a drawing?", "en", "A new drawing has 3 layers.", False),
    ("What is the maximum number of layers in a drawing?", "en", "A drawing holds up to 255 layers.", True),
    # "quantos e quais" asks for the formats' count and names: the noun is past "e quais".
    ("Em quantos e quais formatos os manuais são distribuídos?", "pt",
     "Os manuais vêm em três formatos: HTML dividido, HTML grande e PDF.", True),
    # … and past "e quais são os": the servers are counted, not "são".
    ("Quantos e quais são os servidores principais do pacote samba?", "pt",
     "O pacote samba contém os dois principais servidores, smbd e nmbd.", True),
    ("Quantos e quais são os servidores principais do pacote samba?", "pt",
     "O pacote samba são 2 ficheiros de configuração e os servidores principais.", False),
]
# fmt: on


@pytest.mark.parametrize(("question", "language", "passage", "met"), COUNT_CASES)
def test_a_count_is_met_only_by_a_number_that_counts_the_asked_noun(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert expected_type(question, language) == AnswerType.COUNT
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        ("Qual é a versão mínima do iOS exigida pela aplicação?", "pt",
         "A aplicação precisa de Android 2.3 ou superior, ou iOS com Bluetooth.", False),
        ("Qual é a versão mínima do iOS exigida pela aplicação?", "pt",
         "A aplicação precisa de iOS 9.0 ou superior.", True),
        # The name asked about, beside its version, says what it is about.
        ("Qual é a versão mínima do Android exigida pela aplicação?", "pt",
         "Um telefone com Android 2.3 ou superior, ou iOS com Bluetooth.", True),
        ("What is the minimum version of iOS the app needs?", "en",
         "The app needs Android 2.3 or later, or iOS with Bluetooth.", False),
        ("What is the minimum version of iOS the app needs?", "en", "The app needs iOS 9.0 or later.", True),
    ],
)  # fmt: skip
def test_a_version_of_another_name_does_not_answer(question: str, language: str, passage: str, met: bool) -> None:
    assert expected_type(question, language) == AnswerType.VERSION
    assert check_answer_type(question, [passage], language).met is met


# A folder, a port, a file name extension, a colour: (question, language, kind, passage, met); a row without a
# passage checks the kind alone.
# fmt: off
VALUE_CASES = [
    ("Em que pasta ficam os módulos do editor?", "pt", AnswerType.PATH,
     "Os módulos do editor ficam em /usr/lib/editor/modules.", True),
    ("Em que pasta ficam os módulos do editor?", "pt", AnswerType.PATH,
     "Para cada módulo do editor, o caminho de pastas até o arquivo é exibido.", False),
    ("Qual é o diretório de configuração do editor?", "pt", AnswerType.PATH,
     "A configuração do editor fica em C:\\Users\\nome\\AppData.", True),
    ("In which directory are the editor's modules kept?", "en", AnswerType.PATH,
     "The editor keeps its modules in ~/.config/editor/modules.", True),
    ("In which directory are the editor's modules kept?", "en", AnswerType.PATH,
     "The editor lists the modules and/or their folders.", False),
    ("Que porta de rede usa o servidor remoto?", "pt", AnswerType.PORT,
     "O servidor remoto escuta na porta 1599.", True),
    ("Que porta de rede usa o servidor remoto?", "pt", AnswerType.PORT,
     "O servidor remoto aceita 2 dispositivos por rede.", False),
    ("Which port does the remote server listen on?", "en", AnswerType.PORT,
     "The remote server listens on port 1599.", True),
    ("Which port does the remote server listen on?", "en", AnswerType.PORT,
     "The remote server accepts 2 devices at once.", False),
    ("Which port does the remote server listen on?", "en", AnswerType.PORT,
     "The remote server answers on localhost:8080.", True),
    # A constant's name quoted between "port" and the number, as a manual writes it.
    ("Which port does the remote server listen on?", "en", AnswerType.PORT,
     'The remote server normally listens on port "DEFAULT_SERVER_PORT" aka 9418.', True),
    ("Que porta de rede usa o servidor remoto?", "pt", AnswerType.PORT,
     'O servidor remoto escuta na porta "PORTA_PADRAO" (1599).', True),
    # The value of a configuration word naming the protocol; "suporta" holds no port.
    ("Que linha ativar para o servidor de registos aceitar mensagens, e em que porta UDP?", "pt", AnswerType.PORT,
     "É suficiente ativar as entradas do servidor de registos ($ModLoad imudp e $UDPServerRun 514).", True),
    ("Em que porta escuta o servidor de registos?", "pt", AnswerType.PORT,
     "O servidor de registos suporta 10 clientes.", False),
    ("Que extensão têm os ficheiros de gradientes?", "pt", AnswerType.EXTENSION,
     "Os ficheiros de gradientes são guardados com a extensão .sog.", True),
    ("Que extensão têm os ficheiros de gradientes?", "pt", AnswerType.EXTENSION,
     "Pode guardar e carregar ficheiros de gradientes.", False),
    ("What extension do gradient files have?", "en", AnswerType.EXTENSION, "Gradient files are saved as *.sog.", True),
    ("What extension do gradient files have?", "en", AnswerType.EXTENSION,
     "Gradient files can be saved, e.g. to share them.", False),
    ("Que extensão acrescenta a verificação ortográfica?", "pt", None, None, None),  # an add-on, not a file's
    ("Qual é a cor padrão das linhas da grelha?", "pt", AnswerType.COLOUR,
     "Por padrão a grelha não é visível até a ativar.", False),
    ("Qual é a cor padrão das linhas da grelha?", "pt", AnswerType.COLOUR, "As linhas da grelha são pretas por padrão.",
     True),
    ("What is the default colour of the grid lines?", "en", AnswerType.COLOUR, "By default the grid is not visible.",
     False),
    ("What is the default colour of the grid lines?", "en", AnswerType.COLOUR,
     "The grid lines are drawn in #808080 by default.", True),
]
# fmt: on


@pytest.mark.parametrize(("question", "language", "kind", "passage", "met"), VALUE_CASES)
def test_a_folder_port_extension_or_colour_is_met_only_by_a_value_of_that_shape(
    question: str, language: str, kind: AnswerType | None, passage: str | None, met: bool | None
) -> None:
    assert expected_type(question, language) == kind
    if passage is not None:
        assert check_answer_type(question, [passage], language).met is met


RELEASE = "Quando foi lançada a versão 0.54 do editor Pintor?"
RELEASED = "A versão 0.54 foi lançada em fevereiro de 1996, e chamou atenção."


@pytest.mark.parametrize(
    ("section", "met"),
    [
        # The manual names its subject once, in the heading the sentence sits under.
        ("2. Os primeiros dias do Pintor", True),
        ("Capítulo 1 > 1.3. História do Pintor", True),
        # Only the sentence's own heading speaks for it: a chapter above it covers much else.
        ("Manual do Pintor > 4. Outros programas", False),
        ("4. Outros programas", False),
    ],
)
def test_a_sentence_is_about_the_subject_its_own_heading_names(section: str, met: bool) -> None:
    assert check_answer_type(RELEASE, [RELEASED], "pt", sections=[section]).met is met


def test_a_heading_speaks_only_for_a_sentence_repeating_the_questions_figure() -> None:
    # Under a tool's heading, the key of another of its commands is not the key asked for.
    shortcut = "Qual é o atalho de teclado do comando Ampliar seleção do Pintor?"
    other_key = "Para desfazer o último passo, pressione Ctrl+Z."
    assert check_answer_type(shortcut, [other_key], "pt", sections=["5.5. Pintor"]).met is False
    assert check_answer_type(RELEASE, [RELEASED.replace("0.54", "0.60")], "pt", sections=["Pintor"]).met is False


def test_a_heading_never_stands_in_for_the_fact() -> None:
    check = check_answer_type(RELEASE, ["A versão 0.54 foi um lançamento beta."], "pt", sections=["Pintor"])
    assert check.met is False


@pytest.mark.parametrize(("section", "met"), [("17.2.1 syslogd", True), ("17.3 logger", False), ("", False)])
def test_a_name_its_own_heading_says_need_not_be_in_the_sentences_under_it(section: str, met: bool) -> None:
    """A manual lists a tool's options under the tool's heading and names it nowhere else; the
    sentence must still say another word of the question (the heading says only the name)."""
    question = "Por qual porta o syslogd recebe mensagens da rede?"
    passage = "-r\n\nPermite o recebimento de mensagens através da rede através da porta UDP 514."
    assert check_answer_type(question, [passage], "pt", sections=[section]).met is met
    # It goes on about the option the sentence before it describes, there too.
    question = "Qual é o intervalo padrão em que o syslogd grava a mensagem --MARK--?"
    passage = (
        "-m [minutos]\n\nIntervalo em minutos que o syslog mostrará a mensagem --MARK--. O valor padrão é 20 minutos."
    )
    assert check_answer_type(question, [passage], "pt", sections=[section]).met is met
    unrelated = "-p [soquete]\n\nEspecifica um soquete UNIX alternativo. O valor padrão é /dev/log."
    assert check_answer_type(question, [unrelated], "pt", sections=[section]).met is False


@pytest.mark.parametrize(
    ("question", "language", "met"),
    [
        ("Por qual porta TCP o syslogd recebe mensagens da rede?", "pt", False),
        ("Por qual porta UDP o syslogd recebe mensagens da rede?", "pt", True),
        ("Por qual porta o syslogd recebe mensagens da rede?", "pt", True),
        ("Which TCP port does syslogd receive network messages on?", "en", False),
        ("Which UDP port does syslogd receive network messages on?", "en", True),
    ],
)
def test_a_port_of_one_transport_is_not_the_port_of_another(question: str, language: str, met: bool) -> None:
    passage = {
        "pt": "O syslogd permite o recebimento de mensagens através da rede através da porta UDP 514.",
        "en": "With -r, syslogd receives messages from the network on UDP port 514.",
    }[language]
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        ("Qual a duração da versão infantil da ópera reorquestrada?",
         "A ópera foi reorquestrada numa versão infantil de 100 minutos.", True),
        ("Qual é a duração da versão infantil da ópera reorquestrada?",
         "A versão infantil da ópera reorquestrada é a segunda.", False),
    ],
)  # fmt: skip
def test_a_duration_of_a_version_asks_how_long(question: str, passage: str, met: bool) -> None:
    assert expected_type(question, "pt") == AnswerType.DURATION
    assert check_answer_type(question, [passage], "pt").met is met


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Qual é o tamanho máximo de um ficheiro no sistema?", AnswerType.DATA_SIZE),  # an amount of data
        ("Qual é o tamanho máximo de uma partição?", AnswerType.COUNT),
        ("Qual o número máximo de cópias?", AnswerType.COUNT),
        ("Quantas camadas pode ter um desenho no máximo?", AnswerType.COUNT),
        ("Que valor mínimo aceita o parâmetro?", AnswerType.COUNT),
        # A name with "máximo" in it, or an aim, asks no value.
        ("qual a relação entre o tamanho máximo de segmento e o mtu", None),
        ("Com que opções se deve usar o compressor para obter o máximo de compatibilidade?", None),
    ],
)
def test_maximo_asks_a_value_only_where_the_question_asks_which(question: str, kind: AnswerType | None) -> None:
    assert expected_type(question, "pt") == kind


@pytest.mark.parametrize(
    ("question", "language", "kind"),
    [
        # The question's first "que"/"which" asks for another thing than the version it mentions.
        ("Em que ficheiro do CD se lê que versão de Debian ele contém?", "pt", None),
        ("Which database did the first version of Chubby use to store its data?", "en", None),
        ("não sei que versão é, onde vejo isso", "pt", AnswerType.VERSION),
        ("Qual foi o primeiro lançamento de Debian com systemd?", "pt", AnswerType.VERSION),
        ("What changed in the first version of the protocol?", "en", AnswerType.VERSION),
        ("Which version of the server added TLS?", "en", AnswerType.VERSION),
        # "Como … por padrão" asks how a thing is by default: a default said in words.
        ("Como é sinalizada por padrão uma marca inteligente no texto?", "pt", AnswerType.DEFAULT),
        ("Com que frequência o servidor verifica por padrão?", "pt", AnswerType.COUNT),
        # "Quantos" asks a number, though the question names extensions (of a format, not of file names).
        ("Quantos ficheiros cabem num arquivo antes de precisar das extensões ZIP64?", "pt", AnswerType.COUNT),
    ],
)
def test_a_question_asks_for_the_kind_its_first_question_word_asks_for(
    question: str, language: str, kind: AnswerType | None
) -> None:
    assert expected_type(question, language) == kind


def test_a_default_asked_how_is_met_by_a_sentence_stating_it_in_words() -> None:
    question = "Como é sinalizada por padrão uma marca inteligente no texto?"
    assert check_answer_type(
        question, ["A marca inteligente é sinalizada por padrão com um sublinhado magenta."], "pt"
    ).met
    assert not check_answer_type(question, ["Pode sinalizar uma marca inteligente no texto."], "pt").met


@pytest.mark.parametrize(
    ("passage", "met"),
    [
        ('Debian 8 "jessie" foi o primeiro lançamento a vir com systemd como init predefinido.', True),
        ("O Debian usa o systemd como init predefinido desde o lançamento jessie.", False),
        # A whole number after another name is no release of Debian.
        ("O Samba 4 foi o primeiro lançamento de Debian a vir com systemd.", False),
    ],
)
def test_a_release_is_named_by_a_whole_number_after_the_name_asked_about(passage: str, met: bool) -> None:
    question = "Qual foi o primeiro lançamento de Debian com systemd como init predefinido?"
    assert check_answer_type(question, [passage], "pt").met is met


@pytest.mark.parametrize(
    ("section", "met"),
    [
        # A reference page's outermost heading is the name it documents: every sentence under it is about it.
        ("dassl > Parâmetros", True),
        ("ode > Parâmetros", False),
        ("", False),
    ],
)
def test_a_name_the_passages_outermost_heading_says_need_not_be_in_the_sentence(section: str, met: bool) -> None:
    question = "Quantos elementos tem a lista opcional da função dassl?"
    passage = "lista opcional que contém 7 elementos. O valor padrão é list([],0,[],[],[],0,0);"
    assert check_answer_type(question, [passage], "pt", sections=[section]).met is met


# fmt: off
GOES_ON_CASES = [
    # "This is optional …" and "If omitted, …" go on about the option the sentence before describes.
    ("Which port does the gluster driver connect to when the address gives none?", "en",
     "PORT is the port number on which glusterd is listening for the gluster driver. "
     "This is optional and if not specified, it defaults to port 24007.", True),
    ("Which port does the gluster driver connect to when the address gives none?", "en",
     "PORT is the port number on which glusterd is listening for the gluster driver. "
     "This page was last changed in 2024 and the default port is 24007.", False),
    # The default of what the sentence before describes: "The default is …" need not name it again.
    ("What are the defaults of checkpoint_timeout and max_wal_size?", "en",
     "A checkpoint is begun every checkpoint_timeout seconds, or if max_wal_size is about to be exceeded. "
     "The default settings are 5 minutes and 1 GB, respectively.", True),
    # … but only after a sentence about the subject: here the one before is about another setting.
    ("What are the defaults of checkpoint_timeout and max_wal_size?", "en",
     "The writer sleeps for wal_writer_delay between rounds. The default settings are 5 minutes and 1 GB.", False),
    # A sentence opening with "the" and a rare word the sentence before says goes on about it.
    ("How far back does prometheus look for a sample of a series?", "en",
     "It takes the newest sample of the series that is less than the lookback period ago. "
     "The lookback period is 5 minutes by default.", True),
    # An everyday noun repeated ("the service") may be another one: no figure carries over.
    ("Where are the music recognition service's servers hosted?", "en",
     "We run a music recognition service for phones. The service is currently live in Germany and Finland.", False),
    # "This …" opens a sentence about something else as often as it goes on.
    ("What percentage of the samples does the recorder keep?", "en",
     "The recorder keeps samples of every request. This page was last modified to 45% of its length.", False),
    ("Qual sinal o comando kill envia por padrão?", "pt",
     "sinal: o sinal que o comando kill envia ao processo. Se omitido usa -15 como padrão.", True),
    ("Qual é o intervalo padrão em que o syslogd grava a mensagem de marca?", "pt",
     "O syslogd grava a mensagem de marca num intervalo em minutos. O valor padrão é 20 minutos.", True),
    ("Qual é o intervalo padrão em que o syslogd grava a mensagem de marca?", "pt",
     "O syslogd grava a mensagem de marca num intervalo em minutos. Isto ocorre a cada 20 minutos.", False),
]
# fmt: on


@pytest.mark.parametrize(("question", "language", "passage", "met"), GOES_ON_CASES)
def test_a_sentence_that_goes_on_about_the_one_before_is_about_its_subject(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert check_answer_type(question, [passage], language).met is met


def test_a_sentence_that_goes_on_adds_no_fact_of_its_own_to_the_one_before() -> None:
    """The fact must stand in the sentence that goes on: "It" after a sentence holding a number and
    no counted noun does not make the number count."""
    rules = rules_for("en")
    assert rules.goes_on("Its default value is 3.", "The cache keeps entries.")
    assert not rules.goes_on("Its default value is 3.", "")
    assert not rules.goes_on("The service is live.", "A music recognition service.")
    assert rules.goes_on("The lookback period is 5 minutes.", "less than the lookback period ago.")
    question = "How many retries does the client make?"
    passage = "The client makes 3 attempts at most. It waits between them."
    assert check_answer_type(question, [passage], "en").met is False


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        # A word of degree stands inside what the number counts.
        ("How many significant digits does SQLite preserve?", "en",
         "SQLite preserves the 15 most significant digits of a floating point value.", True),
        ("How many recent tags does git describe consider?", "en",
         "git describe considers only the 10 most recent tags as candidates.", True),
        ("Quantos boletins recentes o qpopper envia?", "pt", "O qpopper envia os 10 mais recentes boletins.", True),
        # A manual page's section number counts nothing; nor does "one" as a pronoun.
        ("How many tags does git describe consider?", "en",
         "For annotated tags see the -a option of git describe in git-tag(1).", False),
        ("How many tags does git describe consider?", "en",
         "git describe considers the one tag found, at any one time.", False),
    ],
)  # fmt: skip
def test_numbers_that_count_and_numbers_that_do_not(question: str, language: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        ("Qual é o incremento padrão do contador num laço For quando Step é omitido?", "pt",
         "Se passo não for definido, o contador do laço For é incrementado de 1.", True),
        ("What is the default directory of the archive command?", "en",
         "If omitted, the archive command writes to the current directory.", True),
        ("What is the default directory of the archive command?", "en",
         "The archive command writes to the directory it is given.", False),
    ],
)  # fmt: skip
def test_what_holds_when_a_value_is_left_out_is_its_default(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert expected_type(question, language) == AnswerType.DEFAULT
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        ("In which SQLite version was UPSERT added?", "en",
         "UPSERT syntax was added to SQLite with version 3.24.0 (2018-06-04).", True),
        ("Since which PostgreSQL version is PL/pgSQL installed by default?", "en",
         "In PostgreSQL 9.0 and later, PL/pgSQL is installed by default.", True),
        # A version that bounds what works does not say when something came.
        ("In which SQLite version was the unixepoch() function added?", "en",
         "For SQLite versions before 3.16.0, the unixepoch modifier only works for some dates.", False),
        ("In which SQLite version was ALTER TABLE DROP COLUMN added?", "en",
         "After ADD COLUMN has been run, the table will not be readable by SQLite version 3.1.3 and earlier.", False),
        ("Desde qual versão a função CDateFromIso aceita datas com separadores?", "pt",
         "O formato com separadores da função CDateFromIso é suportado desde a versão 5.3.4.", True),
        ("Desde qual versão a função CDateFromIso aceita datas com separadores?", "pt",
         "A função CDateFromIso aceita datas com separadores na versão 5.3.4.", False),
        ("Em que versão do kernel Linux foi introduzido o netfilter?", "pt",
         "Os comandos do netfilter escritos para o Linux 2.4 aplicam-se às séries 2.6 e 3.x do kernel Linux.", False),
        # A question that asks which version is used, not when something came, is met by any version.
        ("Which SQLite version does the unixepoch modifier work with?", "en",
         "For SQLite versions before 3.16.0, the unixepoch modifier only works for some dates.", True),
    ],
)  # fmt: skip
def test_which_version_added_is_met_only_by_a_sentence_saying_it_came_then(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert expected_type(question, language) == AnswerType.VERSION
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        # "Once" that opens a clause counts nothing; "once a day" is a frequency.
        ("How often does the maintenance task run?", "Once the maintenance task is triggered, all tasks run.", False),
        ("How often does the maintenance task run?", "The maintenance task runs once a day.", True),
        ("How often does the maintenance task run?", "The maintenance task is a one-off optimization.", False),
        # What "how many" counts is the noun before "must", "may" …: two categories are no reviewers.
        ("How many reviewers must approve a patch?", "A patch review falls into two rough categories.", False),
        ("How many reviewers must approve a patch?", "A patch needs two reviewers to approve it.", True),
    ],
)
def test_words_that_look_like_numbers_and_what_how_many_counts(question: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage], "en").met is met


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        # A question about a default is met only by a sentence saying what holds by default.
        ("What is the default session timeout in ZooKeeper?", "en",
         "The ZooKeeper client sends a heartbeat after the session has been idle for 3 ms.", False),
        ("What is the default session timeout in ZooKeeper?", "en",
         "The ZooKeeper session timeout is 30 seconds by default.", True),
        ("What is the default block size inside an SSTable?", "en",
         "Internally each SSTable block is typically 64KB in size, but this is configurable.", True),
        ("Qual é o tamanho padrão do registro de um arquivo aberto em modo Random?", "pt",
         "O registro de um arquivo em modo Random tem 128 bytes.", False),
        ("Qual é o tamanho padrão do registro de um arquivo aberto em modo Random?", "pt",
         "O registro de um arquivo em modo Random tem 128 bytes, se Len for omitido.", True),
        # A question may ask for a default without the word: "unless I say otherwise", "não é informada".
        ("how many copies of each chunk does the file system keep unless you say otherwise", "en",
         "The master re-replicates a chunk as soon as the number of its copies falls below 2.", False),
        ("how many copies of each chunk does the file system keep unless you say otherwise", "en",
         "By default, the file system keeps three copies of each chunk.", True),
        ("Quantas vezes o shred regrava um arquivo quando a opção -n não é informada?", "pt",
         "Isto faz com que o shred regrave o conteúdo do arquivo 70 vezes.", False),
        ("Quantas linhas o comando head mostra quando o número de linhas não é especificado?", "pt",
         "Caso não for especificado, o comando head mostra as 10 primeiras linhas.", True),
        # A named setting's default value may be a word.
        ("What is the default value of listen_addresses?", "en",
         "listen_addresses (string): The default value is localhost.", True),
        ("What is the default number of bytes of secrets.token_bytes()?", "en",
         "secrets.token_bytes([nbytes=None]): If nbytes is None or not supplied, a reasonable default is used.", False),
    ],
)  # fmt: skip
def test_a_default_asked_for_is_met_only_where_a_sentence_says_what_holds_by_default(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        # An author's line (a name beside an e-mail address) says who wrote the paper, not who founded the firm.
        ("Who founded Shazam Entertainment?", "Avery Li-Chun Wang avery@shazamteam.com Shazam Entertainment, Ltd.",
         False),
        ("Who wrote the Shazam paper?", "Avery Li-Chun Wang avery@shazamteam.com Shazam Entertainment, Ltd.", True),
        # Thanks name nobody a question asks for.
        ("Who came up with the name Dapper?", "We thank Mahesh Palekar and Cliff Biffle for their feedback on Dapper.",
         False),
        ("Who came up with the name Dapper?", "The name Dapper was coined by Mahesh Palekar in 2004.", True),
    ],
)  # fmt: skip
def test_thanks_and_an_authors_line_name_nobody_else_asked_for(question: str, passage: str, met: bool) -> None:
    assert expected_type(question) == AnswerType.PERSON
    assert check_answer_type(question, [passage], "en").met is met


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # "Why" asks for a reason, not for the value of the setting it names.
        ("Why is the COMBINING_CHARS option not set by default?", None),
        # … unless it asks for a figure too.
        ("why does my encoded text come out broken into lines, and how long is each line", AnswerType.COUNT),
    ],
)
def test_why_asks_for_a_reason(question: str, kind: AnswerType | None) -> None:
    assert expected_type(question) == kind


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        # A question asking one side of a limit is not answered by the other side's.
        ("How many concurrent readers can a WAL database have at most?", "en",
         "If there is always at least one active reader on a WAL database, no checkpoint completes.", False),
        ("How many concurrent readers can a WAL database have at most?", "en",
         "A WAL database allows up to 100 concurrent readers.", True),
        ("What is the minimum length of a tag name?", "en", "A tag name holds at most 255 characters.", False),
        ("What is the minimum length of a tag name?", "en", "A tag name holds at least 1 character.", True),
        # A word that bounds neither side ("limited to") answers either.
        ("What is the maximum length of a tag name?", "en", "A tag name is limited to 255 characters.", True),
        ("What is the maximum length of a ZipFile archive comment?", "en",
         "A comment of a ZipFile archive should be no longer than 65535 bytes.", True),
        ("Quantos caracteres no mínimo deve ter a senha?", "pt", "A senha tem no máximo 5 caracteres.", False),
        ("Quantos caracteres no mínimo deve ter a senha?", "pt", "A senha tem pelo menos cinco caracteres.", True),
        # "minutes" is no minimum: a number beside it states no limit.
        ("What is the block size limit in bitcoin?", "en", "A block in bitcoin is made every 10 minutes.", False),
    ],
)  # fmt: skip
def test_a_limit_asked_for_one_side_is_met_by_that_sides_limit(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "passage", "met"),
    [
        # A name's digits count nothing ("OpenMetricsText1.0.0", "sha256").
        ("What is the default scrape interval in Prometheus?",
         "Prometheus sets the default scrape protocols to OpenMetricsText1.0.0 and PrometheusText0.0.4.", False),
        ("What is the default scrape interval in Prometheus?", "The default scrape interval in Prometheus is 1m.",
         True),
        # A placeholder in a setting's name ("<name>") is part of it: another setting's value is not its own.
        ("What is the default value of submodule.<name>.update?",
         "submodule.<name>.shallow: When set to true, the clone has a history depth of 1 unless asked otherwise.",
         False),
        ("What is the default value of submodule.<name>.update?",
         "submodule.<name>.update: The default is checkout.", True),
    ],
)  # fmt: skip
def test_digits_of_a_name_and_placeholders_of_a_setting(question: str, passage: str, met: bool) -> None:
    assert check_answer_type(question, [passage], "en").met is met


@pytest.mark.parametrize(
    ("question", "language", "passage", "met"),
    [
        # "Since when" and "since which version" are answered by the release something came in.
        ("can a numeric column round to tens or hundreds, and since when", "en",
         "Beginning in PostgreSQL 15, a numeric column may be declared with a negative scale to round to tens.",
         True),
        ("Since which version can a numeric column have a negative scale?", "en",
         "Beginning in PostgreSQL 15, a numeric column may have a negative scale.", True),
        ("Since which SQLite version can a numeric column have a negative scale?", "en",
         "Beginning in PostgreSQL 15, a numeric column may have a negative scale.", False),  # another's release
        ("can a numeric column round to tens or hundreds, and since when", "en",
         "PostgreSQL 15 rounds a numeric column to tens.", False),  # a release, not when it came
        ("desde quando é que consigo fazer programas em python para as minhas contas", "pt",
         "A partir do GnuCash versão 2.4 pode escrever programas em Python para as suas contas.", True),
    ],
)  # fmt: skip
def test_since_when_is_answered_by_the_release_it_came_in(
    question: str, language: str, passage: str, met: bool
) -> None:
    assert check_answer_type(question, [passage], language).met is met


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # "como eu", "onde eu" ask for a way or a place to click, not for the figure they mention …
        ("como é que eu vejo se o computador já tem a peça que vai buscar os preços das ações", None),
        ("onde é que eu clico para começar a planear quanto vou gastar por mês", None),
        # … unless they ask for one as well.
        ("como é que eu crio um orçamento, e quanto custa o programa?", AnswerType.MONEY),
        ("Onde fica sediada a fundação?", AnswerType.PLACE),
        ("Quanto custa o GnuCash?", AnswerType.MONEY),
    ],
)
def test_como_and_onde_ask_for_a_way_or_a_place(question: str, kind: AnswerType | None) -> None:
    assert expected_type(question, "pt") == kind


@pytest.mark.parametrize(
    ("question", "kind", "passage", "met"),
    [
        # Where a file is located is a path; where a company is located, a place.
        ("Where is the rndc configuration file located by default?", AnswerType.PATH,
         "The default location for the rndc configuration file is /etc/bind/rndc.conf.", True),
        ("Where is the rndc configuration file located by default?", AnswerType.PATH,
         "The rndc configuration file is located in the usual place.", False),
        ("Where is Trolltech headquartered?", AnswerType.PLACE, "Trolltech is headquartered in Oslo, Norway.", True),
        # "The default value" may be a word or a string; a sentence must say what it is, not merely that
        # something happens by default.
        ("What is the default value of PS1 in Octave?", AnswerType.DEFAULT,
         "PS1 sets the primary prompt. The default value of the primary prompt string is 'octave:\\#> '.", True),
        ("What is the default value of REPORTTIME?", AnswerType.DEFAULT,
         "The statistics are shown as for the REPORTTIME variable; note that by default this does not output "
         "memory usage.", False),
        ("What is the default value of REPORTTIME?", AnswerType.DEFAULT, "REPORTTIME is unset by default.", True),
        ("What is the default timeout of the plugin?", AnswerType.COUNT,
         "The plugin's default timeout is 300 ms.", True),
        # A release bounded by a word after the name asked about ("before 2.2") is a release of it.
        ("Up to which Wireshark version was $HOME/.wireshark the configuration folder?", AnswerType.VERSION,
         "For backwards compatibility with Wireshark before 2.2, the configuration folder $HOME/.wireshark is "
         "used if present.", True),
        ("Up to which Wireshark version was $HOME/.wireshark the configuration folder?", AnswerType.VERSION,
         "The configuration folder $HOME/.wireshark holds about 2.2 megabytes.", False),
    ],
)  # fmt: skip
def test_manual_wordings_of_paths_defaults_and_releases(
    question: str, kind: AnswerType, passage: str, met: bool
) -> None:
    check = check_answer_type(question, [passage], "en")
    assert (check.expected, check.met) == (kind, met)


@pytest.mark.parametrize(
    ("passage", "met"),
    [
        ("RTP Player can handle 1000+ streams, but waveforms are then very small.", True),
        ("RTP Player can handle 1000 streams.", True),
        ("RTP Player can handle 1000+ calls.", False),
    ],
)
def test_a_number_with_a_plus_counts_the_noun_after_it(passage: str, met: bool) -> None:
    assert check_answer_type("How many RTP streams can the RTP Player handle?", [passage]).met is met
