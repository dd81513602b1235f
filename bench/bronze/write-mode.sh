#!/usr/bin/env bash
# bench/bronze/write-mode.sh — which `[bronze] write-mode` should be the default: the shop's whole
# pipeline after a 0.1 % change, copy-on-write against merge-on-read, in one run on one source.
#
#   setup    a private PostgreSQL, `floe shop generate --scale S`; two projects on it, identical
#            but for `[bronze] write-mode` (cow, mor); each `floe run` once (bronze, reconciliation,
#            silver: not timed)
#   rounds   ROUNDS times: `floe shop tick` sized to 0.1 % of orders (new, progressed and deleted
#            orders, their items, payments and reviews), then in each project — the order
#            alternating between rounds — `floe run --layer bronze` (the loads and their
#            reconciliation, as a user runs them) and `floe run --layer silver` (the incremental
#            build over what bronze committed), each timed
#   then     `floe compact` of each project (merge-on-read's delete files folded back; nothing to
#            do for copy-on-write), timed
#
# Every run must leave every table loaded and verified and every silver table built or
# unchanged (the benchmark stops otherwise). Prints a Markdown block; with BENCH_RECORD=1 it is
# also appended to bench/RESULTS.md.
#
#   SCALE=10 ROUNDS=3 bench/bronze/write-mode.sh
set -euo pipefail

NAME=writemode
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SCALE="${SCALE:-10}"
ROUNDS="${ROUNDS:-3}"
PY="$ROOT/.venv/bin/python"
export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export FLOE_PII_KEY="bench-pii-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bench_stack_up shop floe_reader
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U postgres shop)
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
declare -A MODE=([cow]=copy-on-write [mor]=merge-on-read)
for p in cow mor; do
	mkdir -p "$WORK/$p" && chmod 755 "$WORK/$p"
	"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK/$p" >/dev/null
	sed -i "s/^\[bronze\]\$/[bronze]\nwrite-mode = \"${MODE[$p]}\"/" "$WORK/$p/floe.toml"
	grep -q "^write-mode = \"${MODE[$p]}\"" "$WORK/$p/floe.toml" || { echo "bench: could not set write-mode" >&2; exit 2; }
	"$FLOE" -C "$WORK/$p" generate >/dev/null
	"$FLOE" -C "$WORK/$p" run --json >"$WORK/out" || { tail -c 4000 "$WORK/out" >&2; exit 1; }
done

# timed PROJECT LAYER: "wall-seconds cpu-seconds" of `floe run --layer LAYER --json`, checked
timed() {
	/usr/bin/time -f '%e %U %S' -o "$WORK/time" "$FLOE" -C "$WORK/$1" run --layer "$2" --json \
		>"$WORK/out" 2>"$WORK/err" || { tail -c 4000 "$WORK/out" >&2; cat "$WORK/err" >&2; exit 1; }
	"$PY" - "$WORK/out" "$2" <<'PY'
import json, sys
out, layer = json.load(open(sys.argv[1])), sys.argv[2]
if layer == "bronze":
    bad = [f'{t["table"]}: {t["state"]}/{t.get("check")}' for t in out["tables"]
           if t["state"] != "loaded" or t.get("check") != "verified"]
else:
    bad = [f'{t["table"]}: {t["state"]}' for t in out["silver"] if t["state"] not in ("built", "unchanged")]
if bad:
    sys.exit("bench: " + ", ".join(bad))
PY
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$WORK/time"
}

per=$(($("${PSQL[@]}" -c 'select count(*) from orders') / 1000 / 3 + 1))
declare -A times
rows_md=""
for r in $(seq 1 "$ROUNDS"); do
	"$FLOE" -C "$WORK" shop tick --orders "$per" --updates "$per" --deletes "$per" >/dev/null
	order="cow mor"
	((r % 2 == 0)) && order="mor cow"
	for p in $order; do
		read -r bw bc <<<"$(timed "$p" bronze)"
		read -r sw sc <<<"$(timed "$p" silver)"
		times[$p-bronze]+="$bw"$'\n' times[$p-silver]+="$sw"$'\n'
		times[$p-total]+="$(awk "BEGIN { print $bw + $sw }")"$'\n'
		rows_md+="| $r | ${MODE[$p]} | $bw ($bc CPU) | $sw ($sc CPU) | $(awk "BEGIN { printf \"%.2f\", $bw + $sw }") |"$'\n'
	done
done
declare -A compact
for p in cow mor; do
	/usr/bin/time -f '%e' -o "$WORK/time" "$FLOE" -C "$WORK/$p" compact >/dev/null 2>"$WORK/err" ||
		{ cat "$WORK/err" >&2; exit 1; }
	compact[$p]=$(cat "$WORK/time")
done
m() { printf '%s' "${times[$1]}" | median; }

block=$(cat <<MD

### bronze write mode: the shop's pipeline after a 0.1 % change — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE ROUNDS=$ROUNDS bench/bronze/write-mode.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); a tick of $per new, $per progressed and $per deleted orders per round; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)

| round | write mode | floe run --layer bronze s (loads + reconciliation) | floe run --layer silver s | together s |
|---|---|---|---|---|
${rows_md%$'\n'}
| **median** | copy-on-write | **$(m cow-bronze)** | **$(m cow-silver)** | **$(m cow-total)** |
| **median** | merge-on-read | **$(m mor-bronze)** | **$(m mor-silver)** | **$(m mor-total)** |

\`floe compact\` after the rounds: copy-on-write ${compact[cow]} s, merge-on-read ${compact[mor]} s.
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
