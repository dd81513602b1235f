#!/usr/bin/env bash
# bench/bronze/parallel.sh — one table's full load read by N connections (docs/parallel-load.md)
# against the single-connection COPY limit, in one run on one private PostgreSQL:
#
#   limit      `COPY (extraction query) TO STDOUT (FORMAT binary)` into /dev/null through psql
#   limit ×N   the same query split into the N key ranges floe chooses, N psql processes at once
#   floe N     `floe run --no-reconcile --table public.order_items --parallel N` (N = 1, 2, 4)
#
# Wall time (best of ROUNDS), CPU seconds (user + system of the client), peak RSS. Prints a Markdown
# block; with BENCH_RECORD=1 it is also appended to bench/RESULTS.md.
#
#   SCALE=10 bench/bronze/parallel.sh      # order_items ≈ 1.1 M rows (make bench-parallel)
set -euo pipefail

NAME=parallel
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

ROUNDS="${ROUNDS:-2}"
bench_shop_project "${SCALE:=10}"
PSQL=(psql -X -At -h "$SOCK" -p "$PORT" -U postgres shop)
"${PSQL[@]}" -c 'ANALYZE order_items' >/dev/null
SQL="$(grep -v '^--' "$WORK/pipeline/bronze/order_items.sql")"
ROWS="$("${PSQL[@]}" -c 'select count(*) from order_items')"
KEY="$("${PSQL[@]}" -c "select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid
	and a.attnum = i.indkey[0] where i.indrelid = 'order_items'::regclass and i.indisprimary")"

# The limit for N connections: the histogram's quantiles as floe takes them, one psql per range.
ranges() {
	local n=$1 fr
	fr=$(awk -v n="$n" 'BEGIN { for (i = 1; i < n; i++) printf "%s%.6f", (i > 1 ? "," : ""), i / n }')
	"${PSQL[@]}" -c "select q::text from unnest((select percentile_disc('{$fr}'::float8[]) within group (order by k)
		from unnest((select histogram_bounds from pg_stats where tablename = 'order_items' and attname = '$KEY')
		::text::$("${PSQL[@]}" -c "select format_type(atttypid, atttypmod) from pg_attribute where attrelid =
		'order_items'::regclass and attname = '$KEY'")[]) k)) q"
}
cat >"$WORK/limit_n.sh" <<SH
#!/usr/bin/env bash
set -e
mapfile -t B < <(cat "$WORK/bounds")
n=\$((\${#B[@]} + 1)); pids=()
for ((i = 0; i < n; i++)); do
	w="true"
	[ \$i -gt 0 ] && w="\$w and \"$KEY\" >= '\${B[\$((i - 1))]}'"
	[ \$i -lt \$((n - 1)) ] && w="\$w and \"$KEY\" < '\${B[\$i]}'"
	psql -X -h "$SOCK" -p "$PORT" -U postgres shop -c "\\\\copy (select * from ($SQL) s where \$w) TO '/dev/null' (FORMAT binary)" >/dev/null &
	pids+=(\$!)
done
for p in "\${pids[@]}"; do wait \$p; done
SH
chmod +x "$WORK/limit_n.sh"

row() { # label measure-output
	read -r _ t m c <<<"$2"
	echo "| $1 | $t | $c | $((m / 1024)) |"
}
limit=$(measure limit "${PSQL[@]}" -c "\\copy ($SQL) TO '/dev/null' (FORMAT binary)")
lines="$(row "COPY binary → /dev/null, 1 connection (the limit)" "$limit") 1.00× |"
for n in 2 4; do
	ranges "$n" >"$WORK/bounds"
	m=$(measure "limit$n" "$WORK/limit_n.sh")
	read -r _ t _ _ <<<"$m"
	lines+=$'\n'"$(row "COPY binary → /dev/null, $n connections at once (key ranges)" "$m") $(awk "BEGIN { printf \"%.2f\", $t / $(cut -d' ' -f2 <<<"$limit") }")× |"
done
for n in 1 2 4; do
	m=$(measure "floe$n" "$FLOE" -C "$WORK" run --no-reconcile --no-sync --layer bronze --table public.order_items --parallel "$n")
	read -r _ t _ _ <<<"$m"
	lines+=$'\n'"$(row "floe run --parallel $n" "$m") $(awk "BEGIN { printf \"%.2f\", $t / $(cut -d' ' -f2 <<<"$limit") }")× |"
done
detail="$("$FLOE" -C "$WORK" status --json | "$ROOT/.venv/bin/python" -c 'import json,sys; print(next(t["facts"] for t in json.load(sys.stdin)["tables"] if t["table"] == "bronze.order_items"))')"

block=$(cat <<MD

### parallel full load of order_items — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE bench/bronze/parallel.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); $ROWS rows; key ranges of \`$KEY\`; best of $ROUNDS; load average before: $(cut -d' ' -f1-3 /proc/loadavg)
Last load: $detail

| | wall s | client CPU s | peak RSS MB | vs 1-connection limit |
|---|---|---|---|---|
$lines
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
