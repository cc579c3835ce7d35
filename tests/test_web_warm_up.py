"""A web worker loads the models a question uses when it starts (ragsite/wsgi.py, citations/warm.py),
so its first question costs what the others do; a management command loads none of them.

Each case runs in a fresh Python process, as gunicorn's worker and `manage.py` are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import test_database_url as database_url_of_this_run

ROOT = Path(__file__).resolve().parent.parent

# After the entry point named on the command line: which models are loaded, and how long the
# first and second question vectors take (the encoder's own work, outside the query cache).
PROBE = """
import json, sys, time
{entry}
from documents import embedding
from search.services.bm25_packed import _kernel
loaded = {{
    "encoder": embedding._load_model.cache_info().currsize,
    "bm25 kernel": _kernel.cache_info().currsize,
    "torch": "torch" in sys.modules,
}}
if {ask}:
    times = []
    for question in ("How are keys placed on the ring?", "Why do reads avoid disk seeks?"):
        started = time.perf_counter()
        embedding.embed_texts([question])
        times.append(time.perf_counter() - started)
    loaded["first"], loaded["second"] = times
print("PROBE" + json.dumps(loaded))
"""

WEB = "import ragsite.wsgi"
COMMAND = "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'ragsite.settings'); django.setup()"


def probe(entry: str, *, ask: bool, **env: str) -> dict[str, float]:
    environment = os.environ | {
        "DATABASE_URL": database_url_of_this_run(),
        "DJANGO_SETTINGS_MODULE": "ragsite.settings",
    }
    environment |= env
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(entry=entry, ask=ask)],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("PROBE"))
    return dict(json.loads(line.removeprefix("PROBE")))


@pytest.mark.django_db
@pytest.mark.slow
def test_a_web_worker_starts_with_the_models_loaded() -> None:
    found = probe(WEB, ask=True)
    assert found["encoder"] == 1, found
    assert found["bm25 kernel"] == 1, found
    assert found["torch"], found
    # Loaded and run at start: the first question's vector is no model load (seconds) but a
    # run like any other (milliseconds). A generous bound, for a busy machine.
    assert found["first"] < 1.0, found
    assert found["first"] < 10 * found["second"] + 0.2, found


@pytest.mark.django_db
def test_a_management_command_loads_no_model() -> None:
    found = probe(COMMAND, ask=False)
    assert found == {"encoder": 0, "bm25 kernel": 0, "torch": False}, found


@pytest.mark.django_db
def test_web_warm_up_can_be_turned_off() -> None:
    found = probe(WEB, ask=False, WEB_WARM_UP="false")
    assert found == {"encoder": 0, "bm25 kernel": 0, "torch": False}, found
