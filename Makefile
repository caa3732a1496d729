# TFRobot task runner. `make help` lists the targets.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# One venv, two installs: `run` needs only the server extra; test, lint, typecheck and bench need dev + bench
# (the peers' SDKs of bench/ make that venv several times larger). dev includes server, so the dev install
# also stands for the server one and either order works from a fresh clone.
PYPROJECT_SUM := $(shell cat pyproject.toml | cksum | cut -d' ' -f1)
STAMP     := $(VENV)/.installed-dev-$(PYPROJECT_SUM)
RUN_STAMP := $(VENV)/.installed-server-$(PYPROJECT_SUM)

.DEFAULT_GOAL := help
NPM    ?= npm
CHROMIUM := /usr/bin/chromium
WEB_DEPS := web/node_modules/.ci-$(shell cat web/package-lock.json | cksum | cut -d' ' -f1)
WEB_SRC  := $(shell find web/src web/index.html web/vite.config.ts web/tsconfig.json -type f 2>/dev/null)
CONSOLE  := src/tfrobotserver/static/index.html

.PHONY: help venv run test lint typecheck pytest bench soak clean web webcheck chromium screenshots

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	@rm -f $(VENV)/.installed-* && touch $@ $(RUN_STAMP)

$(RUN_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[server]'
	@rm -f $(VENV)/.installed-server-* && touch $@

venv: $(STAMP) ## Create .venv and install the project with its dev and bench extras (tests, lint, bench)

$(WEB_DEPS): web/package-lock.json
	cd web && $(NPM) ci --no-audit --no-fund
	@rm -f web/node_modules/.ci-* && touch $@

$(CONSOLE): $(WEB_DEPS) $(WEB_SRC)
	cd web && $(NPM) run build

web: $(CONSOLE) ## Build the web console into src/tfrobotserver/static/ (npm ci + vite build)

webcheck: $(WEB_DEPS) ## Console: tsc --noEmit, then vitest (resolver + conformance vectors)
	cd web && $(NPM) run typecheck
	cd web && $(NPM) test

# Chromium plus a small CJK font, so that the seed's Chinese warnings are legible in screenshots.
$(CHROMIUM):
	@if [ "$$(id -u)" != "0" ]; then echo "Debian's chromium is needed for tests/e2e: apt-get install chromium (as root)"; exit 1; fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-wqy-microhei

chromium: $(CHROMIUM) ## Install Debian's Chromium for the browser tests (root; skipped if present)

RUN_ARGS ?=

run: $(RUN_STAMP) $(CONSOLE) ## Start TFRobotServer with the demo robot, server extra only (prints the URL; RUN_ARGS="--port 8100")
	$(BIN)/tfrobot serve $(RUN_ARGS)

lint: $(STAMP) ## ruff check + format check + the layer contracts (lint-imports, [tool.importlinter])
	$(BIN)/ruff check src tests $(wildcard bench)
	$(BIN)/ruff format --check src tests $(wildcard bench)
	$(BIN)/lint-imports

typecheck: $(STAMP) ## mypy --strict on src/
	$(BIN)/mypy --strict src

# Two xdist workers, one per core: a test file stays on one worker (its module-scoped servers start once),
# tests/e2e and tests/security each whole on one (their session servers); tests/conftest.py groups them.
# PYTEST_WORKERS=0 runs in this process. Coverage (docs/contracts.md): `make pytest COV=` runs without it.
PYTEST_WORKERS ?= 2
COV ?= --cov=tfrobot --cov=tfrobotserver --cov-branch

# The event-loop latency suite runs after, alone on the machine: its p99 bounds measure the server's loop,
# not the other worker's load (0.267 s seen against 0.25 s beside it); its coverage is appended.
LATENCY := tests/security/test_event_loop.py

pytest: $(STAMP) $(CONSOLE) ## The test suite on 2 workers, with line and branch coverage and its floor (e2e needs Chromium)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadfile $(COV) --ignore=$(LATENCY) --cov-fail-under=0
	$(BIN)/pytest -q $(LATENCY) $(COV) $(if $(COV),--cov-append)

test: lint typecheck webcheck web chromium pytest ## Everything CI runs (Python and console, e2e in Chromium)

screenshots: $(STAMP) $(CONSOLE) $(CHROMIUM) ## Re-take the docs' screenshots (docs/screenshots/)
	TFROBOT_SCREENSHOTS=docs/screenshots $(BIN)/pytest -q tests/e2e

soak: $(STAMP) $(CONSOLE) $(CHROMIUM) ## Long reliability and attacker runs (loopback only, ~7 min), then 200 clients x 60 s x 3
	RELIABILITY_SOAK=1 $(BIN)/pytest -q -s tests/reliability tests/security
	$(BIN)/python -m tests.reliability.load --clients 200 --seconds 60 --runs 3 --procs 2

# The headline (fair ceiling, agent loop) first, then every other bench/*.py; `tests/bench` runs each in smoke mode.
BENCH_FIRST := bench/fair_ceiling.py bench/agent_loop.py
BENCH_ALL   := $(BENCH_FIRST) $(filter-out $(BENCH_FIRST),$(sort $(wildcard bench/*.py)))

bench: $(STAMP) ## Benchmarks against the fair ceiling and the peers (prints ratios, machine, load): every bench/*.py
	@for script in $(BENCH_ALL); do \
		echo "== $$script (load average $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"; \
		$(BIN)/python "$$script" || exit 1; \
	done

clean: ## Remove the venv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis web/node_modules src/tfrobotserver/static build
