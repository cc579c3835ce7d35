"""The corpora of the sealed sets for other libraries and their dev sets, from Debian packages (never committed).

`python -m evaluation.corpora` installs the packages when they are missing (apt, as root) and
copies exactly the chosen pages (from the package's folder, or from the zip it ships them in) into
var/eval-corpora/<name>/ (the dev sets' pages too: other pages and chapters of the same packages,
to tune on); `--check` then verifies that every question file parses, that every needle occurs
exactly once in the text the library extracts from those pages, and that no near-miss or
out-of-domain `grep` pattern matches that text.
docs/EVALUATION.md ("Sealed sets for other libraries") gives the evaluate commands.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from documents.extraction.html import extract_html
from evaluation.dataset import load_ood, load_questions
from evaluation.metrics import normalised_needle
from evaluation.textnorm import normalise_for_match

ROOT = Path(__file__).resolve().parent.parent
CORPORA_DIR = ROOT / "var" / "eval-corpora"
EVAL_DIR = ROOT / "eval"


@dataclass(frozen=True)
class PackagedCorpus:
    name: str  # the folder under var/eval-corpora/
    package: str  # the Debian package that ships the pages
    source: Path
    files: tuple[str, ...]
    sets: str  # the prefix of its three question files in eval/
    size: int = 30  # questions in each of its three files
    archive: Path | None = None  # a zip (a JavaHelp JAR) holding the pages; `source` is then a folder inside it
    language: str = "en"  # the language its pages are written in (ISO 639-1), as language detection should name it

    @property
    def target(self) -> Path:
        return CORPORA_DIR / self.name

    def page(self, name: str) -> Path | zipfile.Path:
        """Where the package ships a chosen page: in the source folder, or in that folder of the archive."""
        if self.archive is None:
            return self.source / name
        return zipfile.Path(self.archive, at=f"{self.source.as_posix()}/{name}")

    def shipped(self) -> bool:
        """Whether every chosen page is where the package puts it."""
        if self.archive is not None and not self.archive.is_file():
            return False
        return all(self.page(name).is_file() for name in self.files)

    def question_file(self, part: str) -> Path:
        return EVAL_DIR / f"{self.sets}-{part}.jsonl"


def html_pages(pages: tuple[str, ...], suffix: str = ".html") -> tuple[str, ...]:
    """Each page's file name: the page's name and `suffix` (".pt.html" where a manual ships a page per language)."""
    return tuple(f"{page}{suffix}" for page in pages)


def pages_in_folders(folders: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[str, ...]:
    """Each page as `folder/page.html`: the LibreOffice help reuses page names across its modules."""
    return tuple(f"{folder}/{name}" for folder, pages in folders for name in html_pages(pages))


PG_MANUAL = PackagedCorpus(
    name="pg-manual",
    package="postgresql-doc-15",
    source=Path("/usr/share/doc/postgresql-doc-15/html"),
    files=html_pages(
        (
            "runtime-config-wal",
            "runtime-config-autovacuum",
            "runtime-config-connection",
            "routine-vacuuming",
            "wal-intro",
            "continuous-archiving",
            "backup-dump",
            "backup-file",
            "app-pgdump",
            "app-pgbasebackup",
            "plpgsql-overview",
            "plpgsql-declarations",
            "plpgsql-control-structures",
            "plpgsql-trigger",
            "indexes-types",
            "indexes-partial",
            "indexes-multicolumn",
            "sql-createindex",
            "sql-vacuum",
            "sql-copy",
            "sql-cluster",
            "mvcc-intro",
            "transaction-iso",
            "datatype-numeric",
            "datatype-json",
            "ddl-constraints",
            "auth-pg-hba-conf",
            "using-explain",
        )
    ),
    sets="pgmanual",
)

# The second sealed selection of the same manual: settings, commands, types, functions, client
# programs and chapters in neither selection above nor the dev selection below.
PG_MANUAL_2 = PackagedCorpus(
    name="pg-manual-2",
    package="postgresql-doc-15",
    source=PG_MANUAL.source,
    files=html_pages(
        (
            "runtime-config-resource",
            "runtime-config-query",
            "runtime-config-logging",
            "runtime-config-replication",
            "runtime-config-locks",
            "sql-insert",
            "sql-lock",
            "sql-createview",
            "sql-prepare",
            "sql-notify",
            "sql-merge",
            "sql-explain",
            "datatype-character",
            "datatype-datetime",
            "datatype-enum",
            "datatype-net-types",
            "functions-sequence",
            "functions-conditional",
            "app-pgrestore",
            "app-vacuumdb",
            "app-pg-ctl",
            "explicit-locking",
            "storage-toast",
            "textsearch-intro",
            "warm-standby",
            "ddl-rowsecurity",
        )
    ),
    sets="pgmanual-2",
)

DEBIAN_REFERENCE_PT = PackagedCorpus(
    name="debian-ref-pt",
    package="debian-reference-pt",
    source=Path("/usr/share/debian-reference"),
    files=("ch02.pt.html", "ch04.pt.html", "ch05.pt.html", "ch11.pt.html"),
    sets="debref-pt",
    language="pt",
)

# A second sealed Portuguese set from three further, mostly translated chapters: 1 (GNU/Linux
# tutorials), 9 (system tips) and 10 (data management).
DEBIAN_REFERENCE_PT_2 = PackagedCorpus(
    name="debian-ref-pt-2",
    package="debian-reference-pt",
    source=DEBIAN_REFERENCE_PT.source,
    files=("ch01.pt.html", "ch09.pt.html", "ch10.pt.html"),
    sets="debref-pt-2",
    language="pt",
)

# A third sealed Portuguese set, smaller, from two further chapters: 6 (network applications) and
# 12 (programming).
DEBIAN_REFERENCE_PT_3 = PackagedCorpus(
    name="debian-ref-pt-3",
    package="debian-reference-pt",
    source=DEBIAN_REFERENCE_PT.source,
    files=("ch06.pt.html", "ch12.pt.html"),
    sets="debref-pt-3",
    language="pt",
    size=20,
)

# A sealed Portuguese set from another package: every chapter of the Debian FAQ in European
# Portuguese; only the table of contents (index.pt.html) is left out, as it holds no facts.
DEBIAN_FAQ_PT = PackagedCorpus(
    name="debian-faq-pt",
    package="debian-faq-pt",
    source=Path("/usr/share/doc/debian/FAQ/pt"),
    files=html_pages(
        (
            "basic-defs",
            "getting-debian",
            "choosing",
            "compatibility",
            "software",
            "ftparchives",
            "pkg-basics",
            "pkgtools",
            "uptodate",
            "kernel",
            "customizing",
            "support",
            "contributing",
            "redistributing",
            "nextrelease",
            "faqinfo",
        ),
        suffix=".pt.html",
    ),
    sets="debfaq-pt",
    language="pt",
    size=20,
)

# A Brazilian-Portuguese library of another domain: the Debian Edu (Skolelinux) bookworm manual,
# one page about a school network's servers, LTSP, installation and administration. Its English
# appendices (such as the GPL) hold no needle.
DEBIAN_EDU_PT = PackagedCorpus(
    name="debian-edu-pt",
    package="debian-edu-doc-pt-br",
    source=Path("/usr/share/doc/debian-edu-doc-pt-br"),
    files=("debian-edu-bookworm-manual.html",),
    sets="debedu-pt",
    language="pt",
    size=20,
)

# A sealed Brazilian-Portuguese set from a third package: 25 section pages of the Debian
# Administrator's Handbook (network services and configuration, security, virtualization, the
# packaging system, administration). The handbook leaves some sections in English; these pages are
# mainly translated, and every needle comes from a translated passage.
DEBIAN_HANDBOOK_PT = PackagedCorpus(
    name="debian-handbook-pt",
    package="debian-handbook",
    source=Path("/usr/share/doc/debian-handbook/html/pt-BR"),
    files=tuple(
        f"sect.{page}.html"
        for page in (
            "dhcp",
            "ldap-directory",
            "nfs-file-server",
            "windows-file-server-with-samba",
            "http-web-server",
            "network-config",
            "hostname-name-service",
            "virtual-private-network",
            "network-diagnosis-tools",
            "selinux",
            "other-security-considerations",
            "dealing-with-compromised-machine",
            "virtualization",
            "manipulating-packages-with-dpkg",
            "coexistence-with-other-packaging-systems",
            "setup-apt-package-repository",
            "regular-upgrades",
            "syslog",
            "hotplug",
            "kernel-role-and-tasks",
            "user-space",
            "quotas",
            "release-lifecycle",
            "common-procedures",
            "creating-accounts",
        )
    ),
    sets="dhb-pt",
    language="pt",
    size=20,
)

# A Brazilian-Portuguese library of another domain, office software: how-to pages of the LibreOffice
# 7.4 help for Writer, Calc and the whole suite, kept in their folders (the help reuses page names
# across modules). Every chosen page is translated and states menus, shortcuts, limits or defaults.
LIBREOFFICE_HELP_PT = PackagedCorpus(
    name="libreoffice-help-pt",
    package="libreoffice-help-pt-br",
    source=Path("/usr/share/libreoffice/help/pt-BR/text"),
    files=pages_in_folders(
        (
            (
                "swriter/guide",
                (
                    "page_break",
                    "table_sizing",
                    "footnote_usage",
                    "using_hyphen",
                    "word_completion_adjust",
                    "autotext",
                    "numbering_lines",
                    "protection",
                    "pagenumbers",
                    "captions",
                    "print_brochure",
                    "smarttags",
                    "auto_numbering",
                    "globaldoc",
                ),
            ),
            (
                "scalc/guide",
                (
                    "rename_table",
                    "calc_date",
                    "wildcards",
                    "remove_duplicates",
                    "print_title_row",
                    "autofilter",
                    "cell_protect",
                    "table_cellmerge",
                    "relativ_absolut_ref",
                    "consolidate",
                    "csv_files",
                    "validity",
                    "formula_enter",
                ),
            ),
            (
                "shared/guide",
                ("ms_import_export_limitations", "redlining_enter", "collab", "digital_signatures"),
            ),
        )
    ),
    sets="lohelp-pt",
    language="pt",
    size=20,
)

# A Brazilian-Portuguese library of a fourth domain, image editing: pages of the GIMP 2.10 help
# (tools, dialogs and menu commands, filters, concepts, tutorials and the program's history). About
# a third of the help's pages are still English; these are translated (checked by eye and with
# py3langid) but for a line or two the translators left, such as a filter's English menu path.
GIMP_HELP_PT = PackagedCorpus(
    name="gimp-help-pt",
    package="gimp-help-pt-br",
    source=Path("/usr/share/gimp/2.0/help/pt_BR"),
    files=html_pages(
        (
            "gimp-tool-eraser",
            "gimp-tool-ellipse-select",
            "gimp-tool-cage",
            "gimp-tool-ink",
            "gimp-tool-zoom",
            "gimp-histogram-dialog",
            "gimp-undo-dialog",
            "gimp-pointer-info-dialog",
            "gimp-font-dialog",
            "gimp-module-dialog",
            "gimp-selection-float",
            "gimp-path-stroke",
            "gimp-view-zoom",
            "plug-in-gflare",
            "plug-in-lighting",
            "plug-in-map-object",
            "plug-in-curve-bend",
            "plug-in-sparkle",
            "plug-in-jigsaw",
            "script-fu-weave",
            "plug-in-borderaverage",
            "gimp-concepts-palettes",
            "gimp-concepts-image-grid-and-guides",
            "gimp-image-window-quick-mask-button",
            "gimp-using-fonts",
            "gimp-using-setup-tile-cache",
            "gimp-using-web-transparency",
            "gimp-using-script-fu-tutorial-identifier",
            "gimp-using-simpleobjects",
            "gimp-introduction-history-early-days",
            "gimp-introduction-history-2-0",
        )
    ),
    sets="gimp-pt",
    language="pt",
    size=20,
)

# A European-Portuguese library of the same office software: how-to pages of the LibreOffice 7.4
# help for Impress, Draw, Math, Base and the whole suite, none of them in the Brazilian selection
# above. Every chosen page is fully translated and states menus, shortcuts, limits or defaults.
LIBREOFFICE_HELP_PT_PT = PackagedCorpus(
    name="libreoffice-help-pt-pt",
    package="libreoffice-help-pt",
    source=Path("/usr/share/libreoffice/help/pt/text"),
    files=pages_in_folders(
        (
            (
                "simpress/guide",
                (
                    "presenter_console",
                    "impress_remote",
                    "animated_gif_create",
                    "animated_slidechange",
                    "rehearse_timings",
                    "line_draw",
                    "line_edit",
                    "3d_create",
                ),
            ),
            (
                "sdraw/guide",
                (
                    "align_arrange",
                    "eyedropper",
                    "gradient",
                    "layers",
                    "rotate_object",
                    "duplicate_object",
                    "cross_fading",
                    "combine_etc",
                ),
            ),
            ("smath/guide", ("comment", "newline", "align", "text")),
            (
                "shared/guide",
                (
                    "data_dbase2office",
                    "data_addressbook",
                    "data_forms",
                    "data_enter_sql",
                    "doc_autosave",
                    "macro_recording",
                    "ctl",
                    "autocorr_url",
                    "line_intext",
                    "redlining_docmerge",
                    "spadmin",
                    "digitalsign_receive",
                ),
            ),
        )
    ),
    sets="lohelp-ptpt",
    language="pt",
    size=20,
)

LILYPOND_WEB_PT = PackagedCorpus(
    name="lilypond-pt",
    package="lilypond-doc-html-pt",
    source=Path("/usr/share/doc/lilypond/html/Documentation/web"),
    files=html_pages(
        (
            "index",
            "introduction",
            "features",
            "examples",
            "freedom",
            "background",
            "productions",
            "reviews",
            "text-input",
            "easier-editing",
            "manuals",
            "learning",
            "glossary",
            "essay",
            "notation",
            "usage",
            "snippets",
            "faq",
            "changes",
            "extending",
            "internals",
            "web",
            "community",
            "contact",
            "tiny-examples",
            "bug-reports",
            "sponsoring",
            "development",
            "news",
        ),
        suffix=".pt.html",
    ),
    sets="pkg-pt",
    language="pt",
    size=20,
)

# An English library of another domain, web server configuration: pages of the Apache HTTP Server
# 2.4 manual (Debian ships each language in its own folder as `.html`), kept in their folders:
# module references that state each directive's default, context and limits, and how-to and
# concept pages. The package's `en/bind.html` holds the Brazilian-Portuguese translation, so it is left out.
APACHE_MANUAL = PackagedCorpus(
    name="apache-manual",
    package="apache2-doc",
    source=Path("/usr/share/doc/apache2-doc/manual/en"),
    files=pages_in_folders(
        (
            (
                "mod",
                (
                    "core",
                    "mpm_common",
                    "event",
                    "mod_ssl",
                    "mod_proxy",
                    "mod_rewrite",
                    "mod_cache",
                    "mod_log_config",
                    "mod_headers",
                    "mod_deflate",
                    "mod_expires",
                    "mod_alias",
                    "mod_dir",
                    "mod_autoindex",
                    "mod_auth_basic",
                    "mod_authz_core",
                    "mod_status",
                    "mod_reqtimeout",
                    "mod_ratelimit",
                ),
            ),
            ("howto", ("htaccess", "auth", "reverse_proxy", "cgi")),
            ("vhosts", ("name-based", "details", "mass")),
        )
    )
    + html_pages(("caching", "urlmapping", "logs", "sections")),
    sets="apache",
    size=25,
)

# An English library of a third domain, mail server configuration: pages of the Postfix 3.7
# documentation (Debian `postfix-doc`): 21 README guides that state parameter defaults, limits and
# versions, and 4 manual pages. The parameter reference postconf.5.html is left out: it is one page
# of about 594,000 characters of text, more than twice these 25 pages together.
POSTFIX_DOCS = PackagedCorpus(
    name="postfix-docs",
    package="postfix-doc",
    source=Path("/usr/share/doc/postfix/html"),
    files=html_pages(
        (
            "BASIC_CONFIGURATION_README",
            "SOHO_README",
            "VIRTUAL_README",
            "ADDRESS_VERIFICATION_README",
            "BACKSCATTER_README",
            "SMTPD_ACCESS_README",
            "STRESS_README",
            "COMPATIBILITY_README",
            "CONNECTION_CACHE_README",
            "ETRN_README",
            "SMTPUTF8_README",
            "IPV6_README",
            "MAILLOG_README",
            "LOCAL_RECIPIENT_README",
            "VERP_README",
            "DSN_README",
            "BDAT_README",
            "NFS_README",
            "LINUX_README",
            "UUCP_README",
            "DB_README",
            "postsuper.1",
            "postqueue.1",
            "anvil.8",
            "aliases.5",
        )
    ),
    sets="postfix",
    size=25,
)

# A Brazilian-Portuguese library of another domain, numerical computing: reference pages of the
# Scilab 6.1 help. Debian ships the help as one JavaHelp JAR per language, not as loose pages, so the
# pages are read from the folder inside `scilab_pt_BR_help.jar`. Pages the translators left out are
# English in that JAR; these are translated (checked by eye and with py3langid) but for a line or
# two each, such as an output parameter's English description.
SCILAB_HELP_PT = PackagedCorpus(
    name="scilab-pt",
    package="scilab-doc-pt-br",
    source=Path("scilab_pt_BR_help"),
    archive=Path("/usr/share/scilab/modules/helptools/jar/scilab_pt_BR_help.jar"),
    files=html_pages(
        (
            "ode",
            "odeoptions",
            "ode_optional_output",
            "ode_root",
            "dassl",
            "int2d",
            "int3d",
            "splin",
            "linear_interpn",
            "lsq_splin",
            "cshep2d",
            "bessel",
            "legendre",
            "qr",
            "lufact",
            "number_properties",
            "modulo",
            "dsearch",
            "rand",
            "part",
            "GlobalProperty",
            "LineSpec",
            "graphics_fonts",
            "legend_properties",
            "object_editor",
            "xgetmouse",
            "zoom_rect",
            "Matplot",
            "ieditor",
            "help_from_sci",
            "xmltojar",
            "read",
            "unix_s",
            "xls_open",
            "predef",
        )
    ),
    sets="sci-pt",
    language="pt",
    size=25,
)

# A Brazilian-Portuguese library from another package and author: chapters of the Guia Foca
# GNU/Linux (the 2010 edition; Debian `focalinux-html`), a GNU/Linux guide written in Portuguese
# in three levels (iniciante, intermediário, avançado). The levels repeat many chapters, so each
# chosen topic comes from one level only, kept in its folder (the levels reuse page names); the
# chosen chapters are commands, files, printing, disks, logs, the shell, user accounts and three
# small network servers.
FOCA_LINUX_PT = PackagedCorpus(
    name="focalinux-pt",
    package="focalinux-html",
    source=Path("/usr/share/doc/focalinux/html"),
    files=pages_in_folders(
        (
            (
                "iniciante",
                (
                    "ch-cmd",
                    "ch-cmdc",
                    "ch-cmdd",
                    "ch-cmdn",
                    "ch-cmdv",
                    "ch-redir",
                    "ch-x11",
                    "ch-disc",
                    "ch-impr",
                    "ch-d-l",
                    "ch-run",
                    "ch-perm",
                ),
            ),
            ("intermediario", ("ch-cfg", "ch-etc", "ch-inter", "ch-tasks", "ch-log")),
            (
                "avancado",
                ("ch-bas", "ch-deb", "ch-pers", "ch-cfgrede", "ch-d-contas", "ch-s-ident", "ch-s-telnet", "ch-s-pop3"),
            ),
        )
    ),
    sets="foca-pt",
    language="pt",
    size=25,
)

# An English library of a fourth domain, an embedded database engine: pages of the SQLite 3.40
# documentation (Debian `sqlite3-doc`, one flat folder): SQL command and function references, feature
# guides (write-ahead logging, generated columns, STRICT and WITHOUT ROWID tables, partial and
# expression indexes, URI filenames, memory-mapped I/O), two virtual tables, the sqldiff tool and
# essays on limits, versioning, support and design. Its large pages (pragma.html, cli.html,
# fts5.html, the C interface reference, the cross-reference indexes) are left out.
SQLITE_DOCS = PackagedCorpus(
    name="sqlite-docs",
    package="sqlite3-doc",
    source=Path("/usr/share/doc/sqlite3"),
    files=html_pages(
        (
            "limits",
            "lang_datefunc",
            "autoinc",
            "wal",
            "lang_vacuum",
            "lang_transaction",
            "lang_savepoint",
            "lang_upsert",
            "lang_returning",
            "gencol",
            "stricttables",
            "partialindex",
            "withoutrowid",
            "inmemorydb",
            "mmap",
            "uri",
            "csv",
            "lang_analyze",
            "lang_altertable",
            "versionnumbers",
            "lts",
            "whyc",
            "nulls",
            "floatingpoint",
            "lang_mathfunc",
            "sqldiff",
            "lang_createtrigger",
            "expridx",
            "rowvalue",
            "dbstat",
        )
    ),
    sets="sqlite",
    size=25,
)

# A Brazilian-Portuguese library of another domain, macro programming: reference pages of the
# LibreOffice 7.4 Basic help (`sbasic/shared/`, a folder neither LibreOffice selection above uses):
# the language's variables, procedures, libraries and modules, the Basic IDE and its debugger,
# document events, dialog control properties, and statements and functions with their parameters,
# defaults, limits and error codes. Some text recurs across the folder (the run-time error list,
# the type list of Dim, the MsgBox and WeekDay tables): the Error function, ReDim and snippet pages
# that repeat it are left out, and no needle rests on text two chosen pages share.
LIBREOFFICE_BASIC_PT = PackagedCorpus(
    name="libreoffice-basic-pt",
    package="libreoffice-help-pt-br",
    source=LIBREOFFICE_HELP_PT.source,
    files=pages_in_folders(
        (
            (
                "sbasic/shared",
                (
                    "01020100",  # variables
                    "01020300",  # procedures and functions
                    "01020500",  # libraries, modules and dialogs
                    "01030200",  # the Basic editor
                    "01030300",  # debugging; the run-time error list
                    "01030400",  # organizing libraries and modules
                    "01040000",  # document events
                    "01170101",  # dialog control properties
                    "00000002",  # glossary
                    "03040000",  # constants
                    "03102100",  # Dim
                    "03100500",  # CInt
                    "03120301",  # Format
                    "03090202",  # For...Next
                    "03020404",  # Dir
                    "compatibilitymode",
                    "compatible",
                    "03020103",  # Open
                    "03020405",  # FileAttr
                    "03030101",  # DateSerial
                    "03030105",  # WeekDay
                    "03030205",  # TimeSerial
                    "03030108",  # CDateFromIso
                    "03010102",  # MsgBox
                    "03010201",  # InputBox
                    "Resume",
                    "03050500",  # On Error
                    "03170000",  # Round
                    "03070600",  # Mod
                    "03130500",  # Shell
                    "replace",
                    "03120401",  # InStr
                    "vbasupport",
                    "03010305",  # RGB
                ),
            ),
        )
    ),
    sets="lobasic-pt",
    language="pt",
    size=25,
)

# An English library of a fifth domain, version control: manual pages of Git 2.39 (Debian
# `git-doc`, one flat folder of HTML pages): 21 command pages (housekeeping, stashing, tagging,
# bisecting, describing, cherry-picking, repacking, cleaning, reflogs, rerere, archives, the
# daemon, the two bundled credential helpers, switch, restore, ref name rules, range-diff, bundles,
# instaweb, init), 6 guides and file formats (ignore files, credentials, .gitmodules, .mailmap,
# revision syntax, the FAQ) and the reviewing guidelines. The large pages (git-config, the user
# manual, git-log, git-rev-list, the core tutorial, git-fast-import; 56,000 to 254,000 characters
# of text each) and the index pages are left out.
GIT_MANUAL = PackagedCorpus(
    name="git-manual",
    package="git-doc",
    source=Path("/usr/share/doc/git-doc"),
    files=html_pages(
        (
            "git-gc",
            "git-stash",
            "git-tag",
            "git-bisect",
            "gitignore",
            "git-describe",
            "git-cherry-pick",
            "git-repack",
            "git-clean",
            "git-reflog",
            "git-rerere",
            "git-archive",
            "git-daemon",
            "gitcredentials",
            "git-credential-cache",
            "git-credential-store",
            "git-switch",
            "git-restore",
            "gitmodules",
            "gitmailmap",
            "git-check-ref-format",
            "gitrevisions",
            "git-range-diff",
            "git-bundle",
            "git-instaweb",
            "gitfaq",
            "git-init",
            "ReviewingGuidelines",
        )
    ),
    sets="git",
    size=25,
)

# An English library of a sixth domain, a programming language's standard library: pages of the
# Python 3.11 documentation (Debian `python3.11-doc`, which `python3-doc` depends on), kept in their
# folders: 26 library reference pages on data compression and archiving (zlib, gzip, bz2, lzma,
# zipfile), file formats (csv, tomllib, netrc, plistlib), persistence (shelve, marshal), file access
# (glob, fnmatch, tempfile, filecmp), secrets, HMAC, UUIDs, Base64, data structures and scheduling
# (heapq, bisect, queue, sched, graphlib), timing and time zones (timeit, zoneinfo), and two
# tutorial chapters (floating point arithmetic, virtual environments). The large pages (os,
# stdtypes, the built-in functions, argparse, the logging cookbook; 70,000 to 160,000 characters of
# text each) and the index pages are left out.
PYTHON_DOCS = PackagedCorpus(
    name="python-docs",
    package="python3.11-doc",
    source=Path("/usr/share/doc/python3.11/html"),
    files=pages_in_folders(
        (
            (
                "library",
                (
                    "zlib",
                    "gzip",
                    "bz2",
                    "lzma",
                    "zipfile",
                    "csv",
                    "tomllib",
                    "netrc",
                    "plistlib",
                    "shelve",
                    "marshal",
                    "glob",
                    "fnmatch",
                    "tempfile",
                    "filecmp",
                    "secrets",
                    "hmac",
                    "uuid",
                    "base64",
                    "heapq",
                    "bisect",
                    "queue",
                    "sched",
                    "graphlib",
                    "timeit",
                    "zoneinfo",
                ),
            ),
            ("tutorial", ("floatingpoint", "venv")),
        )
    ),
    sets="python",
    size=25,
)

# A European-Portuguese library of a new domain, personal and small-business accounting: 34 of the
# 142 pages of the GnuCash 4.13 "Tutorial e guia de conceitos" (Debian `gnucash-docs`, the HTML
# folder `gnucash-guide-pt`): accounting concepts, files and backups, accounts, the account
# register, reconciliation, scheduled transactions, credit cards, loans, investments and stock
# quotes, several currencies, budgets, business set-up (sales tax tables, billing terms, invoices,
# payroll), current assets, depreciation, the Python bindings and converting the XML file. Left
# out are the GNU FDL pages (English), the title, part and chapter index pages, the tutorial's
# walk-through pages ("Juntar as peças") and the other sections. The text keeps a few English
# names (the Windows and macOS menu items that install Finance::Quote, some Windows paths, a
# figure caption); no needle rests on them.
GNUCASH_GUIDE_PT = PackagedCorpus(
    name="gnucash-guide-pt",
    package="gnucash-docs",
    source=Path("/usr/share/doc/gnucash-docs/gnucash-guide-pt"),
    files=html_pages(
        (
            "oview-features1",
            "basics-accounting1",
            "basics-entry1",
            "basics-interface1",
            "basics-files1",
            "basics-backup1",
            "basics-migrate-settings",
            "accts-types1",
            "accts-oa5",  # current assets
            "txns-register-oview",
            "txns-registers-txntypes",
            "txns-reconcile1",
            "txns-sxn1",
            "cc-enterpay1",
            "loans_calcs1",
            "loans_personalLoanToSomeOne",
            "invest_concepts1",
            "invest-setup1",
            "invest-stockprice1",
            "invest-dividends1",
            "invest-splitsnmergers1",
            "currency_acct1",
            "currency_howto1",
            "currency_purchase1",
            "budget_creation1",
            "bus-setuptaxtables",
            "bus-setupterms",
            "bus-ar-invoices1",
            "bus-ar-invoicechange",
            "bus-pay-protocol1",
            "dep_concepts1",
            "dep_value1",
            "ch_python_bindings",
            "appendixa_xmlconvert1",
        )
    ),
    sets="gnucash-pt",
    language="pt",
    size=25,
)

# An English library of a seventh domain, a command shell: chapter pages of the Z shell 5.9 manual
# and its FAQ (Debian `zsh-doc`, one flat folder of texi2html pages split by chapter): 19 manual
# chapters (producing the manual, the introduction, the roadmap, invocation, startup files, shell
# grammar, redirection, command execution, functions, jobs and signals, arithmetic, conditional
# expressions, prompt expansion, parameters, completion widgets, compctl completion, and the
# calendar, TCP and zftp function systems) and the FAQ's 6 chapters. The package ships each
# chapter as one page and every section as a one-line redirect to it, so the sections are left
# out, as are the index, table-of-contents and about pages, the FAQ's table of contents
# (FAQ.html) and the large chapters (expansion, options, builtins, the line editor, the modules,
# user contributions, the completion system; 69,000 to 211,000 characters of text each). Every
# page keeps its navigation line ("[ << ] | [ < ] | [ Up ] ...") and its footer ("Zsh version
# 5.9, released on May 14, 2022."); no needle rests on either. The 25 pages are the package's 25
# smallest chapter pages and come to about 452,000 characters of text, above the usual size, as the
# package splits the manual only by chapter.
ZSH_MANUAL = PackagedCorpus(
    name="zsh-manual",
    package="zsh-doc",
    source=Path("/usr/share/doc/zsh-common/html"),
    files=html_pages(
        (
            "The-Z-Shell-Manual",
            "Introduction",
            "Roadmap",
            "Invocation",
            "Files",
            "Shell-Grammar",
            "Redirection",
            "Command-Execution",
            "Functions",
            "Jobs-_0026-Signals",
            "Arithmetic-Evaluation",
            "Conditional-Expressions",
            "Prompt-Expansion",
            "Parameters",
            "Completion-Widgets",
            "Completion-Using-compctl",
            "Calendar-Function-System",
            "TCP-Function-System",
            "Zftp-Function-System",
            "FAQ01",
            "FAQ02",
            "FAQ03",
            "FAQ04",
            "FAQ05",
            "FAQ06",
        )
    ),
    sets="zsh",
    size=25,
)

# A European-Portuguese library of a new domain, installing an operating system: 32 of the 88
# pages of the Debian 12 (bookworm) installation guide for 64-bit PC (Debian
# `installation-guide-amd64`, the DocBook HTML folder `pt`): supported hardware and firmware,
# installation media, memory and disk requirements, the installation overview, the facts to gather,
# BIOS/UEFI set-up, USB sticks, TFTP network boot, checksums, booting the installer, accessibility,
# boot parameters, troubleshooting, how the installer works and its components, each component in
# use (localization, network, users, clock, partitioning, RAID, LVM, encryption, the base system,
# apt and tasks, GRUB), missing firmware, encrypted volumes at boot, e-mail, the rescue mode,
# preseeding (introduction, use, the file's format), partitioning (the directory tree, the
# recommended scheme, device names, the partitioning programs), the disk space of tasks and PPPoE.
# Left out are the title, preface and chapter pages, the installation howto (appendix A), the
# example preseed file and the advanced preseeding options, the GNU GPL, the administrivia and the
# other sections (what Debian and GNU/Linux are, buying hardware, multi-boot, getting the media, the
# first boot and logging in, shutting down, orientation and further reading, device files and the
# mouse, installing from another Unix system or over PLIP). The pages keep English boot-menu entries
# ("Graphical install"), command output and a few English terms; no needle rests on them.
INSTALL_GUIDE_PT = PackagedCorpus(
    name="install-guide-pt",
    package="installation-guide-amd64",
    source=Path("/usr/share/doc/installation-guide-amd64/pt"),
    files=html_pages(
        (
            "ch01s04",  # what the Debian Installer is
            "ch02s01",  # supported hardware
            "ch02s02",  # devices that need firmware
            "ch02s04",  # installation media
            "ch02s05",  # memory and disk space requirements
            "ch03s01",  # overview of the installation process
            "ch03s03",  # information you will need
            "ch03s04",  # minimum hardware requirements
            "ch03s06",  # BIOS/UEFI set-up
            "ch04s03",  # USB sticks
            "ch04s05",  # TFTP network boot
            "ch04s07",  # checksums
            "ch05s01",  # booting the installer on 64-bit PC
            "ch05s02",  # accessibility
            "ch05s03",  # boot parameters
            "ch05s04",  # troubleshooting
            "ch06s01",  # how the installer works
            "ch06s02",  # the components
            "ch06s03",  # using each component
            "ch06s04",  # loading missing firmware
            "ch07s02",  # mounting encrypted volumes
            "ch08s04",  # e-mail
            "ch08s06",  # the rescue mode
            "apbs01",  # preseeding: introduction
            "apbs02",  # using preseeding
            "apbs03",  # creating a preconfiguration file
            "apcs02",  # the directory tree
            "apcs03",  # recommended partitioning scheme
            "apcs04",  # device names
            "apcs05",  # partitioning programs
            "apds02",  # disk space needed for tasks
            "apds05",  # PPPoE
        )
    ),
    sets="debinst-pt",
    language="pt",
    size=25,
)

# An English library of an eighth domain, machine emulation and virtualization: 28 pages of the QEMU
# 7.2 system emulation manual. Bookworm has no `qemu-system-doc`; the manual's HTML pages ship in
# `qemu-system-common` under /usr/share/doc/qemu-system-common/system, kept here in their folders
# (`system/`, `system/i386/`, `system/devices/`, `system/arm/`, ...): disk images, the monitor,
# TLS, VNC security, client authorization, secrets, security, record/replay, GDB, boot order, the
# generic loader, persistent reservations, the x86 CPU models, Hyper-V enlightenments, paravirtual
# KVM features, AMD SEV, Intel SGX, microvm, USB, NVMe, CAN bus and network emulation, the Arm and
# RISC-V virt boards, the Orange Pi PC, pSeries, the MIPS targets and s390x boot devices. Left out
# are the invocation page and the qemu(1) manual page (about 174,000 and 177,000 characters of text
# each, and the one repeats the other), `qemu-block-drivers` and `qemu-cpu-models` (which repeat
# `images` and `i386/cpu`), the index pages, the short board pages and the remaining device,
# board and target pages.
QEMU_MANUAL = PackagedCorpus(
    name="qemu-manual",
    package="qemu-system-common",
    source=Path("/usr/share/doc/qemu-system-common"),
    files=pages_in_folders(
        (
            (
                "system",
                (
                    "images",
                    "monitor",
                    "tls",
                    "vnc-security",
                    "authz",
                    "secrets",
                    "security",
                    "replay",
                    "gdb",
                    "bootindex",
                    "generic-loader",
                    "pr-manager",
                    "target-mips",
                ),
            ),
            ("system/i386", ("cpu", "hyperv", "kvm-pv", "amd-memory-encryption", "sgx", "microvm")),
            ("system/devices", ("usb", "nvme", "can", "net")),
            ("system/arm", ("virt", "orangepi")),
            ("system/riscv", ("virt",)),
            ("system/ppc", ("pseries",)),
            ("system/s390x", ("bootdevices",)),
        )
    ),
    sets="qemu",
    size=25,
)

# A Brazilian-Portuguese library of a new domain, typesetting mathematical formulas: 35 pages of the
# LibreOffice 7.4 Math help (Debian `libreoffice-help-pt-br`, `smath/` under
# /usr/share/libreoffice/help/pt-BR/text, a module neither Brazilian LibreOffice selection above
# uses), kept in their folders: the Elements panel's pages for each kind of element (unary and
# binary operators, relations, operators, functions, brackets, attributes, formats, set
# operations), the notes on brackets and grouping, indexes and exponents, attributes and scaling,
# the nine formula reference tables and the other symbols, the Format dialogs (fonts, font sizes,
# spacing, alignment), the symbol catalogue and its editor, importing formulas and MathML, chemical
# formulas, three guides (limits, colours, keyboard control), the formula shortcut keys and the
# features overview. Left out are the four guides the European-Portuguese selection
# (LIBREOFFICE_HELP_PT_PT) takes in its own package (comments, line breaks, alignment, text), the
# menu, toolbar and access pages that repeat other pages' opening lines, the Elements and examples
# index pages, the one-line example pages and the short command pages (zoom, refresh, next marker).
# Each reference table page repeats the opening paragraph of its Elements page; no needle rests on it.
LIBREOFFICE_MATH_PT = PackagedCorpus(
    name="libreoffice-math-pt",
    package="libreoffice-help-pt-br",
    source=LIBREOFFICE_HELP_PT.source,
    files=pages_in_folders(
        (
            (
                "smath/01",
                (
                    "03090100",  # unary and binary operators
                    "03090200",  # relations
                    "03090300",  # operators
                    "03090400",  # functions
                    "03090500",  # brackets
                    "03090600",  # attributes
                    "03090700",  # formats
                    "03090800",  # set operations
                    "03091100",  # brackets and grouping
                    "03091200",  # indexes and exponents
                    "03091300",  # attributes, further notes
                    "03091400",  # scaling
                    "03091501",  # reference table: unary and binary operators
                    "03091502",  # reference table: relations
                    "03091503",  # reference table: set operators
                    "03091504",  # reference table: functions
                    "03091505",  # reference table: operators
                    "03091506",  # reference table: attributes
                    "03091507",  # reference table: others
                    "03091508",  # reference table: brackets
                    "03091509",  # reference table: formatting
                    "03091600",  # other symbols
                    "05010000",  # Format - Fonts
                    "05020000",  # Format - Font Size
                    "05030000",  # Format - Spacing
                    "05040000",  # Format - Alignment
                    "06010000",  # Tools - Symbols
                    "06010100",  # editing symbols
                    "06020000",  # importing a formula; MathML from the clipboard
                    "chemical",  # chemical formulas
                ),
            ),
            ("smath/guide", ("limits", "color", "keyboard")),
            ("smath/04", ("01020000",)),  # formula shortcut keys
            ("smath", ("main0503",)),  # the features overview
        )
    ),
    sets="lomath-pt",
    language="pt",
    size=25,
)

# An English library of a ninth domain, numerical computing: 29 pages of the GNU Octave 7.3 manual
# (Debian `octave-doc`, Texinfo HTML split into one page per section under
# /usr/share/doc/octave/octave.html, 507 section pages beside 2,356 redirect stubs for index entries):
# command-line options and startup files, the history and prompt, packages (installing, creating,
# the DESCRIPTION file), integer types, ranges, broadcasting, persistent variables, saving data and
# crash dumps, terminal output, timing, the Matlab-compatible ODE solvers, minimizers, linear
# programming, breakpoints, profiling, publishing scripts, JSON, web access, the JVM, mathematical
# constants, printing plots, building from source and reporting bugs. Left out are the indexes
# (the function index alone is about 135,000 characters of text), the license, the long plotting
# pages (two- and three-dimensional plots, about 63,000 and 52,000) and the other sections.
OCTAVE_MANUAL = PackagedCorpus(
    name="octave-manual",
    package="octave-doc",
    source=Path("/usr/share/doc/octave/octave.html"),
    files=html_pages(
        (
            "Command-Line-Options",
            "Startup-Files",
            "Commands-for-History",
            "Customizing-the-Prompt",
            "Installing-and-Removing-Packages",
            "Creating-Packages",
            "The-DESCRIPTION-File",
            "Integer-Data-Types",
            "Ranges",
            "Broadcasting",
            "Persistent-Variables",
            "Simple-File-I_002fO",
            "Saving-Data-on-Unexpected-Exits",
            "Terminal-Output",
            "Timing-Utilities",
            "Matlab_002dcompatible-solvers",
            "Minimizers",
            "Linear-Programming",
            "Breakpoints",
            "Profiling",
            "Publish-Octave-Script-Files",
            "JSON-data-encoding_002fdecoding",
            "WWW-Access",
            "Set-up-the-JVM",
            "Mathematical-Constants",
            "Printing-and-Saving-Plots",
            "Running-Configure-and-Make",
            "Compiling-Octave-with-64_002dbit-Indexing",
            "Bug-Reporting",
        )
    ),
    sets="octave",
    size=25,
)

# A Brazilian-Portuguese library of a new domain, desktop databases: 34 pages of the LibreOffice 7.4
# Base help (Debian `libreoffice-help-pt-br`, `sdatabase/` under
# /usr/share/libreoffice/help/pt-BR/text, a module no other selection uses, and three Base guides of
# `shared/guide/` none of the other selections takes), kept in their folders: queries (the query
# container, a missing element, the query design view with its filter operators, functions and
# parameters, join properties, the Query Wizard), tables (table and index design, relations and their
# dialog, copying a table and its type formatting, the Table Wizard's primary key page), the
# connection settings (ODBC, dBASE, the SQL dialog, the special, additional and advanced
# properties, the Database Wizard's first page and its ADO, JDBC, MariaDB/MySQL, PostgreSQL and
# text-file pages), the module's overview, migrating macros, the Report Builder (its guide,
# properties, navigator, sorting and grouping, page numbers) and the guides on importing and
# exporting, creating reports and designing a table. Left out are the four `shared/guide/data_*`
# pages the European-Portuguese selection (LIBREOFFICE_HELP_PT_PT) takes in its own package, the
# menu and toolbar pages, the one-step wizard pages and the short dialog pages (the dBASE index
# list among them); the generated values page and the Table Wizard's types page repeat the ODBC
# page's paragraphs. Several chosen pages share paragraphs (the SQL92 naming rule, the character
# set, AUTO_INCREMENT, the wizards' buttons, Oracle over JDBC); no needle rests on shared text.
LIBREOFFICE_BASE_PT = PackagedCorpus(
    name="libreoffice-base-pt",
    package="libreoffice-help-pt-br",
    source=LIBREOFFICE_HELP_PT.source,
    files=pages_in_folders(
        (
            (
                "sdatabase",
                (
                    "02000000",  # queries
                    "02000002",  # element not found
                    "02010100",  # query design
                    "02010101",  # join properties
                    "05010000",  # table design
                    "05010100",  # index design
                    "05020000",  # relations
                    "05020100",  # the Relations dialog
                    "05030100",  # copy table
                    "05030300",  # type formatting
                    "11020000",  # ODBC
                    "11030000",  # dBASE
                    "11080000",  # execute SQL statement
                    "dabaadvpropdat",  # special settings
                    "dabapropadd",  # additional settings
                    "dabapropgen",  # advanced properties
                    "dabawiz01",  # Database Wizard: select database
                    "dabawiz02ado",  # ADO connection
                    "dabawiz02jdbc",  # JDBC connection
                    "dabawiz02mysql",  # MariaDB and MySQL connection
                    "dabawiz02pgsql",  # PostgreSQL connection
                    "dabawiz02text",  # text file connection
                    "main",  # using databases in Base
                    "migrate_macros",  # migrate macros
                    "querywizard00",  # Query Wizard
                    "rep_main",  # Report Builder
                    "rep_navigator",  # Report Navigator
                    "rep_pagenumbers",  # page numbers
                    "rep_prop",  # report properties
                    "rep_sort",  # sorting and grouping
                    "tablewizard03",  # Table Wizard: primary key
                ),
            ),
            ("shared/guide", ("data_im_export", "data_reports", "data_tabledefine")),
        )
    ),
    sets="lobase-pt",
    language="pt",
    size=25,
)

# An English library of a tenth domain, web application frameworks: 26 pages of the Django 3.2
# documentation (Debian `python-django-doc`, Sphinx HTML under /usr/share/doc/python-django-doc/html),
# kept in their folders: sessions, CSRF and clickjacking protection, password storage, cryptographic
# signing, the paginator, the deployment checklist, deploying static files, CSV and PDF output, the
# humanize, messages, flatpages, redirects, sitemaps and sites apps, file uploads and upload handlers,
# signals, tablespaces, conditional view processing, the general and installation FAQs, the release
# process, API stability and error reporting. `libvirt-doc`, the first candidate named for this set,
# was left out: virtualization management is the domain of `qemu`. Left out are the release notes
# (276 pages), the module sources, the indexes, the long references (settings, querysets, model
# fields, the admin; 70,000 to 124,000 characters of text each) and the other pages.
DJANGO_DOCS = PackagedCorpus(
    name="django-docs",
    package="python-django-doc",
    source=Path("/usr/share/doc/python-django-doc/html"),
    files=html_pages(
        (
            "topics/http/sessions",
            "ref/csrf",
            "ref/clickjacking",
            "topics/auth/passwords",
            "topics/signing",
            "ref/paginator",
            "howto/deployment/checklist",
            "howto/static-files/deployment",
            "howto/outputting-csv",
            "howto/outputting-pdf",
            "ref/contrib/humanize",
            "ref/contrib/messages",
            "ref/contrib/flatpages",
            "ref/contrib/redirects",
            "ref/contrib/sitemaps",
            "topics/http/file-uploads",
            "ref/files/uploads",
            "topics/signals",
            "topics/db/tablespaces",
            "topics/conditional-view-processing",
            "faq/general",
            "faq/install",
            "internals/release-process",
            "misc/api-stability",
            "howto/error-reporting",
            "ref/contrib/sites",
        )
    ),
    sets="django",
    size=25,
)

# A Brazilian-Portuguese library of a new domain, charts and data visualisation: 35 pages of the
# LibreOffice 7.4 Chart help (Debian `libreoffice-help-pt-br`, `schart/` under
# /usr/share/libreoffice/help/pt-BR/text, a module no other selection uses, and two chart guides of
# `shared/guide/` none of the other selections takes), kept in their folders: the module's overview
# and its Formatting bar, the chart data table, titles, legend, data labels, axes, error bars,
# trend lines (their regression types and the Calc functions that compute them), the series
# options (spacing, overlap, start angle, missing values), grids, axis scale, positioning and label
# alignment, series order, the 3D view, the chart types (area, bubble, column and bar, column and
# line, line, net, pie, stock, XY) with their smooth and stepped line properties, the Chart
# Wizard's pages, the chart shortcut keys and the guides on inserting charts and editing titles.
# Left out are the access-path page, the Formatting bar's one-line command pages and the short
# dialog pages that only list the same tabs (wall, floor, area, data point, data series, title,
# legend, axis and grid dialogs). Several chosen pages share paragraphs (the Shift+F1 hint, the
# data series list of the Wizard, the Calc range example, the legend's automatic labels); no needle
# rests on shared text.
LIBREOFFICE_CHART_PT = PackagedCorpus(
    name="libreoffice-chart-pt",
    package="libreoffice-help-pt-br",
    source=LIBREOFFICE_HELP_PT.source,
    files=pages_in_folders(
        (
            ("schart", ("main0000", "main0202")),  # using charts; the Formatting bar
            (
                "schart/01",
                (
                    "03010000",  # chart data table
                    "04010000",  # titles
                    "04020000",  # legend
                    "04030000",  # data labels
                    "04040000",  # axes
                    "04050000",  # X/Y error bars
                    "04050100",  # trend lines
                    "04060000",  # options
                    "04070000",  # grids
                    "05010000",  # format selection
                    "05020201",  # alignment of axis labels
                    "05040201",  # scale
                    "05040202",  # positioning
                    "05120000",  # arrangement
                    "three_d_view",  # 3D view
                    "type_area",
                    "type_bubble",
                    "type_column_bar",
                    "type_column_line",
                    "type_line",
                    "type_net",
                    "type_pie",
                    "type_stock",
                    "type_xy",
                    "smooth_line_properties",
                    "stepped_line_properties",
                    "wiz_chart_type",  # Chart Wizard: chart type
                    "wiz_data_range",  # Chart Wizard: data range
                    "wiz_data_series",  # Chart Wizard: data series
                    "wiz_chart_elements",  # Chart Wizard: chart elements
                ),
            ),
            ("schart/04", ("01020000",)),  # chart shortcut keys
            ("shared/guide", ("chart_insert", "chart_title")),
        )
    ),
    sets="lochart-pt",
    language="pt",
    size=25,
)

# An English library of an eleventh domain, network packet analysis: 26 pages of the Wireshark 4.0
# User's Guide and Developer's Guide (Debian `wireshark-doc`, chunked HTML under
# /usr/share/doc/wireshark), kept in their folders: from the User's Guide the command line options,
# the display filter language, capture filters and the Capture Options dialog, opening, importing
# (hex dumps) and exporting capture files, the configuration files, configuration profiles, expert
# information, following streams, TCP analysis, reassembly, name resolution, checksums, time zones,
# playing VoIP calls and the RTP windows, the Windows installation, and the help pages of tshark,
# dumpcap, editcap and text2pcap; from the Developer's Guide extcap, adding a basic dissector and
# reassembling split packets. Left out are the tables of contents (index.html), the GPL appendix,
# the MATE chapters (a plugin's own manual and reference), the Lua API reference pages (up to
# 37,000 characters of function lists each), the pop-up menu and menu pages (mostly tables of menu
# items), the one-paragraph statistics and telephony pages and the build-environment chapters.
# Several tools' help texts share lines (the diagnostic options, the capture interface options);
# no needle rests on shared text.
WIRESHARK_GUIDE = PackagedCorpus(
    name="wireshark-guide",
    package="wireshark-doc",
    source=Path("/usr/share/doc/wireshark"),
    files=pages_in_folders(
        (
            (
                "wsug_html_chunked",
                (
                    "ChCustCommandLine",  # start Wireshark from the command line
                    "ChWorkBuildDisplayFilterSection",  # display filter expressions
                    "ChCapCaptureFilterSection",  # capture filters
                    "ChCapCaptureOptions",  # the Capture Options dialog
                    "ChIOOpenSection",  # open capture files
                    "ChIOImportSection",  # import hex dump
                    "ChIOExportSection",  # exporting data
                    "ChAppFilesConfigurationSection",  # configuration files
                    "ChCustConfigProfilesSection",  # configuration profiles
                    "ChAdvExpert",  # expert information
                    "ChAdvFollowStreamSection",  # following protocol streams
                    "ChAdvTCPAnalysis",  # TCP analysis
                    "ChAdvReassemblySection",  # packet reassembly
                    "ChAdvNameResolutionSection",  # name resolution
                    "ChAdvChecksums",  # checksums
                    "ChAdvTimezones",  # time zones
                    "ChTelPlayingCalls",  # playing VoIP calls
                    "_rtp",  # the RTP windows
                    "ChBuildInstallWinInstall",  # installing under Windows
                    "AppToolstshark",
                    "AppToolsdumpcap",
                    "AppToolseditcap",
                    "AppToolstext2pcap",
                ),
            ),
            (
                "wsdg_html_chunked",
                (
                    "ChCaptureExtcap",  # capture interfaces and log sources with extcap
                    "ChDissectAdd",  # adding a basic dissector
                    "ChDissectReassemble",  # reassembling split packets
                ),
            ),
        )
    ),
    sets="wireshark",
    size=25,
)

# An English library of a twelfth domain, text editing: 24 of the 152 pages of the Vim 9.0 help
# (Debian `vim-doc`, HTML under /usr/share/doc/vim/html): 11 chapters of the user manual (making
# small changes, syntax highlighting, editing more than one file, recovering from a crash, clever
# tricks, typing command-line commands, finding the file to edit, editing other files, repeating,
# the undo tree, installing Vim) and 13 reference pages (crash recovery, undo, folding, diff mode,
# tab pages, scrolling, help on help, the gzip, zip, tar and matchparen plugins, the license and
# charity page, sponsoring). Left out are the long references (options, built-in functions,
# syntax, netrw, eval, Vim9 script; 80,000 to 392,000 characters of text each), the release notes
# (version4 to version9) and the todo list, the tag index, the command indexes and the tables of
# contents (tags, index, vimindex, quickref, usr_toc), the language interfaces (if_*: Python is the
# domain of `python`), the pages for particular systems and GUIs (os_*, gui_*) and the other pages.
VIM_HELP = PackagedCorpus(
    name="vim-help",
    package="vim-doc",
    source=Path("/usr/share/doc/vim/html"),
    files=html_pages(
        (
            "usr_04",
            "usr_06",
            "usr_07",
            "usr_11",
            "usr_12",
            "usr_20",
            "usr_22",
            "usr_23",
            "usr_26",
            "usr_32",
            "usr_90",
            "recover",
            "undo",
            "fold",
            "diff",
            "tabpage",
            "scroll",
            "helphelp",
            "pi_gzip",
            "pi_zip",
            "pi_tar",
            "pi_paren",
            "uganda",
            "sponsor",
        )
    ),
    sets="vim",
    size=25,
)

# An English library of a thirteenth domain, DNS server administration: 11 of the 18 HTML pages of
# the BIND 9.18 Administrator Reference Manual (Debian `bind9-doc`, under
# /usr/share/doc/bind9-doc/arm). The manual ships one page per chapter, so the library is made of
# whole chapters: the introduction to DNS and BIND, resource requirements, configurations and zone
# files, name server operations, DNSSEC, advanced configurations, security configurations,
# troubleshooting and building BIND 9, with the appendix pages on general DNS reference information
# (the RFC list) and the history of DNS and BIND, about 226,000 characters of text. Left out are the
# configuration reference (reference.html, 493,000 characters of statement grammar), the manual
# pages (manpages.html, 248,000 characters), the DNSSEC Guide (dnssec-guide.html, a
# 209,000-character guide of its own that would take the library past 300,000 characters), the
# release notes (notes.html) and the changelog, and the tables of contents, index and search pages
# (index, genindex, search). The sample named.conf files of chapter 3 repeat whole paragraphs of
# comments; no needle rests on them.
BIND9_ARM = PackagedCorpus(
    name="bind9-arm",
    package="bind9-doc",
    source=Path("/usr/share/doc/bind9-doc/arm"),
    files=html_pages(
        (
            "chapter1",  # introduction to DNS and BIND 9
            "chapter2",  # resource requirements
            "chapter3",  # configurations and zone files
            "chapter4",  # name server operations
            "chapter5",  # DNSSEC
            "chapter6",  # advanced configurations
            "chapter7",  # security configurations
            "chapter9",  # troubleshooting
            "chapter10",  # building BIND 9
            "general",  # general DNS reference information
            "history",  # a brief history of the DNS and BIND
        )
    ),
    sets="bind9",
    size=25,
)

# An English library of a fourteenth domain, statistics: 2 of the 7 R 4.2.2 manuals (Debian
# `r-doc-html`, /usr/share/R/doc/manual), An Introduction to R (R-intro: vectors, factors, arrays,
# lists and data frames, reading data, probability distributions and tests, functions, statistical
# models, graphics, packages, OS facilities, invoking R; about 246,000 characters of text) and R
# Data Import/Export (R-data: text files and encodings, spreadsheet-like data, other statistical
# systems, relational databases, binary files, connections, Excel; about 83,000). The package ships
# each manual as one HTML page (no manual split into one page per section; r-doc-info and
# r-doc-pdf are no better), so whole manuals are chosen: these two are the ones about using R for
# statistics and data analysis, about 329,000 characters together. Left out are Writing R
# Extensions (605,000 characters), R Installation and Administration and R Internals (207,000 to
# 218,000 each: building and administration, the interpreter's internals), the R language
# definition (159,000: the language rather than statistics) and the R FAQ. Each page keeps its
# table of contents, navigation lines and function and concept indexes; no needle rests on them.
R_MANUALS = PackagedCorpus(
    name="r-manuals",
    package="r-doc-html",
    source=Path("/usr/share/R/doc/manual"),
    files=html_pages(("R-intro", "R-data")),
    sets="rman",
    size=25,
)

# An English library of a fifteenth domain, multimedia tools: 11 of the 31 HTML pages of the FFmpeg
# 5.1 manual (Debian `ffmpeg-doc`, Texinfo HTML under /usr/share/doc/ffmpeg/manual). The manual ships
# one page per tool or component, so the library is made of whole pages: the ffmpeg, ffplay and ffprobe
# tools, the syntax and expression utilities, the scaler and the resampler, the bitstream filters, the
# protocols, the FAQ, the platform notes and the NUT container's description, about 295,000 characters
# of text. Left out are the pages that bundle the others (ffmpeg-all, ffplay-all, ffprobe-all; 1.0 to
# 1.3 million characters each), the filters (724,000), the codecs and formats (135,000 each) and the
# devices references (60,000, which would take the library past 300,000 characters), the table of
# supported formats and external libraries (general), the table of contents (index), the one-paragraph
# library pages (libavcodec and the six others), and the pages for FFmpeg's own developers (developer,
# git-howto: version control is the domain of `git`, fate, mailing-list-faq). ffmpeg, ffplay and
# ffprobe repeat the same stream specifier, generic and AVOptions sections; no needle rests on them.
FFMPEG_MANUAL = PackagedCorpus(
    name="ffmpeg-manual",
    package="ffmpeg-doc",
    source=Path("/usr/share/doc/ffmpeg/manual"),
    files=html_pages(
        (
            "ffmpeg",  # the converter
            "ffplay",  # the player
            "ffprobe",  # the stream analyser
            "ffmpeg-utils",  # syntax (quoting, dates, durations, sizes, colours) and expressions
            "ffmpeg-scaler",  # the libswscale options
            "ffmpeg-resampler",  # the libswresample options
            "ffmpeg-bitstream-filters",
            "ffmpeg-protocols",
            "faq",
            "platform",  # platform-specific build notes
            "nut",  # the NUT container
        )
    ),
    sets="ffmpeg",
    size=25,
)

# An English library of a sixteenth domain, image processing: 26 of the 66 HTML pages of the
# ImageMagick 6.9.11 web site (Debian `imagemagick-6-doc`, under
# /usr/share/doc/imagemagick-6-common/html/www), about 256,000 characters of text: the anatomy of
# the command line, the porting guide to version 7, source installation (simple and advanced Unix),
# resources and environment variables, the security policy, the distributed pixel cache, threads
# (OpenMP), high dynamic-range imaging, color management, color reduction, compositing methods, the
# FX expression language, percent escapes, Magick Vector Graphics, gradients, connected components,
# enciphering, the MIFF, WebP, JPEG-2000 and DPX (motion picture) formats, the compare and stream
# tools, the exit codes and the program's history. Left out are the command-line option reference
# (command-line-options.html, 249,000 characters) and the changelog (391,000), the long references
# and tables (defines, formats, color names, PerlMagick, the Magick++ Image and STL classes; 37,000
# to 65,000 characters each), the other API pages (the Magick++ folder, the MagickCore and
# MagickWand introductions, mostly example code, and the 873 generated pages under api/), the
# architecture page (63,000 characters, which would take the library past 300,000 with the rest),
# the other tools' pages (convert, mogrify, magick, magick-script, identify and the others: mostly
# the same option tables), the download, binary release, mirror, license, support and site-map
# pages and the table of contents (index.html). The option tables of compare and stream share
# lines, the MVG page repeats part of the compositing methods, the DPX page two of its paragraphs
# and history a paragraph of the porting guide; no needle rests on shared text.
IMAGEMAGICK_DOCS = PackagedCorpus(
    name="imagemagick-docs",
    package="imagemagick-6-doc",
    source=Path("/usr/share/doc/imagemagick-6-common/html/www"),
    files=html_pages(
        (
            "command-line-processing",  # the anatomy of the command line
            "porting",  # porting to ImageMagick 7
            "install-source",
            "advanced-unix-installation",
            "resources",  # configuration files, modules, fonts, environment variables
            "security-policy",
            "distribute-pixel-cache",
            "openmp",  # threads of execution
            "high-dynamic-range",
            "color-management",
            "quantize",  # color reduction
            "compose",  # image composition methods
            "fx",  # the FX special effects operator
            "escape",  # percent escapes
            "magick-vector-graphics",
            "gradient",
            "connected-components",
            "cipher",  # encipher or decipher an image
            "miff",
            "webp",
            "jp2",
            "motion-picture",  # DPX
            "compare",
            "stream",
            "exception",  # exit codes
            "history",
        )
    ),
    sets="magick",
    size=25,
)

# An English library of a seventeenth domain, graph drawing and layout: 11 of the 16 HTML pages of
# the Graphviz 2.42 documentation (Debian `graphviz-doc`, /usr/share/doc/graphviz/html), about
# 218,000 characters of text (2,500 to 88,000 each): the node, edge and graph attributes
# (info/attrs, about 88,000), the DOT language, the command-line invocation, the output formats, the
# node shapes and HTML-like labels, the arrow shapes, the FAQ, the Unix and Windows build notes, the
# Tcl Dot API and the wish list. The package ships no more HTML than this (the rest of its
# documentation is 64 PDF manual pages and guides), so 20 to 30 pages cannot be had; `kicad-doc-en`,
# the fallback, ships its eight manuals as one page each and would not have more. Left out are the
# color names (info/colors, tables of names and swatches), the two tables of contents (index,
# info/index), the one-line character set page (char), the task list of Graphviz's own developers
# (internal_todo, with owners; most of its items repeat the wish list) and, outside html/, the HTML
# entity table of a demo (examples/demo/entities). The attributes page repeats sentences of its own
# (dim and dimen, the URL targets) and of the shapes page; no needle rests on repeated text.
GRAPHVIZ_DOCS = PackagedCorpus(
    name="graphviz-docs",
    package="graphviz-doc",
    source=Path("/usr/share/doc/graphviz/html"),
    files=html_pages(
        (
            "info/attrs",  # node, edge and graph attributes
            "info/lang",  # the DOT language
            "info/command",  # command-line invocation
            "info/output",  # output formats
            "info/shapes",  # node shapes and HTML-like labels
            "info/arrows",  # arrow shapes
            "FAQ",
            "build",  # Unix build notes
            "winbuild",  # Windows build notes
            "tcldot",  # the Tcl Dot API
            "todo",  # the wish list
        )
    ),
    sets="graphviz",
    size=25,
)

# An English library of an eighteenth domain, printing: 27 of the 72 help pages of the CUPS 2.4.2
# web interface (Debian `cups-server-common`, HTML under /usr/share/cups/doc-root/help; `cups-common`
# ships no HTML pages), about 267,000 characters of text: the administration, printing options,
# network printer, printer sharing, operation policy, encryption, firewall, Kerberos and server
# security guides; the manual pages of the configuration files (cupsd.conf, cups-files.conf,
# client.conf, mime.types), the log files, lpadmin and lp, the backend and filter interfaces,
# ippeveprinter, ippfind and the ipptool file format; the PostScript and raster driver guides, the
# PPD compiler introduction, the raster format, the design description and the translation guide.
# Left out are the CUPS Programming Manual (cupspm.html, 210,000 characters of API reference, which
# would take the library past 300,000 characters), the other API and long specification pages
# (api-admin, api-filter, api-ppd, the PPD compiler driver file reference, the IPP and PPD
# extension specifications; 7,000 to 58,000 characters each, mostly function and keyword tables),
# the license, the one-paragraph pages (accounting, cgi, glossary, overview, the banner, command and
# STP specifications) and the other manual pages (mostly a synopsis and a short option list each;
# lpr, lpstat, lpoptions, cancel and lpinfo repeat what the lp, lpadmin and options pages say). The
# PostScript and raster driver guides share their color management and macOS sections, and the
# cupsd.conf and client.conf pages their SSLOptions entry; no needle rests on shared text.
CUPS_DOCS = PackagedCorpus(
    name="cups-docs",
    package="cups-server-common",
    source=Path("/usr/share/cups/doc-root/help"),
    files=html_pages(
        (
            "admin",  # command-line printer administration
            "options",  # command-line printing and options
            "network",  # using network printers
            "sharing",  # printer sharing
            "policies",  # managing operation policies
            "encryption",  # managing encryption
            "firewalls",
            "kerberos",  # using Kerberos authentication
            "security",  # server security
            "man-cupsd.conf",
            "man-cups-files.conf",
            "man-client.conf",
            "man-cupsd-logs",
            "man-lpadmin",
            "man-lp",
            "man-backend",
            "man-filter",
            "man-mime.types",
            "man-ippeveprinter",
            "man-ippfind",
            "man-ipptoolfile",
            "postscript-driver",  # developing PostScript printer drivers
            "raster-driver",  # developing raster printer drivers
            "ppd-compiler",  # introduction to the PPD compiler
            "spec-raster",  # the CUPS raster format
            "spec-design",  # the CUPS design description
            "translation",  # translating and customizing CUPS
        )
    ),
    sets="cups",
    size=25,
)

# Dev sets to tune on, from pages and chapters outside the sealed selections above.
PG_MANUAL_DEV = PackagedCorpus(
    name="pg-manual-dev",
    package="postgresql-doc-15",
    source=PG_MANUAL.source,
    files=html_pages(
        (
            "indexes-unique",
            "indexes-expressional",
            "sql-reindex",
            "sql-truncate",
            "sql-analyze",
            "datatype-boolean",
            "datatype-uuid",
            "role-attributes",
            "wal-configuration",
            "ddl-partitioning",
            "tutorial-transactions",
            "sql-createsequence",
        )
    ),
    sets="pgmanual-dev",
)

DEBIAN_REFERENCE_PT_DEV = PackagedCorpus(
    name="debian-ref-pt-dev",
    package="debian-reference-pt",
    source=DEBIAN_REFERENCE_PT.source,
    files=("ch03.pt.html", "ch08.pt.html"),
    sets="debref-pt-dev",
    language="pt",
)

CORPORA = (
    PG_MANUAL,
    DEBIAN_REFERENCE_PT,
    PG_MANUAL_2,
    DEBIAN_REFERENCE_PT_2,
    DEBIAN_REFERENCE_PT_3,
    DEBIAN_FAQ_PT,
    DEBIAN_EDU_PT,
    DEBIAN_HANDBOOK_PT,
    LIBREOFFICE_HELP_PT,
    GIMP_HELP_PT,
    LIBREOFFICE_HELP_PT_PT,
    LILYPOND_WEB_PT,
    APACHE_MANUAL,
    POSTFIX_DOCS,
    SCILAB_HELP_PT,
    FOCA_LINUX_PT,
    SQLITE_DOCS,
    LIBREOFFICE_BASIC_PT,
    GIT_MANUAL,
    PYTHON_DOCS,
    GNUCASH_GUIDE_PT,
    ZSH_MANUAL,
    INSTALL_GUIDE_PT,
    QEMU_MANUAL,
    LIBREOFFICE_MATH_PT,
    OCTAVE_MANUAL,
    LIBREOFFICE_BASE_PT,
    DJANGO_DOCS,
    LIBREOFFICE_CHART_PT,
    WIRESHARK_GUIDE,
    VIM_HELP,
    BIND9_ARM,
    R_MANUALS,
    FFMPEG_MANUAL,
    IMAGEMAGICK_DOCS,
    GRAPHVIZ_DOCS,
    CUPS_DOCS,
)  # the sealed ones
DEV_CORPORA = (PG_MANUAL_DEV, DEBIAN_REFERENCE_PT_DEV)


def missing_packages(corpora: tuple[PackagedCorpus, ...] = CORPORA) -> list[str]:
    return [c.package for c in corpora if not c.shipped()]


def install(packages: list[str]) -> None:
    if not packages:
        return
    if os.geteuid() != 0:
        raise SystemExit(f"missing: {' '.join(packages)}; install them with: sudo apt-get install {' '.join(packages)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *packages], check=True, env=env)


def copy_pages(corpus: PackagedCorpus) -> None:
    """The folder holds exactly the chosen pages, as the package ships them: a page left from another
    choice would change the set. A folder that already does is left alone; otherwise the new one is
    built beside it and put in its place by a rename, so a build beside a running evaluation, or
    beside another build of the shared folder, does not take pages away from under it."""
    pages = {name: corpus.page(name).read_bytes() for name in corpus.files}
    if _holds_exactly(corpus.target, pages):
        return
    building = corpus.target.with_name(f"{corpus.target.name}.building-{os.getpid()}")
    retired = corpus.target.with_name(f"{corpus.target.name}.retired-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    for name, data in pages.items():
        (building / name).parent.mkdir(parents=True, exist_ok=True)  # a page may sit in a subfolder
        (building / name).write_bytes(data)
    with contextlib.suppress(FileNotFoundError):
        corpus.target.rename(retired)
    try:
        building.rename(corpus.target)
    except OSError:  # another build put the same pages in place between the two renames
        shutil.rmtree(building, ignore_errors=True)
    shutil.rmtree(retired, ignore_errors=True)


def _holds_exactly(folder: Path, pages: dict[str, bytes]) -> bool:
    """Whether `folder` holds these pages, byte for byte, and no other file."""
    if not folder.is_dir():
        return False
    held = {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}
    return held == set(pages) and all((folder / name).read_bytes() == data for name, data in pages.items())


def extracted_texts(corpus: PackagedCorpus) -> dict[str, str]:
    """Each page's text as evaluate reads it: the library's HTML extraction, normalised for matching."""
    return {name: normalise_for_match(extract_html(corpus.target / name).text) for name in corpus.files}


def needle_counts(corpus: PackagedCorpus) -> dict[str, int]:
    """How often each question's needle occurs in the whole extracted corpus, by question id."""
    texts = extracted_texts(corpus).values()
    return {
        q.id: sum(text.count(normalised_needle(q.needle)) for text in texts)
        for q in load_questions(corpus.question_file("questions"))
    }


