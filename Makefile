# Two commands matter: `make serve` (build and serve the site) and `make test` (every test).
# Both install what they need first.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

AXE := tests/browser/axe/node_modules/axe-core/axe.min.js

.PHONY: install browser axe serve build validate check-links check-links-external bench-links test lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed; set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

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

# Internal links and #anchors of the built site (run `make build` first).
check-links: install
	$(BIN)/mlsys-kb check-links $(if $(GITHUB_ACTIONS),--format github,)

# External URLs of the catalogs, with a cache in .cache/; reports for an issue go to
# test-artifacts/links/. Exit status 1: broken links; 3: the network is unreachable (make
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
