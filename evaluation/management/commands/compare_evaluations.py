"""`manage.py compare_evaluations BEFORE.json AFTER.json --pair E/hybrid [--pair ...]`.

Prints, per pair, R@1/R@4/R@20 and MRR before and after with the exact sign test of the
discordant queries (wins: answered after but not before). A pair "E/hybrid" compares the same
strategy and leg in both files; "E/hybrid=F/hybrid" compares E before with F after.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.runs import RunFileError, compare, load_run, ranks_of, state_changes, states_of


class Command(BaseCommand):
    help = "Pair two `evaluate --json` runs query by query: before/after metrics and sign tests."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("before", type=Path)
        parser.add_argument("after", type=Path)
        parser.add_argument("--pair", action="append", default=[], help="e.g. E/hybrid or E/hybrid=F/hybrid")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            before, after = load_run(options["before"]), load_run(options["after"])
            lines = ["| pair | metric | before | after | wins | losses | p |", "|---|---|---|---|---|---|---|"]
            for pair in options["pair"] or ["E/hybrid"]:
                old_label, _, new_label = pair.partition("=")
                old = ranks_of(before, old_label, options["before"])
                new = ranks_of(after, new_label or old_label, options["after"])
                for row in compare(old, new):
                    cells = [pair, *(("–" if v is None else str(v)) for v in row.values())]
                    lines.append("| " + " | ".join(cells) + " |")
                lines += _state_lines(pair, before, after)
        except RunFileError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("\n".join(lines))


def _state_lines(pair: str, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The gate's verdicts paired query by query (runs that recorded them only)."""
    old_label, _, new_label = pair.partition("=")
    old, new = states_of(before, old_label.split("/")[0]), states_of(after, (new_label or old_label).split("/")[0])
    rows = state_changes(old, new)
    if not rows:
        return []
    lines = ["", f"Answer states, paired per query ({pair}): answered / caveat / refused", "",
             "| set | n | before | after | moves | unpaired |", "|---|---|---|---|---|---|"]  # fmt: skip
    for row in rows:
        moves = ", ".join(f"{move}: {count}" for move, count in row["moves"].items()) or "none"
        counts = [" / ".join(map(str, row[k])) for k in ("before", "after")]
        lines.append(f"| {row['set']} | {row['n']} | {counts[0]} | {counts[1]} | {moves} | {row['unpaired']} |")
    return lines
