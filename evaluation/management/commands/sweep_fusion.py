"""`manage.py sweep_fusion`: fusion rules scored offline on both legs' kept rankings.

    python manage.py sweep_fusion collect --corpus var/eval-corpora/debian-ref-pt-dev \
        --questions eval/debref-pt-dev-questions.jsonl --out var/eval/fusion/debref-pt-dev.json
    python manage.py sweep_fusion score var/eval/fusion/*.json

`collect` indexes the corpus once (strategy E) and keeps each phrasing's legs
(evaluation/fusion_sweep.py); `score` prints R@1, R@4, R@20 and MRR per set and rule, and each
rule's paired wins and losses against BM25 alone and the rule before evidence (`keyword-leads`,
evaluation/fusion_rules.py).
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from evaluation.dataset import DatasetError, flatten, load_questions
from evaluation.fusion_rules import RULES, sweep_table
from evaluation.fusion_sweep import collect, load, save


class Command(BaseCommand):
    help = "Keep both legs' rankings per phrasing (collect), or score fusion rules on kept rankings (score)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        gather = sub.add_parser("collect", help="Index a corpus once and keep both legs per phrasing.")
        gather.add_argument("--corpus", nargs="+", required=True, type=Path, help="Corpus folders (or files).")
        gather.add_argument("--questions", required=True, type=Path, help="JSONL: id, needle, queries, kind.")
        gather.add_argument("--out", required=True, type=Path, help="Write the kept legs (JSON) here.")
        scoring = sub.add_parser("score", help="Score every rule on kept legs, one file per set.")
        scoring.add_argument("legs", nargs="+", type=Path, help="Files written by collect.")
        scoring.add_argument("--rules", help="Comma-separated rule names (default: all).")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "collect":
            try:
                queries = flatten(load_questions(options["questions"]))
            except DatasetError as exc:
                raise CommandError(str(exc)) from exc
            save(collect(options["corpus"], queries), options["out"])
            self.stdout.write(f"kept {len(queries)} phrasings in {options['out']}")
            return
        names = [n.strip() for n in options["rules"].split(",")] if options["rules"] else list(RULES)
        unknown = [n for n in names if n not in RULES]
        if unknown:
            raise CommandError(f"unknown rules {unknown}; choose from {', '.join(RULES)}")
        sets = {path.stem: load(path) for path in options["legs"]}
        self.stdout.write(sweep_table(sets, names))
