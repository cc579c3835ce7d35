"""One API shape: every list pages by `page`/`page_size` with a `next` URL (`limit`/`offset` kept as
deprecated aliases), and every error, 400 or 422 or any other, has the one body `ErrorOut`."""

from __future__ import annotations

import pytest
from django.test import Client

from documents.models import Tag, WebhookEndpoint
from tests.conftest import bearer
from tests.factories import DocumentFactory, FolderFactory, StaffFactory

pytestmark = pytest.mark.django_db

LISTS = ["/api/folders", "/api/documents", "/api/tags", "/api/webhooks"]


@pytest.fixture
def staff() -> dict[str, str]:
    """Five of each listed thing."""
    folder = FolderFactory(name="Shelf")
    for n in range(4):
        FolderFactory(name=f"Folder {n}")
    for n in range(5):
        DocumentFactory(folder=folder, title=f"Paper {n}", text=f"Paper {n}.", indexed=True)
        Tag.objects.create(name=f"Tag {n}")
        WebhookEndpoint.objects.create(url=f"https://hooks.example/{n}", events=["document.indexed"], all_folders=True)
    return bearer(StaffFactory(username="pager"))


def follow(client: Client, url: str, headers: dict[str, str]) -> tuple[list[int], int]:
    """Every id on every page, following `next` to the end; and how many pages."""
    ids: list[int] = []
    pages = 0
    next_url: str | None = url
    while next_url:
        body = client.get(next_url, **headers).json()
        assert set(body) == {"items", "count", "next"}, body
        ids += [item["id"] for item in body["items"]]
        next_url = body["next"]
        pages += 1
        assert pages <= body["count"] + 1
    assert len(ids) == len(set(ids)) == body["count"]
    return ids, pages


@pytest.mark.parametrize("path", LISTS)
def test_every_list_pages_by_page_and_page_size_following_next(
    client: Client, staff: dict[str, str], path: str
) -> None:
    everything, _ = follow(client, f"{path}?page_size=200", staff)
    assert len(everything) >= 5
    paged, pages = follow(client, f"{path}?page_size=2", staff)
    assert paged == everything
    assert pages == (len(everything) + 1) // 2
    second = client.get(f"{path}?page_size=2&page=2", **staff).json()
    assert [i["id"] for i in second["items"]] == everything[2:4]
    assert "page=3" in (second["next"] or "page=3")  # the page moves on, page_size stays
    # The old parameters still answer, as deprecated aliases.
    legacy = client.get(f"{path}?limit=2&offset=2", **staff).json()
    assert [i["id"] for i in legacy["items"]] == everything[2:4]


def test_the_schema_marks_the_old_parameters_deprecated(client: Client) -> None:
    schema = client.get("/api/openapi.json").json()
    for path in LISTS:
        parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert {"page", "page_size", "limit", "offset"} <= set(parameters), path
        assert parameters["limit"].get("deprecated") or parameters["limit"]["schema"].get("deprecated"), path
        assert parameters["offset"].get("deprecated") or parameters["offset"]["schema"].get("deprecated"), path


def test_400_and_422_and_404_have_one_body(client: Client, staff: dict[str, str]) -> None:
    bad_value = client.get("/api/documents?type=exe", **staff)  # a domain error: 400
    invalid = client.get("/api/documents?page=zero&page_size=0", **staff)  # ninja's validation: 422
    missing = client.get("/api/documents/987654321", **staff)
    bad_body = client.post("/api/tags", "not json", content_type="application/json", **staff)
    statuses = [r.status_code for r in (bad_value, invalid, missing, bad_body)]
    assert statuses[:3] == [400, 422, 404]
    assert statuses[3] in (400, 422)
    for response in (bad_value, invalid, missing, bad_body):
        body = response.json()
        assert set(body) == {"detail", "errors"}, body
        assert body["detail"]
    assert bad_value.json()["errors"] == missing.json()["errors"] == []
    fields = invalid.json()["errors"]
    assert {tuple(e["loc"]) for e in fields} == {("query", "page"), ("query", "page_size")}
    assert all(set(e) == {"loc", "msg", "type"} for e in fields)
    schema = client.get("/api/openapi.json").json()
    responses = schema["paths"]["/api/documents"]["get"]["responses"]
    refs = {responses[s]["content"]["application/json"]["schema"]["$ref"] for s in ("400", "404", "422")}
    assert refs == {"#/components/schemas/ErrorOut"}


def test_a_rate_limited_or_unknown_path_answers_the_same_body(client: Client, staff: dict[str, str]) -> None:
    for response in (client.get("/api/nowhere", **staff), client.put("/api/documents", **staff)):
        assert set(response.json()) == {"detail", "errors"}
