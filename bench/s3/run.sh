#!/usr/bin/env bash
# bench/s3/run.sh — a full bronze load of the shop's largest table to an S3 warehouse against the
# same load to local disk, in one run on one private PostgreSQL:
#
#   local      `floe run --no-reconcile --table public.order_items` into the project's warehouse/
#   moto       the same command with `[warehouse] location = "s3://…"` on moto's server mode (a
#              Python process; started here on a private port, in memory, on this machine)
#   gofakes3   the same on build/tools/s3server (gofakes3, Go, in memory; scripts/build-s3server.sh
#              builds it), no signature checks — like moto here
#   the Parquet file is streamed by multipart upload in 8 MiB parts, manifests and metadata by
#   conditional PUT.
#
# Wall time (best of ROUNDS), peak RSS and floe's CPU seconds (/usr/bin/time): the CPU column
# separates floe's own cost from the time it waits on the server; the server's CPU seconds over the
# load come from /proc. Targets (issue #19): peak RSS under 256 MB and the S3 load within 1.5× of
# the local one. Prints a Markdown block; with BENCH_RECORD=1 it is also appended to
# bench/RESULTS.md. The servers share the machine's cores with floe. FLOE_PAYLOAD_SIGNING set to
# always|never|auto adds `payload-signing` to the S3 projects' [warehouse] (default: floe's, auto).
#
#   SCALE=45 bench/s3/run.sh                      # order_items ≈ 5 M rows (default SCALE=10: ≈ 1.1 M)
#   VARIANTS="8:1 8:4 32:1 32:2" bench/s3/run.sh  # part size (MiB) : parts in flight, a row each
set -euo pipefail

NAME=s3
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PY="$ROOT/.venv/bin/python"
SCALE="${SCALE:-10}"
ROUNDS="${ROUNDS:-1}"
# part size in MiB : parts in flight, one S3 project per server and pair ([warehouse] part-size-mb,
# parts-in-flight); the default is floe's own
VARIANTS="${VARIANTS:-8:1}"

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export FLOE_S3_KEY="bench-key" FLOE_S3_SECRET="bench-secret-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
"$ROOT/scripts/build-s3server.sh"
MOTO_PORT="$(free_port)"
(cd "$WORK" && exec "$PY" -m moto.server -H 127.0.0.1 -p "$MOTO_PORT" >"$WORK/moto.log" 2>&1) &
MOTO_PID=$!
GOFAKE_PORT="$(free_port)"
"$ROOT/build/tools/s3server" -addr "127.0.0.1:$GOFAKE_PORT" -log "$WORK/gofakes3.log" >"$WORK/gofakes3.out" 2>&1 &
GOFAKE_PID=$!
trap 'kill "$MOTO_PID" "$GOFAKE_PID" 2>/dev/null || true; bench_cleanup' EXIT
# Without the httpfs step of scripts/setup.sh, floe would not need it here (no reconciliation).
bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK/local" >/dev/null
"$FLOE" -C "$WORK/local" generate >/dev/null

