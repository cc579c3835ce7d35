"""Statistics that BM25 needs, kept per document so they follow deletes and folder permissions.

For a caller, N, the average chunk length and each lexeme's document frequency are sums over
the documents of the folders the caller may read, so scores never depend on text the caller
cannot see. Rows disappear with their document (ON DELETE CASCADE).
"""

from __future__ import annotations

from django.db import models

from documents.models import Document


class DocumentLexeme(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="lexeme_stats")
    lexeme = models.TextField()
    chunk_frequency = models.PositiveIntegerField(help_text="Chunks of this document containing the lexeme.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["lexeme", "document"], name="document_lexeme_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.lexeme} in {self.document_id}: {self.chunk_frequency}"
