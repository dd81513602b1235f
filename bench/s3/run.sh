#!/usr/bin/env bash
# bench/s3/run.sh — a full bronze load of the shop's largest table to an S3 warehouse against the
# same load to local disk, in one run on one private PostgreSQL:
#
#   local   `floe run --no-reconcile --table public.order_items` into the project's warehouse/
#   s3      the same command with `[warehouse] location = "s3://…"` on moto's server mode (started
#           here on a private port; in memory, on this machine): the Parquet file streamed by
#           multipart upload in 8 MiB parts, manifests and metadata by conditional PUT
#
# Wall time (best of ROUNDS), peak RSS (/usr/bin/time). Targets (issue #19): peak RSS under 256 MB
# and the S3 load within 1.5× of the local one. Prints a Markdown block; with BENCH_RECORD=1 it is
# also appended to bench/RESULTS.md. The server shares the machine's cores with floe.
#
#   SCALE=45 bench/s3/run.sh      # order_items ≈ 5 M rows (default SCALE=10: ≈ 1.1 M)
set -euo pipefail

NAME=s3
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PY="$ROOT/.venv/bin/python"
SCALE="${SCALE:-10}"
ROUNDS="${ROUNDS:-1}"

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export FLOE_S3_KEY="bench-key" FLOE_S3_SECRET="bench-secret-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
S3_PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
(cd "$WORK" && exec "$PY" -m moto.server -H 127.0.0.1 -p "$S3_PORT" >"$WORK/moto.log" 2>&1) &
MOTO_PID=$!
trap 'kill "$MOTO_PID" 2>/dev/null || true; bench_cleanup' EXIT
# Without the httpfs step of scripts/setup.sh, floe would not need it here (no reconciliation).
bench_stack_up shop floe_reader
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK/local" >/dev/null
"$FLOE" -C "$WORK/local" generate >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK/s3" >/dev/null
"$PY" - "$S3_PORT" <<'PYEOF'
import sys, time, boto3
for _ in range(100):
    try:
        boto3.client("s3", endpoint_url=f"http://127.0.0.1:{sys.argv[1]}", aws_access_key_id="k",
                     aws_secret_access_key="s", region_name="us-east-1").create_bucket(Bucket="bench")
        break
    except Exception:
        time.sleep(0.2)
PYEOF
# the S3 project: floe init's [warehouse] location replaced, the store's keys added after it
sed -i "s|^location = \"warehouse\".*|location = \"s3://bench/lake\"\nendpoint = \"http://127.0.0.1:$S3_PORT\"\npath-style = true\naccess-key-env = \"FLOE_S3_KEY\"\nsecret-key-env = \"FLOE_S3_SECRET\"|" "$WORK/s3/floe.toml"
grep -q '^location = "s3://bench/lake"' "$WORK/s3/floe.toml" || { echo "bench: could not point the project at S3" >&2; exit 1; }
"$FLOE" -C "$WORK/s3" generate >/dev/null
ROWS="$(psql -X -At -h "$SOCK" -p "$PORT" -U postgres shop -c 'select count(*) from order_items')"

loc=$(measure local "$FLOE" -C "$WORK/local" run --no-reconcile --table public.order_items)
s3=$(measure s3 "$FLOE" -C "$WORK/s3" run --no-reconcile --table public.order_items)
parts=$(grep -c 'partNumber=' "$WORK/moto.log" || true)
read -r _ lt lm <<<"$loc"
read -r _ st sm <<<"$s3"
ratio=$(awk "BEGIN { printf \"%.2f\", $st / $lt }")
verdict() { # peak RSS and ratio against the targets
	local ok=yes
	[ $((sm / 1024)) -lt 256 ] || ok=no
	awk "BEGIN { exit !($ratio <= 1.5) }" || ok=no
	echo "$ok"
}

block=$(cat <<MD

### bronze full load of order_items to S3 (moto) vs local disk — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)

Command: \`SCALE=$SCALE bench/s3/run.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); $ROWS rows; best of $ROUNDS; $parts part uploads seen by the server; load average before: $(cut -d' ' -f1-3 /proc/loadavg)

| | wall s | peak RSS MB | vs local |
|---|---|---|---|
| floe run → local disk | $lt | $((lm / 1024)) | 1.00× |
| floe run → S3 (moto on this machine) | $st | $((sm / 1024)) | ${ratio}× |

Targets met (peak RSS < 256 MB, S3 ≤ 1.5× local): $(verdict)
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
