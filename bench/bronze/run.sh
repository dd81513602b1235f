#!/usr/bin/env bash
# bench/bronze/run.sh — a full bronze load of the shop's largest table against its peers, in
# paired, alternating runs, every side a client of PostgreSQL over TCP loopback:
#
#   limit   `COPY (extraction query) TO STDOUT (FORMAT binary)` into /dev/null through psql:
#           PostgreSQL reading and sending the rows, nothing else — no load can beat it
#   floe    `floe run --no-reconcile --table public.order_items` (the load; reconciliation is
#           bench/reconcile's) once per entry of THREADS (FLOE_LOAD_THREADS: 1 decodes COPY
#           inline, 2 on a thread of its own): the same COPY, decoded into vectors, written as
#           ZSTD Parquet, committed as an Iceberg snapshot
#   before  the same load by FLOE_BASE_BIN, when given (an older build: before/after in one run)
#   duckdb  DuckDB's postgres extension copying the same table to a ZSTD Parquet file
#           (`duckdb` + `duckdb-extension-postgres` from PyPI, the version floe embeds)
#
# Each of PAIRS rounds runs every side once, in an order that alternates between rounds (the
# limit first, then last), so a side and the limit it is divided by share the machine's load of
# the moment; the table gives each round's ratio and the medians. Then, with `perf`, one more
# floe run (and FLOE_BASE_BIN's) is profiled: the top entries by library and symbol. The file
# floe writes must be at most 10 % larger than the reference — FLOE_BASE_BIN's file, else the
# file floe writes at `zstd-level = 2` (the default before issue 21) — or the benchmark fails
# (exit 1). Prints Markdown; with BENCH_RECORD=1 it is also appended to bench/RESULTS.md.
#
#   SCALE=45 bench/bronze/run.sh      # order_items ≈ 5 M rows (default SCALE=10: ≈ 1.1 M)
#   FLOE_BASE_BIN=/path/to/old/floe PAIRS=5 THREADS="1 2" bench/bronze/run.sh
set -euo pipefail

NAME=bronze
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PY="$ROOT/.venv/bin/python"
SCALE="${SCALE:-10}"
PAIRS="${PAIRS:-5}"
THREADS="${THREADS:-1 2}"
BASE="${FLOE_BASE_BIN:-}"

"$PY" -c "import duckdb_extension_postgres" 2>/dev/null ||
	"$ROOT/.venv/bin/pip" install -q "duckdb-extension-postgres==$("$PY" -c 'import duckdb; print(duckdb.__version__)')"

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
"$FLOE" -C "$WORK" generate >/dev/null
SQL="$(grep -v '^--' "$WORK/pipeline/bronze/order_items.sql")"
ROWS="$(psql -X -At -h "$SOCK" -p "$PORT" -U postgres shop -c 'select count(*) from order_items')"
TCP="host=127.0.0.1 port=$PORT user=floe_reader dbname=shop"

cat >"$WORK/duck.py" <<PYEOF
import duckdb, duckdb_extension_postgres, os, pathlib, shutil
# The wheel names the file after the package; DuckDB wants the extension's own name (postgres_scanner).
src = pathlib.Path(duckdb_extension_postgres.__file__).parent / "extensions" / f"v{duckdb.__version__}" / "postgres.duckdb_extension"
ext = pathlib.Path("$WORK") / "postgres_scanner.duckdb_extension"
if not ext.exists():
    shutil.copy(src, ext)
con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
con.execute(f"LOAD '{ext}'")
con.execute(f"ATTACH '$TCP password={os.environ['FLOE_SOURCE_PASSWORD']}' AS pg (TYPE postgres, READ_ONLY)")
con.execute("COPY (SELECT * FROM pg.public.order_items) TO '$WORK/duck.parquet' (FORMAT parquet, COMPRESSION zstd)")
PYEOF

newest() { find "$WORK/warehouse" -name '*.parquet' -printf '%T@ %s\n' | sort -n | sed -n '$s/.* //p'; }

# run SIDE: one timed run of a side, appended to $WORK/runs as "pair side wall cpu rss_kB bytes"
run() {
	local side=$1 bytes=0
	case $side in
	limit) set -- env PGPASSWORD="$FLOE_SOURCE_PASSWORD" psql -X -h 127.0.0.1 -p "$PORT" -U floe_reader shop \
		-c "\\copy ($SQL) TO '/dev/null' (FORMAT binary)" ;;
	floe-t*) set -- env FLOE_LOAD_THREADS="${side#floe-t}" "$FLOE" -C "$WORK" run --no-reconcile --table public.order_items ;;
	before) set -- "$BASE" -C "$WORK" run --no-reconcile --table public.order_items ;;
	duckdb) set -- "$PY" "$WORK/duck.py" ;;
	esac
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
	read -r t u k m <"$WORK/time"
	case $side in
	floe-t* | before) bytes=$(newest) ;;
	duckdb) bytes=$(stat -c %s "$WORK/duck.parquet") ;;
	esac
	echo "$pair $side $t $(awk "BEGIN { print $u + $k }") $m $bytes" >>"$WORK/runs"
}

