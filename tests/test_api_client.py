"""A client generated from the served /api/openapi.json by openapi-python-client drives the whole
API against the live server, with a real Celery worker indexing the uploads: folders, upload,
polling, paged lists, search with and without filters, an answer rebuilt from its parts,
feedback, retry, deletes. Only the generated functions and models are used, and every response
is checked by schemathesis against the operation the schema declares for it.

A field renamed in the API shows here as an AttributeError or a missing keyword on a generated
model, at the step that uses it.
"""

from __future__ import annotations

import enum
import inspect
import json
import re
import threading
from importlib import import_module
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from citations.warm import warm_for_serving
from documents.services.tokens import token_create
from tests.conftest import wait_for
from tests.corpus import DEV_DIR, dev_questions, require_corpus
from tests.factories import StaffFactory
from tests.generated_client import Conformance, generate_client, imported, operation_modules, package_files
from tests.test_api_schema import reject_duplicates

PDF = "bitcoin-nakamoto-2008.pdf"
MARKDOWN = "prometheus-storage.md"


def served_schema(base_url: str) -> dict[str, Any]:
    # The schema itself is fetched plainly: the client is made from it.
    response = httpx.get(f"{base_url}/api/openapi.json", timeout=30)
    assert response.status_code == 200
    schema: dict[str, Any] = json.loads(response.content, object_pairs_hook=reject_duplicates)
    return schema


def test_generation_is_complete_and_deterministic(client: Any, tmp_path: Path) -> None:
    """Every operation gets its module, and the same schema gives the same client byte for byte."""
    schema = json.loads(client.get("/api/openapi.json").content, object_pairs_hook=reject_duplicates)
    first = generate_client(schema, tmp_path / "first")
    second = generate_client(schema, tmp_path / "second")
    assert package_files(first) == package_files(second)
    assert operation_modules(schema) <= set(package_files(first))


def test_a_warning_that_drops_an_operation_fails_generation(client: Any, tmp_path: Path) -> None:
    schema = json.loads(client.get("/api/openapi.json").content)
    unknown = {"name": "sid", "in": "query", "schema": {"$ref": "#/components/schemas/Missing"}}
    schema["paths"]["/api/folders"]["get"]["parameters"].append(unknown)
    with pytest.raises(AssertionError, match=r"GET /api/folders .* will not be generated"):
        generate_client(schema, tmp_path)


def test_conformance_reports_what_the_schema_does_not_declare(client: Any) -> None:
    """The check the round trip relies on: an undocumented status, a body of another type, a body
    that breaks its schema, a path the schema lacks; a documented response passes."""
    conformance = Conformance(json.loads(client.get("/api/openapi.json").content))
    answers = iter(
        [
            httpx.Response(404, json={"detail": "No such document."}),
            httpx.Response(418, json={"detail": "teapot"}),
            httpx.Response(404, text="Not found"),
            httpx.Response(200, json={"items": [], "count": "none", "next": None}),
            httpx.Response(200, json={}),
        ]
    )
    transport = httpx.MockTransport(lambda request: next(answers))
    with httpx.Client(transport=transport, base_url="http://testserver", event_hooks={"response": [conformance]}) as c:
        for path in ["/api/documents/7", "/api/documents/7", "/api/documents/7", "/api/folders", "/api/nowhere"]:
            c.get(path)
    assert conformance.seen == {"getDocument", "listFolders"}
    reported = "\n".join(conformance.failures)
    assert len(conformance.failures) == 4, reported
    for sign in [
        "Undocumented status code",
        "Undocumented Content-Type",
        '"none" is not of type "integer"',
        "/api/nowhere",
    ]:
        assert sign in reported


