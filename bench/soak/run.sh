#!/usr/bin/env bash
# bench/soak/run.sh (`make soak`, not part of `make test`): `floe serve` on a one-minute schedule
# (bronze and silver, every table of the shop) for SOAK_MINUTES (default 30) while `floe shop tick`
# sends OLTP traffic every 15 s. Checks, and appends to bench/RESULTS.md:
#   - RSS of the serve process, sampled every 30 s: flat (the slope after a 5-minute warm-up, and
#     the growth from the first to the last third of the samples);
#   - every run the scheduler started is in the ledger (its log's "started run" lines against the
#     ledger's runs), none left running;
#   - no overlap: per source table, each bronze/silver record ends before the next one starts.
# SOAK_LOG=FILE and SOAK_LEDGER=FILE keep a copy of the server's log and of the ledger (.floe/state.db).
set -euo pipefail
NAME=soak; . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
MINUTES="${SOAK_MINUTES:-30}"
SCALE="${SOAK_SCALE:-0.02}"
export FLOE_SOURCE_PASSWORD="$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"

bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
"$FLOE" -C "$WORK" generate >/dev/null
printf '\n[schedule]\nbronze = "* * * * *"\nsilver = "* * * * *"\nretries = 1\n' >>"$WORK/floe.toml"

"$FLOE" -C "$WORK" -v serve --listen 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.log" &
SERVE=$!
for _ in $(seq 50); do grep -q listening "$WORK/serve.out" && break; sleep 0.2; done
URL="$(sed -n 's/^listening on //p' "$WORK/serve.out")"
echo "soak: floe serve (pid $SERVE) at $URL for $MINUTES minutes, scale $SCALE"

start=$(date +%s)
end=$((start + MINUTES * 60))
next_sample=$start
: >"$WORK/rss.csv"
while [ "$(date +%s)" -lt "$end" ]; do
	now=$(date +%s)
	if [ "$now" -ge "$next_sample" ]; then
		echo "$((now - start)) $(awk '/^VmRSS/ {print $2}' /proc/$SERVE/status)" >>"$WORK/rss.csv"
		next_sample=$((next_sample + 30))
	fi
	"$FLOE" -C "$WORK" shop tick --orders 20 --updates 10 --deletes 1 >/dev/null 2>>"$WORK/tick.log" || true
	sleep 15
done
curl -s "$URL/metrics" >"$WORK/metrics.txt" || true
kill -TERM "$SERVE"
wait "$SERVE" && serve_rc=0 || serve_rc=$?

cp "$WORK/serve.log" "${SOAK_LOG:-/dev/null}" 2>/dev/null || true
[ -z "${SOAK_LEDGER:-}" ] || cp "$WORK/.floe/state.db" "$SOAK_LEDGER"
python3 - "$WORK" "$MINUTES" "$SCALE" "$serve_rc" <<'PY' | tee "$WORK/result.md"
import re, sqlite3, statistics, sys
work, minutes, scale, rc = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
rss = [tuple(map(int, l.split())) for l in open(f"{work}/rss.csv") if len(l.split()) == 2]
warm = [(t, kb) for t, kb in rss if t >= 300] or rss
n = len(warm)
mt = sum(t for t, _ in warm) / n
mk = sum(kb for _, kb in warm) / n
den = sum((t - mt) ** 2 for t, _ in warm) or 1
slope = sum((t - mt) * (kb - mk) for t, kb in warm) / den * 60  # KiB per minute
third = max(1, n // 3)
first, last = statistics.median(k for _, k in warm[:third]), statistics.median(k for _, k in warm[-third:])
log = open(f"{work}/serve.log").read()
started = len(re.findall(r"started run", log))
skipped = len(re.findall(r"skipped the tick", log))
db = sqlite3.connect(f"{work}/.floe/state.db")
runs = dict(db.execute("SELECT status, count(*) FROM runs GROUP BY status").fetchall())
rows = db.execute("SELECT source, table_name, started_at, finished_at FROM table_runs "
                  "WHERE layer IN ('bronze', 'silver') ORDER BY started_at").fetchall()
by_table = {}
for source, name, s, f in rows:
    key = name.split(".", 1)[1] if name.startswith("silver.") else (source or name).split(".", 1)[1]
    by_table.setdefault(key, []).append((s, f, name))
overlaps = sum(1 for recs in by_table.values() for a, b in zip(recs, recs[1:]) if a[1] is None or a[1] > b[0])
ledger_runs = sum(runs.values()) - 0
flat = slope < 50 and last - first < max(2048, first * 0.05)
print(f"\n### floe serve soak — {minutes} min, shop scale {scale}, schedule bronze and silver `* * * * *`\n")
print(f"| measure | value |\n|---|---|")
print(f"| RSS samples (every 30 s) | {len(rss)}; after warm-up (5 min) {n} |")
print(f"| RSS first third → last third (median) | {first:.0f} KiB → {last:.0f} KiB |")
print(f"| RSS slope after warm-up | {slope:+.1f} KiB/min |")
print(f"| runs started by the scheduler (log) | {started} |")
print(f"| runs in the ledger | {ledger_runs} ({', '.join(f'{k} {v}' for k, v in sorted(runs.items()))}) |")
print(f"| ticks skipped (previous run still going) | {skipped} |")
print(f"| table records checked for overlap | {len(rows)} over {len(by_table)} tables; overlaps: {overlaps} |")
print(f"| floe serve exit on SIGTERM | {rc} |")
ok = flat and started == ledger_runs and runs.get("running", 0) == 0 and overlaps == 0 and rc == 0
print(f"\nverdict: {'pass' if ok else 'FAIL'} (RSS {'flat' if flat else 'GROWING'}; "
      f"{'every run in the ledger' if started == ledger_runs else 'runs missing from the ledger'}; "
      f"{'no overlap' if overlaps == 0 else 'OVERLAP'})")
sys.exit(0 if ok else 1)
PY
status=${PIPESTATUS[0]}
{
	echo
	echo "Command: \`make soak\` (SOAK_MINUTES=$MINUTES SOAK_SCALE=$SCALE; floe $("$FLOE" --version | awk '{print $2}'), git $(git -C "$ROOT" rev-parse --short HEAD)), $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
	cat "$WORK/result.md"
} >>"$ROOT/bench/RESULTS.md"
exit "$status"
