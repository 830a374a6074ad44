# make install - everything the server and the test suite need (idempotent)
# make run     - start the server (embedded, no configuration)
# make test    - the whole test suite
# make lint    - ruff
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test lint

install: $(STAMP)

$(STAMP): pyproject.toml scripts/install.sh tests/clients/node/package-lock.json
	scripts/install.sh
	touch $(STAMP)

run: install
	$(PY) -m sqlext serve

test: install
	$(PY) -m ruff check .
	$(PY) -m pytest -q

lint: install
	$(PY) -m ruff check .
