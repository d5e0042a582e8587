# The two commands for a newcomer: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT VENV

.PHONY: run sandbox dev test lint typecheck imports migrations-check schema audit pytest superuser \
	bench lock test-upgraded smoke clean

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Python 3.11 or newer is needed (set PYTHON=python3.x)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The locks carry a hash for every file, so pip installs exactly what was locked, or nothing.
$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --require-hashes -r requirements.txt
	@touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.txt
	@touch $@ $(VENV)/.runtime

# The production server (config.serve: uvicorn, as in the image) with a worker and beat.
# SANDBOX=1: the same, pointed at every network's stand-in (`make sandbox`).
run: $(VENV)/.runtime $(if $(SANDBOX),$(VENV)/.dev)
	$(PY) manage.py migrate --noinput
	@$(if $(SANDBOX),$(PY) scripts/sandbox.py,./scripts/run.sh serve)

# `make run` against the networks' stand-ins on fixed ports (SANDBOX_PORT=8900 on): the stand-ins
# live with the tests, so this takes the dev virtualenv (README, "Quick start with the sandbox").
sandbox:
	@$(MAKE) --no-print-directory run SANDBOX=1

# The same application under uvicorn with auto-reload (the live feed's stream needs ASGI).
dev: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	@./scripts/run.sh dev

# Regenerate the locks from pyproject.toml after changing a dependency there.
lock: $(VENV)/.dev
	$(VENV)/bin/uv pip compile pyproject.toml --quiet --generate-hashes --no-header \
		--python-version 3.11 -o requirements.txt
	$(VENV)/bin/uv pip compile pyproject.toml --quiet --extra dev --generate-hashes --no-header \
		--python-version 3.11 -c requirements.txt -o requirements-dev.txt

