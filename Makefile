# TFRobot task runner. `make help` lists the targets.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.DEFAULT_GOAL := help
.PHONY: help venv run test lint typecheck pytest bench soak clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	@rm -f $(VENV)/.installed-* && touch $@

venv: $(STAMP) ## Create .venv and install the project with its dev extras

run: $(STAMP) ## Start TFRobotServer with the demo robot (prints the URL; `tfrobot demo` for the message demo)
	$(BIN)/tfrobot serve

lint: $(STAMP) ## ruff check + format check
	$(BIN)/ruff check src tests $(wildcard bench)
	$(BIN)/ruff format --check src tests $(wildcard bench)

typecheck: $(STAMP) ## mypy --strict on src/
	$(BIN)/mypy --strict src

pytest: $(STAMP) ## The test suite only
	$(BIN)/pytest -q

test: lint typecheck pytest ## Everything CI runs

soak: $(STAMP) ## Long reliability runs (loopback only, ~6 min): more fuzzing and faults, then 200 clients x 60 s x 3
	RELIABILITY_SOAK=1 $(BIN)/pytest -q -s tests/reliability
	$(BIN)/python -m tests.reliability.load --clients 200 --seconds 60 --runs 3 --procs 2

bench: $(STAMP) ## Benchmarks against peers (prints ratios): every bench/*.py that exists
	@for script in bench/*.py; do \
		test -e "$$script" || continue; \
		echo "== $$script"; $(BIN)/python "$$script" || exit 1; \
	done

clean: ## Remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
