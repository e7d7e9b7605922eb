# Every target bootstraps .venv from pyproject.toml (re-installing when pyproject.toml changes),
# so a fresh machine needs only Python 3.11+ and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXTRAS ?= test,bench,dask

.PHONY: run test lint bench fuzz robustness clean bytecode

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "neardup needs Python 3.11 or newer; set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	@touch $(STAMP)

# Byte-code of the project's own modules, as a regular install has it: the editable install
# leaves none, and where PYTHONDONTWRITEBYTECODE is set every start (the app, the CLI, each
# scan's worker server) would compile them again (0.1-0.15 s of a cold scan's CPU). Only
# changed files are compiled; stale ones are ignored by Python anyway.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q -j 0 neardup_core app benchmarks > /dev/null

run: $(STAMP) bytecode
	$(BIN)/neardup-gui $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check $(wildcard neardup_core app tests benchmarks)
	$(BIN)/lint-imports

test: $(STAMP) bytecode lint
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP) bytecode
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[fuzz]"
	$(BIN)/python -m benchmarks.fuzz $(FUZZ_ARGS)

robustness: $(STAMP) bytecode
	$(BIN)/python -m benchmarks.robustness $(ROBUST_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
	find neardup_core app benchmarks tests -name __pycache__ -type d -prune -exec rm -rf {} +
