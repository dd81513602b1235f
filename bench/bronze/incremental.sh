#!/usr/bin/env bash
# bench/bronze/incremental.sh — an incremental bronze run after a 0.1 % change, against the full
# load of the same table, in one run (issue #5's target: under 5 % of the full load's time).
#
#   orders   the shop's orders (uuid v4 keys, spread at random): `floe shop tick` inserts, progresses
#            (updates) and deletes orders; the changed keys fall in every key range
#   events   a table keyed by a serial id whose changes are recent rows and new ids (the common
#            OLTP shape): updates of the newest rows, inserts after them, a few deletes
#
# For each: the full load (first run: sorted by key into bounded files), then the change, then the
# incremental run (`--no-reconcile`: the load alone; bench/reconcile measures reconciliation); wall
# time and peak RSS (/usr/bin/time), and what the snapshot summary says. `events` runs twice: a
# change with three deletes, then one without. The full load is the median of ROUNDS (default 3)
# first loads, each into a project of its own over the same source (one load varies by a second:
# the source's sort), and orders' incremental run the median of ROUNDS runs, each after its own
# 0.1 % change (single runs vary by a tenth); every value is printed beside its median. The floor of an exact incremental run is one pass
# over the source's primary key (the row count that proves no key left): `count(*)` of the table,
# best of three, is measured in the same run and shown against the full load.
#
#   SCALE=45 bench/bronze/incremental.sh   # orders ≈ 4.5 M rows, events 5 M rows
set -euo pipefail

NAME=incr
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SCALE="${SCALE:-10}"
EVENTS="${EVENTS:-5000000}"

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
bench_events_table "$EVENTS"
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
# WRITE_MODE=merge-on-read|copy-on-write: [bronze] write-mode of the run (docs/merge-on-read.md);
# automatic compaction off, so COMPACT_RUNS runs' delete files pile up for the compaction measured last.
WRITE_MODE="${WRITE_MODE:-copy-on-write}"
COMPACT_RUNS="${COMPACT_RUNS:-20}"
ROUNDS="${ROUNDS:-3}"
# project DIR: a floe project over the stack's shop in DIR, with the run's write mode, no automatic compaction
project() {
	[ "$1" = "$WORK" ] || "$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$1" >/dev/null
	sed -i "s/^\[bronze\]\$/[bronze]\nwrite-mode = \"$WRITE_MODE\"/" "$1/floe.toml"
	printf '\n[compaction]\nafter-run = false\n' >>"$1/floe.toml"
	"$FLOE" -C "$1" generate >/dev/null
}
project "$WORK"

# timed NAME CMD...: wall seconds and peak RSS (kB); after a sync, so that the writeback of what
# earlier steps wrote (a full load's files: flushed ~30 s after they were written) does not run
# inside the timed command
timed() {
	sync
	/usr/bin/time -f '%e %M' -o "$WORK/time" "${@:2}" >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
	read -r t m <"$WORK/time"
	echo "$t $m"
}
summary() {
	"$ROOT/.venv/bin/python" - "$WORK" "$1" <<'PY'
import sys
from pyiceberg.catalog.sql import SqlCatalog
d, t = sys.argv[1], sys.argv[2]
s = SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse") \
    .load_table(f"bronze.{t}").current_snapshot().summary
print(", ".join(f"{k.split('.', 1)[1]} {s[k]}" for k in ("floe.rows-read", "floe.rows-inserted",
      "floe.rows-updated", "floe.rows-deleted", "floe.files-rewritten") if s.get(k) is not None)
      + f"; {s.get('total-data-files')} files")
PY
}

# count_seconds TABLE: the best of three `count(*)` (what every exact incremental run pays at least)
count_seconds() {
	for _ in 1 2 3; do
		"${PSQL[@]}" -c '\timing on' -c "select count(*) from $1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
	done | sort -g | head -1 | awk '{ printf "%.3f", $1 / 1000 }'
}

# median_of "a b c": the median; joined "a b c": "a / b / c"
median_of() { printf '%s\n' $1 | median; }
joined() { echo "$1" | sed 's/ / \/ /g'; }

# the full loads, before any change: round 1 in $WORK (the incremental runs follow there), the others
# in projects of their own
rows_orders=$("${PSQL[@]}" -c 'select count(*) from orders')
ofs="" efs="" om=0 em=0
for r in $(seq 1 "$ROUNDS"); do
	dir="$WORK"
	[ "$r" = 1 ] || { dir="$WORK/round$r"; mkdir -p "$dir"; project "$dir"; }
	read -r t m <<<"$(timed full "$FLOE" -C "$dir" run --no-reconcile --table public.orders)"
	ofs+="${ofs:+ }$t"; ((m > om)) && om=$m
	read -r t m <<<"$(timed full "$FLOE" -C "$dir" run --no-reconcile --table public.events)"
	efs+="${efs:+ }$t"; ((m > em)) && em=$m
	[ "$r" = 1 ] || rm -rf "$dir"
