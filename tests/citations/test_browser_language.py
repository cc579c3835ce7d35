"""In Chromium set to Portuguese: the viewer's own script says what it highlighted in Portuguese,
with its words from the page language's catalog (/jsi18n/), as the server-rendered page around it."""

# The browser fixture is imported from the main browser test, so the argument "redefines" it.
# ruff: noqa: F811
from __future__ import annotations

from typing import Any

import pytest

from tests.citations.test_browser import browser  # noqa: F401  (the fixture is used by name)
from tests.factories import DocumentFactory, FolderFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_viewer_script_speaks_the_browsers_language(live_server: Any, browser: Any) -> None:
    folder = FolderFactory(name="Open shelf", is_public=True)
    document = DocumentFactory(folder=folder, indexed=True, canonical_text="Leases are renewed every ten seconds.")
    context = browser.new_context(locale="pt-PT")  # Chromium sends Accept-Language: pt-PT
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/documents/{document.pk}/view#char=0,6")
    page.wait_for_selector("mark#highlight")
    assert page.get_attribute("html", "lang") == "pt"
    assert page.inner_text("#highlight-status") == "Caracteres 0–6 destacados."
    assert page.inner_text("#jump-link") == "Ir para a passagem"
    context.close()


def test_the_search_buttons_waiting_word_is_portuguese_and_its_own_word_comes_back(
    live_server: Any, browser: Any
) -> None:
    FolderFactory(name="Open shelf", is_public=True)
    context = browser.new_context(locale="pt-PT")
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/")
    assert page.inner_text("#ask-button") == "Perguntar"
    page.fill("#id_q", "marés")
    # The form is kept from leaving the page, so the button's word while it waits can be read.
    said = page.evaluate(
        """() => {
          const form = document.getElementById("search-form");
          form.addEventListener("submit", (event) => event.preventDefault());
          form.requestSubmit();
          const waiting = document.getElementById("ask-button").textContent;
          window.dispatchEvent(new PageTransitionEvent("pageshow"));
          return [waiting, document.getElementById("ask-button").textContent];
        }"""
    )
    assert said == ["A pesquisar…", "Perguntar"]
    context.close()
