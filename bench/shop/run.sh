#!/usr/bin/env bash
# bench/shop/run.sh — `floe shop generate` against its peer: psql loading the same rows from files.
#
# For each scale (default: 1 and 10):
#   floe   `floe shop generate --scale S`: makes every row, streams it with binary COPY, adds keys,
#          foreign keys, indexes and triggers, in one transaction, then checksums the result.
#   peer   the same rows, already made (exported with COPY TO as text files), loaded by
#          `psql --single-transaction` with `\copy … FROM file (FREEZE)` into the same schema
#          (pg_dump --section=pre-data), then the same keys and indexes (--section=post-data).
# Both run on one private PostgreSQL (`floe stack`) on this machine; nothing else is measured.
# Prints a Markdown block; with BENCH_RECORD=1 it is also appended to bench/RESULTS.md.
#
#   bench/shop/run.sh            # scales 1 and 10
#   SCALES="0.1 1" bench/shop/run.sh
set -euo pipefail

NAME=shop
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SCALES="${SCALES:-1 10}"
bench_stack_up bench

PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U postgres)
export PGOPTIONS="-c client_min_messages=warning"
TABLES="product_categories geolocation sellers products customers orders order_items payments reviews"

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
secs() { calc "$2 - $1"; }
json_num() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }

peer_load() { # scale → "copy_seconds total_seconds"
	local dump="$WORK/dump" db=peer
	mkdir -p "$dump"
	for t in $TABLES; do "${PSQL[@]}" bench -c "\\copy $t TO '$dump/$t.txt'"; done
	pg_dump -h "$SOCK" -p "$PORT" -U postgres --schema-only --section=pre-data bench > "$dump/pre.sql"
	pg_dump -h "$SOCK" -p "$PORT" -U postgres --schema-only --section=post-data bench > "$dump/post.sql"
	"${PSQL[@]}" postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	{
		cat "$dump/pre.sql"
		echo "SET search_path = public;"
		echo "SELECT 'copy-start', clock_timestamp();"
		for t in $TABLES; do echo "\\copy $t FROM '$dump/$t.txt' WITH (FREEZE)"; done
		echo "SELECT 'copy-end', clock_timestamp();"
		cat "$dump/post.sql"
	} > "$dump/load.sql"
	local start end
	start="$(now)"
	"${PSQL[@]}" --single-transaction -At "$db" -f "$dump/load.sql" > "$dump/marks.txt"
	end="$(now)"
	local c0 c1
	c0="$(sed -n 's/^copy-start|//p' "$dump/marks.txt")"
	c1="$(sed -n 's/^copy-end|//p' "$dump/marks.txt")"
	local copy
	copy="$(psql -X -At -h "$SOCK" -p "$PORT" -U postgres postgres -c \
		"SELECT extract(epoch FROM timestamptz '$c1' - timestamptz '$c0')")"
	echo "$copy $(secs "$start" "$end")"
	"${PSQL[@]}" postgres -c "DROP DATABASE $db"
	rm -rf "$dump"
}

CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
PGV="$("${PSQL[@]}" -At postgres -c 'SHOW server_version')"
{
	echo "### floe shop generate vs psql COPY — $(date -u +%Y-%m-%d) on $(nproc) × ${CPU:-unknown CPU}, PostgreSQL $PGV"
	echo
	echo "Command: \`SCALES=\"$SCALES\" bench/shop/run.sh\` (floe $("$FLOE" --version | cut -d' ' -f2)," \
		"git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'));" \
		"load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows both sides)"
	echo
	echo "| scale | rows | floe COPY s | floe rows/s | floe + keys s | floe total s (with checksum) | psql COPY s | psql rows/s | psql + keys s | COPY speed floe/psql | end to end psql/floe |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$WORK/report.md"

for s in $SCALES; do
	out="$("$FLOE" shop generate --scale "$s" --replace --json --target "$SOCK:$PORT/bench")"
	rows="$(echo "$out" | sed 's/.*"rows":\([0-9]*\),"checksum".*/\1/')"
	load="$(echo "$out" | json_num load)"
	post="$(echo "$out" | json_num post)"
	total="$(echo "$out" | json_num total)"
	peer="$(peer_load "$s")"
	read -r pcopy ptotal <<< "$peer"
	fkeys="$(calc "$load + $post")"
	printf '| %s | %s | %.2f | %.0f | %.2f | %.2f | %.2f | %.0f | %.2f | %.2f× | %.2f× |\n' \
		"$s" "$rows" "$load" "$(calc "$rows / $load")" "$fkeys" "$total" \
		"$pcopy" "$(calc "$rows / $pcopy")" "$ptotal" \
		"$(calc "$pcopy / $load")" "$(calc "$ptotal / $fkeys")" >> "$WORK/report.md"
done
echo >> "$WORK/report.md"
cat "$WORK/report.md"
if [ -n "${BENCH_RECORD:-}" ]; then
	{ echo; cat "$WORK/report.md"; } >> "$ROOT/bench/RESULTS.md"
fi
