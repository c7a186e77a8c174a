# Every target creates .venv (and installs the workspace into it) when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGINS := $(filter-out plugins/_template,$(wildcard plugins/*))
# Distributions that are not plugins (packages/README.md): installed and checked alike.
PACKAGES := $(patsubst %/pyproject.toml,%,$(wildcard packages/*/pyproject.toml))
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint install clean thirdparty

$(STAMP): core/pyproject.toml $(wildcard plugins/*/pyproject.toml packages/*/pyproject.toml) requirements-dev.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt -e 'core[testing]' $(addprefix -e ,$(PLUGINS) $(PACKAGES))
	touch $(STAMP)

install: $(STAMP)

# `mcpbridge demo` comes from plugins/demo (the mcpbridge-demo distribution); e.g. ARGS=--yes.
demo: $(STAMP)
	$(BIN)/mcpbridge demo $(ARGS)

test: $(STAMP) thirdparty
	@bash tests/adapters/upstream/install.sh || echo "PyPI unreachable: the tests/adapters/upstream tier will be skipped"
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Real third-party MCP servers for tests/thirdparty (needs node; skipped with a note without it).
thirdparty:
	@if command -v npm >/dev/null; then bash tests/thirdparty/install.sh; \
	else echo "npm not found: the tests/thirdparty tier will be skipped"; fi

bench: $(STAMP)
	for b in bench/[!_]*.py; do $(BIN)/python $$b || exit 1; done

lint: $(STAMP)
	$(BIN)/ruff check core plugins packages tests bench examples
	$(BIN)/ruff format --check core plugins packages tests bench examples
	$(BIN)/mypy core/src $(addsuffix /src,$(PLUGINS) $(PACKAGES))

clean:
	rm -rf $(VENV)
