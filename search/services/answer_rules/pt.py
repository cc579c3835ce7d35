"""Portuguese answer-type rules (European and Brazilian spelling): which wording asks for which
kind of fact, and what each kind of fact looks like in a Portuguese passage. The engine that
applies them is search/services/answer_type.py (`AnswerTypeRules`)."""

from __future__ import annotations

import re

from search.services.answer_rules.shapes import (
    CITATION_MARKER,
    COLOUR_SHAPES,
    COPYRIGHT_YEARS,
    COUNT_DIGIT,
    DATA_SIZE_UNITS,
    EXTENSION_SHAPES,
    IPV4_ADDRESS,
    KEY_SHAPES,
    MANUAL_PAGE,
    NUMBERED_NAME,
    PATH_SHAPES,
    PORT_SHAPES,
    PORT_WORD,
    POWER_SYMBOLS,
    SECTION_NUMBER,
    VERSION_SHAPES,
)
from search.services.answer_type import AnswerType as T
from search.services.answer_type import AnswerTypeRules
from search.services.terms import UNFAMILIAR_MAX_ZIPF

_I = re.IGNORECASE
_MONEY_WORDS = r"custa\w*|custo\w*|pag\w+|gast\w+|cobr\w+|preços?|receitas?|financiamento|orçamento|salário|vale|valia"
_CURRENCIES = r"euros|dólares|reais|libras"
_TIME_UNITS = r"(nano|micro|mili)?segundos|ms|minutos|horas|dias|semanas|meses|anos"
_DATA_UNITS = r"bytes|bits|(kilo|mega|giga|tera|peta)bytes|kb|mb|gb|tb|kib|mib|gib"
_POWER_UNITS = r"watts|quilowatts|megawatts|joules|kwh"
# What holds an amount of data: its size is one ("o tamanho do download", "tamanho máximo de ficheiro").
_OF_ONE = r"d[oa]s?\s+|de\s+(um\s+|uma\s+)?"  # "do", "das", "de", "de um"
_FILE_NOUNS = r"ficheiros?|arquivos?|downloads?|instalador(es)?|imagem\s+ISO|imagens\s+ISO|imagem\s+de\s+instalação"
_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
# How a default is said, as an adjective ("a cor padrão") or an adverb ("por omissão").
_DEFAULT_ADJECTIVES = r"padrão|padrões|predefinid[oa]s?|pré-definid[oa]s?"
_DEFAULT_WORDS = rf"{_DEFAULT_ADJECTIVES}|por omissão|por defeito|por predefinição"
_BY_DEFAULT = r"\bpor (omissão|defeito|padrão|predefinição)\b"
_FOLDERS = r"pastas?|diretórios?|directórios?|diretorias?|directorias?"
# Checked in this order: the first rule that matches names the type.
_QUESTION_RULES: tuple[tuple[T, re.Pattern[str]], ...] = (
    (
        T.PERCENTAGE,
        re.compile(
            r"\b(qual|que)\s+(a\s+)?(percentagem|porcentagem|proporção|fração|fracção|parcela)\b"
            r"|\bem\s+(percentagem|porcentagem)\b|\bquantos por cento\b",
            _I,
        ),
    ),
    (
        T.MONEY,
        re.compile(
            # "o preço", asked for; not "de que lado ficam o eixo de preços"
            rf"\bquanto\s+(\w+\s+){{0,2}}?({_MONEY_WORDS})\b|\bquanto dinheiro\b"
            r"|\b(qual|quais|que)\s+(\w+\s+){0,3}?preços?\b"
            rf"|\bqual\s+(é|foi|era)\s+o\s+(custo|preço)\b|\bquantos ({_CURRENCIES})\b|\bem ({_CURRENCIES})\b",
            _I,
        ),
    ),
    (
        T.PERSON,
        re.compile(
            r"^\W*(e\s+)?quem\b|\bquem\s+(é|foi|era|foram|escreveu|inventou|criou|concebeu|projetou|fundou|"
            r"cofundou|lidera|liderou|mantém|manteve|construiu|desenvolveu|propôs|introduziu)\b",
            _I,
        ),
    ),
    (
        # "Qual a duração da versão infantil …?" asks how long it lasts, not which version.
        T.DURATION,
        re.compile(r"\b(qual|que)\s+(é\s+|era\s+|foi\s+)?(a\s+)?duração\b", _I),
    ),
    (
        T.VERSION,
        re.compile(
            # Not "porque é que a versão …" (why), nor "que versão devo instalar" (advice: "a stable"), nor
            # where the question's first "que" asks for another thing ("Em que ficheiro se lê que versão …").
            r"^(?:(?!\b(?:que|qual|quais)\b)[^?])*?"
            r"(?<!é\s)\b(qual|que|em que|em qual)\s+([\w.+-]+\s+){0,3}?(versão|versões|lançamento)\b"
            r"(?!.*\b(devo|deve|devem|devemos|recomenda\w*|aconselha\w*)\b)",
            _I,
        ),
    ),
    (
        T.YEAR,
        re.compile(
            r"\b(qual|que|em que)\s+(ano|data|mês|dia)\b|\bquando\s+(foi|foram|era|é que|começou|terminou|"
            r"surgiu|saiu|nasceu|morreu|lançou|lançaram|criou|criaram|apareceu)\b|\bdesde quando\b|\bhá quanto tempo\b",
            _I,
        ),
    ),
    (
        T.PLACE,
        re.compile(
            # "onde fica" alone is "where is": in a manual, a file or a menu, not a place (as "where is").
            r"\bonde\b.*\b(localizad[oa]s?|sediad[oa]s?|sede|nasceu|fundad[oa]|realizad[oa])\b"
            r"|\b(em|de|a partir de)\s+(que|qual|quais)\s+"
            r"(cidades?|país|países|estados?|regiões|região|continentes?)\b",
            _I,
        ),
    ),
    (
        T.KEY,
        re.compile(
            # A key to press ("tecla"), never a key of data ("chave"); "atalho" alone may be a desktop link.
            r"\b(qual|que|quais)\s+(é\s+|são\s+)?(o\s+|os\s+|a\s+|as\s+)?(atalhos?|teclas?|combinaç(ão|ões)\s+de\s+teclas)\b"
            r"|\batalhos?\s+(de\s+|do\s+)?teclado\b|\bteclas?\s+de\s+atalho\b|\bcombinaç(ão|ões)\s+de\s+teclas\b",
            _I,
        ),
    ),
    (
        T.PATH,
        re.compile(
            # "Em que pasta ficam os módulos?", "Qual é o diretório de configuração?", "Onde fica a pasta …?"
            rf"\b(em|n[oa]|para|de)\s+(que|qual)\s+({_FOLDERS})\b|\b(qual|que)\s+(é\s+)?(a\s+|o\s+)?({_FOLDERS})\b"
            rf"|\bonde\b[^?]*\b({_FOLDERS})\b",
            _I,
        ),
    ),
    (
        T.PORT,
        re.compile(
            r"\b(qual|que|quais|em que|em qual)\s+(é\s+|são\s+)?(a\s+|as\s+)?portas?\b"
            r"(?!\s+(série|serial|paralela|usb))"
            rf"|\bportas?\s+(tcp\s+|udp\s+)?({_DEFAULT_WORDS})\b|\bnúmero\s+d[ae]\s+porta\b",
            _I,
        ),
    ),
    (
        T.EXTENSION,
        # An extension of files' names, not an add-on ("que extensão acrescenta …").
        re.compile(
            # Not where the question asks how many ("quantos ficheiros … antes de precisar das extensões").
            r"^(?![^?]*\bquant[oa]s\b)[^?]*?(?:"
            r"\bextens(ão|ões)\b(?=[^?]*\b(ficheiros?|arquivos?)\b)|\b(ficheiros?|arquivos?)\b[^?]*\bextens(ão|ões)\b)",
            _I,
        ),
    ),
    (
        T.COLOUR,
        re.compile(r"\b(qual|que|quais)\s+(é\s+|são\s+|era\s+)?(a\s+|as\s+)?cor(es)?\b", _I),
    ),
    (
        T.DURATION,
        re.compile(rf"\bquant[oa]s\s+({_TIME_UNITS})\b|\bem\s+({_TIME_UNITS})\b|\bquanto tempo\b", _I),
    ),
    (
        T.DATA_SIZE,
        re.compile(
            rf"\bquantos\s+({_DATA_UNITS})\b|\bem\s+({_DATA_UNITS})\b|\bquanta\s+(memória|ram)\b"
            r"|\bquanto\s+(espaço|disco|armazenamento)\b"
            # O tamanho de um ficheiro ou de um download é uma quantidade de dados, não uma contagem; ordenar
            # "pelo tamanho dos arquivos" não pede nenhuma.
            rf"|(?<!\bpelo )(?<!\bpor )\btamanhos?\s+(máximos?\s+|mínimos?\s+)?({_OF_ONE})(único\s+)?({_FILE_NOUNS})\b",
            _I,
        ),
    ),
    (T.POWER, re.compile(rf"\bquantos\s+({_POWER_UNITS})\b|\bquanta\s+(energia|potência|eletricidade)\b", _I)),
    (
        T.COUNT,
        re.compile(
            # "máximo" asks for a value where the question asks which ("qual é o tamanho máximo", "no máximo"),
            # not where it is part of a name or an aim ("a relação entre o tamanho máximo de segmento e o
            # MTU", "para obter o máximo de compatibilidade").
            r"\bquant[oa]s?\b|\bno\s+(máximo|mínimo)\b"
            r"|\b(qual|que|quais)\s+(é\s+|são\s+|era\s+)?(o\s+|a\s+|os\s+|as\s+)?([\w-]+\s+){0,2}?(máxim|mínim)[oa]s?\b"
            # "a porta predefinida", "a porta TCP predefinida": one word may name what it is of.
            r"|\b(valor|tamanho|número|limite|intervalo|tempo|porta|taxa|período|prazo)\s+([\w-]+\s+)?"
            rf"({_DEFAULT_WORDS})\b"
            r"|\bqual\s+(é|foi|era)\s+o\s+([\w-]+\s+){0,2}?"
            r"(tamanho|número|limite|comprimento|capacidade|débito|latência)\b",
            _I,
        ),
    ),
    (
        T.DEFAULT,
        re.compile(
            # "Qual é a cor padrão da grelha?", "Que fonte usa o Writer por padrão?": what something is by
            # default, once no rule above asks for a number. The default word follows the thing asked
            # (at most three words after "qual"), and not a capitalised name: "Qual opção do Filtro
            # padrão" asks for an option of a dialog so named.
            rf"(?:^|[,;:])\W*(e\s+)?(qual|quais|que)\s+((é|são|era|foi)\s+)?((o|a|os|as)\s+)?"
            rf"([\w-]+\s+){{0,2}}?(?!(?-i:[{_UPPER}][{_LOWER}]))[\w-]+\s+({_DEFAULT_WORDS})\b"
            # "Como é sinalizada por padrão uma marca inteligente?", "Em que posição fica a legenda por
            # padrão?": how or where it is by default, said in words.
            rf"|(?:^|[,;:])\W*(e\s+)?((em|de|para)\s+)?(qual|quais|que|como)\b[^?]*\b{_BY_DEFAULT}",
            _I,
        ),
    ),
    # Asked otherwise ("com que frequência … por omissão", "a que horas … por padrão"), a default is a number;
    # not in a choice between two ("Por padrão, … por valor ou por referência?").
    (T.COUNT, re.compile(r"^(?!.*\bou\b).*\bpor (omissão|defeito|padrão)\b", _I)),
)
_CUE_WORDS = frozenset(
    {
        "ano", "anos", "data", "mês", "dia", "quando", "desde", "quanto", "quanta", "quantos", "quantas",
        "percentagem", "porcentagem", "proporção", "fração", "versão", "versões", "lançamento", "quem", "onde",
        "fica", "localizado", "sediado", "cidade", "país", "preço", "custo", "custa", "dinheiro", "máximo",
        "mínimo", "padrão", "omissão", "defeito", "predefinido", "número", "tamanho", "valor", "primeiro",
        "primeira", "hoje", "agora", "atualmente", "lançado", "lançada", "escreveu", "criou",
        "atalho", "atalhos", "tecla", "teclas", "teclado", "combinação", "pressionar", "pressiono",
        "pasta", "pastas", "diretório", "diretórios", "directório", "directórios", "porta", "portas",
        "extensão", "extensões",
    }
)  # fmt: skip
_STOPWORDS = frozenset(
    {
        "a", "o", "as", "os", "um", "uma", "uns", "umas", "de", "do", "da", "dos", "das", "em", "no", "na",
        "nos", "nas", "por", "pelo", "pela", "para", "com", "sem", "e", "ou", "que", "qual", "quais", "é",
        "foi", "são", "era", "ser", "tem", "têm", "ter", "há", "se", "ao", "aos", "à", "às", "como", "mais",
        "mas", "seu", "sua", "seus", "suas", "este", "esta", "isto", "esse", "essa", "isso", "eu", "me",
        "meu", "minha", "nós", "eles", "elas", "ele", "ela", "não", "sim", "já", "também", "entre", "sobre",
        "após", "antes", "depois", "durante", "pode", "posso", "podem", "usar", "usa", "faz", "fazer",
    }
)  # fmt: skip
_SUFFIXES = (("ções", "ção"), ("ões", "ão"), ("ães", "ão"), ("eis", "el"), ("ais", "al"), ("es", ""), ("s", ""))
_NUMBER_WORDS = (
    r"um|uma|dois|duas|três|quatro|cinco|seis|sete|oito|nove|dez|onze|doze|quinze|vinte|trinta|quarenta|"
    r"cinquenta|cem|cento|centenas?|mil|milhares|milhões|milhão|bilhões|bilhão|mil milhões|dezenas?|dúzias?|"
    r"meia|metade|dobro|uma vez|duas vezes"
)
_QUANTITY = rf"(?<![\w.])(\d[\d.,]*|({_NUMBER_WORDS})\b)(\s?[-–]\s?\d[\d.,]*)?[\s-]?"
# A count: a number, not the article "um"/"uma" ("um gestor de volumes" counts nothing; "um dia" is
# still a duration through `_QUANTITY`), nor the digits of a name ("ext4", "LVM2", the key "F11").
_COUNT_WORDS = _NUMBER_WORDS.replace("um|uma|", "", 1)
_COUNT = rf"{COUNT_DIGIT}|\b({_COUNT_WORDS})\b"
_MONTHS = r"janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro"
_NOT_NAMES = frozenset(
    {
        "O", "A", "Os", "As", "Um", "Uma", "Este", "Esta", "Estes", "Estas", "Esse", "Essa", "Em", "No", "Na",
        "De", "Do", "Da", "Para", "Com", "Quando", "Onde", "Qual", "Que", "Figura", "Tabela", "Secção", "Seção",
        "Capítulo", "Página", "Resumo", "Introdução", "Conclusão", "Universidade", "Instituto", "Departamento",
        "Sistema", "Sistemas", "Sociedade", "Empresa", "Grupo", "Fundação", "Laboratório", "Manual", "Guia",
    }
)  # fmt: skip
_FACT_PATTERNS: dict[T, re.Pattern[str]] = {
    T.YEAR: re.compile(
        rf"\b(1[5-9]\d\d|20\d\d)\b|\b\d{{1,2}}\s+de\s+({_MONTHS})\b|\b({_MONTHS})\s+de\s+\d{{4}}\b"
        r"|\b\d{4}-\d\d-\d\d\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
        _I,
    ),
    T.MONEY: re.compile(
        rf"[$€£]\s?\d|R\$\s?\d|\b\d[\d.,]*\s?(mil|milhões|mil milhões|bilhões)?\s?(de\s+)?"
        rf"({_CURRENCIES}|euro|dólar|real|cêntimos|centavos)\b",
        _I,
    ),
    T.COUNT: re.compile(_COUNT, _I),
    T.DURATION: re.compile(
        rf"{_QUANTITY}(ns|[µμu]s|ms|s|seg|segundos?|(nano|micro|mili)ssegundos?|(nano|micro|mili)segundos?|"
        r"min|minutos?|h|horas?|dias?|semanas?|m[eê]s|meses|anos?)\b",
        _I,
    ),
    T.DATA_SIZE: re.compile(rf"{_QUANTITY}({DATA_SIZE_UNITS})\b", _I),
    T.POWER: re.compile(rf"{_QUANTITY}({POWER_SYMBOLS}|(quilo|mega)?watts?|(quilo)?joules?)\b", _I),
    T.PERCENTAGE: re.compile(r"\d\s?(%|por cento\b)|\b(metade|um terço|um quarto|dois terços)\b", _I),
    T.VERSION: re.compile(
        rf"{VERSION_SHAPES}|\b(?i:versão|lançamento)\s+v?\d"
        rf"|\b(?!(?:Figura|Tabela|Secção|Seção|Capítulo|Página)\b)(?:[{_UPPER}]|[a-z]{{1,2}}(?=[A-Z]))[\w+-]*\s+\d+(\.\d+)+\b"
    ),
    T.PERSON: re.compile(
        rf"(?<![\"“«'])\b([{_UPPER}][{_LOWER}]+)(\s+(d[aeo]s?\s+)?[{_UPPER}]\.)?\s+(d[aeo]s?\s+)?([{_UPPER}][{_LOWER}]{{2,}})\b"
        rf"|\b[{_UPPER}][{_LOWER}]{{2,}}\s+et al\b"
    ),
    # "pressione Comando+T", "a tecla Enter": the Portuguese names of keys and a key named after "tecla".
    T.KEY: re.compile(
        rf"{KEY_SHAPES}|(?<![\w+])(?-i:Comando|Opção|Maiúsculas|Maiúsc)\s?\+\s?[^\s+]|\bteclas?\s+(?-i:[A-Z]\w*)",
        _I,
    ),
    T.PLACE: re.compile(
        rf"\b(em|no|na|de|do|da|perto de|sediad[oa] em|localizad[oa] em)\s+[{_UPPER}][{_LOWER}]{{2,}}\b"
    ),
    T.PATH: re.compile(PATH_SHAPES),
    # "porta 873", "porta TCP 873", "porta SMTP (25)", "localhost:8080", "22/tcp".
    # "porta 514", "o porto standard do syslog, 514" (pt-PT), "A porta padrão do MySQL é 3306"
    T.PORT: re.compile(
        rf"\bport[ao]s?\s+(n\.?º\s*)?({PORT_WORD}\s+){{0,2}}?\(?\d{{2,5}}\b|{PORT_SHAPES}"
        r"|\bport[ao]s?\s+(padrão|predefinid[ao]|standard)\b[^.]{0,60}?(?:\b(?:é|são)\s+|,\s*)\d{2,5}\b",
        _I,
    ),
    T.EXTENSION: re.compile(EXTENSION_SHAPES),
    T.COLOUR: re.compile(
        rf"{COLOUR_SHAPES}|\b(pret[oa]s?|branc[oa]s?|vermelh[oa]s?|verdes?|azu(l|is)|amarel[oa]s?|cinza|cinzent[oa]s?"
        r"|laranja|rox[oa]s?|rosa|castanh[oa]s?|marrom|violeta|ciano|magenta|dourad[oa]s?|pratead[oa]s?|bege)\b",
        _I,
    ),
}
# Numbers that only point elsewhere or fill a table: a manual page's section ("lvs(8)"), a
# heading's number ("1.2.12. procfs e sysfs", whatever case follows), and a table cell holding
# nothing but numbers ("| 1537 |", "| V:235, I:298 |": a package's size or popularity, whose meaning
# is the column's heading, never a year or a count of the row's subject).
_NUMBER_CELL = r"(?:(?m:^)|(?<=\|))[ \t]*(?:[A-Za-z]{0,2}:?\d[\d.,]*[ \t,]*)+(?=\||(?m:$))"
_REFERENCE = re.compile(
    rf"{CITATION_MARKER}|{NUMBERED_NAME}|{MANUAL_PAGE}|{_NUMBER_CELL}|{SECTION_NUMBER}|{IPV4_ADDRESS}|{COPYRIGHT_YEARS}"
    r"|\b(?:Figura|Fig\.|Tabela|Secção|Seção|Capítulo|Apêndice|Anexo|Eq\.|Equação|Algoritmo|Listagem)\s*\d+(?:\.\d+)*[a-z]?\b"
    rf"|^\s*\d+(?:\.\d+)*\.?\s+(?=[{_UPPER}][{_LOWER}])"
)
_VERSIONED = (
    re.compile(r"\b(?:versão|versões|lançamento)\s+d[eoa]s?\s+([\w.+-]+)", _I),  # "que versão do Debian"
)
# What a count question counts: the noun right after "quantos" (a Portuguese noun comes before its
# adjectives: "quantos clarões secundários"), another name for it in brackets, and what it is of
# ("quantos níveis de desfazer"), past "e quais (são os)" ("em quantos e quais formatos", "quantos e quais
# são os servidores"); or the noun after "o número (máximo) de".
_COUNTED = (
    re.compile(
        r"\bquant[oa]s\s+(?:e\s+(?:qu[ae]is|que)\s+(?:(?:são|é|eram|foram)\s+)?(?:(?:os|as|o|a)\s+)?)?"
        # "quantos tipos diferentes de parênteses": an adjective may stand between the noun and what it is of
        r"(?P<noun>[\w-]+)(?:\s*\((?P<aside>[^()]*)\))?(?:\s+(?:diferentes|distint[oa]s|possíveis|principais))?"
        r"(?:\s+(?:de|do|da|dos|das)\s+(?P<of>[\w-]+))?",
        _I,
    ),
    re.compile(r"\bnúmero\s+(?:[\w-]+\s+)?(?:de|do|da|dos|das)\s+(?P<noun>[\w-]+)", _I),
)
# "só uma", "apenas um", "uma única", "uma seleção flutuante de cada vez": the article is the number one.
_SINGLE = re.compile(
    r"\b(só|apenas|somente|exatamente|exactamente)\s+(?:[\w-]+\s+){0,2}?(?P<one>um|uma)\b(?!\s+vez\b)"
    r"|\b(?P<one2>um|uma)\s+(únic[oa]|só)\b|\b(?P<one3>um|uma)\s+(?:[\w-]+\s+){1,2}?(de cada vez|por vez)\b",
    _I,
)
_KIND_NOUNS = frozenset({"tipo", "espécie", "forma", "categoria", "género", "gênero", "modo", "variedade"})
_OF_WORDS = frozenset({"de", "do", "da", "dos", "das"})
# A question that asks for a limit, and the words that state one: "no máximo", "até 255", "pelo menos".
_LIMIT_CUE = re.compile(r"\bno\s+(máximo|mínimo)\b|\b(máxim[oa]s?|mínim[oa]s?|limites?)\b", _I)
_LIMIT_STATED = re.compile(
    r"\b(máxim[oa]s?|mínim[oa]s?|limit\w*|até|pelo menos|no mínimo|no máximo|não mais de|mais de|menos de|"
    r"ultrapassa\w*|exced\w*|superior|inferior)\b",
    _I,
)
# The side a limit's words bound; "mais de", "até" bound either ("nunca mais de 100" is a maximum).
_UPPER_BOUND = re.compile(r"máxim[oa]s?|no máximo|não mais de", _I)
_LOWER_BOUND = re.compile(r"mínim[oa]s?|no mínimo|pelo menos", _I)
# A question asking how or where I do something ("como é que eu vejo se … os preços", "onde é que eu clico
# para planear quanto vou gastar") asks for a way or a place to click, not for the figure it mentions;
# unless it asks for one as well ("como …, e quanto custa …").
_NO_KIND = re.compile(
    r"^\W*(como|onde)\s+(?:é\s+que\s+)?(?:eu|nós|a gente)\b"
    r"(?![^?]*(?:\be\b|,|;)\s*(?:\w+\s+){0,2}?(quant[oa]s?|qual|quais|quando)\b)",
    _I,
)
_SETTING_CUE = re.compile(
    r"\bpadrão\b|\bpor (omissão|defeito)\b|\bpredefinid[oa]\b|\bmáxim[oa]\b|\bmínim[oa]\b|\blimites?\b|\bquant[oa]s?\b",
    _I,
)
# A default stated: "o valor padrão é replica", "o paginador predefinido do sistema é o more", "por
# omissão está desligado", "a função Soma é a função padrão", "a camada Esquema é a área de trabalho
# padrão", "Na condição padrão, toda célula …", "Se passo não for definido, o contador é incrementado
# de 1". The bare word, as a question asks with it ("a cor padrão"), states none.
_DEFAULT_VALUE = re.compile(
    rf"\b({_DEFAULT_WORDS})\s+([\w-]+\s+){{0,5}}?(é|são|era|fica|está|será)\s+\S|{_BY_DEFAULT}"
    rf"|\b(é|são|era|foi|será)\s+(o|a|os|as)\s+([\w-]+\s+){{0,3}}?({_DEFAULT_ADJECTIVES})\b"
    # "usa 002 como predefinição", "optou pelo Xfce como ambiente de trabalho predefinido"; not a sentence's
    # opening "Como" (how).
    rf"|(?<=\w )como\s+((o|a)\s+)?([\w-]+\s+){{0,3}}?({_DEFAULT_ADJECTIVES}|predefinição)\b"
    rf"|\b(n[oa]|em)\s+([\w-]+\s+)?({_DEFAULT_ADJECTIVES})\s*,"
    r"|\bse\s+(?:[\w-]+\s+){0,2}?(?:omitid[oa]s?"
    r"|não\s+(?:for|forem)\s+(?:definid|especificad|indicad|informad)[oa]s?)\b",
    _I,
)
# A sentence that goes on about the one before it: a pronoun ("Ele usa …"), the default or limit of what
# that one describes ("O valor padrão é 20 minutos"), or what holds when it is left out ("Se omitido usa
# -15 como padrão"). Not "Isto …": "Isto é porque …" opens an aside as often.
_CONTINUATION = re.compile(
    r"^\W*(?:ele|ela|se omitid[oa]s?"
    r"|(?:o|a|os|as) (?:valor(?:es)? )?(?:padrão|predefinid[oa]s?|por (?:omissão|defeito)|máxim[oa]s?|mínim[oa]s?))\b",
    _I,
)
# A version question asking when something came ("desde qual versão", "em que versão foi introduzido"), and a
# sentence saying it came in a version ("é suportado desde o LibreOffice 5.3.4", "a partir da versão 2.4").
_SINCE_CUE = re.compile(r"\b(desde|introduzid[oa]s?|adicionad[oa]s?|acrescentad[oa]s?|surgiu|apareceu)\b", _I)
_SINCE_STATED = re.compile(
    r"\b(desde|a partir d[aeo]s?|introduzid[oa]s?|adicionad[oa]s?|acrescentad[oa]s?|surgiu|apareceu"
    r"|nov[oa]s? (?:na|no|em)|primeir[oa]s?|(?:e|ou) (?:posteriores|posterior|superiores|superior)|em diante)\b",
    _I,
)
# A question about a default ("o tamanho padrão", "por omissão").
_DEFAULT_CUE = re.compile(
    r"\bpadrão\b|\bpredefinid[oa]s?\b|\bpor (?:omissão|defeito)\b"
    r"|\bnão\s+(?:é|for|forem|são)\s+(?:informad|especificad|indicad|definid|passad|dad)[oa]s?\b"
    r"|\bse\s+(?:eu\s+)?não\s+(?:disser|indicar|definir|especificar|informar|escolher|mudar)\b|\bomitid[oa]s?\b"
    r"|\bsem\s+(?:indicar|especificar|definir|informar)\b",
    _I,
)
# What a sentence says to state a default: "padrão", "predefinido", "por omissão", "default" (as manuals
# write it: "é o valor default"), "a menos que", "se omitido", "normalmente".
_DEFAULT_SAID = re.compile(
    r"\bpadrão|\bpredefini\w*|\bdefault\b|\bpor (?:omissão|defeito)\b|\ba menos que\b"
    r"|\b(?:se|caso)\s+(?:[\w-]+\s+){0,2}?(?:omitid|não)\w*|\bcaso contrário\b"
    r"|\b(?:normalmente|geralmente|tipicamente|habitualmente|inicialmente)\b",
    _I,
)
_THANKS = re.compile(r"\bagradec\w*|\bobrigad[oa]s?\s+a\b", _I)
_AUTHORSHIP_CUE = re.compile(r"\b(?:escreveu|escreveram|escrit[oa]s?|autor(?:es|as?)?)\b", _I)