# Before a re-lock: the newest versions pyproject.toml allows, resolved into var/upgraded (not
# the tracked locks) and installed into a virtualenv of their own there, run the test suite
# (both stages, as `make pytest`; PYTEST_ARGS narrows it). Green: `make lock` may take them.
UPGRADED := var/upgraded
test-upgraded: $(VENV)/.dev
	@mkdir -p $(UPGRADED)
	$(VENV)/bin/uv pip compile pyproject.toml --quiet --extra dev --upgrade --no-header \
		--python-version 3.11 -o $(UPGRADED)/requirements-dev.txt
	@test -x $(UPGRADED)/venv/bin/python || $(PYTHON) -m venv $(UPGRADED)/venv
	$(VENV)/bin/uv pip install --quiet --python $(UPGRADED)/venv/bin/python \
		-r $(UPGRADED)/requirements-dev.txt
	@grep -o '^[a-z0-9._-]*==[^ ]*' requirements-dev.txt | sort > $(UPGRADED)/locked.txt
	@grep -o '^[a-z0-9._-]*==[^ ]*' $(UPGRADED)/requirements-dev.txt | sort > $(UPGRADED)/newest.txt
	@echo "== versions newer than the lock:"; \
		comm -13 $(UPGRADED)/locked.txt $(UPGRADED)/newest.txt | sed 's/^/  /' | grep . \
		|| echo "  none"
	@status=0; \
	echo "== pytest -m 'not server' (upgraded)"; \
	$(UPGRADED)/venv/bin/pytest -m "not server" $(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	echo "== pytest -m server (upgraded)"; \
	$(UPGRADED)/venv/bin/pytest -m server $(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	exit $$status

test: $(VENV)/.dev lint typecheck imports migrations-check schema audit pytest

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.dev
	$(VENV)/bin/mypy .

# The apps' import directions (pyproject.toml, [tool.importlinter]).
imports: $(VENV)/.dev
	$(VENV)/bin/lint-imports

migrations-check: $(VENV)/.dev
	$(PY) manage.py makemigrations --check --dry-run --settings=config.settings.test

schema: $(VENV)/.dev
	@mkdir -p var
	$(PY) manage.py spectacular --validate --fail-on-warn --file var/openapi.yaml \
		--settings=config.settings.test

# Two stages, each ending with pytest's summary line: the tests that stay in their process (on
# PYTEST_WORKERS pytest-xdist workers, `auto` one a core; 0 runs them in pytest's own), then
# the slow ones that start other processes (marked `server`: the real server, workers,
# manage.py), each failed after SERVER_TEST_TIMEOUT seconds (a hung server must not hang the
# run). Both always run; the target fails if either did. Exit code 5 (nothing collected,
# e.g. a stage left empty) is no failure. The coverage of the code the two stages ran in their
# own processes (not in the servers they start) is reported after the second.
SERVER_TEST_TIMEOUT ?= 600
PYTEST_WORKERS ?= auto
pytest: $(VENV)/.dev
	@status=0; \
	echo "== pytest -m 'not server' (on $(PYTEST_WORKERS) workers)"; \
	$(VENV)/bin/pytest -m "not server" -n $(PYTEST_WORKERS) --cov --cov-report= \
		|| [ $$? -eq 5 ] || status=1; \
	echo "== pytest -m server"; \
	$(VENV)/bin/pytest -m server --timeout=$(SERVER_TEST_TIMEOUT) --cov --cov-append \
		--cov-report=term || [ $$? -eq 5 ] || status=1; \
	exit $$status

# An admin login: asks in a terminal; without one, reads DJANGO_SUPERUSER_EMAIL and
# DJANGO_SUPERUSER_PASSWORD (and says so when they are missing).
superuser: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	@if [ -n "$$DJANGO_SUPERUSER_EMAIL" ] && [ -n "$$DJANGO_SUPERUSER_PASSWORD" ]; then \
		$(PY) manage.py createsuperuser --noinput; \
	elif [ -t 0 ]; then \
		$(PY) manage.py createsuperuser; \
	else \
		echo "No terminal to ask in: set DJANGO_SUPERUSER_EMAIL and DJANGO_SUPERUSER_PASSWORD,"; \
		echo "e.g. DJANGO_SUPERUSER_EMAIL=ops@example.com DJANGO_SUPERUSER_PASSWORD=... make superuser"; \
		exit 1; \
	fi

# Known vulnerabilities in the runtime lock; "not audited" (not a failure) when offline.
audit: $(VENV)/.dev
	$(PY) scripts/audit.py

# The runtime lock alone, in a fresh virtualenv, against real PostgreSQL and Redis (CI).
smoke:
	./scripts/smoke.sh

# Every bench, through one harness (bench/harness.py); one alone: `python -m bench.<name>`
# (`--help` for its sizes), some: `make bench BENCHES="health notifications"`. Those that need
# PostgreSQL (DATABASE_URL) or Redis (REDIS_URL) say they are skipped without; a failed bench
# stops the rest, a missed latency target does not.
BENCHES ?= health scrape transport notifications social scheduler webhooks livefeed queue video
bench: $(VENV)/.dev
	@for name in $(BENCHES); do \
		echo "== python -m bench.$$name"; \
		$(PY) -m bench.$$name || exit 1; \
	done

clean:
	rm -rf $(VENV) var staticfiles .mypy_cache .ruff_cache .pytest_cache

# `make help` (and plain `make`): one line per target. Keep it in step with the targets above
# (tests/test_repo_habits.py fails on a target missing here).
.DEFAULT_GOAL := help
.PHONY: help
help:
	@echo "make run               serve http://$(HOST):$(PORT) (production server, worker, beat); installs, migrates first"
	@echo "make dev               the same, the server reloading on every code change"
	@echo "make sandbox           make run against every network's stand-in (SANDBOX_PORT=8900 on); README"
	@echo "make test              every check: lint, typecheck, imports, migrations-check, schema, audit, pytest"
	@echo "make lint              ruff check and ruff format --check"
	@echo "make typecheck         mypy"
	@echo "make imports           the apps' import contracts (lint-imports)"
	@echo "make migrations-check  fails when a model change has no migration"
	@echo "make schema            validates the OpenAPI schema (var/openapi.yaml)"
	@echo "make audit             known vulnerabilities in the runtime lock"
	@echo "make pytest            the tests, in-process ones first, then those that start servers"
	@echo "make superuser         an admin login (asks, or reads DJANGO_SUPERUSER_EMAIL and _PASSWORD)"
	@echo "make bench             the benchmarks (BENCHES=\"health queue\" for some; docs/performance.md)"
	@echo "make lock              regenerates requirements*.txt from pyproject.toml"
	@echo "make test-upgraded     the suite against the newest versions pyproject.toml allows (before a re-lock)"
	@echo "make smoke             the runtime lock alone, production settings, real servers (CI)"
	@echo "make clean             removes .venv, var/ and the caches"
	@echo "make help              this list"
	@echo "Variables: PYTHON=python3.x, HOST, PORT, SANDBOX_PORT; DATABASE_URL, REDIS_URL and the rest: .env.example"
