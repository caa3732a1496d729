# TFRobot task runner. `make help` lists the targets.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.DEFAULT_GOAL := help
.PHONY: help venv run test lint typecheck pytest bench clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	@rm -f $(VENV)/.installed-* && touch $@

venv: $(STAMP) ## Create .venv and install the project with its dev extras

run: $(STAMP) ## Start TFRobot (today: the message-system demo)
	$(BIN)/tfrobot

lint: $(STAMP) ## ruff check + format check
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP) ## mypy --strict on src/
	$(BIN)/mypy --strict src

pytest: $(STAMP) ## The test suite only
	$(BIN)/pytest -q

test: lint typecheck pytest ## Everything CI runs

bench: $(STAMP) ## Benchmarks: runs every bench/*.py (needs PostgreSQL for bench/memory.py)
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean: ## Remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
