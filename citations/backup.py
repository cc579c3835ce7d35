"""The question log in library exports: every question with its state, reasons, top documents and
the reader's feedback, registered as a table beside the documents (documents/services/backup_tables.py)
from CitationsConfig.ready, since the backup services may not import this app.

Askers are named by username, folders and documents by export id and mapped on restore; a folder
or document the import did not create is left out (as a deleted one would be). An anonymous
asker's session hash is not exported: it only lets that browser session give feedback.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.utils import timezone

from citations.models import QuestionLog
from documents.services.backup_accounts import parse_time
from documents.services.backup_tables import BackupTable, RestoreIds, backup_table_register

FIELDS = (
    "endpoint", "question", "folder_name", "filters", "state", "reasons", "missing_terms", "unknown_names",
    "latency_ms", "writer", "feedback", "feedback_comment",
)  # fmt: skip
_ROWS_PER_INSERT = 500


def _rows() -> Iterator[dict[str, Any]]:
    logged = QuestionLog.objects.order_by("pk").select_related("user").iterator(chunk_size=_ROWS_PER_INSERT)
    for row in logged:
        yield {f: getattr(row, f) for f in FIELDS} | {
            "asked_at": row.asked_at.isoformat(),
            "feedback_at": row.feedback_at.isoformat() if row.feedback_at else None,
            "user": row.user.get_username() if row.user else None,
            "folder": row.folder_id,
            "top_documents": row.top_documents,
        }


def _restore(rows: Iterable[dict[str, Any]], ids: RestoreIds) -> int:
    batch: list[QuestionLog] = []
    restored = 0
    for row in rows:
        batch.append(
            QuestionLog(
                **{f: row[f] for f in FIELDS},
                asked_at=parse_time(row["asked_at"]) or timezone.now(),
                feedback_at=parse_time(row["feedback_at"]),
                user_id=ids.users.get(row["user"]) if row["user"] else None,
                folder_id=ids.folders.get(row["folder"]) if row["folder"] is not None else None,
                top_documents=[_document(d, ids) for d in row["top_documents"]],
            )
        )
        if len(batch) >= _ROWS_PER_INSERT:
            restored += len(QuestionLog.objects.bulk_create(batch))
            batch = []
    return restored + len(QuestionLog.objects.bulk_create(batch))


def _document(entry: dict[str, Any], ids: RestoreIds) -> dict[str, Any]:
    """A top document as this library numbers it (its title kept either way, as for a deleted one)."""
    if not isinstance(entry, dict):
        return entry
    exported = entry.get("id")
    return entry | {"id": ids.documents.get(exported) if isinstance(exported, int) else None}


def question_log_backup_register() -> None:
    backup_table_register(
        BackupTable(name="question_log", rows=_rows, count=QuestionLog.objects.count, restore=_restore)
    )