@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.corpus
def test_generated_client_round_trip(
    live_server: Any, celery_worker_process: Any, tmp_path: Path, settings: Any
) -> None:
    require_corpus()
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    _, token = token_create(user=StaffFactory(username="client-staff"), name="generated client")
    schema = served_schema(live_server.url)
    conformance = Conformance(schema)
    package = generate_client(schema, tmp_path / "client")
    # The live server is this process: it loads the encoder while the worker indexes, as a
    # production web worker does at start (citations/warm.py), not in the first search.
    warming = threading.Thread(target=warm_for_serving, daemon=True)
    warming.start()
    with imported(package) as lib:
        api = Api(lib, live_server.url, token, conformance)
        round_trip(api, lib, celery_worker_process, warming)
    assert not conformance.failures, "\n\n".join(conformance.failures)
    declared = {op["operationId"] for item in schema["paths"].values() for op in item.values()}
    assert conformance.seen == declared, f"operations the round trip never called: {declared - conformance.seen}"


class Api:
    """The generated package's operation modules, and a client whose every response is checked."""

    def __init__(self, lib: Any, base_url: str, token: str, conformance: Conformance) -> None:
        self.client = lib.AuthenticatedClient(
            base_url=base_url,
            token=token,
            raise_on_unexpected_status=True,
            timeout=httpx.Timeout(300.0),  # the first search loads the encoder in the live server
            httpx_args={"event_hooks": {"response": [conformance]}},
        )
        self.lib = lib
        self.module = lambda dotted: import_module(f"{lib.__name__}.api.{dotted}")

    def call(self, dotted: str, status: int, **kwargs: Any) -> Any:
        """The operation's `sync_detailed`; the status must be `status`, the parsed model is returned."""
        response = self.module(dotted).sync_detailed(client=self.client, **kwargs)
        assert response.status_code == status, (dotted, response.status_code, response.content[:500])
        return response.parsed

    def pages(self, dotted: str, **kwargs: Any) -> list[Any]:
        """Every item of a list operation, page after page, each next call made from `next` alone."""
        items: list[Any] = []
        while True:
            page = self.call(dotted, 200, **kwargs)
            items.extend(page.items)
            if page.next_ is None:  # the generator appends "_" to a builtin's name
                assert len(items) == page.count, (dotted, len(items), page.count)
                return items
            kwargs = self.arguments(dotted, page.next_)

    def arguments(self, dotted: str, url: str) -> dict[str, Any]:
        """The operation's keyword arguments that request `url`: each query parameter under the
        generated name (a builtin's with "_"), typed as the generated signature declares it."""
        parameters = inspect.signature(self.module(dotted).sync_detailed).parameters
        arguments: dict[str, Any] = {}
        for name, values in parse_qs(urlsplit(url).query).items():
            key = name if name in parameters else f"{name}_"
            declared = str(parameters[key].annotation)
            if "list[" in declared.lower():
                arguments[key] = values
            elif (choice := self.enum_in(declared)) is not None:
                arguments[key] = choice(values[0])
            elif "int" in declared:
                arguments[key] = int(values[0])
            elif "bool" in declared:
                arguments[key] = values[0] == "true"
            else:
                arguments[key] = values[0]
        return arguments

    def enum_in(self, declared: str) -> Any:
        """The generated enum a parameter's annotation names, if any."""
        for name in re.findall(r"[A-Za-z_]\w*", declared):
            found = getattr(self.lib.models, name, None)
            if isinstance(found, type) and issubclass(found, enum.Enum):
                return found
        return None


