#!/usr/bin/env bash
# bench/parquet/run.sh [ROWS] [ROUNDS] — floe's Parquet writer against DuckDB's COPY … TO and
# pyarrow's write_table, on the same rows, with ZSTD. Run it with `make bench-parquet` (which
# builds build/floe-parquet-bench first); results are recorded in bench/RESULTS.md.
#
# bench.c generates an orders-shaped table and times floe's writer on it; peers.py loads the
# rows floe wrote into memory, times the other writers on them in interleaved rounds (best
# of each), checks that all files hold the same rows and prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-5000000}
rounds=${2:-5}
levels=${FLOE_BENCH_LEVELS:-1,2,3}   # floe's zstd levels: its default (the baseline), 2, 3
bin=${FLOE_PARQUET_BENCH:-build/floe-parquet-bench}
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-bench-parquet.XXXXXX")
trap 'rm -rf "$work"' EXIT

[ -x "$bin" ] || { echo "run.sh: $bin is missing; run: make bench-parquet" >&2; exit 2; }
[ -x .venv/bin/python ] || { echo "run.sh: .venv is missing; run: scripts/setup.sh venv" >&2; exit 2; }

echo "bench-parquet: $(nproc) CPUs ($(uname -m)), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
.venv/bin/python bench/parquet/peers.py "$rows" "$bin" "$work" "$rounds" "$levels"