def grep_hits(corpus: PackagedCorpus) -> list[str]:
    """Near-miss and out-of-domain patterns that match the extracted corpus: each names a question it may answer."""
    texts = extracted_texts(corpus)
    hits: list[str] = []
    for part in ("nearmiss", "ood"):
        for row in rows(corpus.question_file(part)):
            for pattern in row["grep"]:
                hits.extend(
                    f"{corpus.sets}: {row['id']} pattern {pattern!r} matches {name}"
                    for name, text in texts.items()
                    if re.search(pattern, text, re.IGNORECASE)
                )
    return hits


def check(corpus: PackagedCorpus) -> list[str]:
    """Problems with the corpus' sets; empty when every file parses, every needle occurs once and
    no near-miss or out-of-domain pattern matches the text."""
    for part in ("nearmiss", "ood"):
        load_ood(corpus.question_file(part))
    counts = needle_counts(corpus)
    wrong = [f"{corpus.sets}: needle of {qid} occurs {count} times" for qid, count in counts.items() if count != 1]
    return wrong + grep_hits(corpus)


def rows(path: Path) -> list[dict[str, Any]]:
    """The raw JSON objects of a question file, for the fields the loaders do not keep (`grep`)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Also verify the needles against the built corpora.")
    options = parser.parse_args(argv)
    install(missing_packages(CORPORA + DEV_CORPORA))
    for corpus in CORPORA + DEV_CORPORA:
        copy_pages(corpus)
        pages = "page" if len(corpus.files) == 1 else "pages"
        print(f"{corpus.target}: {len(corpus.files)} {pages} from {corpus.package}")
    if not options.check:
        return 0
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")
    import django

    django.setup()  # extraction reads its size limits from the settings
    problems = [problem for corpus in CORPORA + DEV_CORPORA for problem in check(corpus)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(
        "every needle occurs once; no near-miss or out-of-domain pattern matches"
        if not problems
        else f"{len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
