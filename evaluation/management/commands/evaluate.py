"""`manage.py evaluate`: recall, MRR, destroyed answers and the gate sweep, per chunking strategy.

    python manage.py evaluate --corpus ../shared/corpus/dev --questions ../shared/corpus/dev-questions.jsonl \
        --ood eval/dev-ood.jsonl --strategies A,B,C,D,E,F --json out.json --markdown out.md --plot out.png

Each strategy is indexed in its own temporary folder (removed afterwards, also on Ctrl-C or
SIGTERM); the queries go through the same `retrieve` as /api/search. See docs/EVALUATION.md.
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
from argparse import ArgumentParser
from pathlib import Path
from types import FrameType
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from documents.services.contexts import ContextWriterMisconfigured, context_writer_enabled
from evaluation.chunkers import STRATEGIES
from evaluation.contexts import ContextBook, ContextsFileError, with_contextual
from evaluation.dataset import DatasetError, load_ood, load_questions
from evaluation.index import remove_leftovers
from evaluation.report import build_payload, plot_sweep, render_markdown
from evaluation.runner import run_evaluation


def parse_strategies(raw: str) -> list[str]:
    chosen = [s.strip().upper() for s in raw.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in STRATEGIES]
    if unknown or not chosen:
        raise CommandError(f"unknown strategies {unknown or raw!r}; choose from {','.join(STRATEGIES)}")
    return list(dict.fromkeys(chosen))


def _terminate(signum: int, frame: FrameType | None) -> None:
    # SIGTERM (kill, a CI timeout) unwinds like Ctrl-C, so `finally` removes the eval folder.
    raise KeyboardInterrupt(f"signal {signum}")


class Command(BaseCommand):
    help = "Evaluate retrieval per chunking strategy on a corpus and question set (R@k, MRR, gate sweep)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--corpus", nargs="+", required=True, type=Path, help="Corpus folders (or files).")
        parser.add_argument("--questions", required=True, type=Path, help="JSONL: id, needle, queries, kind.")
        parser.add_argument("--ood", type=Path, help="JSONL of out-of-domain queries: id, query, kind.")
        parser.add_argument("--nearmiss", type=Path, help="JSONL of near-miss queries: id, query, kind.")
        parser.add_argument("--strategies", default=",".join(STRATEGIES), help="Comma-separated, e.g. A,C,E.")
        parser.add_argument("--json", type=Path, help="Write the JSON results here.")
        parser.add_argument("--markdown", type=Path, help="Write the Markdown report here.")
        parser.add_argument("--plot", type=Path, help="Write the gate-sweep plot (PNG) here.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")
        parser.add_argument(
            "--contexts",
            type=Path,
            help="JSONL of chunk contexts (chunk_sha256, context); adds an S+ctx run per strategy.",
        )
        parser.add_argument(
            "--write-contexts",
            type=Path,
            help="Save the chunk contexts of the S+ctx runs here (written by CONTEXT_WRITER).",
        )
        parser.add_argument("--remove-leftovers", action="store_true",
                            help="First delete eval folders left by runs that were killed outright.")  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        strategies = parse_strategies(options["strategies"])
        for directory in options["corpus"]:
            if not directory.exists():
                raise CommandError(f"{directory} does not exist")
        try:
            questions = load_questions(options["questions"])
            ood = load_ood(options["ood"]) if options["ood"] else None
            nearmiss = load_ood(options["nearmiss"]) if options["nearmiss"] else None
        except DatasetError as exc:
            raise CommandError(str(exc)) from exc
        book = self._context_book(options)
        if book is not None:
            strategies = with_contextual(strategies)
        if options["remove_leftovers"]:
            self.stdout.write(f"removed {remove_leftovers()} leftover eval folder(s)")
        previous = signal.signal(signal.SIGTERM, _terminate)
        try:
            evaluation = run_evaluation(
                corpus_dirs=options["corpus"],
                questions=questions,
                strategies=strategies,
                ood=ood,
                nearmiss=nearmiss,
                progress=not options["no_progress"],
                contexts=book,
            )
        except KeyboardInterrupt as exc:
            raise CommandError("interrupted; the eval folders of this run were removed") from exc
        finally:
            signal.signal(signal.SIGTERM, previous)
        if not evaluation.corpus.files:
            raise CommandError("no file of the corpus could be extracted")
        payload = build_payload(evaluation)
        if book is not None:
            payload["contexts"] = book.summary()
            if options["write_contexts"]:
                saved = book.save(options["write_contexts"])
                self.stdout.write(f"saved {saved} chunk contexts to {options['write_contexts']}")
        self._write(payload, options)
        self._summary(payload)

    def _context_book(self, options: dict[str, Any]) -> ContextBook | None:
        if not options["contexts"] and not options["write_contexts"]:
            return None
        try:
            if options["write_contexts"] and not options["contexts"] and not context_writer_enabled():
                raise CommandError("--write-contexts needs CONTEXT_WRITER=openai (or --contexts FILE to copy from)")
            return ContextBook.from_settings(options["contexts"])
        except (ContextsFileError, ContextWriterMisconfigured) as exc:
            raise CommandError(str(exc)) from exc

    def _write(self, payload: dict[str, Any], options: dict[str, Any]) -> None:
        if options["json"]:
            options["json"].parent.mkdir(parents=True, exist_ok=True)
            options["json"].write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
        if options["markdown"]:
            options["markdown"].parent.mkdir(parents=True, exist_ok=True)
            # The exact command line, when run from a shell (not from call_command in tests).
            command = "python manage.py " + shlex.join(sys.argv[1:]) if sys.argv[1:2] == ["evaluate"] else ""
            options["markdown"].write_text(render_markdown(payload, command))
        if options["plot"]:
            options["plot"].parent.mkdir(parents=True, exist_ok=True)
            plot_sweep(payload, options["plot"])

    def _summary(self, payload: dict[str, Any]) -> None:
        for name, s in payload["strategies"].items():
            h = s["legs"]["hybrid"]
            self.stdout.write(
                f"{name}: {s['chunks']} chunks, destroyed {s['destroyed']}, over window {s['over_window']}; "
                f"hybrid R@1 {h['R@1']:.3f} R@4 {h['R@4']:.3f} R@20 {h['R@20']:.3f} MRR {h['MRR']:.3f}; "
                f"gate {s['gate']['recommended']}; states {s['gate']['states']}; "
                f"index {s['timing_s']['index']} s, queries {s['timing_s']['queries']} s"
            )
            for set_name, states in s["answers"]["per_state"].items():
                said = [
                    f"{state} {c['n']}: fact shown {c['fact_shown']}, stated {c['fact_stated']} "
                    f"({c['stated_where_shown']} where shown), non-prose {c['non_prose']}"
                    for state, c in states.items()
                    if c["n"]
                ]
                self.stdout.write(f"  answers {set_name}: " + "; ".join(said))
        self.stdout.write(f"total {payload['timing_s']['total']} s")
