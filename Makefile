# The two commands for a newcomer: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT VENV

.PHONY: run test lint typecheck migrations-check schema pytest superuser bench clean

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Python 3.11 or newer is needed (set PYTHON=python3.x)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@ $(VENV)/.runtime

run: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	@./scripts/run-dev.sh

test: $(VENV)/.dev lint typecheck migrations-check schema pytest

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.dev
	$(VENV)/bin/mypy .

migrations-check: $(VENV)/.dev
	$(PY) manage.py makemigrations --check --dry-run --settings=config.settings.test

schema: $(VENV)/.dev
	@mkdir -p var
	$(PY) manage.py spectacular --validate --fail-on-warn --file var/openapi.yaml \
		--settings=config.settings.test

pytest: $(VENV)/.dev
	$(VENV)/bin/pytest

superuser: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	$(PY) manage.py createsuperuser

bench: $(VENV)/.dev
	$(PY) bench/health.py
	@if [ -n "$$DATABASE_URL" ]; then $(PY) bench/notifications.py; \
	else echo "bench/notifications.py needs DATABASE_URL (PostgreSQL); skipped"; fi

clean:
	rm -rf $(VENV) var staticfiles .mypy_cache .ruff_cache .pytest_cache
