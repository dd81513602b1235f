#!/usr/bin/env bash
# demo.sh — floe end to end on the embedded defaults (what `make demo` runs).
#
# Installs what is missing, builds floe, starts a private PostgreSQL for the demo project
# (floe stack), fills a small source, creates the project with `floe init`, and checks
# everything with `floe doctor`. The cluster is stopped at the end; set FLOE_DEMO_KEEP=1
# to keep it running and explore (then `build/floe -C <dir> stack down`).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FLOE="$ROOT/build/floe"

scripts/setup.sh packages
scripts/setup.sh duckdb
make -s -j"$(nproc)" build/floe

# The project must be reachable by the unprivileged user PostgreSQL runs as (when we are root).
DEMO="${FLOE_DEMO_DIR:-$ROOT/demo}"
if [ "$(id -u)" = 0 ] && [ -z "${FLOE_DEMO_DIR:-}" ] && ! runuser -u postgres -- test -x "$ROOT"; then
	DEMO="/tmp/floe-demo"
	echo "demo: $ROOT is not reachable by the postgres user; using $DEMO"
fi
mkdir -p "$DEMO"
chmod 755 "$DEMO"

# The reader's password: from the environment, or a fresh random one. Never printed.
if [ -z "${FLOE_SOURCE_PASSWORD:-}" ]; then
	FLOE_SOURCE_PASSWORD="$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
fi
export FLOE_SOURCE_PASSWORD

stop() { [ -n "${FLOE_DEMO_KEEP:-}" ] || "$FLOE" -C "$DEMO" stack down >/dev/null || true; }
trap stop EXIT

echo "== floe stack up: a private PostgreSQL under $DEMO/.floe/pg"
"$FLOE" -C "$DEMO" stack up --database shop --reader floe_reader

PORT="$("$FLOE" -C "$DEMO" stack status --json | sed -n 's/.*"port":\([0-9]*\).*/\1/p')"
SOCK="$DEMO/.floe/pg/run"

echo "== a small source (floe shop will generate a full one)"
psql -q -X -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U postgres shop <<'SQL'
CREATE TABLE IF NOT EXISTS customers (
    customer_id uuid PRIMARY KEY,
    city text NOT NULL,
    state char(2) NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
    order_id uuid PRIMARY KEY,
    customer_id uuid NOT NULL REFERENCES customers,
    status text NOT NULL CHECK (status IN ('created', 'approved', 'shipped', 'delivered', 'canceled')),
    purchased_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO customers
SELECT md5('c' || i)::uuid, 'city ' || i, (ARRAY['SP', 'RJ', 'MG'])[1 + i % 3]
FROM generate_series(1, 100) i ON CONFLICT DO NOTHING;
INSERT INTO orders (order_id, customer_id, status, purchased_at)
SELECT md5('o' || i)::uuid, md5('c' || (1 + i % 100))::uuid, 'delivered',
       timestamptz '2026-01-01' + i * interval '1 hour'
FROM generate_series(1, 1000) i ON CONFLICT DO NOTHING;
SQL

echo "== floe init"
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$DEMO"

echo "== floe doctor"
"$FLOE" -C "$DEMO" doctor
echo "demo: ok — project in $DEMO"
