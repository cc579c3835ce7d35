"""Folders, documents and chunks: the library's data and its invariants."""

from __future__ import annotations

import uuid
from pathlib import PurePath

from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.validators import URLValidator
from django.db import models
from django.db.models.functions import Lower
from pgvector.django import HnswIndex, VectorField

# The keyword index's models belong to this app; importing them here registers them.
from documents.lexical.models import FolderLength, LexemeBlock  # noqa: F401
from documents.names import NameValidator
from documents.webhooks.address import webhook_url_validate


class Folder(models.Model):
    name = models.CharField(max_length=200, validators=[NameValidator("folder name")])
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children")
    is_public = models.BooleanField(default=False, help_text="Anyone, even anonymous visitors, may read it.")
    reader_groups = models.ManyToManyField(Group, blank=True, related_name="readable_folders")
    reader_users = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="readable_folders")
    writer_groups = models.ManyToManyField(Group, blank=True, related_name="writable_folders")
    writer_users = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="writable_folders")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["parent", "name"], name="folder_unique_name_in_parent"),
        ]

    def __str__(self) -> str:
        return self.path

    @property
    def path(self) -> str:
        names: list[str] = []
        seen: set[int | None] = set()
        node: Folder | None = self
        while node is not None and node.pk not in seen:
            seen.add(node.pk)
            names.append(node.name)
            node = node.parent
        return " / ".join(reversed(names))


def document_upload_to(instance: Document, filename: str) -> str:
    # Stored under a random name: the client's name is kept in original_name, never trusted as a path.
    suffix = PurePath(filename).suffix.lower()[:10]
    return f"documents/{uuid.uuid4().hex}{suffix}"


class Tag(models.Model):
    """A staff-managed label on documents; names are unique whatever their case."""

    name = models.CharField(max_length=100, validators=[NameValidator("tag name")])

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="tag_unique_name_ci")]

    def __str__(self) -> str:
        return self.name


class DocumentStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    EXTRACTING = "extracting", "Extracting"
    CHUNKING = "chunking", "Chunking"
    EMBEDDING = "embedding", "Embedding"
    INDEXED = "indexed", "Indexed"
    FAILED = "failed", "Failed"


PROCESSING_STATUSES = (DocumentStatus.EXTRACTING, DocumentStatus.CHUNKING, DocumentStatus.EMBEDDING)


