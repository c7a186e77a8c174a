#!/usr/bin/env bash
# Fetch langchain-mcp-adapters' own test suite at its last release (0.3.2, from the PyPI
# sdist, which ships tests/) into tests/adapters/upstream/.cache/, with one change: the
# import `langchain_mcp_adapters` becomes `mcpbridge_adapters`. Nothing else is edited; the
# mcp 1.x server names their test servers use come from shim/ at run time
# (test_upstream.py runs the suite in a pytest process of its own).
# Idempotent (a stamp holds the version). Usage: bash tests/adapters/upstream/install.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
VERSION=0.3.2
cache="$here/.cache"
[ -f "$cache/.installed" ] && [ "$(cat "$cache/.installed")" = "$VERSION" ] && exit 0
venv_pip="$here/../../../.venv/bin/pip"  # pip download needs no venv: any pip will do
if [ -z "${PIP:-}" ]; then
    if [ -x "$venv_pip" ]; then PIP="$venv_pip"; else PIP="${PYTHON:-python3} -m pip"; fi
fi
rm -rf "$cache"
mkdir -p "$cache/download"
$PIP download -q --disable-pip-version-check --no-deps --no-binary :all: \
    "langchain-mcp-adapters==$VERSION" -d "$cache/download"
tar -xzf "$cache/download/langchain_mcp_adapters-$VERSION.tar.gz" -C "$cache/download"
# tests/ and the pyproject.toml whose [tool.pytest.ini_options] they run with
mv "$cache/download/langchain_mcp_adapters-$VERSION/tests" "$cache/download/langchain_mcp_adapters-$VERSION/pyproject.toml" "$cache/"
rm -rf "$cache/download"
grep -rl langchain_mcp_adapters "$cache/tests" | xargs sed -i 's/langchain_mcp_adapters/mcpbridge_adapters/g'
echo "$VERSION" >"$cache/.installed"
