#!/usr/bin/env bash
# bench/reconcile/run.sh — what reconciliation costs, in one run on one private PostgreSQL:
#
#   hash      the row hash on the source side: md5 (cut to 64 bits, as a sum needs) against
#             PostgreSQL's hashtextextended and the typed hashes floe's V3 combines, over
#             HASH_ROWS synthetic rows, next to count(*) (the queries are in bench/reconcile/hash.sql)
#   tiers     `floe reconcile --tier V1|V2|V3` of the shop's order_items (SCALE=45: ≈ 5 M rows)
#             against the COPY-binary export of the same table into /dev/null (the load's limit)
#   reladiff  reladiff (PyPI, RELADIFF_VERSION, installed into .venv when missing) comparing the
#             same table with a copy of it loaded back into the same PostgreSQL
#             (order_items_copy, same primary key), its default algorithm, every column; and
#             the same with -a hashdiff, what it runs when the tables are in two databases
#
# COPY and the tiers run interleaved, ROUNDS times each (best and median wall time); reladiff,
# ten times slower, RELADIFF_ROUNDS times (best). Prints a Markdown block; with BENCH_RECORD=1 it
# is also appended to bench/RESULTS.md.
#
#   SCALE=45 HASH_ROWS=3000000 bench/reconcile/run.sh
set -euo pipefail

NAME=reconcile
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PY="$ROOT/.venv/bin/python"
SCALE="${SCALE:-10}"
HASH_ROWS="${HASH_ROWS:-3000000}"
ROUNDS="${ROUNDS:-3}"
RELADIFF_ROUNDS="${RELADIFF_ROUNDS:-1}"
RELADIFF_VERSION=0.6.0

"$PY" -c "import reladiff, psycopg2" 2>/dev/null ||
	"$ROOT/.venv/bin/pip" install -q "reladiff[postgresql]==$RELADIFF_VERSION"

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
bench_stack_up shop floe_reader
PSQL=(psql -X -q -At -h "$SOCK" -p "$PORT" -U postgres shop)

# seconds CMD...: the wall seconds of one run of CMD (its output dropped; a failure stops the bench)
seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
	t1=$(date +%s.%N)
	awk "BEGIN { printf \"%.2f\", $t1 - $t0 }"
}

