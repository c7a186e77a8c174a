# Every target creates .venv (and installs the workspace into it) when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGINS := $(filter-out plugins/_template,$(wildcard plugins/*))
# Distributions that are not plugins (packages/README.md): installed and checked alike.
PACKAGES := $(patsubst %/pyproject.toml,%,$(wildcard packages/*/pyproject.toml))
STAMP := $(VENV)/.installed

.PHONY: demo test test-py bench lint install clean thirdparty dist version

$(STAMP): core/pyproject.toml $(wildcard plugins/*/pyproject.toml packages/*/pyproject.toml) requirements-dev.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt -e 'core[testing]' $(addprefix -e ,$(PLUGINS) $(PACKAGES))
	touch $(STAMP)

install: $(STAMP)

# `mcpbridge demo` comes from packages/demo (the mcpbridge-demo distribution); e.g. ARGS=--yes.
demo: $(STAMP)
	$(BIN)/mcpbridge demo $(ARGS)

# The tests that share nothing timed run on $(WORKERS) workers, a file per worker; then the
# `serial` ones (they measure time, or share Redis or PostgreSQL) run alone. Both always run;
# a selection with no test of one kind is fine (pytest's exit 5). MARK selects by marker in
# both (`make test MARK="not slow"`); PYTEST_ARGS goes to both as it is.
WORKERS ?= 2
MARK ?=
test: $(STAMP) thirdparty
	@bash tests/adapters/upstream/install.sh || echo "PyPI unreachable: the tests/adapters/upstream tier will be skipped"
	status=0; \
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadfile -m "not serial$(if $(MARK), and ($(MARK)))" $(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	$(BIN)/python -m pytest -m "serial$(if $(MARK), and ($(MARK)))" $(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	exit $$status

# Real third-party MCP servers for tests/thirdparty (needs node; skipped with a note without it).
thirdparty:
	@if command -v npm >/dev/null; then bash tests/thirdparty/install.sh; \
	else echo "npm not found: the tests/thirdparty tier will be skipped"; fi

# The core, plugins and security tiers (their tests neither slow nor serial) on another Python,
# in a venv of its own: `make test-py PY=python3.13 VENV=.venv-3.13` (.ci/run does 3.12 and 3.13).
test-py: $(STAMP)
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadfile -m "not serial and not slow$(if $(MARK), and ($(MARK)))" \
		$(PYTEST_ARGS) tests/core tests/plugins tests/security

bench: $(STAMP)
	@missed=""; for b in bench/[!_]*.py; do echo "== $$b"; $(BIN)/python $$b || missed="$$missed $$b"; done; \
	if [ -n "$$missed" ]; then echo "missed a target (or failed):$$missed"; exit 1; fi

lint: $(STAMP)
	$(BIN)/ruff check core plugins packages tests bench examples
	$(BIN)/ruff format --check core plugins packages tests bench examples
	$(BIN)/mypy core/src $(addsuffix /src,$(PLUGINS) $(PACKAGES))

# The release's version lives in VERSION alone: `make version` writes it (and LICENSE) into every
# distribution, with each one's dependencies on its siblings pinned to the same series (0.1.x
# accepts 0.1.*); `make dist` does that, then builds each one's sdist and, from the sdist, its
# wheel into $(DIST). CONTRIBUTING.md says how to release.
DIST ?= dist
RELEASE := $(strip $(file < VERSION))
SERIES := $(word 1,$(subst ., ,$(RELEASE))).$(word 2,$(subst ., ,$(RELEASE)))
NEXT := $(word 1,$(subst ., ,$(RELEASE))).$(shell echo $$(($(word 2,$(subst ., ,$(RELEASE))) + 1)))
DISTRIBUTIONS := core $(PLUGINS) $(PACKAGES)
version:
	@test -n "$(RELEASE)" || { echo "VERSION is empty: write the release's version there, e.g. 0.1.0"; exit 1; }
	@for d in $(DISTRIBUTIONS) plugins/_template $(wildcard docs/examples/*); do f=$$d/pyproject.toml; \
		sed -E -e 's/^version = ".*"/version = "$(RELEASE)"/' \
			-e 's/"(mcpbridge(-[a-z]+)?(\[[a-z,]+\])?)>=[0-9.]+,<[0-9.]+"/"\1>=$(SERIES),<$(NEXT)"/g' $$f > $$f.new; \
		if cmp -s $$f $$f.new; then rm $$f.new; else mv $$f.new $$f && echo "$$f: $(RELEASE)"; fi; \
		cmp -s LICENSE $$d/LICENSE || cp LICENSE $$d/LICENSE; \
	done

dist: version
	mkdir -p $(DIST) && rm -f $(DIST)/*.whl $(DIST)/*.tar.gz
	printf '%s\n' $(DISTRIBUTIONS) | xargs -P $(WORKERS) -I{} $(BIN)/python -m build --no-isolation -q --outdir $(DIST) {}

clean:
	rm -rf $(VENV)
