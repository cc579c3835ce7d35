"""Tables a library export carries beside the documents: each says how its rows are written and
restored, and whether they hold secrets. Webhook endpoints are registered here; an app above
documents registers its own (citations/backup.py: the question log) from its AppConfig.ready, so
the backup services need not import it (documents/services/backup_export.py and
backup_import.py call every registered table in turn).

Export ids are the exporting library's: a restore maps them through `RestoreIds` (users by name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from documents.models import WebhookEndpoint


@dataclass(frozen=True)
class RestoreIds:
    """Export id -> this library's id, for what the import has created so far."""

    users: dict[str, int]  # by username
    folders: dict[int, int]
    documents: dict[int, int]


@dataclass(frozen=True)
class BackupTable:
    name: str
    rows: Callable[[], Iterator[dict[str, Any]]]  # read inside the export's snapshot
    count: Callable[[], int]
    restore: Callable[[Iterable[dict[str, Any]], RestoreIds], int]  # inside the import's transaction
    secret_bearing: bool = False  # its rows hold secrets: keep the export as safe as the library


BACKUP_TABLES: dict[str, BackupTable] = {}


def backup_table_register(table: BackupTable) -> None:
    """Add a table to every export and import from now on (the same name twice: the last wins)."""
    BACKUP_TABLES[table.name] = table


WEBHOOK_FIELDS = ("name", "url", "events", "all_folders", "secret", "is_active")


def _webhook_rows() -> Iterator[dict[str, Any]]:
    endpoints: QuerySet[WebhookEndpoint] = WebhookEndpoint.objects.order_by("pk").prefetch_related("folders")
    for endpoint in endpoints:
        yield {f: getattr(endpoint, f) for f in WEBHOOK_FIELDS} | {
            "created_at": endpoint.created_at.isoformat(),
            "folders": sorted(f.pk for f in endpoint.folders.all()),
        }


def _webhooks_restore(rows: Iterable[dict[str, Any]], ids: RestoreIds) -> int:
    restored = 0
    for row in rows:
        endpoint = WebhookEndpoint.objects.create(**{f: row[f] for f in WEBHOOK_FIELDS})
        # auto_now_add sets the creation time on insert: the export's is written after.
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(created_at=datetime.fromisoformat(row["created_at"]))
        endpoint.folders.set([ids.folders[f] for f in row["folders"] if f in ids.folders])
        restored += 1
    return restored


backup_table_register(
    BackupTable(
        name="webhook_endpoints",
        rows=_webhook_rows,
        count=lambda: WebhookEndpoint.objects.count(),
        restore=_webhooks_restore,
        secret_bearing=True,
    )
)
