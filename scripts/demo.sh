#!/usr/bin/env bash
# demo.sh — floe end to end on the embedded defaults (what `make demo` runs).
#
# Installs what is missing, builds floe, starts a private PostgreSQL for the demo project
# (floe stack), fills it with `floe shop generate`, creates the project with `floe init`, and checks
# everything with `floe doctor`, then loads, builds silver and the shop's example gold marts (drafted
# from examples/shop/marts by `floe gold draft`, merged). The cluster is stopped at the end; set FLOE_DEMO_KEEP=1
# to keep it running and explore (then `build/floe -C <dir> stack down`).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# FLOE_BIN runs an installed floe instead (make deb-check); else the tree's own build.
FLOE="${FLOE_BIN:-$ROOT/build/floe}"

if [ -z "${FLOE_BIN:-}" ]; then
	scripts/setup.sh packages
	scripts/setup.sh duckdb
	make -s -j"$(nproc)" build/floe
fi

# The project must be reachable by the unprivileged user PostgreSQL runs as (when we are root).
DEMO="${FLOE_DEMO_DIR:-$ROOT/demo}"
if [ "$(id -u)" = 0 ] && [ -z "${FLOE_DEMO_DIR:-}" ] && ! runuser -u postgres -- test -x "$ROOT"; then
	DEMO="/tmp/floe-demo"
	echo "demo: $ROOT is not reachable by the postgres user; using $DEMO"
fi
# A second `make demo` starts over: `shop generate --replace` rebuilds the source, so a lake loaded
# from the old one would (rightly) not reconcile. Only a directory the demo made is removed (the
# default one, or one holding the demo's marker); any other floe project is left alone.
if [ -e "$DEMO/floe.toml" ]; then
	if [ -z "${FLOE_DEMO_DIR:-}" ] || [ -e "$DEMO/.floe-demo" ]; then
		echo "demo: starting over in $DEMO"
		"$FLOE" -C "$DEMO" stack down >/dev/null 2>&1 || true
		rm -rf "$DEMO"
	else
		echo "demo: $DEMO holds a floe project the demo did not make; choose another FLOE_DEMO_DIR" >&2
		exit 2
	fi
fi
mkdir -p "$DEMO"
chmod 755 "$DEMO"
touch "$DEMO/.floe-demo"

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

SCALE="${FLOE_DEMO_SCALE:-1}"
echo "== floe shop generate: an Olist-shaped shop at scale $SCALE (1 = Olist's own size) in the source"
"$FLOE" -C "$DEMO" shop generate --scale "$SCALE" --replace

echo "== floe init"
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$DEMO"

echo "== floe doctor"
"$FLOE" -C "$DEMO" doctor

echo "== floe plan: load mode, type mapping and refusals per table"
"$FLOE" -C "$DEMO" plan | grep -E '→|why'

echo "== floe generate: pipeline/ as a git repository"
"$FLOE" -C "$DEMO" generate

echo "== floe run: bronze, one Iceberg snapshot per table"
"$FLOE" -C "$DEMO" run

echo "== floe shop tick, then floe run again: incremental tables load only what changed, silver follows"
"$FLOE" -C "$DEMO" shop tick --orders 100 --updates 50 --deletes 5
"$FLOE" -C "$DEMO" run

echo "== floe gold draft: the shop's example marts (examples/shop/marts), each proposed on a branch, merged, built"
mkdir -p "$DEMO/marts"
for example in "$ROOT"/examples/shop/marts/*.md; do # (floe init's marts/README.md is not a mart)
	name="$(basename "$example" .md)"
	cp "$example" "$DEMO/marts/$name.md"
	"$FLOE" -C "$DEMO" gold draft "marts/$name.md"
	git -C "$DEMO/pipeline" merge --quiet --no-edit "floe/mart/$name"
done
"$FLOE" -C "$DEMO" run --layer gold

echo "== floe status"
"$FLOE" -C "$DEMO" status

echo "== floe query"
"$FLOE" -C "$DEMO" query "select order_status, count(*) as orders from bronze.orders group by 1 order by 2 desc"

cat <<EOF2
demo: ok — project in $DEMO

Try next (FLOE_DEMO_KEEP=1 make demo keeps the PostgreSQL running; export FLOE_SOURCE_PASSWORD first;
.venv exists after make test):
  build/floe -C $DEMO shop tick --orders 100 --updates 50 --deletes 5   # live changes in the source
  build/floe -C $DEMO run && build/floe -C $DEMO status                   # load them (orders and payments incrementally)
  build/floe -C $DEMO query "from bronze.payments limit 5"
  build/floe -C $DEMO query "from gold.seller_scorecard order by revenue desc limit 5"
  .venv/bin/python -c "from pyiceberg.catalog.sql import SqlCatalog; \\
    c = SqlCatalog('floe', uri='sqlite:///$DEMO/warehouse/catalog.db'); print(c.load_table('bronze.orders').scan().to_arrow().num_rows)"
EOF2
