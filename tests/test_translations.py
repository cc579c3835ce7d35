"""The Portuguese catalogs in locale/: every marked string is in them, every one is translated (no
empty or fuzzy entry), and the committed .mo files are the .po files compiled, so a fresh checkout
serves Portuguese with nothing to build. Checked with GNU gettext, as `make messages` writes them."""

from __future__ import annotations

import gettext
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

LOCALE = Path(settings.BASE_DIR) / "locale"
DOMAINS = ("django", "djangojs")
# The same options as the Makefile's `messages` target.
IGNORED = ["var/*", "tests/*", "docs/*", "test-artifacts/*"]


@pytest.fixture(autouse=True)
def gnu_gettext() -> None:
    for tool in ("msgfmt", "xgettext", "msgmerge"):
        if shutil.which(tool) is None:
            message = f"{tool} is missing: apt-get install gettext (`make test` installs it)"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)


def _po(domain: str, root: Path = LOCALE) -> Path:
    return root / "pt" / "LC_MESSAGES" / f"{domain}.po"


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_is_translated_and_well_formed(domain: str) -> None:
    # --check: the placeholders of each translation are those of its English; --statistics: counts.
    done = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", os.devnull, str(_po(domain))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    counts = done.stderr.strip().splitlines()[-1]
    assert counts.endswith(" translated messages."), counts  # no ", N fuzzy" nor ", N untranslated"
    assert "fuzzy" not in _po(domain).read_text(encoding="utf-8")


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_mo_is_the_po_compiled(domain: str, tmp_path: Path) -> None:
    compiled = tmp_path / f"{domain}.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(compiled), str(_po(domain))], check=True)
    committed = _po(domain).with_suffix(".mo")
    assert committed.exists(), f"{committed} is missing: run `make messages`"
    with compiled.open("rb") as fresh, committed.open("rb") as kept:
        fresh_catalog = gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]
        kept_catalog = gettext.GNUTranslations(kept)._catalog  # type: ignore[attr-defined]
    stale = {k for k in fresh_catalog.keys() | kept_catalog.keys() if fresh_catalog.get(k) != kept_catalog.get(k)}
    assert not stale, f"{committed.name} is stale against its .po (run `make messages`): {sorted(map(str, stale))[:5]}"


def test_the_catalogs_hold_every_marked_string_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """makemessages over a copy of the code, templates and catalogs leaves the catalogs as committed:
    a string marked since, or one no longer marked, would change them. (A copy, as makemessages
    writes into the locale/ beside the files it reads.)"""
    site = tmp_path / "site"
    skipped = shutil.ignore_patterns(".*", "__pycache__", "*.mo", *(pattern.rstrip("/*") for pattern in IGNORED))
    shutil.copytree(settings.BASE_DIR, site, ignore=skipped)
    monkeypatch.chdir(site)
    with override_settings(LOCALE_PATHS=[site / "locale"]):
        for domain in DOMAINS:
            call_command(
                "makemessages", locale=["pt"], domain=domain, no_location=True, ignore_patterns=IGNORED, verbosity=0
            )
    for domain in DOMAINS:
        made, kept = _po(domain, site / "locale").read_text(encoding="utf-8"), _po(domain).read_text(encoding="utf-8")
        assert made == kept, (
            f"locale/pt/LC_MESSAGES/{domain}.po is not in step with the marked strings: run `make messages`"
        )
