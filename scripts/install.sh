#!/usr/bin/env bash
# Installs everything sqlext and its test suite need; safe to run again.
#   - Debian packages: psql (postgresql-client), the PostgreSQL 15 server (the
#     reference peer for conformance tests and benchmarks), the PostgreSQL
#     JDBC driver (libpostgresql-jdbc-java), a JDK for the pgjdbc tests and
#     openssl (the TLS tests make their own certificate authority),
#     Graphviz (sqlext graph and the dashboard draw the dataflow with its dot
#     program), chromium (the dashboard is tested in a headless browser) and
#     Node.js with npm (node-postgres is tested against sqlext).
#   - A virtual environment in .venv with sqlext and its test dependencies.
#   - node-postgres in tests/clients/node/node_modules, as its lock file pins
#     it (again whenever the lock file changed since).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
[ -x /usr/lib/postgresql/15/bin/postgres ] || need+=(postgresql)
[ -f /usr/share/java/postgresql.jar ] || need+=(libpostgresql-jdbc-java)
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v dot >/dev/null 2>&1 || need+=(graphviz)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing Debian packages: ${need[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}"
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'

node_dir=tests/clients/node
# npm ci writes node_modules/.package-lock.json: older than the lock file
# (or missing) means the packages are not the pinned ones.
if [ "$node_dir/package-lock.json" -nt "$node_dir/node_modules/.package-lock.json" ]; then
    (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
