# Every target bootstraps .venv from pyproject.toml (re-installing when pyproject.toml changes),
# so a fresh machine needs only Python 3.11+ and make. Each target installs only what it needs:
# `make run` the app's own dependencies (a first window in about a third of the time and space),
# `make test` the test, benchmark and Dask extras on top, `make bench` the benchmark extra,
# `make dist` PyInstaller. One stamp per set, so `make run` after `make test` installs nothing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
EXTRAS ?= test,bench,dask

APP_STAMP    := $(VENV)/.installed-app
TEST_STAMP   := $(VENV)/.installed-test
BENCH_STAMP  := $(VENV)/.installed-bench
FUZZ_STAMP   := $(VENV)/.installed-fuzz
DIST_STAMP   := $(VENV)/.installed-dist
comma        := ,

.PHONY: run test lint bench fuzz robustness dist clean bytecode

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "neardup needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# install(EXTRAS,STAMP): the project in editable mode with those extras (none: the app alone).
define install
	$(BIN)/python -m pip install --quiet -e ".$(if $(1),[$(1)])"
	@touch $(2)
endef

$(APP_STAMP): pyproject.toml | $(BIN)/python
	$(call install,,$@)

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(call install,$(EXTRAS),$@)

$(BENCH_STAMP): pyproject.toml | $(BIN)/python
	$(call install,bench,$@)

$(FUZZ_STAMP): pyproject.toml | $(BIN)/python
	$(call install,test$(comma)fuzz,$@)

$(DIST_STAMP): pyproject.toml | $(BIN)/python
	$(call install,dist,$@)


# Byte-code of the project's own modules, as a regular install has it: the editable install
# leaves none, and where PYTHONDONTWRITEBYTECODE is set every start (the app, the CLI, each
# scan's worker server) would compile them again (0.1-0.15 s of a cold scan's CPU). Only
# changed files are compiled; stale ones are ignored by Python anyway.
bytecode: $(APP_STAMP)
	@$(BIN)/python -m compileall -q -j 0 neardup_core app $(wildcard benchmarks) > /dev/null

run: $(APP_STAMP) bytecode
	$(BIN)/neardup-gui $(ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check $(wildcard neardup_core app tests benchmarks)
	$(BIN)/lint-imports

test: $(TEST_STAMP) bytecode lint
	QT_QPA_PLATFORM=$${QT_QPA_PLATFORM:-offscreen} $(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(BENCH_STAMP) bytecode
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

fuzz: $(FUZZ_STAMP)
	$(BIN)/python -m benchmarks.fuzz $(FUZZ_ARGS)

robustness: $(BENCH_STAMP) bytecode
	$(BIN)/python -m benchmarks.robustness $(ROBUST_ARGS)

# A one-folder desktop bundle in dist/neardup/ that starts without Python (slow: not part of
# `make test`), then started under a virtual display to check it opens its window.
dist: $(DIST_STAMP)
	$(BIN)/pyinstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller \
		packaging/neardup.spec
	packaging/check_bundle.sh dist/neardup

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
	find neardup_core app benchmarks tests -name __pycache__ -type d -prune -exec rm -rf {} +
