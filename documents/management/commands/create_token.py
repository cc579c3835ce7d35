"""`manage.py create_token USERNAME [--name NAME]`: prints a new API token once."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from documents.names import InvalidName
from documents.services.tokens import token_create


class Command(BaseCommand):
    help = "Create an API token for a user and print it (it is stored hashed and cannot be shown again)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="", help="What the token is for.")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"No user named {options['username']!r}.")
        try:
            _, raw = token_create(user=user, name=options["name"])
        except InvalidName as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(raw)
