# Two commands matter: `make serve` (build and serve the site) and `make test` (every test).
# Both install what they need first.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

LOCK := locks/requirements.txt
# uv, which installs the lock, comes from PyPI through pip, with its hashes from the lock.
UV_LOCK := locks/uv.txt
# INSTALLER=pip installs the same lock with pip alone (slower; for a machine without uv).
INSTALLER ?= uv

AXE := tests/browser/axe/node_modules/axe-core/axe.min.js

.PHONY: install lock browser axe serve build validate check-links check-links-external bench-links test lint bench clean

install: $(STAMP)

# Exactly the versions (and files: hashes) of the lock; anything else in .venv is removed.
$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed; set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
ifeq ($(INSTALLER),pip)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
else
	@test -x $(BIN)/uv || $(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(UV_LOCK)
	$(BIN)/uv pip sync --quiet --python $(BIN)/python $(LOCK)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
endif
	@touch $(STAMP)

# Regenerate the lock from pyproject.toml (after adding or bumping a dependency): every
# distribution for every platform, with hashes, from PyPI only (no local index or wheel
# folder: the lock must install on a fresh machine). Then `make install`.
lock:
	@test -x $(BIN)/uv || { test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
		$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(UV_LOCK); }
	$(BIN)/uv pip compile pyproject.toml --extra test --extra installers --universal \
		--python-version 3.11 --generate-hashes \
		--no-config --quiet -o $(LOCK)
	$(BIN)/python scripts/lock_bootstrap.py $(LOCK) $(UV_LOCK)

# Debian's Chromium for the browser tests; installed only where we may (root on Debian/Ubuntu).
browser:
	@bash scripts/install-browser.sh

# axe-core for the accessibility tests: npm, the exact version in tests/browser/axe/package-lock.json.
axe: $(AXE)

$(AXE): tests/browser/axe/package-lock.json
	@if command -v npm >/dev/null; then \
		npm ci --prefix tests/browser/axe --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the accessibility tests will be skipped (failed under CI)"; fi

serve: install
	$(BIN)/mlsys-kb serve --dev-addr $(HOST):$(PORT)

build: install
	$(BIN)/mlsys-kb build

validate: install
	$(BIN)/mlsys-kb validate $(if $(GITHUB_ACTIONS),--format github,)

# Internal links and #anchors of the built site (run `make build` first). Exit status 1:
# broken links or anchors; 2: the check did not run, or did not run whole (its self-check
# says why), which is never a pass.
check-links: install
	$(BIN)/mlsys-kb check-links $(if $(GITHUB_ACTIONS),--format github,)

# External URLs of the catalogs, with a cache in .cache/; reports for an issue go to
# test-artifacts/links/. Exit status 1: broken links; 2: the check did not run (a catalog that
# does not load, an unreadable cache); 3: the network is unreachable (make
# itself exits 2 on any failure, so the status is also written to test-artifacts/links/status).
check-links-external: install
	@mkdir -p test-artifacts/links
	$(BIN)/mlsys-kb check-links --external \
		--report-md test-artifacts/links/external.md --report-json test-artifacts/links/external.json; \
		status=$$?; echo $$status > test-artifacts/links/status; exit $$status

# LinkChecker against linkinator (npm, installed under /tmp) on the real and a synthetic site.
bench-links: install
	$(BIN)/python scripts/bench_links.py $(BENCH_ARGS)

lint: install
	$(BIN)/ruff check src tests scripts
	$(BIN)/ruff format --check src tests scripts

test: install browser axe lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: install browser
	$(BIN)/python scripts/bench.py

clean:
	rm -rf site .pytest_cache test-artifacts
