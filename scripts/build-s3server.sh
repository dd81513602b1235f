#!/usr/bin/env bash
# build/tools/s3server: the S3-compatible store for FLOE_S3_SERVER=gofakes3 test runs and for
# bench/s3/run.sh — tests/tools/s3server (gofakes3, MIT, pinned by its go.mod and go.sum; the Go
# module proxy serves it). Rebuilt only when its sources are newer than the binary.
#
#   GO   the go command (default: go on PATH, else /usr/local/go/bin/go)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$PWD/build/tools/s3server
SRC=tests/tools/s3server
GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
if [ -x "$OUT" ] && [ -z "$(find "$SRC" -newer "$OUT" -type f)" ]; then
	exit 0
fi
[ -x "$GO" ] || { echo "build-s3server: no Go toolchain (set GO=/path/to/go)" >&2; exit 2; }
mkdir -p "$(dirname "$OUT")"
(cd "$SRC" && GOFLAGS=-mod=readonly "$GO" build -trimpath -o "$OUT" .)
echo "build-s3server: $OUT" >&2
