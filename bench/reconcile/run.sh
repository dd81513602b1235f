#!/usr/bin/env bash
# bench/reconcile/run.sh — what reconciliation costs, in one run on one private PostgreSQL:
#
#   hash    the row hash on the source side: md5 (cut to 64 bits, as a sum needs) against
#           PostgreSQL's hashtextextended, over HASH_ROWS synthetic rows, next to count(*) and
#           the canonical text alone (the queries are in bench/reconcile/hash.sql)
#   tiers   `floe reconcile --tier V1|V2|V3` of the shop's order_items (SCALE=45: ≈ 5 M rows)
#           against the COPY-binary export of the same table into /dev/null (the load's limit)
#
# Wall time is the best of ROUNDS. Prints a Markdown block; with BENCH_RECORD=1 it is also
# appended to bench/RESULTS.md.
#
#   SCALE=45 HASH_ROWS=3000000 bench/reconcile/run.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FLOE="${FLOE_BIN:-$ROOT/build/floe}"
SCALE="${SCALE:-10}"
HASH_ROWS="${HASH_ROWS:-3000000}"
ROUNDS="${ROUNDS:-3}"
WORK="$(mktemp -d /tmp/floe-bench-reconcile.XXXXXX)"
chmod 755 "$WORK"
cleanup() { "$FLOE" -C "$WORK" stack down >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT

[ -x "$FLOE" ] || { echo "bench: build floe first (make)" >&2; exit 2; }
export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
"$FLOE" -C "$WORK" stack up --database shop --reader floe_reader >/dev/null
PORT="$("$FLOE" -C "$WORK" stack status --json | sed -n 's/.*"port":\([0-9]*\).*/\1/p')"
SOCK="$WORK/.floe/pg/run"
PSQL=(psql -X -q -At -h "$SOCK" -p "$PORT" -U postgres shop)

# best NAME CMD...: the best wall seconds of ROUNDS
best() {
	local name=$1 b=""
	shift
	for _ in $(seq "$ROUNDS"); do
		local t0 t1
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
		t1=$(date +%s.%N)
		local t
		t=$(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")
		if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; fi
	done
	echo "$b"
}

# ---- the hash on the source side ----
"${PSQL[@]}" -c "CREATE TABLE hash_bench (id bigint PRIMARY KEY, name text, amount numeric(12,2), ts timestamptz, flag boolean);
	INSERT INTO hash_bench SELECT g, md5(g::text), (g % 100000) / 100.0,
	    timestamptz '2020-01-01 00:00:00+00' + g * interval '1.000001 second', g % 2 = 0
	FROM generate_series(1, $HASH_ROWS) g;"
"${PSQL[@]}" -c "VACUUM ANALYZE hash_bench"
hash_rows=""
while IFS='|' read -r label sql; do
	[ -n "$label" ] || continue
	t=$(best "$label" "${PSQL[@]}" -c "SET max_parallel_workers_per_gather = 0" -c "$sql")
	hash_rows+="| $label | $t |"$'\n'
done < <(grep -v '^--' "$ROOT/bench/reconcile/hash.sql")

# ---- the tiers against the COPY limit ----
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
"$FLOE" -C "$WORK" generate >/dev/null
"$FLOE" -C "$WORK" run --table public.order_items >/dev/null
SQL="$(grep -v '^--' "$WORK/pipeline/bronze/order_items.sql")"
ROWS="$("${PSQL[@]}" -c 'select count(*) from order_items')"
limit=$(best limit psql -X -h "$SOCK" -p "$PORT" -U postgres shop -c "\\copy ($SQL) TO '/dev/null' (FORMAT binary)")
declare -A tier
for t in V1 V2 V3; do
	tier[$t]=$(best "$t" "$FLOE" -C "$WORK" reconcile --table public.order_items --tier "$t")
done
"$FLOE" -C "$WORK" reconcile --table public.order_items --json >"$WORK/last.json" || true
split=$(sed -n 's/.*"source_ms":\([0-9]*\),"lake_ms":\([0-9]*\).*/source side \1 ms, lake side \2 ms/p' "$WORK/last.json")
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }

block=$(cat <<MD

### reconciliation — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE HASH_ROWS=$HASH_ROWS bench/reconcile/run.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); best of $ROUNDS; load average before: $(cut -d' ' -f1-3 /proc/loadavg)

The row hash in PostgreSQL, $HASH_ROWS rows (\`bigint\`, 32-byte \`text\`, \`numeric(12,2)\`, \`timestamptz\`, \`boolean\`), no parallel workers:

| query (bench/reconcile/hash.sql) | s |
|---|---|
$hash_rows
\`floe reconcile\` of order_items ($ROWS rows), against exporting it with COPY binary:

| | wall s | vs COPY |
|---|---|---|
| COPY binary → /dev/null | $limit | 1.00× |
| floe reconcile --tier V1 | ${tier[V1]} | $(ratio "${tier[V1]}" "$limit")× |
| floe reconcile --tier V2 | ${tier[V2]} | $(ratio "${tier[V2]}" "$limit")× |
| floe reconcile --tier V3 | ${tier[V3]} | $(ratio "${tier[V3]}" "$limit")× |

V3's last run: $split.
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