sides=(limit)
for t in $THREADS; do sides+=("floe-t$t"); done
[ -n "$BASE" ] && sides+=(before)
sides+=(duckdb)
: >"$WORK/runs"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for pair in $(seq "$PAIRS"); do
	if [ $((pair % 2)) -eq 1 ]; then order=("${sides[@]}"); else order=(); for ((i = ${#sides[@]} - 1; i >= 0; i--)); do order+=("${sides[i]}"); done; fi
	for side in "${order[@]}"; do run "$side"; done
done

# The reference file and the size check.
if [ -n "$BASE" ]; then
	ref=$(awk '$2 == "before" { b = $6 } END { print b }' "$WORK/runs"); ref_what="FLOE_BASE_BIN's file"
else
	cp "$WORK/floe.toml" "$WORK/floe.toml.bench"
	sed -i 's/^\[warehouse\]$/[warehouse]\nzstd-level = 2/' "$WORK/floe.toml"
	"$FLOE" -C "$WORK" run --no-reconcile --table public.order_items >/dev/null
	ref=$(newest); ref_what="floe's file at zstd-level = 2"
	mv "$WORK/floe.toml.bench" "$WORK/floe.toml"
fi
floe_bytes=$(awk '$2 ~ /^floe-t/ { b = $6 } END { print b }' "$WORK/runs")

col() { awk -v s="$1" -v c="$2" '$2 == s { print $c }' "$WORK/runs"; }
ratios() { awk -v s="$1" '$2 == "limit" { l[$1] = $3 } $2 == s { r[$1] = $3 } END { for (p in r) printf "%d %.2f\n", p, r[p] / l[p] }' "$WORK/runs" | sort -n; }
label() {
	case $1 in
	limit) echo "COPY binary → /dev/null (the limit)" ;;
	floe-t*) echo "floe run, ${1#floe-t} thread(s) (COPY → Parquet → Iceberg snapshot)" ;;
	before) echo "floe run by FLOE_BASE_BIN (before)" ;;
	duckdb) echo "DuckDB postgres extension → Parquet" ;;
	esac
}

profile=""
if command -v perf >/dev/null 2>&1; then
	for who in floe ${BASE:+before}; do
		bin=$FLOE; [ "$who" = before ] && bin=$BASE
		if perf record -q -F 999 -o "$WORK/perf.data" "$bin" -C "$WORK" run --no-reconcile --table public.order_items >/dev/null 2>&1; then
			top=$(perf report -i "$WORK/perf.data" --no-children --sort dso,symbol -g none 2>/dev/null |
				grep -v '^#' | grep '%' | sed -n '1,12{s/ *$//; s/^ */    /; p}')
			profile+=$'\n'"Profile of one \`$who\` run (perf, by library and symbol):"$'\n\n'"$top"$'\n'
		fi
	done
fi

block=$(
	echo
	echo "### bronze full load of order_items, paired — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | sed -n 1p)"
	echo
	echo "Command: \`SCALE=$SCALE PAIRS=$PAIRS THREADS=\"$THREADS\"${BASE:+ FLOE_BASE_BIN=…} bench/bronze/run.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); $ROWS rows; every side over TCP loopback; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| | wall s (median) | CPU s (median) | peak RSS MB | Parquet MB | vs COPY limit, each pair | median |"
	echo "|---|---|---|---|---|---|---|"
	for s in "${sides[@]}"; do
		w=$(col "$s" 3 | median); c=$(col "$s" 4 | median); m=$(col "$s" 5 | sort -n | tail -1)
		b=$(col "$s" 6 | tail -1)
		mb=$([ "$b" != 0 ] && awk "BEGIN { printf \"%.1f\", $b / 1e6 }" || echo "–")
		if [ "$s" = limit ]; then each="1.00 …"; med="1.00×"; else
			each=$(ratios "$s" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }')
			med="$(ratios "$s" | awk '{ print $2 }' | median | awk '{ printf "%.2f", $1 }')×"; fi
		echo "| $(label "$s") | $w | $c | $((m / 1024)) | $mb | $each | $med |"
	done
	echo
	echo "File size: floe $(awk "BEGIN { printf \"%.1f MB, %+.1f %%\", $floe_bytes / 1e6, ($floe_bytes / $ref - 1) * 100 }") against $ref_what ($(awk "BEGIN { printf \"%.1f\", $ref / 1e6 }") MB); the check allows +10 %."
	printf '%s' "$profile"
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
if awk "BEGIN { exit !($floe_bytes > $ref * 1.10) }"; then
	echo "bench/bronze: floe's file is more than 10 % larger than $ref_what" >&2
	exit 1
fi
