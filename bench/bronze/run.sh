#!/usr/bin/env bash
# bench/bronze/run.sh — a full bronze load of the shop's largest table against its peers, in one run:
#
#   limit   `COPY (extraction query) TO STDOUT (FORMAT binary)` into /dev/null through psql:
#           PostgreSQL reading and sending the rows, nothing else — no load can beat it
#   floe    `floe run --no-reconcile --table public.order_items` (the load; reconciliation is
#           bench/reconcile's): the same COPY, decoded into vectors, written as
#           ZSTD Parquet, committed as an Iceberg snapshot
#   duckdb  DuckDB's postgres extension copying the same table to a ZSTD Parquet file
#           (`duckdb` + `duckdb-extension-postgres` from PyPI, the version floe embeds)
#
# Wall time (best of ROUNDS), peak RSS (/usr/bin/time), file size. Prints a Markdown block; with
# BENCH_RECORD=1 it is also appended to bench/RESULTS.md.
#
#   SCALE=45 bench/bronze/run.sh      # order_items ≈ 5 M rows (default SCALE=10: ≈ 1.1 M)
set -euo pipefail

NAME=bronze
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PY="$ROOT/.venv/bin/python"
SCALE="${SCALE:-10}"
ROUNDS="${ROUNDS:-3}"

"$PY" -c "import duckdb_extension_postgres" 2>/dev/null ||
	"$ROOT/.venv/bin/pip" install -q "duckdb-extension-postgres==$("$PY" -c 'import duckdb; print(duckdb.__version__)')"

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
"$FLOE" -C "$WORK" generate >/dev/null
SQL="$(grep -v '^--' "$WORK/pipeline/bronze/order_items.sql")"
ROWS="$(psql -X -At -h "$SOCK" -p "$PORT" -U postgres shop -c 'select count(*) from order_items')"

limit=$(measure limit psql -X -h "$SOCK" -p "$PORT" -U postgres shop \
	-c "\\copy ($SQL) TO '/dev/null' (FORMAT binary)")
floe=$(measure floe "$FLOE" -C "$WORK" run --no-reconcile --table public.order_items)
cat >"$WORK/duck.py" <<PYEOF
import duckdb, duckdb_extension_postgres, pathlib, shutil
# The wheel names the file after the package; DuckDB wants the extension's own name (postgres_scanner).
src = pathlib.Path(duckdb_extension_postgres.__file__).parent / "extensions" / f"v{duckdb.__version__}" / "postgres.duckdb_extension"
ext = pathlib.Path("$WORK") / "postgres_scanner.duckdb_extension"
if not ext.exists():
    shutil.copy(src, ext)
con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
con.execute(f"LOAD '{ext}'")
con.execute("ATTACH 'host=$SOCK port=$PORT user=postgres dbname=shop' AS pg (TYPE postgres, READ_ONLY)")
con.execute("COPY (SELECT * FROM pg.public.order_items) TO '$WORK/duck.parquet' (FORMAT parquet, COMPRESSION zstd)")
PYEOF
duck=$(measure duckdb "$PY" "$WORK/duck.py")

floe_bytes=$(find "$WORK/warehouse" -name '*.parquet' -newer "$WORK/pipeline/lakehouse.lock.json" -printf '%s\n' | sort -n | tail -1)
duck_bytes=$(stat -c %s "$WORK/duck.parquet")
read -r _ lt lm <<<"$limit"
read -r _ ft fm <<<"$floe"
read -r _ dt dm <<<"$duck"
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }

block=$(cat <<MD

### bronze full load of order_items — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE bench/bronze/run.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); $ROWS rows; best of $ROUNDS; load average before: $(cut -d' ' -f1-3 /proc/loadavg)

| | wall s | peak RSS MB | Parquet MB | vs COPY limit |
|---|---|---|---|---|
| COPY binary → /dev/null (the limit) | $lt | $((lm / 1024)) | – | 1.00× |
| floe run (COPY → Parquet → Iceberg snapshot) | $ft | $((fm / 1024)) | $(awk "BEGIN { printf \"%.1f\", $floe_bytes / 1e6 }") | $(ratio "$ft" "$lt")× |
| DuckDB postgres extension → Parquet | $dt | $((dm / 1024)) | $(awk "BEGIN { printf \"%.1f\", $duck_bytes / 1e6 }") | $(ratio "$dt" "$lt")× |
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
