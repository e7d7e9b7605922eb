# Every target bootstraps .venv from pyproject.toml (re-installing when pyproject.toml changes),
# so a fresh machine needs only Python 3.11+ and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXTRAS ?= test,bench,dask

.PHONY: run test lint bench fuzz robustness clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "neardup needs Python 3.11 or newer; set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/neardup-gui $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check $(wildcard neardup_core app tests benchmarks)
	$(BIN)/lint-imports

test: $(STAMP) lint
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[fuzz]"
	$(BIN)/python -m benchmarks.fuzz $(FUZZ_ARGS)

robustness: $(STAMP)
	$(BIN)/python -m benchmarks.robustness $(ROBUST_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