def round_trip(api: Any, lib: Any, worker: Any, warming: threading.Thread) -> None:
    models = import_module(f"{lib.__name__}.models")
    from_types = import_module(f"{lib.__name__}.types")

    # Folders: a shelf and a subfolder under it.
    shelf = api.call("folders.create_folder", 201, body=models.FolderIn(name="Client shelf"))
    notes = api.call("folders.create_folder", 201, body=models.FolderIn(name="Client notes", parent=shelf.id))
    assert isinstance(shelf, models.FolderOut)
    assert notes.parent == shelf.id
    assert api.call("folders.get_folder", 200, folder_id=notes.id).name == "Client notes"
    listed = api.pages("folders.list_folders", page_size=1)
    assert {shelf.id, notes.id} <= {f.id for f in listed}

    # Upload a PDF into the shelf and a Markdown file into the subfolder; poll until indexed.
    uploaded = {}
    for name, folder in ((PDF, shelf), (MARKDOWN, notes)):
        with (DEV_DIR / name).open("rb") as stream:
            body = models.UploadDocumentMultiPartBodyParams(
                file=from_types.File(payload=stream, file_name=name), folder=folder.id, title=Path(name).stem
            )
            document = api.call("documents.upload_document", 202, body=body)
        assert isinstance(document, models.DocumentOut)
        assert document.folder.id == folder.id
        uploaded[name] = document
    duplicate = upload_again(api, models, from_types, shelf.id)
    assert duplicate.existing_document_id == uploaded[PDF].id

    def settled(document_id: int) -> Any:
        found = api.call("documents.get_document", 200, document_id=document_id)
        return found if found.status.value in ("indexed", "failed") else None

    for document in uploaded.values():
        done = wait_for(lambda d=document: settled(d.id), timeout=600, interval=0.5, what=worker.log)
        assert done.status.value == "indexed", (done.failure_reason, worker.log()[-3000:])
        assert isinstance(done, models.DocumentDetailOut)
        assert done.chunk_count > 0
    assert isinstance(api.call("documents.retry_document", 409, document_id=uploaded[PDF].id), models.ErrorOut)

    # Lists page by `page`, `page_size` and `next`, the client following `next`.
    seen = walk_documents(api)
    assert {d.id for d in uploaded.values()} <= seen
    pdfs = api.call("documents.list_documents", 200, type_=["pdf"], folder=shelf.id)
    assert [d.id for d in pdfs.items] == [uploaded[PDF].id]
    staff_writes(api, models, shelf.id, notes.id, uploaded[PDF].id, uploaded[MARKDOWN].id)

    warming.join()

    # Search: plain, then narrowed by folder, by type, by date; grouped by document, paged by `next`;
    # a tag no readable document holds matches nothing, like any unknown name.
    question = next(q for q in dev_questions() if q["doc"] == PDF)
    plain = api.call("search.search", 200, q=question["queries"][0])
    assert isinstance(plain, models.SearchOut)
    assert plain.state.value == "answered"
    assert plain.results[0].document_id == uploaded[PDF].id
    in_notes = api.call("search.search", 200, q="compaction of blocks", folder=notes.id)
    assert {hit.document_id for hit in in_notes.results} == {uploaded[MARKDOWN].id}
    only_markdown = api.call("search.search", 200, q=question["queries"][0], type_=["markdown"])
    assert uploaded[PDF].id not in {hit.document_id for hit in only_markdown.results}
    future = api.call("search.search", 200, q=question["queries"][0], from_="2100")
    assert future.filter_matches == 0
    assert future.results == []
    grouped = api.call("search.search", 200, q=question["queries"][0], group=models.SearchGroup.DOCUMENT)
    assert isinstance(grouped, models.DocumentSearchOut)
    assert grouped.documents[0].document_id == uploaded[PDF].id
    grouped_ids = [
        d.document_id
        for d in api.pages("search.search", q=question["queries"][0], group=models.SearchGroup.DOCUMENT, page_size=1)
    ]
    assert grouped_ids[0] == uploaded[PDF].id
    assert len(grouped_ids) == len(set(grouped_ids)) == grouped.count
    assert api.call("search.search", 200, q="anything", tag=["no-such-tag"]).filter_matches == 0

    # An answer, rebuilt from its parts, and feedback on it.
    answer = api.call("answers.answer_question", 200, body=models.AnswerIn(question=question["queries"][0]))
    assert answer.state.value == "answered"
    assert answer.citations
    rebuilt = "".join(
        part.text if isinstance(part, models.AnswerTextPart) else f"[{part.cite}]" for part in answer.parts
    )
    assert rebuilt == answer.answer
    assert any(isinstance(part, models.AnswerCitePart) for part in answer.parts)
    assert answer.citations[0].document_id == uploaded[PDF].id
    feedback = api.call(
        "answers.send_answer_feedback", 200, answer_id=answer.id, body=models.FeedbackIn(helpful=True, comment="ok")
    )
    assert feedback.feedback.value == "helpful"
    # The generated models do not check lengths: the server's 422 is parsed as the schema declares it.
    too_long = models.FeedbackIn(helpful=False, comment="x" * 2001)
    invalid = api.call("answers.send_answer_feedback", 422, answer_id=answer.id, body=too_long)
    assert isinstance(invalid, models.ErrorOut)
    assert invalid.errors

    # Deletes: the PDF, then the shelf with its subfolder and the Markdown file.
    api.call("documents.delete_document", 204, document_id=uploaded[PDF].id)
    assert api.call("documents.get_document", 404, document_id=uploaded[PDF].id).detail
    api.call("folders.delete_folder", 204, folder_id=shelf.id)
    assert api.call("folders.get_folder", 404, folder_id=notes.id).detail
    assert not {d.id for d in uploaded.values()} & walk_documents(api)


