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

.PHONY: run test lint setup bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

$(LNBITS_STAMP): $(LNBITS_PINS) $(LNBITS_LOCK)
	test -x $(LNBITS_VENV)/bin/python || $(PY) -m venv $(LNBITS_VENV)
	$(LNBITS_VENV)/bin/python -m pip install -q -r $(LNBITS_PINS)
	touch $(LNBITS_STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/marketintel up

test: $(STAMP) $(LNBITS_STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python bench/serve.py
	$(BIN)/python bench/foresight.py
	$(BIN)/python bench/events.py

clean:
	rm -rf $(VENV) $(LNBITS_VENV) var .pytest_cache