class Document(models.Model):
    folder = models.ForeignKey(Folder, on_delete=models.CASCADE, related_name="documents")
    # The document's own title, authors and date, read from the file at ingestion
    # (documents/extraction/metadata.py); the file-name stem when the file names no title.
    title = models.CharField(max_length=500, validators=[NameValidator("title")])
    authors = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    published = models.DateField(null=True, blank=True)
    # The main language of the text, an ISO 639-1 code (documents/languages.py); "" until detected.
    language = models.CharField(max_length=8, blank=True, default="")
    # Which of "title", "authors", "published" staff corrected: extraction never overwrites those.
    metadata_edited = ArrayField(models.CharField(max_length=20), default=list, blank=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="documents")
    file = models.FileField(upload_to=document_upload_to, max_length=300)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64, db_index=True)
    page_count = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=DocumentStatus.choices, default=DocumentStatus.QUEUED)
    failure_reason = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # The queue message whose run last started processing the document (documents.services.ingest):
    # another message for it, a duplicate, leaves a live run alone. Empty for inline runs.
    run_id = models.CharField(max_length=64, blank=True, default="")
    # Version stamps, written when indexing finishes; a mismatch with settings means "stale".
    extractor = models.CharField(max_length=100, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    embedding_dims = models.PositiveIntegerField(null=True, blank=True)
    pipeline = models.CharField(max_length=300, blank=True)  # holds the context writer's model name too
    chunk_count = models.PositiveIntegerField(default=0)
    # The context writer's work on the last indexing (documents/services/contexts.py): chunks whose
    # request failed (they keep the "Title > Section" header), contexts reused from the cache, and
    # its cost as the server reported it.
    context_failures = models.PositiveIntegerField(default=0)
    context_cache_hits = models.PositiveIntegerField(default=0)
    context_prompt_tokens = models.PositiveBigIntegerField(default=0)
    context_cached_prompt_tokens = models.PositiveBigIntegerField(default=0)
    context_completion_tokens = models.PositiveBigIntegerField(default=0)
    context_seconds = models.FloatField(default=0.0)
    # Sum of the chunks' lexeme counts: with chunk_count it gives BM25's average chunk length.
    lexeme_total = models.PositiveBigIntegerField(default=0)
    canonical_text = models.TextField(blank=True)
    page_starts = models.JSONField(default=list, blank=True)
    # Pages that could not be read (damaged, unreadable scans), said in words; see docs/staff.md.
    warnings = models.JSONField(default=list, blank=True)
    indexed_at = models.DateTimeField(null=True, blank=True)
    status_changed_at = models.DateTimeField(auto_now_add=True)
    # Where a processing run is within its stage (documents/progress.py): pages read of N, chunks
    # embedded of N…; written by the worker a few times a second at most, cleared by every status move.
    progress_stage = models.CharField(max_length=20, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(null=True, blank=True)  # null: the stage has no count
    progress_started_at = models.DateTimeField(null=True, blank=True)  # the stage's start: its rate, the estimate
    progress_updated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="uploaded_documents"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["folder", "status"]),
            models.Index(fields=["status", "status_changed_at"]),
        ]
        constraints = [
            models.UniqueConstraint(fields=["folder", "sha256"], name="document_unique_bytes_in_folder"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_pdf(self) -> bool:
        return self.content_type == "application/pdf"


class Chunk(models.Model):
    # Indexed by chunk_document_id_id (Meta), which also serves the foreign key's lookups.
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks", db_index=False)
    ordinal = models.PositiveIntegerField()
    section = models.CharField(max_length=1000, blank=True)
    # The language this chunk is written in (a document may mix them); "" until detected.
    language = models.CharField(max_length=8, blank=True, default="")
    content = models.TextField()
    context = models.TextField(blank=True)
    char_start = models.PositiveIntegerField()
    char_end = models.PositiveIntegerField()
    page_start = models.PositiveIntegerField(default=1)
    page_end = models.PositiveIntegerField(default=1)
    token_count = models.PositiveIntegerField(default=0)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMS, null=True, blank=True)
    # SHA-256 of the model stamp and the exact text embedded (documents/services/vector_reuse.py):
    # a chunk with the same key elsewhere reuses this vector instead of running the encoder.
    embedding_key = models.CharField(max_length=64, blank=True, db_index=True)
    search_vector = SearchVectorField(null=True, blank=True)
    # Number of lexeme occurrences in search_vector: the BM25 document length.
    lexeme_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["document_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="chunk_unique_ordinal"),
            models.CheckConstraint(condition=models.Q(char_end__gte=models.F("char_start")), name="chunk_range"),
        ]
        indexes = [
            HnswIndex(
                name="chunk_embedding_hnsw",
                fields=["embedding"],
                m=16,
                # 200, not 64: at 100k distinct chunks recall@20 plateaued at 0.967 with 64 however
                # large ef_search was; 200 reaches 0.994 at ef_search 400 (BENCHMARKS.md).
                ef_construction=200,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(fields=["search_vector"], name="chunk_search_vector_gin"),
            # A filtered search lists its allowed documents' chunk ids from this index alone
            # (an index-only scan): at 100k chunks, 50,000 ids in 7.5 ms instead of 32 ms
            # through the heap.
            models.Index(fields=["document", "id"], name="chunk_document_id_id"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal}"


class ChunkContext(models.Model):
    """A context a model wrote for one chunk of one document text, kept so a re-index of an
    unchanged chunk reuses it instead of asking the model again. Only successful replies are kept."""

    document_hash = models.CharField(max_length=64)  # sha256 of the document text the model read
    chunk_hash = models.CharField(max_length=64)  # sha256 of the chunk's content
    model = models.CharField(max_length=200)
    prompt_version = models.PositiveIntegerField()
    context = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["document_hash", "chunk_hash", "model", "prompt_version"], name="chunk_context_unique_key"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model}: {self.chunk_hash[:12]}"


class OcrPage(models.Model):
    """A page of a document read by OCR: its mean word confidence, and its words' boxes, which the
    page image highlights passages with (an OCR'd page has no text layer to find them in)."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="ocr_pages")
    number = models.PositiveIntegerField(help_text="1-based page number.")
    mean_confidence = models.FloatField(null=True, blank=True, help_text="Tesseract's mean word confidence, 0-100.")
    word_count = models.PositiveIntegerField(default=0)
    # [x0, y0, x1, y1, text, block, line] per word, in PDF points, like PyMuPDF's get_text("words").
    words = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["document_id", "number"]
        constraints = [models.UniqueConstraint(fields=["document", "number"], name="ocr_page_unique_number")]

    def __str__(self) -> str:
        return f"{self.document_id} p.{self.number}"


class ApiToken(models.Model):
    """A per-user API token. Only its SHA-256 is stored; the token itself is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(
        max_length=100, blank=True, help_text="What the token is for.", validators=[NameValidator("token name")]
    )
    prefix = models.CharField(max_length=12, editable=False, help_text="First characters, to recognise a token.")
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"


class WebhookEvent(models.TextChoices):
    DOCUMENT_INDEXED = "document.indexed", "document.indexed: a document's index is in place"
    DOCUMENT_FAILED = "document.failed", "document.failed: processing a document failed"
    DOCUMENT_DELETED = "document.deleted", "document.deleted: a document was deleted"


def webhook_secret_new() -> str:
    # Standard Webhooks' form: "whsec_" + base64 of 32 random bytes (documents/webhooks/signing.py).
    from documents.webhooks.signing import secret_generate

    return secret_generate()


class WebhookEndpoint(models.Model):
    """A URL staff registered to be told of document events in some folders (or all)."""

    name = models.CharField(max_length=100, blank=True, help_text="What the endpoint is for.")
    url = models.URLField(
        max_length=2000,
        validators=[URLValidator(schemes=["http", "https"]), webhook_url_validate],
        help_text="An http or https URL on the public internet (or an allowed internal network); "
        "deliveries are POSTed to it.",
    )
    events = ArrayField(models.CharField(max_length=40, choices=WebhookEvent.choices))
    all_folders = models.BooleanField(default=False, help_text="Every folder, including folders created later.")
    folders = models.ManyToManyField(
        Folder,
        blank=True,
        related_name="webhook_endpoints",
        help_text="The folders whose documents it hears of (each folder itself, not its subfolders).",
    )
    secret = models.CharField(max_length=100, default=webhook_secret_new, editable=False)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name or self.url


class WebhookDeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    FAILED = "failed", "Failed (gave up)"


class WebhookDelivery(models.Model):
    """One event for one endpoint: written in the transaction that caused the event, sent after it commits.

    Its payload is frozen when the event happens (a deleted document is gone by the time it is sent);
    `next_attempt_at` is when a pending delivery is due, so a worker restart loses none."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    message_id = models.CharField(max_length=40, unique=True, help_text="The webhook-id header, the same on retries.")
    event = models.CharField(max_length=40, choices=WebhookEvent.choices)
    document_id = models.BigIntegerField(help_text="The document's id (it may be deleted since).")
    payload = models.JSONField()
    status = models.CharField(
        max_length=20, choices=WebhookDeliveryStatus.choices, default=WebhookDeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_response_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, help_text="Why the last attempt failed, when it did.")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    resent_at = models.DateTimeField(
        null=True, blank=True, help_text="When staff last sent it again; its day of retries starts then."
    )
    resends = models.PositiveIntegerField(default=0, help_text="How often staff sent it again.")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"
        indexes = [models.Index(fields=["status", "next_attempt_at"])]

    def __str__(self) -> str:
        return f"{self.event} #{self.document_id} → {self.endpoint}"


class StoredFile(models.Model):
    """An original kept in PostgreSQL (FILE_STORAGE=database, documents/file_storage/database.py).

    Its bytes are `StoredFileBlock` rows of `block_size` bytes each (the last one shorter), so a
    read at any offset fetches one row, and no statement ever carries the whole file. A row and
    its blocks are written in one transaction: a file is either whole or absent."""

    name = models.CharField(max_length=300, unique=True)
    size = models.BigIntegerField()
    block_size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class StoredFileBlock(models.Model):
    file = models.ForeignKey(StoredFile, on_delete=models.CASCADE, related_name="blocks")
    ordinal = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["file", "ordinal"], name="storedfileblock_unique_ordinal")]

    def __str__(self) -> str:
        return f"{self.file_id}:{self.ordinal}"