def upload_again(api: Any, models: Any, from_types: Any, folder_id: int) -> Any:
    """The same bytes in the same folder: 409 naming the document that holds them."""
    with (DEV_DIR / PDF).open("rb") as stream:
        body = models.UploadDocumentMultiPartBodyParams(
            file=from_types.File(payload=stream, file_name=PDF), folder=folder_id
        )
        return api.call("documents.upload_document", 409, body=body)


def walk_documents(api: Any) -> set[int]:
    """Every readable document's id, one per page, following `next` until it is null."""
    ids = [d.id for d in api.pages("documents.list_documents", page_size=1)]
    assert len(ids) == len(set(ids))
    return set(ids)


def staff_writes(api: Any, models: Any, shelf_id: int, notes_id: int, pdf_id: int, markdown_id: int) -> None:
    """What staff do in the admin, through the client: metadata, tags, a move, many at once, tags
    and webhook endpoints as resources, each list paged by `next`."""
    patch = models.DocumentPatch(title="Bitcoin whitepaper", authors=["S. Nakamoto"], tags=["Ledger"])
    changed = api.call("documents.update_document", 200, document_id=pdf_id, body=patch)
    assert (changed.title, changed.tags, sorted(changed.metadata_edited)) == (
        "Bitcoin whitepaper", ["Ledger"], ["authors", "title"],
    )  # fmt: skip
    moved = api.call(
        "documents.update_document", 200, document_id=markdown_id, body=models.DocumentPatch(folder=shelf_id)
    )
    assert moved.folder.id == shelf_id
    bulk = models.DocumentBulkIn(ids=[pdf_id, markdown_id], changes=models.DocumentPatch(add_tags=["Batch"]))
    both = api.call("documents.update_documents", 200, body=bulk)
    assert all("Batch" in d.tags for d in both.items)
    back = models.DocumentBulkIn(ids=[markdown_id], changes=models.DocumentPatch(folder=notes_id))
    assert api.call("documents.update_documents", 200, body=back).items[0].folder.id == notes_id

    tag = api.call("tags.create_tag", 201, body=models.TagIn(name="Consensus"))
    assert api.call("tags.create_tag", 409, body=models.TagIn(name="CONSENSUS")).detail
    assert api.call("tags.rename_tag", 200, tag_id=tag.id, body=models.TagIn(name="Agreement")).name == "Agreement"
    assert api.call("tags.get_tag", 200, tag_id=tag.id).name == "Agreement"
    assert {"Ledger", "Batch", "Agreement"} <= {t.name for t in api.pages("tags.list_tags", page_size=1)}
    api.call("tags.delete_tag", 204, tag_id=tag.id)

    hook = models.WebhookEndpointIn(url="https://hooks.example/in", events=["document.indexed"], folders=[shelf_id])
    endpoint = api.call("webhooks.create_webhook_endpoint", 201, body=hook)
    assert endpoint.secret.startswith("whsec_")
    read = api.call("webhooks.get_webhook_endpoint", 200, endpoint_id=endpoint.id)
    assert "secret" not in read.to_dict()
    changed_endpoint = api.call("webhooks.update_webhook_endpoint", 200, endpoint_id=endpoint.id,
                                body=models.WebhookEndpointPatch(is_active=False))  # fmt: skip
    assert changed_endpoint.is_active is False
    assert endpoint.id in {e.id for e in api.pages("webhooks.list_webhook_endpoints", page_size=1)}
    api.call("webhooks.delete_webhook_endpoint", 204, endpoint_id=endpoint.id)
