#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster on a loopback port for the tests (Debian packages).
# PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user.
# Prints `export MCPBRIDGE_TEST_POSTGRES_URL=...`; stop it with: postgres.sh stop
# Usage: eval "$(bash tests/services/postgres.sh start)"   (PG_PORT, PG_DIR to override)
set -euo pipefail
PG_PORT=${PG_PORT:-55432}
PG_DIR=${PG_DIR:-/tmp/mcpbridge-pg-$PG_PORT}
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$bin/pg_ctl" ] || { echo "postgres.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

case "${1:-start}" in
start)
    if [ ! -f "$PG_DIR/PG_VERSION" ]; then
        mkdir -p "$PG_DIR"
        [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
        as_owner "'$bin/initdb' -D '$PG_DIR' -U mcpbridge --auth=trust -E UTF8 >/dev/null"
    fi
    if ! as_owner "'$bin/pg_ctl' -D '$PG_DIR' status" >/dev/null 2>&1; then
        as_owner "'$bin/pg_ctl' -D '$PG_DIR' -w -l '$PG_DIR/log' \
            -o \"-p $PG_PORT -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200\" start" >/dev/null
    fi
    as_owner "'$bin/psql' -h 127.0.0.1 -p $PG_PORT -U mcpbridge -d postgres -tAc \
        \"SELECT 1 FROM pg_database WHERE datname='mcpbridge'\"" | grep -q 1 ||
        as_owner "'$bin/createdb' -h 127.0.0.1 -p $PG_PORT -U mcpbridge mcpbridge"
    echo "export MCPBRIDGE_TEST_POSTGRES_URL=postgresql://mcpbridge@127.0.0.1:$PG_PORT/mcpbridge"
    ;;
stop)
    as_owner "'$bin/pg_ctl' -D '$PG_DIR' -m fast stop" >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: postgres.sh start|stop" >&2
    exit 2
    ;;
esac
