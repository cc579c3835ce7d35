"""Language-neutral pieces of the answer-type rules: the shapes each language module (en.py, pt.py)
builds its fact patterns from."""

from __future__ import annotations

# A citation marker ("[32]", "[7, 9]"), an identifier holding a number ("CVE-2012-0003", "ECMA-404": no
# year, no count), unit symbols of data and power, and the shapes of a version ("v2.40", "1.2.3").
CITATION_MARKER = r"\[\d+(?:\s*[,–-]\s*\d+)*\]"
NUMBERED_NAME = r"\b[A-Za-z]+-\d[\w-]*"
# Numbers that state no fact of the text's own: a numbered heading's number ("8.14.3. jsonb Containment"),
# a network address ("192.168.93.0/24": no version), a copyright notice's years (the page's, no event's).
SECTION_NUMBER = r"^\s*\d+(?:\.\d+)+\.\s"
IPV4_ADDRESS = r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?(?![\w.])"
# A manual page's section after its name ("git-submodule(1)", "watch(1)"): no count.
MANUAL_PAGE = r"(?<=\w)\(\d\w*\)"
# A count's first digit: not one of a name's ("ext4", "sha256", "OpenMetricsText1.0.0").
COUNT_DIGIT = r"(?<![^\W_])(?<![^\W_]\.)\d"
COPYRIGHT_YEARS = r"(?:\bCopyright\b|©|\([cC]\))(?:\s*©)?\s*\d{4}(?:\s*[-–,]\s*\d{4})*"
DATA_SYMBOLS = r"(?-i:B|[KMGTP]B|[KMGT]iB|[KMG]b|kB)"
# The units an amount of data is stated in, "256kBytes" among them.
DATA_SIZE_UNITS = rf"{DATA_SYMBOLS}|bytes?|bits?|(kilo|mega|giga|tera|peta|[kmgtp])bytes?"
POWER_SYMBOLS = r"(?-i:[mkMG]?W|[kM]?J|[kMG]?Wh)"
VERSION_SHAPES = r"\b[vV]\d+(\.\d+)*\b|\b\d+\.\d+\.\d+\b"
# A key a manual tells a reader to press: a modifier joined to another key ("Ctrl+Shift+F5", "Alt + Enter",
# "CTRL-C", "SUPER-ESPAÇO": after a hyphen only a capital or a digit, so "Super-resolution" is no key), a
# function key ("F11"), or a key whose name no sentence uses otherwise ("Esc", "Tab", "Backspace"); each
# language's fact pattern adds its own names of keys.
_MODIFIER = r"(?-i:Ctrl|CTRL|Control|CONTROL|Shift|SHIFT|Alt|ALT|AltGr|Cmd|CMD|Command|Option|Super|SUPER|Meta|META|Fn)"
KEY_SHAPES = (
    rf"(?<![\w+-]){_MODIFIER}(\s?\+\s?[^\s+]|-(?-i:[A-Z\dÀ-Þ]))"
    r"|(?<![\w-])(?-i:F(?:[1-9]|1\d|2[0-4]))\b|\b(?-i:Esc|Escape|Tab|Backspace|PgUp|PgDn|Page Up|Page Down)\b"
)

# A folder or file path: a "/" or "\\" that no letter or digit precedes ("/usr/lib/gimp", "C:\\windows\\fonts",
# "~/.config", "%APPDATA%\\GIMP", "$HOME/.local"), never "e/ou", "TCP/IP" nor "1/2".
PATH_SHAPES = r"(?<![\w/.:\\])(?:~|[A-Za-z]:|%\w+%|\$\w+)?[\\/](?=[\w.$%~+-])(?:[\w.$%~+-]+[\\/]?)+"
# A word between "port" and its number, quoted as a manual quotes a constant's name: 'port "DEFAULT_GIT_PORT" aka 9418'.
PORT_WORD = r"[\"'“‘]?[\w-]+[\"'”’]?"
# A port written with its host ("localhost:8080") or protocol ("22/tcp"), or as the value of a configuration
# word naming a port or protocol ("$UDPServerRun 514", "ListenPort 8080": capitals, so "suporta 10" is none);
# each language adds "port 5432".
PORT_SHAPES = (
    r"(?<![\w.-])[\w.-]*[A-Za-z][\w.-]*:\d{2,5}\b|\b\d{2,5}/(?i:tcp|udp)\b"
    r"|(?-i:[\w$]*(?:Port|UDP|TCP)\w*)\s+\d{2,5}\b"
)
# A file name's extension: ".odg", "*.soc", never the dot of "e.g." nor of a number.
EXTENSION_SHAPES = r"(?<![\w.])\*?\.(?-i:[a-z][a-z0-9]{1,4}|[A-Z][A-Z0-9]{1,4})\b(?!\.\w)"
# A colour written as a value ("#ff0000", "#f00", "RGB 255, 0, 0"); each language adds its colours' names.
COLOUR_SHAPES = r"(?<![\w&])#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})\b|\b(?i:rgba?)\s?\(?\s?\d{1,3}\s?[,;]"
