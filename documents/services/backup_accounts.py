"""Restoring who may do what: groups, accounts (without passwords) and folders with permissions.

Existing groups, accounts and (with --merge) folders of the same name are reused and never
changed: an import adds to a library, it does not alter who an existing account is or what
an existing folder lets people do.

An export's hashes catch damage, not tampering: anyone who can edit the files can recompute
them. So accounts are created without privileges (staff, superuser, group memberships: a group
reads and writes folders, here or in the export), and an imported folder names as its readers
and writers only the accounts and groups the import created, unless the caller trusts the
export (restore_privileges): an export does not make this library's existing people readers or
writers of anything. What was left out is listed, account by account, for staff to grant.
Names go through the rules the admin and uploads apply (`name_checked`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Field
from django.utils import timezone

from documents.models import Folder
from documents.services.backup_format import ExportDamaged, name_checked


def parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


@dataclass
class AccountsRestored:
    groups_created: int = 0
    group_names_created: set[str] = field(default_factory=set)
    users_created: list[str] = field(default_factory=list)
    folders_created: int = 0
    folders_reused: int = 0
    # username -> the privileges the export gives it that were not restored ("staff", "group Finance")
    privileges_skipped: dict[str, list[str]] = field(default_factory=dict)


def groups_restore(rows: Iterable[dict[str, Any]], restored: AccountsRestored) -> None:
    for row in rows:
        name = name_checked(row["name"], what="group name")
        _, created = Group.objects.get_or_create(name=name)
        restored.groups_created += created
        if created:
            restored.group_names_created.add(name)


def users_restore(rows: Iterable[dict[str, Any]], restored: AccountsRestored, *, restore_privileges: bool) -> None:
    """Create missing accounts with an unusable password (they set one with changepassword).

    Without restore_privileges they are neither staff nor superuser and join no group; the
    export's grants go to restored.privileges_skipped instead. Per-user admin permissions are
    never exported, so there are none to restore."""
    user_model = get_user_model()
    username_field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    username_rules = username_field.validators if isinstance(username_field, Field) else []
    for row in rows:
        username = name_checked(row["username"], what="username", validators=username_rules)
        for part in ("first_name", "last_name"):
            name_checked(row[part], what=part.replace("_", " "))
        if user_model.objects.filter(username=username).exists():
            continue
        groups = Group.objects.filter(name__in=row["groups"]).order_by("name")
        privileges = _privileges(bool(row["is_staff"]), bool(row["is_superuser"]), groups)
        user = user_model(
            username=username,
            email=row["email"],
            first_name=row["first_name"],
            last_name=row["last_name"],
            is_active=row["is_active"],
            is_staff=restore_privileges and bool(row["is_staff"]),
            is_superuser=restore_privileges and bool(row["is_superuser"]),
            date_joined=parse_time(row["date_joined"]) or timezone.now(),
        )
        user.set_unusable_password()
        user.save()
        if restore_privileges:
            user.groups.set(groups)
        elif privileges:
            restored.privileges_skipped[user.get_username()] = privileges
        restored.users_created.append(user.get_username())


def _privileges(is_staff: bool, is_superuser: bool, groups: Iterable[Group]) -> list[str]:
    """What an account row grants, in words: the groups are those this library has (an unknown
    name grants nothing: it is neither created nor joined)."""
    named = ["staff"] * is_staff + ["superuser"] * is_superuser
    return named + [f"group {group.name}" for group in groups]


def folders_restore(
    rows: list[dict[str, Any]], restored: AccountsRestored, *, merge: bool, restore_privileges: bool
) -> dict[int, int]:
    """Create the folders parents first; returns {export folder id: library folder id}.

    Without merge the library is empty and folders keep their exported ids."""
    mapping: dict[int, int] = {}
    pending = rows
    while pending:
        ready = [r for r in pending if r["parent"] is None or r["parent"] in mapping]
        if not ready:
            names = ", ".join(sorted(str(r["name"]) for r in pending)[:5])
            raise ExportDamaged(f"folders.jsonl: folders whose parent is not in the export: {names}.")
        for row in ready:
            parent_id = mapping.get(row["parent"])
            mapping[row["id"]] = _folder_restore(
                row, parent_id, restored, merge=merge, restore_privileges=restore_privileges
            )
        pending = [r for r in pending if r["id"] not in mapping]
    return mapping


def _folder_restore(
    row: dict[str, Any], parent_id: int | None, restored: AccountsRestored, *, merge: bool, restore_privileges: bool
) -> int:
    name = name_checked(row["name"], what="folder name")
    if merge:
        existing = Folder.objects.filter(parent_id=parent_id, name=name).first()
        if existing is not None:
            restored.folders_reused += 1
            return existing.pk
    folder = Folder.objects.create(
        pk=None if merge else row["id"], name=name, parent_id=parent_id, is_public=row["is_public"]
    )
    if row["created_at"]:
        Folder.objects.filter(pk=folder.pk).update(created_at=parse_time(row["created_at"]))
    user_model = get_user_model()
    for role in ("reader", "writer"):
        groups = _granted(row[f"{role}_groups"], restored.group_names_created, restore_privileges)
        users = _granted(row[f"{role}_users"], set(restored.users_created), restore_privileges)
        getattr(folder, f"{role}_groups").set(Group.objects.filter(name__in=groups.granted))
        getattr(folder, f"{role}_users").set(user_model.objects.filter(username__in=users.granted))
        for existing_name in Group.objects.filter(name__in=groups.withheld).values_list("name", flat=True):
            restored.privileges_skipped.setdefault(f"group {existing_name}", []).append(f"{role} of {folder.name}")
        for existing_name in user_model.objects.filter(username__in=users.withheld).values_list("username", flat=True):
            restored.privileges_skipped.setdefault(existing_name, []).append(f"{role} of {folder.name}")
    restored.folders_created += 1
    return folder.pk


@dataclass
class _Grants:
    granted: list[str]
    withheld: list[str]  # names of accounts or groups this library had before the import


def _granted(names: list[str], created: set[str], restore_privileges: bool) -> _Grants:
    """A folder's grants the import may make: all with restore_privileges, else those to the
    accounts or groups it created (it names existing ones, and grants them nothing)."""
    if restore_privileges:
        return _Grants(granted=list(names), withheld=[])
    return _Grants(granted=[n for n in names if n in created], withheld=[n for n in names if n not in created])
