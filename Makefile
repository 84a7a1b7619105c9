# Two entry points: `make run` (dashboard) and `make test` (whole suite).
# Both create .venv on first use and reinstall only when requirements change.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
# the embedded default serves one person, on this machine: anyone else must sign in (docs/deploy.md, "Sign-in and roles")
ADDRESS ?= 127.0.0.1

.PHONY: run test bench assets clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.run-deps: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.test-deps: requirements.txt requirements-test.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	touch $@ $(VENV)/.run-deps

run: $(VENV)/.run-deps
	$(BIN)/streamlit run app.py --server.headless true --server.address $(ADDRESS) --server.port $(PORT) --browser.gatherUsageStats false

test: $(VENV)/.test-deps
	$(BIN)/python -m pytest

bench: $(VENV)/.test-deps
	for b in bench/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
