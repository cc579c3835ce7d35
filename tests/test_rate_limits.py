"""One rate limit for every door: the search page and the API share a caller's budget, answers
have their own, document views and new page renders count, and wrong passwords are limited.

Everything runs for real (search, answers, renders, logins); the counters are the fixed window
of ragsite/ratelimit.py in the test cache, which conftest clears before every test.
"""

from __future__ import annotations

import ipaddress
import time
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from ragsite import ratelimit
from ragsite.env import Env
from tests.conftest import bearer, ingest_file_inline, ingest_text

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests-1"  # tests/factories.py
TEXT = "Lighthouses\n\nThe keeper lights the lamp at dusk and trims the wick at midnight.\n"


def fresh_window(margin: float = 15.0) -> None:
    """Wait until the current minute has `margin` seconds left, so no test's counts straddle a
    window boundary (the counters reset there)."""
    left = ratelimit.WINDOW_SECONDS - time.time() % ratelimit.WINDOW_SECONDS
    if left < margin:
        time.sleep(left + 0.05)


@pytest.fixture
def shelf(tmp_path: Path, folder_factory: Any, user_factory: Any) -> dict[str, Any]:
    """A public folder and a private one, each with an indexed text; a reader of the private one."""
    reader = user_factory(username="limited-reader")
    public = folder_factory(name="Open shelf", is_public=True)
    private = folder_factory(name="Reader shelf", readers=[reader])
    ingest_text(tmp_path, public, "Public lighthouses", TEXT)
    ingest_text(tmp_path, private, "Private lighthouses", TEXT)
    return {"reader": reader, "other": user_factory(username="other-reader")}


def page_search(client: Client, q: str = "When is the lamp lit?") -> Any:
    return client.get("/", {"q": q})


def api_search(client: Client, headers: dict[str, str] | None = None) -> Any:
    return client.get("/api/search", {"q": "When is the lamp lit?"}, **(headers or {}))


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def assert_plain_429(response: Any, heading: str) -> None:
    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/html")
    retry = int(response["Retry-After"])
    assert 1 <= retry <= 60
    content = response.content.decode()
    assert f'<h1 id="limit-heading">{heading}</h1>' in content
    assert f"Try again in {retry} second" in content


# --- search: the page and the API, one budget per caller ------------------------------------