RULES = AnswerTypeRules(
    language="pt",
    question_rules=_QUESTION_RULES,
    fact_patterns={**_FACT_PATTERNS, T.DEFAULT: _DEFAULT_VALUE},
    reference=_REFERENCE,
    cue_words=_CUE_WORDS,
    stopwords=_STOPWORDS,
    suffixes=_SUFFIXES,
    not_names=_NOT_NAMES,
    place_leads=frozenset(
        {"em", "no", "na", "de", "do", "da", "perto", "sediado", "sediada", "localizado", "localizada"}
    ),
    number_words=re.compile(rf"^({_COUNT_WORDS})$", _I),
    versioned=_VERSIONED,
    version_fillers=frozenset({"última", "atual", "nova", "antiga"}),
    counted=_COUNTED,
    setting_cue=_SETTING_CUE,
    default_value=_DEFAULT_VALUE,
    kind_nouns=_KIND_NOUNS,
    of_words=_OF_WORDS,
    number_nouns=frozenset({"número", "quantidade"}),
    single=_SINGLE,
    limit_cue=_LIMIT_CUE,
    limit_stated=_LIMIT_STATED,
    no_kind=_NO_KIND,
    upper_bound=_UPPER_BOUND,
    lower_bound=_LOWER_BOUND,
    name_key_max_zipf=UNFAMILIAR_MAX_ZIPF,
    continuation=_CONTINUATION,
    articles=frozenset({"o", "a", "os", "as"}),
    degree_words=frozenset({"mais", "menos"}),
    since_cue=_SINCE_CUE,
    since_stated=_SINCE_STATED,
    since_when=re.compile(r"\b(?:desde|a partir de) quando\b", _I),
    default_cue=_DEFAULT_CUE,
    default_said=_DEFAULT_SAID,
    any_value=re.compile(rf"\bvalor\s+({_DEFAULT_WORDS})\b", _I),
    thanks=_THANKS,
    authorship_cue=_AUTHORSHIP_CUE,
)
