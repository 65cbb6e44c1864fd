# KubeSim: `make run` serves the demo, `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# The API server over TLS (kubectl's kubeconfig points here), as kube-apiserver on :6443.
API_PORT ?= 6443

.PHONY: run run-scaled test test-fast lint format bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# collectstatic: content-hashed, gzipped copies in staticfiles/ that ServeStatic serves (kubesim/static.py).
run: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v0
	API_PORT=$(API_PORT) $(PY) manage.py serve --host 127.0.0.1 --port $(PORT) --api-port $(API_PORT)

# Scale-out: PostgreSQL + Redis, 2 Daphne processes (PORT, PORT+1; the API over TLS on
# SERVER_API_PORT, +1, default API_PORT) and 2 leader-elected control planes (README "Scale-out";
# deploy/nginx-kubesim.conf gives the browser one origin and kubectl one API address).
run-scaled: $(VENV)/.installed
	DATABASE_URL="$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/kubesim}" \
	REDIS_URL="$${REDIS_URL:-redis://127.0.0.1:6379/0}" \
	PY=$(PY) PORT=$(PORT) API_PORT=$(API_PORT) deploy/run-scaled.sh

# The tests that need nothing but this process: not those that start a KubeSim server, Chromium,
# the real kubectl or the scale-out services (the `server`, `browser`, `kubectl`, `scaleout` markers).
FAST := not browser and not kubectl and not scaleout and not server
# Two pytest-xdist workers for those (each its own test database); the rest one at a time, as their
# timings assume the machine to themselves.
WORKERS ?= 2

# pytest exits 5 when it collects no tests; make turns any non-zero exit into a failure.
test: $(VENV)/.installed-dev
	@$(PY) manage.py collectstatic --noinput -v0
	@start=$$(date +%s); \
	$(PY) -m pytest -n $(WORKERS) -m "$(FAST)"; fast=$$?; \
	$(PY) -m pytest -m "not ($(FAST))"; rest=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s"; \
	for status in $$fast $$rest; do [ $$status -ne 5 ] || echo "pytest collected no tests" >&2; done; \
	[ $$fast -eq 0 ] && [ $$rest -eq 0 ]

# The fast suite alone, for the edit-test loop; it prints how long it took.
test-fast: $(VENV)/.installed-dev
	@start=$$(date +%s); \
	$(PY) -m pytest -n $(WORKERS) -m "$(FAST)"; status=$$?; \
	echo "make test-fast: $$(( $$(date +%s) - start )) s"; exit $$status

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm staticfiles
