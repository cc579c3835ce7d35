"""Every HTML page carries the Content-Security-Policy and holds nothing it would block; the
https settings for production (Secure cookies, HSTS, a proxy's https header) do what they say.

What Chromium makes of the policy on real pages: tests/citations/test_browser_csp.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from django.conf import settings as django_settings
from django.test import Client

from tests.citations.test_viewer import build_pdf
from tests.conftest import ingest_file_inline

pytestmark = pytest.mark.django_db

NONCE = re.compile(r"style-src 'self' 'nonce-([A-Za-z0-9_-]{20,})'")
FIXED_DIRECTIVES = [
    "default-src 'self'",
    "script-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
]


@pytest.fixture
def site(tmp_path: Path, user_factory: Any, folder_factory: Any, staff_user: Any) -> dict[str, Any]:
    reader = user_factory(username="csp-reader")
    folder = folder_factory(name="CSP shelf", readers=[reader])
    pdf = ingest_file_inline(build_pdf(tmp_path / "engine.pdf"), folder, title="Engine manual")
    assert pdf.status == "indexed", pdf.failure_reason
    return {"reader": reader, "staff": staff_user, "pdf": pdf}


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def nonce_of(response: Any) -> str:
    policy = response["Content-Security-Policy"]
    for directive in FIXED_DIRECTIVES:
        assert directive in policy.split("; "), (directive, policy)
    match = NONCE.search(policy)
    assert match, policy
    return match.group(1)


def blocked_markup(content: bytes, nonce: str) -> list[str]:
    """What the policy would refuse: inline scripts and handlers, style attributes, un-nonced <style>."""
    tree = lxml.html.fromstring(content)
    found = [f"style attribute on <{e.tag}>" for e in tree.xpath("//*[@style]")]
    found += [f"handler {a.attrname} on <{a.getparent().tag}>" for a in tree.xpath("//@*[starts-with(name(), 'on')]")]
    found += [
        "inline <script>"
        for e in tree.xpath("//script[not(@src)]")
        if e.get("type") not in ("application/json", "application/ld+json")
    ]
    found += ["<style> without the nonce" for e in tree.xpath("//style") if e.get("nonce") != nonce]
    found += [f"javascript: URL in {a}" for a in tree.xpath("//@href | //@src | //@action") if "javascript:" in a]
    return found


def test_every_html_page_has_the_policy_and_nothing_it_blocks(site: dict[str, Any]) -> None:
    pdf = site["pdf"]
    start = pdf.canonical_text.index("quartermaster")
    reader_pages = [
        "/",
        "/?q=Which+protocol+elects+one+coordinator+per+shard%3F",
        f"/documents/{pdf.pk}/view",
        f"/documents/{pdf.pk}/pages/1",
        f"/documents/{pdf.pk}/pages/1?char={start},{start + 40}",
    ]
    staff_pages = [
        "/admin/",
        "/admin/documents/document/",
        "/admin/documents/document/upload/",
        f"/admin/documents/document/{pdf.pk}/change/",
        "/admin/documents/folder/",
        "/admin/documents/folder/add/",
        "/admin/auth/user/",
        "/api/docs",
    ]
    pages = [(Client(), "/login/"), (Client(), "/admin/login/")]
    pages += [(logged_in(site["reader"]), url) for url in reader_pages]
    pages += [(logged_in(site["staff"]), url) for url in staff_pages]
    nonces = set()
    for client, url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"].startswith("text/html"), url
        nonce = nonce_of(response)
        assert blocked_markup(response.content, nonce) == [], url
        nonces.add(nonce)
    assert len(nonces) == len(pages)  # a fresh nonce on every response


def test_the_page_view_styles_itself_in_a_nonced_block(site: dict[str, Any]) -> None:
    pdf = site["pdf"]
    start = pdf.canonical_text.index("quartermaster")
    response = logged_in(site["reader"]).get(f"/documents/{pdf.pk}/pages/1?char={start},{start + 40}")
    tree = lxml.html.fromstring(response.content)
    (style,) = tree.xpath("//head/style")
    assert style.get("nonce") == nonce_of(response)
    assert ".page-image { aspect-ratio: 612 / 792; }" in style.text
    assert re.search(r"#passage \{ top: \d+\.\d\d%; \}", style.text), style.text


def test_responses_that_are_not_html_carry_no_page_policy(site: dict[str, Any]) -> None:
    client = logged_in(site["reader"])
    assert "Content-Security-Policy" not in client.get("/api/openapi.json")
    assert "Content-Security-Policy" not in client.get(f"/documents/{site['pdf'].pk}/pages/1.png")
    # An original's own policy is kept: a text file is sandboxed (tests/citations/test_viewer.py).


def test_debug_error_pages_keep_working_without_the_policy(site: dict[str, Any], settings: Any) -> None:
    # Django's technical 404 and 500 pages are built from inline styles and scripts.
    settings.DEBUG = True
    client = logged_in(site["reader"])
    missing = client.get("/documents/999999/view")
    assert missing.status_code == 404
    assert b"<style" in missing.content  # the technical page, which the policy would break
    assert "Content-Security-Policy" not in missing
    assert "Content-Security-Policy" in client.get(f"/documents/{site['pdf'].pk}/view")


def test_a_failed_csrf_check_gets_a_plain_page_under_the_policy(site: dict[str, Any]) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post("/login/", {"username": "csp-reader", "password": "pw-for-tests-1"})
    assert response.status_code == 403
    text = response.content.decode()
    assert "This form could not be sent" in text
    assert "Go back, reload the page, and send the form again." in text
    assert blocked_markup(response.content, nonce_of(response)) == []


# --- https settings --------------------------------------------------------------------------


def settings_process(env: dict[str, str], code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`code` run in a fresh process whose settings module reads `env` (the servers' URLs given,
    so nothing embedded is started)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SECURE_")}
    services = {"DATABASE_URL": django_settings.DATABASE_URL, "CELERY_BROKER_URL": django_settings.CELERY_BROKER_URL}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**base, **services, **env, "DJANGO_SETTINGS_MODULE": "ragsite.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_with(env: dict[str, str], *names: str) -> dict[str, Any]:
    """The named settings as ragsite/settings.py computes them from `env`."""
    code = (
        "import json, sys; from django.conf import settings; "
        "print(json.dumps({n: getattr(settings, n) for n in sys.argv[1:]}))"
    )
    result = settings_process(env, code, *names)
    assert result.returncode == 0, result.stderr[-2000:]
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def settings_error(env: dict[str, str]) -> str:
    result = settings_process(env, "from django.conf import settings; settings.DEBUG")
    assert result.returncode != 0
    return result.stderr


HTTPS_NAMES = ("SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS", "SECURE_PROXY_SSL_HEADER")


def test_the_https_settings_come_from_the_environment() -> None:
    assert settings_with({}, *HTTPS_NAMES) == {
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_PROXY_SSL_HEADER": None,
    }
    production = {
        "SECURE_COOKIES": "true",
        "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO=https",
    }
    assert settings_with(production, *HTTPS_NAMES) == {
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
    }
    error = settings_error({"SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto"})
    assert "SECURE_PROXY_SSL_HEADER must read HEADER=value, e.g. HTTP_X_FORWARDED_PROTO=https" in error


def test_secure_cookies_are_only_sent_over_https(site: dict[str, Any], settings: Any) -> None:
    plain = Client()
    plain.get("/login/")
    assert plain.cookies["csrftoken"]["secure"] == ""
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    client = Client()
    client.get("/login/", secure=True)
    assert client.cookies["csrftoken"]["secure"] is True
    response = client.post("/login/", {"username": "csp-reader", "password": "pw-for-tests-1"}, secure=True)
    assert response.status_code == 302, response.content[:500]
    assert client.cookies["sessionid"]["secure"] is True


def test_hsts_is_sent_on_https_responses(settings: Any) -> None:
    assert "Strict-Transport-Security" not in Client().get("/login/", secure=True)
    settings.SECURE_HSTS_SECONDS = 31536000
    assert Client().get("/login/", secure=True)["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in Client().get("/login/")  # never over plain http


def test_the_proxys_header_makes_a_request_https(settings: Any) -> None:
    settings.SECURE_HSTS_SECONDS = 60  # HSTS goes out on https responses only: it shows what Django decided
    forwarded = {"HTTP_X_FORWARDED_PROTO": "https"}
    assert "Strict-Transport-Security" not in Client().get("/login/", **forwarded)  # not trusted by default
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert Client().get("/login/", **forwarded)["Strict-Transport-Security"] == "max-age=60"
    assert "Strict-Transport-Security" not in Client().get("/login/")
