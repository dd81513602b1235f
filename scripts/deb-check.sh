#!/usr/bin/env bash
# deb-check.sh — the Debian package on this machine (`make deb-check`, as root): dpkg -i, then
# `floe --version` and the demo run by the installed /usr/bin/floe, then dpkg -r, and no file the
# package installed may be left behind.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="${BUILD:-build}"
DEB="$(ls -t "$BUILD"/floe_*.deb | head -1)"

[ "$(id -u)" = 0 ] || { echo "deb-check: error: dpkg -i needs root" >&2; exit 1; }
if dpkg-query -W -f '${Status}' floe 2>/dev/null | grep -q installed; then
	echo "deb-check: error: a floe package is installed already; remove it first (dpkg -r floe)" >&2
	exit 1
fi

echo "== dpkg -i $DEB"
dpkg -i "$DEB"
FILES="$(dpkg -L floe | while read -r f; do [ -f "$f" ] && echo "$f"; done)"
trap 'dpkg -r floe >/dev/null 2>&1 || true' EXIT

echo "== /usr/bin/floe --version"
/usr/bin/floe --version
man -w floe >/dev/null && echo "man floe: $(man -w floe)"

echo "== the demo, run by /usr/bin/floe"
FLOE_BIN=/usr/bin/floe FLOE_DEMO_SCALE="${FLOE_DEMO_SCALE:-0.05}" FLOE_DEMO_DIR="$(mktemp -d /tmp/floe-deb-demo.XXXXXX)" scripts/demo.sh

echo "== dpkg -r floe"
dpkg -r floe
trap - EXIT
left=0
for f in $FILES; do
	if [ -e "$f" ]; then
		echo "deb-check: left behind: $f" >&2
		left=1
	fi
done
[ "$left" = 0 ] || exit 1
echo "deb-check: ok — installed, ran the demo, removed; no file left ($(echo "$FILES" | wc -l) files checked)"
