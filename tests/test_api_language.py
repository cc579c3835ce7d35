"""The API's error `detail` follows Accept-Language: Portuguese for `pt`, English without the
header; the status, the `errors` list and every code stay the same whatever the language.
Real requests through Django's test client against the real database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.conftest import bearer
from tests.factories import DocumentFactory, FolderFactory, StaffFactory, UserFactory
from tests.test_rate_limits import fresh_window

pytestmark = pytest.mark.django_db

PORTUGUESE = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def world() -> dict[str, Any]:
    reader, writer = UserFactory(username="api-reader"), UserFactory(username="api-writer")
    folder = FolderFactory(name="Team", readers=[reader, writer])
    folder.writer_users.add(writer)
    document = DocumentFactory(folder=folder, title="Runbook", text="Restart the service.", indexed=True)
    staff = StaffFactory(username="api-staff")
    return {"reader": reader, "writer": writer, "staff": staff, "folder": folder, "document": document}


Request = Callable[[dict[str, Any], dict[str, str]], Any]


def _bad_token(world: dict[str, Any], language: dict[str, str]) -> Any:
    return Client().get("/api/documents", HTTP_AUTHORIZATION="Token abc", **language)


def _forbidden(world: dict[str, Any], language: dict[str, str]) -> Any:
    path = f"/api/documents/{world['document'].pk}"
    return Client().delete(path, **bearer(world["reader"]), **language)


def _unknown_path(world: dict[str, Any], language: dict[str, str]) -> Any:
    return Client().get("/api/nope", **language)


def _unreadable_document(world: dict[str, Any], language: dict[str, str]) -> Any:
    return Client().get("/api/documents/999999", **bearer(world["reader"]), **language)


def _wrong_method(world: dict[str, Any], language: dict[str, str]) -> Any:
    return Client().put("/api/documents", **bearer(world["reader"]), **language)


def _unparseable_body(world: dict[str, Any], language: dict[str, str]) -> Any:
    return Client().post("/api/answer", "{", content_type="application/json", **bearer(world["reader"]), **language)


def _upload_over_the_limit(world: dict[str, Any], language: dict[str, str]) -> Any:
    file = SimpleUploadedFile("big.md", b"y" * 1_700_000, content_type="text/markdown")
    data = {"file": file, "folder": world["folder"].pk}
    return Client().post("/api/documents", data, **bearer(world["writer"]), **language)


def _upload_not_multipart(world: dict[str, Any], language: dict[str, str]) -> Any:
    data = {"folder": world["folder"].pk}
    return Client().post("/api/documents", data, content_type="application/json", **bearer(world["writer"]), **language)


def _empty_upload(world: dict[str, Any], language: dict[str, str]) -> Any:
    file = SimpleUploadedFile("empty.md", b"", content_type="text/markdown")
    data = {"file": file, "folder": world["folder"].pk}
    return Client().post("/api/documents", data, **bearer(world["writer"]), **language)


def _upload(world: dict[str, Any], language: dict[str, str], name: str, content: bytes) -> Any:
    data = {"file": SimpleUploadedFile(name, content), "folder": world["folder"].pk}
    return Client().post("/api/documents", data, **bearer(world["writer"]), **language)


def _upload_of_an_unsupported_type(world: dict[str, Any], language: dict[str, str]) -> Any:
    return _upload(world, language, "slides.pptx", b"PK")


def _upload_that_breaks_its_extension(world: dict[str, Any], language: dict[str, str]) -> Any:
    return _upload(world, language, "report.pdf", b"Plain words of a note, not a PDF.\n")


def _folder_name_with_a_tab(world: dict[str, Any], language: dict[str, str]) -> Any:
    body = {"name": "Team\tnotes"}
    return Client().post("/api/folders", body, content_type="application/json", **bearer(world["staff"]), **language)


def _webhook_to_an_internal_address(world: dict[str, Any], language: dict[str, str]) -> Any:
    body = {"name": "CI", "url": "http://169.254.169.254/hook", "events": ["document.indexed"], "all_folders": True}
    return Client().post("/api/webhooks", body, content_type="application/json", **bearer(world["staff"]), **language)


def _retry_of_an_indexed_document(world: dict[str, Any], language: dict[str, str]) -> Any:
    path = f"/api/documents/{world['document'].pk}/retry"
    return Client().post(path, **bearer(world["writer"]), **language)


def _missing_question(world: dict[str, Any], language: dict[str, str]) -> Any:
    return Client().get("/api/search", {"k": 0}, **bearer(world["reader"]), **language)


def _over_the_rate_limit(world: dict[str, Any], language: dict[str, str]) -> Any:
    client, token = Client(), bearer(UserFactory())  # a user of no folder: nothing to search, at once
    fresh_window()
    assert client.get("/api/search", {"q": "lamp"}, **token).status_code == 200
    return client.get("/api/search", {"q": "lamp"}, **token, **language)


CASES: list[tuple[str, Request, int, str, str]] = [
    ("401", _bad_token, 401, "O cabeçalho Authorization deve ser 'Bearer <token>'. Envie um token da API válido",
     "The Authorization header must read 'Bearer <token>'. Send a valid API token"),
    ("403", _forbidden, 403, "Pode ler o documento {document}, mas não pode apagá-lo: não pode escrever na pasta dele.",
     "You may read document {document} but not delete it: you cannot write its folder."),
    ("404 path", _unknown_path, 404,
     "Não há nenhum endpoint da API em /api/nope. Os endpoints estão listados em /api/docs.",
     "There is no API endpoint at /api/nope. The endpoints are listed at /api/docs."),
    ("404 document", _unreadable_document, 404, "O documento 999999 não existe ou não o pode ler.",
     "Document 999999 does not exist or you may not read it."),
    ("405", _wrong_method, 405, "PUT não é permitido em /api/documents; use ",
     "PUT is not allowed on /api/documents; use "),
    ("400", _unparseable_body, 400, "Não foi possível ler o corpo do pedido", "Cannot parse request body"),
    ("400 service", _empty_upload, 400, "'empty.md' está vazio (0 bytes); não há nada para indexar.",
     "'empty.md' is empty (0 bytes); there is nothing to index."),
    ("400 name", _folder_name_with_a_tab, 400,
     "O nome da pasta contém um carácter de controlo (U+0009) no carácter 5; nomes e títulos têm de ser texto "
     "imprimível numa só linha.",
     "The folder name contains a control character (U+0009) at character 5; names and titles must be printable "
     "text on one line."),
    ("400 webhook", _webhook_to_an_internal_address, 400,
     "url: Este URL não pode receber webhooks: 169.254.169.254 resolve para 169.254.169.254, que não é um "
     "endereço público (WEBHOOK_ALLOWED_NETWORKS lista as redes internas permitidas).",
     "url: This URL cannot receive webhooks: 169.254.169.254 resolves to 169.254.169.254, which is not a public "
     "address (WEBHOOK_ALLOWED_NETWORKS lists the internal networks allowed)."),
    ("409", _retry_of_an_indexed_document, 409,
     "O documento {document} ('Runbook') tem o estado 'indexed', não 'failed'; só os documentos que falharam",
     "Document {document} ('Runbook') has status 'indexed', not 'failed'; only failed documents are retried."),
    ("413", _upload_over_the_limit, 413, "O envio excede o limite de 1,5 MB; nada foi guardado.",
     "The upload is larger than the limit of 1.5 MB; nothing was stored."),
    ("415", _upload_not_multipart, 415, "Envie o documento como multipart/form-data",
     "Upload the file as multipart/form-data"),
    ("415 type", _upload_of_an_unsupported_type, 415,
     "'slides.pptx' não é de um tipo suportado; envie PDF (.pdf), Word (.docx), uma página web (.html, .htm, "
     ".xhtml), Markdown (.md, .markdown) ou texto simples (.txt, .text).",
     "'slides.pptx' is not a supported file type; upload PDF (.pdf), Word (.docx), a web page (.html, .htm, "
     ".xhtml), Markdown (.md, .markdown) or plain text (.txt, .text)."),
    ("415 unreadable", _upload_that_breaks_its_extension, 415,
     "'report.pdf' não é um PDF: o seu primeiro kilobyte não contém nenhum cabeçalho PDF (%PDF-). Parece texto "
     "simples; envie-o com um nome .txt. Não foi guardado.",
     "'report.pdf' is not a PDF: its first kilobyte holds no PDF header (%PDF-). It looks like plain text; upload "
     "it with a .txt name. It was not stored."),
    ("422", _missing_question, 422,
     "parâmetro de consulta 'q': Campo obrigatório; parâmetro de consulta 'k': Deve ser maior ou igual a 1",
     "query parameter 'q': Field required; query parameter 'k': Input should be greater than or equal to 1"),
    ("429", _over_the_rate_limit, 429, "Pedidos a mais: pesquisas estão limitadas a 1 pedidos por minuto",
     "Too many requests: searches are limited to 1 requests per minute"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("request_", "status", "portuguese", "english"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_an_error_detail_follows_accept_language_and_nothing_else_does(
    world: dict[str, Any], settings: Any, request_: Request, status: int, portuguese: str, english: str
) -> None:
    settings.UPLOAD_MAX_BYTES = 1_572_864  # 1.5 MB, said with the language's decimal mark
    settings.API_RATE_LIMIT_PER_MINUTE = 1 if status == 429 else 0  # 0: no limit
    said = {"document": world["document"].pk}
    answers = {name: request_(world, language) for name, language in (("pt", PORTUGUESE), ("en", ENGLISH))}
    english_without_header = request_(world, {}) if status != 429 else answers["en"]
    for response in (*answers.values(), english_without_header):
        assert response.status_code == status, response.content
        assert response["Content-Type"].startswith("application/json")
    pt, en = answers["pt"].json(), answers["en"].json()
    assert portuguese.format(**said) in pt["detail"]
    assert english.format(**said) in en["detail"]
    assert english.format(**said) in english_without_header.json()["detail"]
    # The codes a program reads do not change: the per-field errors are pydantic's, as they were.
    assert pt["errors"] == en["errors"]
    assert set(pt) == set(en) == {"detail", "errors"}


def test_a_crash_is_said_in_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    import documents.api

    def explode(**kwargs: Any) -> Any:  # a fault inside a handler: the API's 500 is under test
        raise RuntimeError("internals")

    monkeypatch.setattr(documents.api, "documents_for_user", explode)
    token = bearer(UserFactory())
    portuguese = Client().get("/api/documents", **token, **PORTUGUESE)
    english = Client().get("/api/documents", **token)
    assert portuguese.status_code == english.status_code == 500
    assert portuguese.json()["detail"] == (
        "O servidor não conseguiu tratar este pedido; o erro ficou no log. Tente de novo mais tarde."
    )
    assert english.json()["detail"].startswith("The server failed to handle this request")