# bucket PORT: the bucket "bench" on the server at PORT, once it answers
bucket() {
	"$PY" - "$1" <<'PYEOF'
import sys, time, boto3
for _ in range(100):
    try:
        boto3.client("s3", endpoint_url=f"http://127.0.0.1:{sys.argv[1]}", aws_access_key_id="k",
                     aws_secret_access_key="s", region_name="us-east-1").create_bucket(Bucket="bench")
        break
    except Exception:
        time.sleep(0.2)
PYEOF
}
bucket "$MOTO_PORT"
bucket "$GOFAKE_PORT"
# s3_project NAME PORT PART:FLIGHT: a project whose [warehouse] is s3://bench/NAME on the server at PORT
s3_project() {
	local dir="$WORK/$1"
	"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$dir" >/dev/null
	local extra="" part="${3%%:*}" flight="${3##*:}"
	[ -z "${FLOE_PAYLOAD_SIGNING:-}" ] || extra="\npayload-signing = \"$FLOE_PAYLOAD_SIGNING\""
	extra="$extra\npart-size-mb = $part\nparts-in-flight = $flight"
	# floe init's [warehouse] location replaced, the store's keys added after it
	sed -i "s|^location = \"warehouse\".*|location = \"s3://bench/$1\"\nendpoint = \"http://127.0.0.1:$2\"\npath-style = true\naccess-key-env = \"FLOE_S3_KEY\"\nsecret-key-env = \"FLOE_S3_SECRET\"$extra|" "$dir/floe.toml"
	grep -q "^location = \"s3://bench/$1\"" "$dir/floe.toml" || { echo "bench: could not point the project at S3" >&2; exit 1; }
	"$FLOE" -C "$dir" generate >/dev/null
}
for v in $VARIANTS; do
	s3_project "moto-$v" "$MOTO_PORT" "$v"
	s3_project "gofakes3-$v" "$GOFAKE_PORT" "$v"
done
LOADAVG="$(cut -d' ' -f1-3 /proc/loadavg)"
ROWS="$(psql -X -At -h "$SOCK" -p "$PORT" -U postgres shop -c 'select count(*) from order_items')"

# cpu_s PID: the process's user + system CPU seconds so far
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
# measure_s3 NAME PID: the load on that server, then the server's CPU seconds during it (a round's mean)
measure_s3() {
	local before
	before=$(cpu_s "$2")
	echo "$(measure "$1" "$FLOE" -C "$WORK/$1" run --no-reconcile --table public.order_items) $(awk "BEGIN { printf \"%.2f\", ($(cpu_s "$2") - $before) / $ROUNDS }")"
}
verdict() { # ratio and peak RSS against the targets
	local ok=yes
	[ $(($2 / 1024)) -lt 256 ] || ok=no
	awk "BEGIN { exit !($1 <= 1.5) }" || ok=no
	echo "$ok"
}
loc=$(measure local "$FLOE" -C "$WORK/local" run --no-reconcile --table public.order_items)
read -r _ lt lm lc <<<"$loc"
rows="" met=""
for v in $VARIANTS; do
	for server in moto gofakes3; do
		pid=$MOTO_PID lang=Python
		[ "$server" = moto ] || pid=$GOFAKE_PID lang=Go
		read -r _ t m c sc <<<"$(measure_s3 "$server-$v" "$pid")"
		r=$(awk "BEGIN { printf \"%.2f\", $t / $lt }")
		rows="$rows
| floe run → S3 ($server, $lang, on this machine), ${v%%:*} MiB parts, ${v##*:} in flight | $t | $((m / 1024)) | $c | $sc | ${r}× |"
		met="$met${met:+, }$server ${v%%:*}:${v##*:} $(verdict "$r" "$m")"
	done
done
parts=$(grep -c 'partNumber=' "$WORK/gofakes3.log" || true)
signed=$(awk '$1 == "PUT" && $2 ~ /partNumber=/ { print $3; exit }' "$WORK/gofakes3.log")
[ "$signed" = UNSIGNED-PAYLOAD ] || signed="SHA-256 (signed payload)"

block=$(cat <<MD

### bronze full load of order_items to S3 (moto, gofakes3) vs local disk — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE bench/s3/run.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); $ROWS rows; best of $ROUNDS; $parts part uploads seen by gofakes3 over all its runs; payload: $signed; load average before: $LOADAVG, after: $(cut -d' ' -f1-3 /proc/loadavg)

| | wall s | peak RSS MB | floe CPU s (user + sys) | server CPU s (mean of a round) | vs local |
|---|---|---|---|---|---|
| floe run → local disk | $lt | $((lm / 1024)) | $lc | — | 1.00× |$rows

Targets met (peak RSS < 256 MB, S3 ≤ 1.5× local): $met
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