def test_anonymous_search_page_over_the_limit_gets_a_plain_429_page(shelf: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 2
    fresh_window()
    client = Client()
    for _ in range(3):  # the bare page runs no search and costs nothing
        assert client.get("/").status_code == 200
    for _ in range(2):
        response = page_search(client)
        assert response.status_code == 200
        assert "Public lighthouses" in response.content.decode()
    limited = page_search(client)
    assert_plain_429(limited, "Too many searches")
    assert "allows 2 searches a minute for each reader" in limited.content.decode()
    # Another address has its own budget.
    assert page_search(Client(REMOTE_ADDR="192.0.2.7")).status_code == 200


def test_anonymous_page_and_api_share_the_address_budget(shelf: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 2
    fresh_window()
    client = Client(REMOTE_ADDR="198.51.100.4")
    assert page_search(client).status_code == 200
    assert api_search(client).status_code == 200
    assert_plain_429(page_search(client), "Too many searches")
    refused = api_search(client)
    assert refused.status_code == 429
    assert "searches are limited to 2 requests per minute" in refused.json()["detail"]


def test_page_and_api_share_the_budget_of_one_user(shelf: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 3
    reader = shelf["reader"]
    fresh_window()
    browser = signed_in(reader)
    api = Client()
    headers = bearer(reader)
    assert "Private lighthouses" in page_search(browser).content.decode()
    assert api_search(api, headers).status_code == 200
    assert page_search(browser).status_code == 200
    # Three searches, from two doors: the fourth is refused at both.
    over = api_search(api, headers)
    assert over.status_code == 429
    assert over.headers["Content-Type"] == "application/json"
    assert 1 <= int(over["Retry-After"]) <= 60
    assert_plain_429(page_search(browser), "Too many searches")
    # The budget is the user's, not the address's: another user from the same address searches.
    assert page_search(signed_in(shelf["other"])).status_code == 200


def test_every_token_of_one_user_shares_one_budget(shelf: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 2
    reader = shelf["reader"]
    fresh_window()
    client = Client()
    assert api_search(client, bearer(reader)).status_code == 200
    assert api_search(client, bearer(reader)).status_code == 200
    assert api_search(client, bearer(reader)).status_code == 429  # a new token is no new budget


def test_limit_zero_switches_the_page_limit_off(shelf: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    client = Client()
    for _ in range(5):
        assert page_search(client).status_code == 200
        assert api_search(client).status_code == 200


# --- answers: their own budget ---------------------------------------------------------------


def api_answer(client: Client, headers: dict[str, str]) -> Any:
    return client.post("/api/answer", {"question": "When is the lamp lit?"}, content_type="application/json", **headers)


def test_answer_limit_is_separate_and_configurable(shelf: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 100
    settings.ANSWER_RATE_LIMIT_PER_MINUTE = 1
    reader = shelf["reader"]
    headers = bearer(reader)
    fresh_window()
    client = Client()
    answered = api_answer(client, headers)
    assert answered.status_code == 200
    assert answered["X-RateLimit-Limit"] == "1"
    refused = api_answer(client, headers)
    assert refused.status_code == 429
    assert "answers are limited to 1 requests per minute" in refused.json()["detail"]
    # Searching is another budget: the API still searches ...
    assert api_search(client, headers).status_code == 200
    # ... but the page answers every search, so it is refused for the answer.
    assert_plain_429(page_search(signed_in(reader)), "Too many answers")


def test_page_answers_count_against_the_answer_budget(shelf: dict[str, Any], settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 100
    settings.ANSWER_RATE_LIMIT_PER_MINUTE = 2
    reader = shelf["reader"]
    fresh_window()
    assert page_search(signed_in(reader)).status_code == 200
    assert page_search(signed_in(reader)).status_code == 200
    assert api_answer(Client(), bearer(reader)).status_code == 429


def test_answer_limit_defaults(settings: Any) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 120
    settings.ANSWER_RATE_LIMIT_PER_MINUTE = None
    settings.ANSWER_WRITER = "extractive"
    assert ratelimit.limit_per_minute(ratelimit.ANSWER) == 120  # an extractive answer costs a search
    settings.ANSWER_WRITER = "openai"
    assert ratelimit.limit_per_minute(ratelimit.ANSWER) == ratelimit.MODEL_WRITER_ANSWER_LIMIT == 20
    settings.API_RATE_LIMIT_PER_MINUTE = 5
    assert ratelimit.limit_per_minute(ratelimit.ANSWER) == 5
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    assert ratelimit.limit_per_minute(ratelimit.ANSWER) == 0  # limits off stay off
    settings.ANSWER_RATE_LIMIT_PER_MINUTE = 7
    assert ratelimit.limit_per_minute(ratelimit.ANSWER) == 7  # set: exactly that
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = Env.model_fields["LOGIN_RATE_LIMIT_PER_MINUTE"].default
    assert ratelimit.limit_per_minute(ratelimit.LOGIN) == 10


# --- uploads: per user, through the API -----------------------------------------------------------


def api_upload(client: Client, headers: dict[str, str], folder: Any, name: str) -> Any:
    file = SimpleUploadedFile(name, f"# {name}\n\nThe keeper of {name} logs the weather.\n".encode(), "text/markdown")
    return client.post("/api/documents", {"file": file, "folder": folder.pk}, **headers)


def test_uploads_past_the_limit_are_429_and_not_stored(
    folder_factory: Any, user_factory: Any, settings: Any
) -> None:  # fmt: skip
    settings.UPLOAD_RATE_LIMIT_PER_MINUTE = 2
    settings.API_RATE_LIMIT_PER_MINUTE = 100
    writer, colleague = user_factory(username="upload-writer"), user_factory(username="upload-colleague")
    folder = folder_factory(name="Inbox")
    folder.writer_users.add(writer, colleague)
    fresh_window()
    client = Client()
    first_token, second_token = bearer(writer), bearer(writer)
    assert api_upload(client, first_token, folder, "one.md").status_code == 202
    accepted = api_upload(client, second_token, folder, "two.md")  # another token of the same user
    assert accepted.status_code == 202
    assert accepted["X-RateLimit-Limit"] == "2"
    assert accepted["X-RateLimit-Remaining"] == "0"
    stored_before = set(folder.documents.values_list("original_name", flat=True))

    refused = api_upload(client, first_token, folder, "three.md")

    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    detail = refused.json()["detail"]
    assert "uploads are limited to 2 per minute for each user" in detail
    assert "not stored" in detail
    assert set(folder.documents.values_list("original_name", flat=True)) == stored_before == {"one.md", "two.md"}
    # Another writer has a budget of their own, and reading is not counted against uploads.
    assert api_upload(client, bearer(colleague), folder, "three.md").status_code == 202
    assert client.get("/api/documents", **first_token).status_code == 200


def test_upload_limit_zero_switches_it_off_and_defaults_to_60(
    folder_factory: Any, user_factory: Any, settings: Any
) -> None:  # fmt: skip
    settings.UPLOAD_RATE_LIMIT_PER_MINUTE = 0
    writer = user_factory(username="unlimited-writer")
    folder = folder_factory(name="Open inbox")
    folder.writer_users.add(writer)
    headers = bearer(writer)
    responses = [api_upload(Client(), headers, folder, f"note-{i}.md") for i in range(3)]
    assert [r.status_code for r in responses] == [202, 202, 202]
    assert "X-RateLimit-Limit" not in responses[-1]
    settings.UPLOAD_RATE_LIMIT_PER_MINUTE = Env.model_fields["UPLOAD_RATE_LIMIT_PER_MINUTE"].default
    assert ratelimit.limit_per_minute(ratelimit.UPLOAD) == 60


# --- document views and page renders ---------------------------------------------------------


def two_page_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    for line in ("The keeper lights the lamp at dusk.", "The keeper trims the wick at midnight."):
        doc.new_page(width=612, height=792).insert_text((72, 90), line, fontsize=11, fontname="helv")
    doc.save(path)
    doc.close()
    return path


def test_text_views_and_new_page_renders_count_cached_renders_do_not(
    tmp_path: Path, folder_factory: Any, user_factory: Any, settings: Any
) -> None:
    reader = user_factory(username="render-reader")
    pdf = ingest_file_inline(two_page_pdf(tmp_path / "keeper.pdf"), folder_factory(readers=[reader]))
    assert pdf.status == "indexed", pdf.failure_reason
    settings.API_RATE_LIMIT_PER_MINUTE = 3
    fresh_window()
    client = signed_in(reader)
    base = f"/documents/{pdf.pk}"
    assert client.get(f"{base}/pages/1").status_code == 200  # 1: a new render
    for _ in range(5):  # the page cache holds these: free
        assert client.get(f"{base}/pages/1.png").status_code == 200
        assert client.get(f"{base}/pages/1").status_code == 200
    assert client.get(f"{base}/view").status_code == 200  # 2: the whole text into a page
    assert client.get(f"{base}/pages/2.png").status_code == 200  # 3: a new render
    assert_plain_429(client.get(f"{base}/pages/1?char=0,20"), "Too many document views")  # a new range
    assert_plain_429(client.get(f"{base}/view"), "Too many document views")
    assert client.get(f"{base}/pages/2.png").status_code == 200  # still cached, still free
    assert client.get(f"{base}/file").status_code == 200  # the original is a file read: not counted


# --- logins ----------------------------------------------------------------------------------


def log_in(client: Client, username: str, password: str, url: str = "/login/") -> Any:
    return client.post(url, {"username": username, "password": password})


def test_wrong_passwords_are_limited_per_address(user_factory: Any, settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = 3
    user_factory(username="target")
    user_factory(username="neighbour")
    fresh_window()
    guesser = Client(REMOTE_ADDR="203.0.113.9")
    for guess in ("one", "two", "three"):
        wrong = log_in(guesser, "target", guess)
        assert wrong.status_code == 200
        assert "Please enter a correct username and password" in wrong.content.decode()
    # The fourth attempt is refused before any password is checked, the right one included, and
    # for every account: trying one password on many accounts is limited the same way.
    assert_plain_429(log_in(guesser, "target", PASSWORD), "Too many login attempts")
    refused = log_in(guesser, "neighbour", PASSWORD)
    assert_plain_429(refused, "Too many login attempts")
    assert "allows 3 login attempts a minute from one address" in refused.content.decode()
    assert "_auth_user_id" not in guesser.session
    # The admin's login form is the same door.
    assert_plain_429(log_in(guesser, "target", PASSWORD, "/admin/login/"), "Too many login attempts")
    # Another address signs in to an account nobody guessed at.
    assert log_in(Client(REMOTE_ADDR="203.0.113.10"), "neighbour", PASSWORD).status_code == 302


def test_a_signed_in_reader_guessing_admin_passwords_is_limited(user_factory: Any, settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = 3
    reader = user_factory(username="curious-reader")
    user_factory(username="staff-target", is_staff=True)
    fresh_window()
    guesser = signed_in(reader)
    for guess in ("one", "two", "three"):
        wrong = log_in(guesser, "staff-target", guess, "/admin/login/")
        assert wrong.status_code == 200
        assert "Please enter the correct username and password" in wrong.content.decode()
    assert_plain_429(log_in(guesser, "staff-target", "four", "/admin/login/"), "Too many login attempts")
    # The reader is still signed in as themselves, and their address is spent on every door.
    assert guesser.session["_auth_user_id"] == str(reader.pk)
    assert_plain_429(log_in(Client(), "staff-target", PASSWORD), "Too many login attempts")


def test_guesses_at_one_account_from_many_addresses_are_limited(user_factory: Any, settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = 3
    user_factory(username="target")
    user_factory(username="bystander")
    fresh_window()
    for n in range(3):
        assert (
            log_in(Client(REMOTE_ADDR=f"198.51.100.{n + 1}"), "TARGET" if n else "target", "wrong").status_code == 200
        )
    refused = log_in(Client(REMOTE_ADDR="198.51.100.99"), "target", PASSWORD)
    assert_plain_429(refused, "Too many login attempts")
    assert "allows 3 login attempts a minute for one account" in refused.content.decode()
    # That address's own budget was not spent by the refusal: it signs another account in.
    assert log_in(Client(REMOTE_ADDR="198.51.100.99"), "bystander", PASSWORD).status_code == 302


def test_successful_logins_do_not_use_up_the_budget(user_factory: Any, settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = 2
    for n in range(4):
        user_factory(username=f"colleague{n}")
    fresh_window()
    for n in range(4):  # colleagues behind one address sign in one after another
        signed = log_in(Client(REMOTE_ADDR="203.0.113.20"), f"colleague{n}", PASSWORD)
        assert signed.status_code == 302, signed.content[:300]
    office = Client(REMOTE_ADDR="203.0.113.20")
    assert log_in(office, "colleague0", "typo").status_code == 200
    assert log_in(office, "colleague0", "typo again").status_code == 200
    assert log_in(office, "colleague0", PASSWORD).status_code == 429


def test_login_limit_zero_switches_it_off(user_factory: Any, settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = 0
    user_factory(username="forgetful")
    client = Client()
    for _ in range(12):
        assert log_in(client, "forgetful", "wrong").status_code == 200
    assert log_in(client, "forgetful", PASSWORD).status_code == 302


def test_the_login_page_itself_is_never_limited(settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = 1
    client = Client()
    log_in(client, "nobody", "x")
    log_in(client, "nobody", "y")
    assert client.get("/login/").status_code == 200


def test_behind_trusted_proxies_each_client_has_its_own_login_budget(user_factory: Any, settings: Any) -> None:
    settings.LOGIN_RATE_LIMIT_PER_MINUTE = 2
    settings.TRUSTED_PROXIES = (ipaddress.ip_network("10.0.0.0/24"),)
    user_factory(username="target")
    user_factory(username="bystander")
    fresh_window()

    def via_proxy(chain: str) -> Client:
        return Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=chain)

    # A guesser behind the proxy uses up its own budget ...
    for guess in ("one", "two"):
        assert log_in(via_proxy("203.0.113.30"), "target", guess).status_code == 200
    assert log_in(via_proxy("203.0.113.30"), "target", PASSWORD).status_code == 429
    # ... and cannot escape it by claiming another address to the left of the one the proxy added.
    assert log_in(via_proxy("198.51.100.1, 203.0.113.30"), "target", PASSWORD).status_code == 429
    # Another client behind the same proxy (and a second proxy hop) still signs in.
    assert log_in(via_proxy("203.0.113.31, 10.0.0.3"), "bystander", PASSWORD).status_code == 302


def test_client_address_trusts_only_the_named_proxies(settings: Any) -> None:
    from django.test import RequestFactory

    def address(remote: str, forwarded: str | None = None) -> str:
        extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
        return ratelimit.client_address(RequestFactory().get("/", REMOTE_ADDR=remote, **extra))

    settings.TRUSTED_PROXIES = ()
    assert address("10.0.0.2", "203.0.113.5") == "10.0.0.2"  # no proxy named: the header is the client's word
    settings.TRUSTED_PROXIES = (ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("::1"))
    assert address("192.0.2.8", "203.0.113.5") == "192.0.2.8"  # not from a proxy: the header is ignored
    assert address("10.0.0.2", "203.0.113.5") == "203.0.113.5"
    assert address("::1", "203.0.113.5, 10.1.2.3") == "203.0.113.5"
    assert address("10.0.0.2", "not-an-address, 203.0.113.5") == "203.0.113.5"
    assert address("10.0.0.2", "10.0.0.9") == "10.0.0.9"  # proxies all the way: the farthest
    # A port some proxies add is not part of the address: one client, one budget.
    assert address("10.0.0.2", "203.0.113.5:4711") == "203.0.113.5"
    assert address("10.0.0.2", "[2001:db8::1]:443, 10.0.0.3:80") == "2001:db8::1"
    assert address("10.0.0.2", "2001:db8::7") == "2001:db8::7"
    assert address("10.0.0.2") == "10.0.0.2"


@pytest.mark.parametrize("value", ["10.0.0.300", "proxy.example.org", "10.0.0.0/33"])
def test_a_trusted_proxy_that_is_no_address_is_refused_at_start(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from ragsite.env import load_env

    monkeypatch.setenv("TRUSTED_PROXIES", f"10.0.0.1, {value}")
    with pytest.raises(ImproperlyConfigured, match=f"TRUSTED_PROXIES: list addresses .*{value!r} is neither"):
        load_env()
    monkeypatch.setenv("TRUSTED_PROXIES", " 10.0.0.1 , 192.168.0.0/24,, ::1 ")
    assert [str(n) for n in load_env().TRUSTED_PROXIES] == ["10.0.0.1/32", "192.168.0.0/24", "::1/128"]


# --- a shared cache that is down -------------------------------------------------------------


def counters_in_redis(settings: Any, monkeypatch: pytest.MonkeyPatch, socket: Path) -> None:
    """Count the rate limits in the Redis on `socket` (database 1), as the launcher runs the site
    (CACHE_URL), with the socket timeouts of ragsite/settings.py; fresh counters for the test."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"unix://{socket}?db=1",
            "OPTIONS": {"socket_timeout": 0.25, "socket_connect_timeout": 0.25},
        }
    }
    monkeypatch.setattr(ratelimit, "COUNTERS", ratelimit.Counters())


def test_searches_are_counted_in_the_process_while_the_shared_cache_is_down(
    shelf: dict[str, Any], settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    # A Redis that is not there (no server on the socket): what a stopped broker looks like.
    counters_in_redis(settings, monkeypatch, tmp_path / "gone.sock")
    settings.API_RATE_LIMIT_PER_MINUTE = 3
    fresh_window()
    client = Client(REMOTE_ADDR="192.0.2.50")
    for _ in range(3):
        assert page_search(client).status_code == 200
    # The limit still holds, counted in this process.
    assert_plain_429(page_search(client), "Too many searches")
    assert api_search(client).status_code == 429
    assert page_search(Client(REMOTE_ADDR="192.0.2.51")).status_code == 200
    lost = [r for r in caplog.records if "shared cache is unreachable" in r.getMessage()]
    assert len(lost) == 1  # once, not per request
