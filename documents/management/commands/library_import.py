"""`manage.py library_import DIR [--merge] [--inline] [--restore-privileges]`: restore a library export."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from documents.services.backup_format import ExportDamaged
from documents.services.backup_import import ImportRefused, ImportSummary, library_import
from documents.services.ingest import document_ingest

_NAMES_SHOWN = 20


class Command(BaseCommand):
    help = (
        "Restore a library export into an empty library (or add it to this one with --merge). The whole export "
        "is verified before anything is written, and written in one transaction."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("directory", help="A directory written by library_export.")
        parser.add_argument(
            "--merge",
            action="store_true",
            help="Add to a non-empty library; documents whose bytes are already in the same folder are skipped.",
        )
        parser.add_argument(
            "--inline",
            action="store_true",
            help="Index documents that need it (no index in the export, another embedding model) here, "
            "instead of queueing them for the workers.",
        )
        parser.add_argument(
            "--restore-privileges",
            action="store_true",
            help="Trust the export: give the accounts it creates their staff and superuser flags and group "
            "memberships as exported. Without it they get none, and the summary lists what was left out "
            "(the export's checksums are no signature: whoever can edit it can recompute them).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        show = options["verbosity"] > 0
        try:
            summary = library_import(
                Path(options["directory"]),
                merge=options["merge"],
                enqueue=not options["inline"],
                show_progress=show,
                restore_privileges=options["restore_privileges"],
            )
        except (ExportDamaged, ImportRefused) as exc:
            raise CommandError(f"{exc} Nothing was imported.") from exc
        self._report(summary)
        if options["inline"] and summary.queued_ids:
            for document_id in tqdm(summary.queued_ids, desc="indexing", unit="doc", disable=not show):
                document_ingest(document_id)
            self.stdout.write(self.style.SUCCESS(f"indexed {len(summary.queued_ids)} document(s) here"))
        if not options["restore_privileges"]:
            self.stdout.write(ADMINISTRATOR_HINT)

    def _report(self, summary: ImportSummary) -> None:
        accounts = summary.accounts
        self.stdout.write(
            self.style.SUCCESS(
                f"imported {summary.documents_created} documents with {summary.chunks_restored} chunks, "
                f"{summary.ocr_pages_restored} OCR pages and {summary.chunk_contexts_restored} cached chunk contexts; "
                f"folders: {accounts.folders_created} created, {accounts.folders_reused} already there; "
                f"{accounts.groups_created} groups and {len(accounts.users_created)} accounts created"
            )
        )
        if summary.tables_restored:
            restored = ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in summary.tables_restored.items())
            self.stdout.write(f"restored {restored} (rows)")
        if summary.documents_skipped:
            self.stdout.write(f"skipped {summary.documents_skipped} documents already in their folder (--merge)")
        if summary.queued_ids:
            self.stdout.write(
                f"{len(summary.queued_ids)} documents need indexing (no index in the export, another embedding "
                "model, or unfinished when exported): queued for the workers (`make run`) unless --inline"
            )
        if summary.enqueue_error:
            self.stdout.write(
                self.style.WARNING(
                    f"the broker did not take them ({summary.enqueue_error}); they stay queued: the reconcile task "
                    "re-queues them once workers run, or run `python manage.py reindex ID ...` here"
                )
            )
        if accounts.users_created:
            names = ", ".join(accounts.users_created[:_NAMES_SHOWN])
            more = (
                f" and {len(accounts.users_created) - _NAMES_SHOWN} more"
                if len(accounts.users_created) > _NAMES_SHOWN
                else ""
            )
            self.stdout.write(
                self.style.WARNING(
                    f"accounts created without a password: {names}{more}. Each gets one with "
                    "`python manage.py changepassword NAME` (or a staff member sets it in the admin); "
                    "API tokens are not in exports: create new ones with `python manage.py create_token NAME`."
                )
            )
        if summary.privileges_skipped:
            self.stdout.write(self.style.WARNING(privileges_skipped_line(summary.privileges_skipped)))


# Without --restore-privileges no restored account is staff: the last word says how to get one.
ADMINISTRATOR_HINT = (
    "No restored account is staff or superuser (--restore-privileges was not given). Create an "
    "administrator with `python manage.py createsuperuser`, or grant an account staff rights in the admin."
)


def privileges_skipped_line(skipped: dict[str, list[str]]) -> str:
    """Every privilege left out, account by account: staff grant them in the admin if they are meant."""
    accounts = "; ".join(f"{name}: {', '.join(privileges)}" for name, privileges in skipped.items())
    return f"Not restored (pass --restore-privileges for a trusted export): {accounts}"