done
of=$(median_of "$ofs") ef=$(median_of "$efs")

per=$((rows_orders / 1000 / 3 + 1))
ois="" oim=0
for r in $(seq 1 "$ROUNDS"); do
	"$FLOE" -C "$WORK" shop tick --orders "$per" --updates "$per" --deletes "$per" >/dev/null
	"$FLOE" -C "$WORK" shop tick --orders "$per" --updates "$per" --deletes "$per" >/dev/null
	read -r t m <<<"$(timed incr "$FLOE" -v -C "$WORK" run --no-reconcile --table public.orders)"; grep "in [0-9.]* s" "$WORK/err" >&2 || true
	ois+="${ois:+ }$t"; ((m > oim)) && oim=$m
done
oi=$(median_of "$ois")
orders_summary=$(summary orders)
oc=$(count_seconds orders)

n=$((EVENTS / 1000))
"${PSQL[@]}" <<SQL
UPDATE events SET kind = 'refund', amount = -amount WHERE id > $EVENTS - $((n / 2));
INSERT INTO events SELECT g, 'view', 1, md5(g::text) FROM generate_series($EVENTS + 1, $EVENTS + $((n / 2))) g;
DELETE FROM events WHERE id IN ($EVENTS - $n, $EVENTS - $n - 7, $EVENTS - $n - 99);
SQL
read -r ei eim <<<"$(timed incr "$FLOE" -v -C "$WORK" run --no-reconcile --table public.events)"; grep "in [0-9.]* s" "$WORK/err" >&2 || true
events_summary=$(summary events)
"${PSQL[@]}" <<SQL
UPDATE events SET kind = 'view' WHERE id > $EVENTS;
INSERT INTO events SELECT g, 'cart', 2, md5(g::text) FROM generate_series($EVENTS + $((n / 2)) + 1, $EVENTS + $n) g;
SQL
read -r en enm <<<"$(timed incr "$FLOE" -v -C "$WORK" run --no-reconcile --table public.events)"; grep "in [0-9.]* s" "$WORK/err" >&2 || true
events_nodel_summary=$(summary events)
ec=$(count_seconds events)
# COMPACT_RUNS more runs of the same 0.1 % change shape, then one compaction (merge-on-read: it folds
# every run's delta files and delete files back into key-sorted files), against the full load.
for i in $(seq 1 "$COMPACT_RUNS"); do
	"${PSQL[@]}" -c "UPDATE events SET amount = amount + 1 WHERE id % 1000 = $i" \
		-c "DELETE FROM events WHERE id IN ($((i * 997)), $((i * 991 + 13)))"
	"$FLOE" -C "$WORK" run --no-reconcile --table public.events >/dev/null 2>&1
done
read -r cs cm <<<"$(timed compact "$FLOE" -C "$WORK" compact --table public.events)"
compact_summary=$(summary events)
ratio() { awk "BEGIN { printf \"%.1f\", 100 * $1 / $2 }"; }

block=$(cat <<MD

### bronze incremental run after a 0.1 % change — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Write mode: **$WRITE_MODE**. Command: \`WRITE_MODE=$WRITE_MODE SCALE=$SCALE EVENTS=$EVENTS bench/bronze/incremental.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); target-file-rows 262144 (the default); load average before: $(cut -d' ' -f1-3 /proc/loadavg)

Medians of $ROUNDS: full loads $(joined "$ofs") s (orders), $(joined "$efs") s (events); orders' incremental runs $(joined "$ois") s (each after its own 0.1 % change; the summary is the last one's).

| table | rows | full load s (median) | incremental s | incremental / full | floor: count(*) s (/ full) | peak RSS MB (full / incr) | the incremental snapshot |
|---|---|---|---|---|---|---|---|
| orders (uuid keys) | $rows_orders | $of | $oi (median) | $(ratio "$oi" "$of") % | $oc ($(ratio "$oc" "$of") %) | $((om / 1024)) / $((oim / 1024)) | $orders_summary |
| events (serial keys) | $EVENTS | $ef | $ei | $(ratio "$ei" "$ef") % | $ec ($(ratio "$ec" "$ef") %) | $((em / 1024)) / $((eim / 1024)) | $events_summary |
| events, no deletes | $EVENTS | $ef | $en | $(ratio "$en" "$ef") % | $ec ($(ratio "$ec" "$ef") %) | $((em / 1024)) / $((enm / 1024)) | $events_nodel_summary |
| events: compaction after $COMPACT_RUNS more runs | $EVENTS | $ef | $cs (compact) | $(ratio "$cs" "$ef") % | | $((em / 1024)) / $((cm / 1024)) | $compact_summary |
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
