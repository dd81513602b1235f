#!/usr/bin/env bash
# deb.sh — build/floe_VERSION_ARCH.deb: what `make install PREFIX=/usr` installs, as a Debian
# package (`make deb` runs this after building the installed binary, its man page and completion).
#
# Depends: is computed by dpkg-shlibdeps from the binary's own shared-library needs (libpq,
# libgit2, libcurl, …), so it names exactly the Debian libraries floe links; DuckDB's library is
# bundled in /usr/lib/floe (it is not packaged by Debian). lintian runs on the result when it is
# installed; docs/install.md explains each tag it reports.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="${BUILD:-build}"

die() {
	printf 'deb: error: %s\n' "$1" >&2
	[ $# -ge 2 ] && printf '  hint: %s\n' "$2" >&2
	exit 1
}

command -v dpkg-deb >/dev/null || die "dpkg-deb is missing" "Install the Debian package dpkg-dev."
command -v dpkg-shlibdeps >/dev/null || die "dpkg-shlibdeps is missing" "Install the Debian package dpkg-dev."

VERSION="$("$BUILD/floe" --version | awk '{print $2}')"
ARCH="$(dpkg --print-architecture)"
REVISION="${VERSION}-1" # a Debian revision: the package is built from floe's tree, not Debian's
NAME="floe_${REVISION}_${ARCH}"
WORK="$BUILD/deb"
PKG="$WORK/$NAME"

rm -rf "$WORK"
mkdir -p "$PKG/DEBIAN"
make -s install DESTDIR="$ROOT/$PKG" PREFIX=/usr >/dev/null

# Debug symbols stay in the build tree; DuckDB's httpfs extension is left as shipped (DuckDB
# checks the signature appended to it).
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$PKG/usr/bin/floe" "$PKG/usr/lib/floe/libduckdb.so"

# Debian's documentation files: copyright (floe's and the bundled DuckDB's) and a changelog.
DOC="$PKG/usr/share/doc/floe"
install -d "$DOC"
cat >"$DOC/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: floe

Files: *
Copyright: the floe authors
License: no licence has been chosen yet; all rights reserved by the authors.

Files: usr/lib/floe/libduckdb.so usr/lib/floe/extensions/*
Copyright: 2018-2026 Stichting DuckDB Foundation
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
 THE SOFTWARE.
EOF
{
	printf 'floe (%s) unstable; urgency=medium\n\n' "$REVISION"
	printf '  * Built from commit %s.\n\n' "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	printf ' -- floe authors <floe@localhost>  %s\n' "$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
} | gzip -n9 >"$DOC/changelog.Debian.gz"

# Depends: from the binary's NEEDED entries (dpkg-shlibdeps wants a debian/control to read).
mkdir -p "$WORK/shlibs/debian"
printf 'Source: floe\n\nPackage: floe\nArchitecture: any\n' >"$WORK/shlibs/debian/control"
DEPENDS="$(cd "$WORK/shlibs" && dpkg-shlibdeps -O -l"$ROOT/$PKG/usr/lib/floe" \
	"$ROOT/$PKG/usr/bin/floe" 2>"$ROOT/$WORK/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')" ||
	die "dpkg-shlibdeps failed" "See $WORK/shlibdeps.log."
[ -n "$DEPENDS" ] || die "dpkg-shlibdeps found no dependencies" "See $WORK/shlibdeps.log."

SIZE="$(du -sk --exclude=DEBIAN "$PKG" | cut -f1)"
cat >"$PKG/DEBIAN/control" <<EOF
Package: floe
Version: $REVISION
Architecture: $ARCH
Maintainer: floe authors <floe@localhost>
Installed-Size: $SIZE
Depends: $DEPENDS, git
Recommends: postgresql, bash-completion
Section: database
Priority: optional
Homepage: https://floe.invalid/
Description: PostgreSQL into Apache Iceberg (bronze, silver, gold), verified
 floe turns a PostgreSQL database into Apache Iceberg tables in bronze,
 silver and gold layers, proves every load against the source, turns source
 schema changes into reviewable git branches and drafts gold marts from
 plain descriptions. One program with embedded defaults (a local warehouse,
 a SQLite Iceberg catalog, DuckDB); floe quickstart sets up a sample shop.
EOF

dpkg-deb --build --root-owner-group "$PKG" "$BUILD/$NAME.deb" >/dev/null
echo "deb: built $BUILD/$NAME.deb"
echo "deb: Depends: $DEPENDS, git"
if command -v lintian >/dev/null; then
	echo "deb: lintian (docs/install.md explains each tag):"
	lintian --no-tag-display-limit "$BUILD/$NAME.deb" || true
fi
