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

# timed PROJECT TABLE [OPTION]: wall seconds and peak RSS (kB) of `floe run` of one table, the
# load alone (--no-reconcile) unless an option is given (then the load and reconciliation)
timed() {
	/usr/bin/time -f '%e %M' -o "$WORK/time" "$FLOE" -C "$WORK/$1" run "${3:---no-reconcile}" --layer bronze \
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
# change ROUND: the same 0.1 % change shape each round (orders: two ticks; events: updates of the
# newest rows, as many inserts after them, three deletes), on rows no earlier round touched
change() {
	"$FLOE" shop tick --target "$SOCK:$PORT/shop" --orders "$per" --updates "$per" --deletes "$per" >/dev/null
	"$FLOE" shop tick --target "$SOCK:$PORT/shop" --orders "$per" --updates "$per" --deletes "$per" >/dev/null
	local top=$((EVENTS + ($1 - 1) * n / 2))
	"${PSQL[@]}" <<SQL
UPDATE events SET kind = 'refund', amount = -amount WHERE id > $top - $((n / 2)) AND id <= $top;
INSERT INTO events SELECT g, 'view', 1, md5(g::text) FROM generate_series($top + 1, $top + $((n / 2))) g;
DELETE FROM events WHERE id IN ($EVENTS - $1 * $n, $EVENTS - $1 * $n - 7, $EVENTS - $1 * $n - 99);
SQL
}
n=$((EVENTS / 1000))
change 1
declare -A inc cdc idle rec rdetail
for t in orders events; do
	read -r i im <<<"$(timed incr "$t")"; inc[$t]="$i $im"
	read -r c cm <<<"$(timed cdc "$t")"; cdc[$t]="$c $cm"
	read -r z _ <<<"$(timed cdc "$t")"; idle[$t]="$z" # nothing left to apply: the fixed cost
done
# the same change again, caught up with reconciliation (V3, floe run's default) after the load
change 2
for t in orders events; do
	read -r r _ <<<"$(timed cdc "$t" --tier=V3)"; rec[$t]="$r"
	rdetail[$t]=$(sed -n 's/^ *\(verified\|diverged\|unverified\)\(.*\)$/\1\2/p' "$WORK/out" | head -1)
done
# freshness: for FRESH_SECONDS (60) a ticker commits a shop tick every second while `floe run`
# catches orders up back to back (the load alone: bronze's commit is when a change is visible).
# A tick is visible once a run that started after it returned has ended: freshness is that end
# less the tick's return (p50, p99); throughput is the keys the runs applied per second.
freshness() {
	local secs="${FRESH_SECONDS:-60}" end
	end=$(($(date +%s) + secs))
	: >"$WORK/ticks"; : >"$WORK/runs"
	( while [ "$(date +%s)" -lt "$end" ]; do
		"$FLOE" shop tick --target "$SOCK:$PORT/shop" --orders 20 --updates 20 --deletes 2 --late 0 >/dev/null
		date +%s.%N >>"$WORK/ticks"; sleep 1
	done ) &
	local ticker=$!
	while [ "$(date +%s)" -lt $((end + 2)) ]; do
		local t0 t1
		t0=$(date +%s.%N)
		"$FLOE" -C "$WORK/cdc" run --no-reconcile --layer bronze --table public.orders >"$WORK/out" 2>&1 ||
			{ cat "$WORK/out" >&2; kill "$ticker"; exit 1; }
		t1=$(date +%s.%N)
		echo "$t0 $t1 $(sed -n 's/.*cdc: .* \([0-9]*\) keys.*/\1/p' "$WORK/out" | head -1)" >>"$WORK/runs"
	done
	wait "$ticker"
	"$ROOT/.venv/bin/python" - "$WORK/ticks" "$WORK/runs" "$secs" <<'PY'
import sys
ticks = [float(x) for x in open(sys.argv[1]).read().split()]
runs = [(float(f[0]), float(f[1]), int(f[2]) if len(f) > 2 else 0) for f in (l.split() for l in open(sys.argv[2])) if f]
fresh = sorted(next(e for s, e, _ in runs if s >= t) - t for t in ticks if any(s >= t for s, _, _ in runs))
pct = lambda p: fresh[min(len(fresh) - 1, int(p * len(fresh)))]
span = runs[-1][1] - runs[0][0]
print(f"Freshness over {sys.argv[3]} s (a shop tick of 20 new orders, 20 status updates and 2 deletes "
      f"committed every second, `floe run` of orders back to back, load alone): {len(runs)} runs, "
      f"{len(fresh)} ticks; commit in PostgreSQL → visible in bronze p50 {pct(0.5):.2f} s, "
      f"p99 {pct(0.99):.2f} s, max {fresh[-1]:.2f} s; sustained {sum(k for *_, k in runs) / span:.0f} "
      f"changed keys/s applied ({span / len(runs):.2f} s per run).")
PY
}
# follow: `floe run --follow` (load alone) on both tables of the cdc project, its position indexes
# built by a first small change. Apply: the same 0.1 % change shape (round 3) made while the
# follower is stopped (SIGSTOP, while it sleeps between two polls), so one batch per table carries it: the follower's log, from
# reading the slot to the commit (and acknowledgement). Latency: 5 single-row updates per table,
# one at a time, each from its commit in PostgreSQL to the catalog's current snapshot having an
# floe.cdc.lsn past it (polled every 5 ms); the median.
lsn_now() { "${PSQL[@]}" -c 'select pg_current_wal_lsn()::text'; }
visible() { # LSN START TABLE…: seconds from START until each table's bronze LSN reaches LSN
	"$ROOT/.venv/bin/python" - "$WORK/cdc/warehouse/catalog.db" "$@" <<'PY'
import json, sqlite3, sys, time
db, target, start, tables = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
num = lambda t: (int(t.split("/")[0], 16) << 32) | int(t.split("/")[1], 16)
want, out, deadline = num(target), {}, time.time() + 600
while len(out) < len(tables) and time.time() < deadline:
    for t in tables:
        if t in out:
            continue
        c = sqlite3.connect(db)
        (loc,) = c.execute("select metadata_location from iceberg_tables where table_namespace = 'bronze' "
                           "and table_name = ?", (t,)).fetchone()
        c.close()
        md = json.load(open(loc[len("file://"):] if loc.startswith("file://") else loc))
        snap = next(s for s in md["snapshots"] if s["snapshot-id"] == md["current-snapshot-id"])
        if num(snap["summary"].get("floe.cdc.lsn", "0/0")) >= want:
            out[t] = time.time() - start
    time.sleep(0.005)
print(" ".join(f"{out.get(t, -1):.3f}" for t in tables))
PY
}
applied() { # TABLE FROM-LINE: "seconds batches" of the follower's batches with keys since FROM-LINE
	tail -n +"$2" "$WORK/follow.log" | awk -v t="bronze.$1: batch: slot read" 'index($0, t) && !/ 0 keys;/ {
		s += $8 + $14; n++ } END { printf "%.3f %d", s, n }'
}
median5() { tr ' ' '\n' | sort -n | sed -n 3p; }
follow() {
	# compacted first: the earlier runs' delete files would make the follower compact after its first
	# batches ([compaction] delete-files), and a compaction makes the next batch rebuild the index
	"$FLOE" -C "$WORK/cdc" compact --table public.orders --table public.events >/dev/null
	"$FLOE" -v -C "$WORK/cdc" run --follow --no-reconcile --table public.orders --table public.events \
		2>"$WORK/follow.log" &
	local pid=$! from lo="" le=""
	"${PSQL[@]}" -c "UPDATE events SET amount = amount WHERE id = 1" # builds the indexes
	"$FLOE" shop tick --target "$SOCK:$PORT/shop" --orders 1 --updates 1 --deletes 0 >/dev/null
	visible "$(lsn_now)" "$(date +%s.%N)" orders events >/dev/null
	# stopped between two polls (asleep), so no batch's time includes the stop
	until [ "$(cat "/proc/$pid/wchan" 2>/dev/null)" = hrtimer_nanosleep ]; do sleep 0.002; done
	kill -STOP "$pid"
	from=$(($(wc -l <"$WORK/follow.log") + 1))
	change 3
	kill -CONT "$pid"
	visible "$(lsn_now)" "$(date +%s.%N)" orders events >/dev/null
	for _ in $(seq 100); do # a batch logs just after its commit is visible
		fo=$(applied orders "$from"); fe=$(applied events "$from")
		[ "${fo#* }" = 0 ] || [ "${fe#* }" = 0 ] || break
		sleep 0.05
	done
	# the LSN read inside the update's transaction (one -c: one transaction) precedes its commit
	# record; one read after the commit may be past WAL a checkpointer wrote later, which no batch
	# of the table would pass until its next periodic commit (30 s)
	local at
	for i in 1 2 3 4 5; do
		at=$("${PSQL[@]}" -c "UPDATE orders SET order_status = order_status WHERE order_id = (SELECT order_id FROM orders ORDER BY order_id OFFSET $((i * 1000)) LIMIT 1); SELECT pg_current_wal_insert_lsn()::text")
		lo="$lo $(visible "$at" "$(date +%s.%N)" orders)"
		at=$("${PSQL[@]}" -c "UPDATE events SET amount = amount WHERE id = $((i * 1000)); SELECT pg_current_wal_insert_lsn()::text")
		le="$le $(visible "$at" "$(date +%s.%N)" events)"
	done
	[ -z "${FOLLOW_LOG:-}" ] || cp "$WORK/follow.log" "$FOLLOW_LOG" # FOLLOW_LOG=path keeps the follower's log
	kill -TERM "$pid"; wait "$pid" || { echo "the follower failed:" >&2; tail -20 "$WORK/follow.log" >&2; exit 1; }
	fvis="$(echo $lo | median5) $(echo $le | median5)"
	flat="orders:$lo; events:$le"
}
follow
ratio() { awk "BEGIN { printf \"%.1f\", 100 * $1 / $2 }"; }
row() { # table rows
	read -r f _ <<<"${full[$1]}"; read -r i _ <<<"${inc[$1]}"; read -r c cm <<<"${cdc[$1]}"; read -r cf _ <<<"${cdcfull[$1]}"
	echo "| $1 | $2 | $f | $cf | $i ($(ratio "$i" "$f") %) | $c ($(ratio "$c" "$f") %) | ${idle[$1]} ($(ratio "${idle[$1]}" "$f") %) | ${rec[$1]} ($(ratio "${rec[$1]}" "$f") %) | $((cm / 1024)) | $(mode cdc "$1") |"
}
block=$(cat <<MD

### bronze CDC catch-up after a 0.1 % change — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE EVENTS=$EVENTS bench/bronze/cdc.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); load average before: $(cut -d' ' -f1-3 /proc/loadavg)

| table | rows | full load s | CDC initial copy s | incremental s (/ full) | CDC catch-up s (/ full) | CDC, nothing to apply s (/ full) | CDC catch-up + V3 reconciliation s (/ full) | CDC peak RSS MB | the CDC snapshot |
|---|---|---|---|---|---|---|---|---|---|
$(row orders "$rows_orders")
$(row events "$EVENTS")

Reconciliation after the CDC batch — orders: ${rdetail[orders]}; events: ${rdetail[events]}.

\`floe run --follow\` (load alone), position indexes built; the same change shape made while the follower was stopped, then one batch per table — orders: applied in ${fo% *} s (${fo#* } batch$([ "${fo#* }" = 1 ] || echo es); $(ratio "${fo% *}" "${full[orders]% *}") % of the full load); events: applied in ${fe% *} s (${fe#* } batch$([ "${fe#* }" = 1 ] || echo es); $(ratio "${fe% *}" "${full[events]% *}") %). Apply time = the follower's log, from reading the slot to the catalog commit and the slot's acknowledgement. A single-row update → visible in bronze, median of 5: orders $(echo "$fvis" | cut -d' ' -f1) s, events $(echo "$fvis" | cut -d' ' -f2) s (each: $flat).
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
