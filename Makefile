# `make run` and `make test` are all a new machine needs: each builds .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# A real LNbits for tests/marketintel/lightning/test_lnbits_real.py, in a virtualenv of its own: its pins
# clash with ours. Rebuilt when its pins change; CI fails its tests, rather than skipping them, without it.
LNBITS_VENV := .venv-lnbits
LNBITS_PINS := tests/marketintel/lightning/lnbits-requirements.txt
LNBITS_LOCK := tests/marketintel/lightning/lnbits-constraints.txt
LNBITS_STAMP := $(LNBITS_VENV)/.installed

# Test workers (pytest-xdist; tests/parallel.py says how the work is split). On this 2-core machine the suite is
# CPU-bound: before the CPU cuts of 2026-11-28, 2 workers took 656 s, 3 between 543 and 722 s, 4 took 603 s; after
# them, 3 workers took 449 to 529 s over nine runs.
TEST_WORKERS ?= 3

.PHONY: run test lint setup bench clean postgres browser

# uv installs the packages: the same resolution from PyPI as pip, in a fraction of the time (a clean clone's
# set-up is part of every CI run); the bytecode is compiled here, not by the first tests that import it.
UV := $(BIN)/uv pip install -q --compile-bytecode

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade uv
	$(UV) --python $(BIN)/python -e '.[test]'
	touch $(STAMP)

$(LNBITS_STAMP): $(LNBITS_PINS) $(LNBITS_LOCK) | $(STAMP)
	test -x $(LNBITS_VENV)/bin/python || $(PY) -m venv --without-pip $(LNBITS_VENV)
	$(UV) --python $(LNBITS_VENV)/bin/python -r $(LNBITS_PINS)
	touch $(LNBITS_STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/marketintel up

# The PostgreSQL server programs the tests' throwaway clusters run (tests/conftest.py `pg_url`; CI fails those
# tests without them): Debian's package, installed when they are missing and apt-get is at hand.
postgres: $(STAMP)
	@$(BIN)/python -c "from marketintel.postgres_cluster import unavailable_reason as r; exit(bool(r()))" || \
	  { command -v apt-get >/dev/null && apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } || \
	  echo "PostgreSQL's server programs are missing: install them to run the PostgreSQL tests"

# Debian's Chromium for the console's browser tests (tests/e2e/test_console_browser.py; CI fails them without it),
# installed when it is missing and apt-get is at hand.
browser:
	@command -v chromium >/dev/null || \
	  { command -v apt-get >/dev/null && apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "Chromium is missing: install Debian's chromium package to run the console's browser tests"

# The suite starts a few hundred Python processes (gunicorn workers, RQ workers, Dagster runs, the CLI). Where
# PYTHONDONTWRITEBYTECODE is set (this machine sets it), each compiled the project's ~300 modules from source
# again (an API worker's import: 2.5 s of CPU, 2.1 s from bytecode) and pytest rewrote every test module in each
# worker. The suite writes bytecode (into the ignored __pycache__ folders): each module is compiled once a change.
test: $(STAMP) $(LNBITS_STAMP) postgres browser
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python bench/serve.py
	$(BIN)/python bench/foresight.py
	$(BIN)/python bench/events.py

clean:
	rm -rf $(VENV) $(LNBITS_VENV) var .pytest_cache