# best / median of the numbers on stdin
best() { sort -n | head -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ---- the hash on the source side ----
"${PSQL[@]}" -c "CREATE TABLE hash_bench (id bigint PRIMARY KEY, name text, amount numeric(12,2), ts timestamptz, flag boolean);
	INSERT INTO hash_bench SELECT g, md5(g::text), (g % 100000) / 100.0,
	    timestamptz '2020-01-01 00:00:00+00' + g * interval '1.000001 second', g % 2 = 0
	FROM generate_series(1, $HASH_ROWS) g;"
"${PSQL[@]}" -c "VACUUM ANALYZE hash_bench"
hash_rows=""
while IFS='|' read -r label sql; do
	[ -n "$label" ] || continue
	t=$(for _ in $(seq "$ROUNDS"); do seconds "${PSQL[@]}" -c "SET max_parallel_workers_per_gather = 0" -c "$sql"; echo; done | best)
	hash_rows+="| $label | $t |"$'\n'
done < <(grep -v '^--' "$ROOT/bench/reconcile/hash.sql")

# ---- the tiers against the COPY limit ----
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
"$FLOE" -C "$WORK" generate >/dev/null
"$FLOE" -C "$WORK" run --layer bronze --table public.order_items >/dev/null # bronze only: silver would test relationships to tables not loaded
SQL="$(grep -v '^--' "$WORK/pipeline/bronze/order_items.sql")"
ROWS="$("${PSQL[@]}" -c 'select count(*) from order_items')"
declare -A times
for _ in $(seq "$ROUNDS"); do
	times[copy]+="$(seconds psql -X -h "$SOCK" -p "$PORT" -U postgres shop -c "\\copy ($SQL) TO '/dev/null' (FORMAT binary)") "
	for t in V1 V2 V3; do
		times[$t]+="$(seconds "$FLOE" -C "$WORK" reconcile --table public.order_items --tier "$t") "
	done
done
"$FLOE" -C "$WORK" reconcile --table public.order_items --json >"$WORK/last.json" || true
split=$(sed -n 's/.*"source_ms":\([0-9]*\),"lake_ms":\([0-9]*\).*/source side \1 ms, lake side \2 ms/p' "$WORK/last.json")

# ---- reladiff: the same rows loaded back into PostgreSQL, compared with the source ----
"${PSQL[@]}" -c "CREATE TABLE order_items_copy AS TABLE order_items"
"${PSQL[@]}" -c "ALTER TABLE order_items_copy ADD PRIMARY KEY (order_id, order_item_id)"
"${PSQL[@]}" -c "VACUUM ANALYZE order_items_copy"
DSN="postgresql://postgres@$(printf '%s' "$SOCK" | sed 's|/|%2F|g'):$PORT/shop" # host: the socket directory
RELADIFF=("$ROOT/.venv/bin/reladiff" "$DSN" order_items order_items_copy -k order_id -k order_item_id -c '%' -s)
"${RELADIFF[@]}" -v >"$WORK/reladiff.out" 2>&1 || { cat "$WORK/reladiff.out" >&2; exit 1; }
algorithm=$(sed -n "s/.*Using algorithm '\([a-z]*\)'.*/\1/p" "$WORK/reladiff.out" | head -1)
unchanged=$(sed -n 's/^\([0-9]*\) rows unchanged.*/\1/p' "$WORK/reladiff.out")
rel=$(for _ in $(seq "$RELADIFF_ROUNDS"); do seconds "${RELADIFF[@]}"; echo; done | best)
rel_hash=$(for _ in $(seq "$RELADIFF_ROUNDS"); do seconds "${RELADIFF[@]}" -a hashdiff; echo; done | best)

ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
row() { # row LABEL KEY: best, median, vs COPY (best), reladiff's times over this one
	local b m
	b=$(echo "${times[$2]}" | tr ' ' '\n' | grep . | best)
	m=$(echo "${times[$2]}" | tr ' ' '\n' | grep . | median)
	echo "| $1 | $b | $m | $(ratio "$b" "$copy_best")× | $(ratio "$rel" "$b")× | $(ratio "$rel_hash" "$b")× |"
}
copy_best=$(echo "${times[copy]}" | tr ' ' '\n' | grep . | best)

block=$(cat <<MD

### reconciliation — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE HASH_ROWS=$HASH_ROWS bench/reconcile/run.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)

The row hash in PostgreSQL, $HASH_ROWS rows (\`bigint\`, 32-byte \`text\`, \`numeric(12,2)\`, \`timestamptz\`, \`boolean\`), no parallel workers, best of $ROUNDS:

| query (bench/reconcile/hash.sql) | s |
|---|---|
$hash_rows
\`floe reconcile\` of order_items ($ROWS rows) against exporting it with COPY binary, interleaved, $ROUNDS rounds;
reladiff $RELADIFF_VERSION (\`$algorithm\`, its default for two tables of one database; key (order_id, order_item_id), every column; $unchanged rows unchanged) comparing it with \`order_items_copy\`, best of $RELADIFF_ROUNDS:

| | best s | median s | vs COPY | reladiff ($algorithm) ÷ this | reladiff hashdiff ÷ this |
|---|---|---|---|---|---|
$(row "COPY binary → /dev/null" copy)
$(row "floe reconcile --tier V1" V1)
$(row "floe reconcile --tier V2" V2)
$(row "floe reconcile --tier V3" V3)
| reladiff ($algorithm, the default) | $rel | | $(ratio "$rel" "$copy_best")× | 1.00× | |
| reladiff -a hashdiff (its algorithm across two databases) | $rel_hash | | $(ratio "$rel_hash" "$copy_best")× | | 1.00× |

V3's last run: $split.
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
