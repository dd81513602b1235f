#!/usr/bin/env bash
# bench/parquet/run.sh [ROWS] — floe's Parquet writer against DuckDB's COPY … TO and pyarrow's
# write_table, on the same rows, with ZSTD. Run it with `make bench-parquet` (which builds
# build/floe-parquet-bench first); results are recorded in bench/RESULTS.md.
#
# floe writes an orders-shaped table (bench.c) and reports its own time; peers.py loads the
# rows floe wrote into memory and times the other two writers on them, then checks that all
# files hold the same rows. FLOE_BENCH_LEVEL sets floe's zstd level (default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-5000000}
level=${FLOE_BENCH_LEVEL:-3}
bin=${FLOE_PARQUET_BENCH:-build/floe-parquet-bench}
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-bench-parquet.XXXXXX")
trap 'rm -rf "$work"' EXIT

[ -x "$bin" ] || { echo "run.sh: $bin is missing; run: make bench-parquet" >&2; exit 2; }
[ -x .venv/bin/python ] || { echo "run.sh: .venv is missing; run: scripts/setup.sh venv" >&2; exit 2; }

echo "bench-parquet: $(nproc) CPUs, $(uname -m), floe zstd level $level" >&2
# Best of three floe runs, like the peers.
best=""
for _ in 1 2 3; do
	out=$("$bin" "$work/floe.parquet" "$rows" "$level")
	if [ -z "$best" ] || .venv/bin/python -c "import json,sys; sys.exit(0 if json.loads('$out')['seconds'] < json.loads('$best')['seconds'] else 1)"; then
		best=$out
	fi
done
.venv/bin/python bench/parquet/peers.py "$work/floe.parquet" "$best" "$work"
