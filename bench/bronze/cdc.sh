#!/usr/bin/env bash
# bench/bronze/cdc.sh — CDC catch-up after a 0.1 % change (docs/cdc.md), against the
# trigger-watermark incremental run and the full load of the same tables, in one run
# (issue #22's target: CDC under 2 % of the full load's time).
#
#   orders   the shop's orders (uuid keys): `floe shop tick` inserts, progresses and deletes orders
#   events   keyed by a serial id: updates of the newest rows, inserts after them, a few deletes
#
# Two projects read the same source: `incr` (the plan's incremental mode, watermark + key-set
# diff) and `cdc` ([cdc] tables, slot created by floe, publications by the "DBA" here). Each
# loads in full first (the CDC one at its slot's exported snapshot), then the same change is
# made once, then each catches up; `--no-reconcile` (the load alone) for all three timings.
#
#   SCALE=3 EVENTS=1000000 bench/bronze/cdc.sh   # modest: the machine is shared
set -euo pipefail

NAME=cdc
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SCALE="${SCALE:-3}"
EVENTS="${EVENTS:-1000000}"

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
bench_events_table "$EVENTS"
"${PSQL[@]}" <<SQL
ALTER ROLE floe_reader REPLICATION;
CREATE PUBLICATION floe_cdc_public_orders FOR TABLE orders;
CREATE PUBLICATION floe_cdc_public_events FOR TABLE events;
SQL
for p in incr cdc; do
	mkdir -p "$WORK/$p" && chmod 755 "$WORK/$p"
	"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK/$p" >/dev/null
done
printf '\n[cdc]\ntables = ["public.orders", "public.events"]\ncreate-slot = true\n' >>"$WORK/cdc/floe.toml"
for p in incr cdc; do "$FLOE" -C "$WORK/$p" generate >/dev/null; done

# timed PROJECT TABLE: wall seconds and peak RSS (kB) of `floe run` of one table, the load alone
timed() {
	/usr/bin/time -f '%e %M' -o "$WORK/time" "$FLOE" -C "$WORK/$1" run --no-reconcile --layer bronze \
		--table "public.$2" >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" "$WORK/out" >&2; exit 1; }
	read -r t m <"$WORK/time"
	echo "$t $m"
}
mode() {
	"$ROOT/.venv/bin/python" - "$WORK/$1" "$2" <<'PY'
import sys
from pyiceberg.catalog.sql import SqlCatalog
d, t = sys.argv[1], sys.argv[2]
s = SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse") \
    .load_table(f"bronze.{t}").current_snapshot().summary
print(f"{s.get('floe.load-mode')}, {s.get('total-records')} rows" + (f", lsn {s['floe.cdc.lsn']}" if 'floe.cdc.lsn' in s else ""))
PY
}

rows_orders=$("${PSQL[@]}" -c 'select count(*) from orders')
declare -A full cdcfull
for t in orders events; do
	read -r f fm <<<"$(timed incr "$t")"; full[$t]="$f $fm"
	read -r c cm <<<"$(timed cdc "$t")"; cdcfull[$t]="$c $cm"
done
per=$((rows_orders / 1000 / 3 + 1))
"$FLOE" shop tick --target "$SOCK:$PORT/shop" --orders "$per" --updates "$per" --deletes "$per" >/dev/null
"$FLOE" shop tick --target "$SOCK:$PORT/shop" --orders "$per" --updates "$per" --deletes "$per" >/dev/null
n=$((EVENTS / 1000))
"${PSQL[@]}" <<SQL
UPDATE events SET kind = 'refund', amount = -amount WHERE id > $EVENTS - $((n / 2));
INSERT INTO events SELECT g, 'view', 1, md5(g::text) FROM generate_series($EVENTS + 1, $EVENTS + $((n / 2))) g;
DELETE FROM events WHERE id IN ($EVENTS - $n, $EVENTS - $n - 7, $EVENTS - $n - 99);
SQL
declare -A inc cdc idle
for t in orders events; do
	read -r i im <<<"$(timed incr "$t")"; inc[$t]="$i $im"
	read -r c cm <<<"$(timed cdc "$t")"; cdc[$t]="$c $cm"
	read -r z _ <<<"$(timed cdc "$t")"; idle[$t]="$z" # nothing left to apply: the fixed cost
done
ratio() { awk "BEGIN { printf \"%.1f\", 100 * $1 / $2 }"; }
row() { # table rows
	read -r f _ <<<"${full[$1]}"; read -r i _ <<<"${inc[$1]}"; read -r c cm <<<"${cdc[$1]}"; read -r cf _ <<<"${cdcfull[$1]}"
	echo "| $1 | $2 | $f | $cf | $i ($(ratio "$i" "$f") %) | $c ($(ratio "$c" "$f") %) | ${idle[$1]} ($(ratio "${idle[$1]}" "$f") %) | $((cm / 1024)) | $(mode cdc "$1") |"
}
block=$(cat <<MD

### bronze CDC catch-up after a 0.1 % change — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE EVENTS=$EVENTS bench/bronze/cdc.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); modest scale, on a machine shared by 8 people; load average before: $(cut -d' ' -f1-3 /proc/loadavg)

| table | rows | full load s | CDC initial copy s | incremental s (/ full) | CDC catch-up s (/ full) | CDC, nothing to apply s (/ full) | CDC peak RSS MB | the CDC snapshot |
|---|---|---|---|---|---|---|---|---|
$(row orders "$rows_orders")
$(row events "$EVENTS")
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
