#!/usr/bin/env bash
# bench/serve/run.sh — `floe serve` under load (`make bench-serve`; not part of `make test`): the
# shop (SCALE, default 1) loaded into bronze, then CLIENTS (50) concurrent clients for DURATION seconds (60)
# on keep-alive connections load Iceberg tables through the REST catalog (/iceberg) and scrape
# /metrics (one request in five). Targets (issue #18): no error, p99 latency recorded, RSS flat
# (the server's RSS at the end within 10 % + 8 MB of its RSS after the first 10 s). Prints a
# Markdown block; with BENCH_RECORD=1 it is also appended to bench/RESULTS.md. Every request goes
# to 127.0.0.1; the load stops by itself after DURATION seconds.
set -euo pipefail

NAME=serve
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PY="$ROOT/.venv/bin/python"
SCALE="${SCALE:-1}"
CLIENTS="${CLIENTS:-50}"
DURATION="${DURATION:-60}"
export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"

bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK/p" >/dev/null
"$FLOE" -C "$WORK/p" generate >/dev/null
"$FLOE" -C "$WORK/p" run --layer bronze --no-sync >/dev/null 2>&1 || true

"$FLOE" -C "$WORK/p" serve --listen 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
trap 'kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; bench_cleanup' EXIT
for _ in $(seq 100); do grep -q '^listening on' "$WORK/serve.out" && break; sleep 0.1; done
BASE="$(sed -n 's/^listening on //p' "$WORK/serve.out")"
[ -n "$BASE" ] || { cat "$WORK/serve.err" >&2; exit 1; }

R="$("$PY" "$ROOT/bench/serve/load.py" "$BASE" "$SERVE_PID" "$DURATION" "$CLIENTS")"
verdict="$("$PY" - "$R" <<'PYEOF'
import json, sys
r = json.loads(sys.argv[1]); m = r["rss_mb"]
flat = m["end"] <= m["at_10s"] * 1.10 + 8
print("met" if r["errors"] == 0 and flat else f"NOT met: {r['errors']} errors, RSS {m['at_10s']} → {m['end']} MB")
PYEOF
)"
block="$("$PY" - "$R" "$verdict" "$SCALE" "$(git -C "$ROOT" rev-parse --short HEAD)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc) × $(sed -n 's/^model name.*: //p' /proc/cpuinfo | head -1)" <<'PYEOF'
import json, sys, datetime
r, verdict, scale, git, load, cpu = json.loads(sys.argv[1]), *sys.argv[2:]
print(f"### floe serve under load — {datetime.date.today()} on {cpu}\n")
print(f"Command: `SCALE={scale} bench/serve/run.sh` (git {git}); {r['clients']} clients for {r['seconds']:.0f} s over "
      f"{r['tables']} bronze tables; load average before: {load}\n")
print("| requests | count | per s | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|")
for k, name in (("load", "GET /iceberg/…/tables/T (load table)"), ("metrics", "GET /metrics")):
    x = r[k]
    print(f"| {name} | {x['requests']} | {x['per_s']} | {x['p50_ms']} | {x['p99_ms']} | {x['max_ms']} |")
m = r["rss_mb"]
print(f"\nErrors: {r['errors']}. Server RSS: {m['start']} MB at 1 s, {m['at_10s']} MB at 10 s, {m['end']} MB at the end "
      f"(max {m['max']} MB). Targets (no error, RSS flat): {verdict}.")
if r["first_errors"]:
    print("\nFirst errors: " + "; ".join(r["first_errors"]))
PYEOF
)"
echo "$block"
if [ "${BENCH_RECORD:-0}" = 1 ]; then
	printf '\n%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
case $verdict in met) exit 0 ;; *) exit 1 ;; esac
