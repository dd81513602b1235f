#!/usr/bin/env bash
# setup.sh — everything floe's build and tests need on a Debian 12 machine, installed once.
#
#   scripts/setup.sh [all|packages|duckdb|venv|dbt|dagster]  (default: all)
#
#   packages  the Debian packages in scripts/debian-packages.txt that are missing (apt-get)
#   duckdb    .deps/duckdb/libduckdb.so from DuckDB's npm platform package, pinned and checksummed
#   venv      .venv with tests/requirements.txt (pytest, psycopg, DuckDB + iceberg, PyIceberg)
#   httpfs    .deps/duckdb/extensions/httpfs.duckdb_extension (S3 warehouses), from the pinned
#             duckdb-extension-httpfs wheel the venv step installs, checksummed
#   dbt       .venv-dbt with tests/dbt/requirements.txt (dbt-core + dbt-duckdb; scripts/setup-dbt.sh)
#   dagster   .venv-dagster with tests/dagster/requirements.txt (dagster + dg; scripts/setup-dagster.sh)
#
# `make test` runs this first on every CI run, so each step checks before it acts and a
# machine that has everything is done in about a second. It talks only to package
# registries, through their ordinary clients (apt-get, npm, pip).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# --- DuckDB: pinned platform package -----------------------------------------------------
# The C API library ships inside the npm package DuckDB's Node bindings load at run time.
# To move to another release: pick the newest <version>-r.N whose DuckDB version has a
# matching duckdb and duckdb-extension-iceberg on PyPI (tests/requirements.txt), run
# `npm pack <package>@<version>` in an empty directory, and record below the tarball's
# integrity (npm prints it), `sha256sum` of the .tgz and of package/libduckdb.so.
DUCKDB_VERSION="1.5.5"
DUCKDB_NPM_VERSION="1.5.5-r.5"
DUCKDB_DIR=".deps/duckdb"

duckdb_pins() {
	case "$(uname -m)" in
	x86_64 | amd64)
		DUCKDB_NPM_PACKAGE="@duckdb/node-bindings-linux-x64"
		DUCKDB_TGZ_INTEGRITY="sha512-kCyq6BXhn6QXfwF8yVdVKriSSHP+rfVWcJ56cG8qZzlOZpxyvT5WGm6jMshxg4ditLlOsHsIN/D47RYrcjXuHQ=="
		DUCKDB_TGZ_SHA256="86d2bda909785550e8a14a57a8a4584827aff0e268d8f1a58c3fd48559f7020e"
		DUCKDB_SO_SHA256="fc23f12e376c47be520f75221288281906e7942e8fd6f6ce4849198ba60d0405"
		;;
	aarch64 | arm64)
		DUCKDB_NPM_PACKAGE="@duckdb/node-bindings-linux-arm64"
		DUCKDB_TGZ_INTEGRITY="sha512-CafH2AIvXtpwDynG3KB/4uEOHRGlFoB7auCRMIwH3BKNIobsANV5LSpDJ3tfyRCFIsK6e8AT1eseWVnu2Dv3cw=="
		DUCKDB_TGZ_SHA256="3b85f3ea438f7dc3691d7b5e6e4222ffe9127fd17885f96ca72e0c99925c348e"
		DUCKDB_SO_SHA256="d00d007f3f7ca1f2896a5e4b89c2ce141bf0508506a9d6d56f9598b8e59d074e"
		;;
	*)
		die "no pinned DuckDB library for machine type \"$(uname -m)\"" \
			"DuckDB's npm platform packages are pinned here for linux x86_64 and aarch64 only." \
			"Add the package for this machine to duckdb_pins() in scripts/setup.sh."
		;;
	esac
}

# --- helpers -------------------------------------------------------------------------------

say() { printf 'setup: %s\n' "$*"; }

# die MESSAGE [DETAIL] [HINT]: what failed, why, what to do.
die() {
	printf 'setup: error: %s\n' "$1" >&2
	[ $# -ge 2 ] && [ -n "$2" ] && printf '  %s\n' "$2" >&2
	[ $# -ge 3 ] && [ -n "$3" ] && printf '  hint: %s\n' "$3" >&2
	exit 1
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Serialise concurrent runs (make -j, two terminals) on one lock file per step.
take_lock() {
	mkdir -p .deps
	exec 9>".deps/.setup-$1.lock"
	flock 9
}

# --- packages ------------------------------------------------------------------------------

step_packages() {
	if ! command -v dpkg-query >/dev/null 2>&1; then
		say "packages skipped (not a Debian system: install what scripts/debian-packages.txt lists yourself)"
		return 0
	fi
	local wanted=() missing=() pkg
	mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' scripts/debian-packages.txt)
	for pkg in "${wanted[@]}"; do
		if [ "$pkg" = npm ] && command -v npm >/dev/null 2>&1; then
			continue
		fi
		case "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" in
		"install ok installed") ;;
		*) missing+=("$pkg") ;;
		esac
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "packages ok (${#wanted[@]} in scripts/debian-packages.txt)"
		return 0
	fi

	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 ||
			die "missing Debian packages: ${missing[*]}" \
				"Installing them needs root, and sudo is not available." \
				"As root, run: apt-get install ${missing[*]}"
		sudo=(sudo)
	fi
	say "installing ${missing[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
		die "apt-get update failed" "" "Check the machine's apt sources and network, then rerun scripts/setup.sh."
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
		die "could not install Debian packages: ${missing[*]}" "apt-get install failed; its output is above." \
			"Fix the cause apt-get reported, then rerun scripts/setup.sh."
	say "packages ok (installed ${missing[*]})"
}

# --- duckdb --------------------------------------------------------------------------------

step_duckdb() {
	duckdb_pins
	local so="$DUCKDB_DIR/libduckdb.so"
	if [ -f "$so" ] && [ "$(sha256_of "$so")" = "$DUCKDB_SO_SHA256" ]; then
		say "duckdb $DUCKDB_VERSION ok"
		return 0
	fi
	take_lock duckdb
	if [ -f "$so" ] && [ "$(sha256_of "$so")" = "$DUCKDB_SO_SHA256" ]; then
		say "duckdb $DUCKDB_VERSION ok"
		return 0
	fi
	command -v npm >/dev/null 2>&1 ||
		die "cannot fetch DuckDB: npm is not installed" \
			"The DuckDB library comes from the npm package $DUCKDB_NPM_PACKAGE@$DUCKDB_NPM_VERSION." \
			"Run scripts/setup.sh packages (installs npm), then scripts/setup.sh duckdb."

	local tmp
	tmp="$(mktemp -d .deps/duckdb-fetch.XXXXXX)"
	# shellcheck disable=SC2064  # expand $tmp now: it is local to this function
	trap "rm -rf '$ROOT/$tmp'" EXIT
	say "fetching $DUCKDB_NPM_PACKAGE@$DUCKDB_NPM_VERSION"
	(cd "$tmp" && npm pack --silent "$DUCKDB_NPM_PACKAGE@$DUCKDB_NPM_VERSION" >/dev/null) ||
		die "npm pack $DUCKDB_NPM_PACKAGE@$DUCKDB_NPM_VERSION failed" "npm's output is above." \
			"Check that npm can reach its registry (npm config get registry), then rerun scripts/setup.sh duckdb."
	local tgz
	tgz="$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -n 1)"
	[ -n "$tgz" ] || die "npm pack produced no tarball for $DUCKDB_NPM_PACKAGE@$DUCKDB_NPM_VERSION"

	# Two independent pins on the tarball: npm's sha512 integrity and our own sha256.
	local want512 got512 got256
	want512="$(printf '%s' "${DUCKDB_TGZ_INTEGRITY#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')"
	got512="$(sha512sum "$tgz" | cut -d' ' -f1)"
	got256="$(sha256_of "$tgz")"
	if [ "$got512" != "$want512" ] || [ "$got256" != "$DUCKDB_TGZ_SHA256" ]; then
		die "checksum mismatch for $DUCKDB_NPM_PACKAGE@$DUCKDB_NPM_VERSION" \
			"Expected sha256 $DUCKDB_TGZ_SHA256, got $got256; the registry served a different file than the one pinned in scripts/setup.sh, so it was not installed." \
			"Do not edit the pin to match: find out why the package changed (registry mirror, proxy, republished version), or move to a new release as described at the top of scripts/setup.sh."
	fi

	tar -xzf "$tgz" -C "$tmp" package/libduckdb.so package/LICENSE
	[ "$(sha256_of "$tmp/package/libduckdb.so")" = "$DUCKDB_SO_SHA256" ] ||
		die "checksum mismatch for libduckdb.so inside $DUCKDB_NPM_PACKAGE@$DUCKDB_NPM_VERSION" \
			"The tarball matched its pin but the library in it did not; scripts/setup.sh's pins disagree with each other." \
			"Recompute the pins as described at the top of scripts/setup.sh."
	mkdir -p "$DUCKDB_DIR"
	chmod 0644 "$tmp/package/libduckdb.so"
	touch "$tmp/package/libduckdb.so" # the tarball dates its files 1985
	mv -f "$tmp/package/LICENSE" "$DUCKDB_DIR/LICENSE"
	printf '%s@%s\n' "$DUCKDB_NPM_PACKAGE" "$DUCKDB_NPM_VERSION" >"$DUCKDB_DIR/SOURCE"
	mv -f "$tmp/package/libduckdb.so" "$so" # last, and atomic: its presence means done
	rm -rf "$tmp"
	trap - EXIT
	say "duckdb $DUCKDB_VERSION ok (installed $so)"
}

# --- venv ----------------------------------------------------------------------------------

python_for_venv() {
	# Debian's own interpreter is the one python3-venv provides for; FLOE_PYTHON overrides.
	if [ -n "${FLOE_PYTHON:-}" ]; then
		printf '%s\n' "$FLOE_PYTHON"
	elif [ -x /usr/bin/python3 ]; then
		printf '%s\n' /usr/bin/python3
	else
		command -v python3 || die "python3 is not installed" "" "Run scripts/setup.sh packages."
	fi
}

step_venv() {
	local req=tests/requirements.txt con=tests/constraints.txt stamp=.venv/.floe-requirements.sha256
	local want
	want="$(cat "$req" "$con" | sha256sum | cut -d' ' -f1)"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x .venv/bin/python ]; then
		say "venv ok"
		return 0
	fi
	take_lock venv
	if [ -x .venv/bin/python ] && ! .venv/bin/python -c '' 2>/dev/null; then
		rm -rf .venv # its interpreter is gone (Python upgraded or removed): start over
	fi
	if [ ! -x .venv/bin/python ]; then
		local py
		py="$(python_for_venv)"
		rm -rf .venv
		"$py" -m venv .venv ||
			die "could not create .venv with $py" "python's output is above." \
				"On Debian, run scripts/setup.sh packages (installs python3-venv)."
	fi
	rm -f "$stamp"
	say "installing $req into .venv"
	.venv/bin/python -m pip install --disable-pip-version-check -q -r "$req" ||
		die "pip could not install $req into .venv" "pip's output is above." \
			"Check that pip can reach its index, then rerun scripts/setup.sh venv."
	# The test-side DuckDB must load the iceberg extension from the wheels, offline.
	.venv/bin/python - <<-'EOF' || die "the iceberg extension from PyPI does not load into the installed duckdb" "" "Keep duckdb and duckdb-extension-* at the same version in tests/requirements.txt."
		import pathlib, duckdb, duckdb_extension_avro, duckdb_extension_iceberg
		con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
		for mod, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
		    path = pathlib.Path(mod.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
		    con.execute(f"LOAD '{path}'")
	EOF
	printf '%s\n' "$want" >"$stamp"
	say "venv ok (installed $req)"
}

# --- httpfs: DuckDB's S3 support for floe's engine ----------------------------------------
# floe loads it by path from extensions/ beside libduckdb.so (src/engine/s3.c), never downloads
# it. The build is the one in the duckdb-extension-httpfs wheel of tests/requirements.txt (same
# version as DuckDB); to move to a new release record sha256sum of its .duckdb_extension here.
HTTPFS_SHA256_x86_64="887c392b1e49128d11667c81e3698d8b00dfdeb456771acf66d05a0f74f7b7d8"

step_httpfs() {
	local dest="$DUCKDB_DIR/extensions/httpfs.duckdb_extension" want src
	want="$(eval printf '%s' "\${HTTPFS_SHA256_$(uname -m)-}")"
	[ -n "$want" ] || { say "httpfs: no pinned build for $(uname -m); S3 warehouses unavailable"; return 0; }
	if [ -f "$dest" ] && [ "$(sha256_of "$dest")" = "$want" ]; then
		say "httpfs ok"
		return 0
	fi
	src="$(.venv/bin/python -c 'import pathlib, duckdb, duckdb_extension_httpfs as m; print(pathlib.Path(m.__file__).parent / "extensions" / f"v{duckdb.__version__}" / "httpfs.duckdb_extension")')" ||
		die "the duckdb-extension-httpfs wheel is not installed in .venv" "" "Run scripts/setup.sh venv first."
	[ "$(sha256_of "$src")" = "$want" ] ||
		die "checksum mismatch for $src" "Expected sha256 $want; the wheel holds another build." \
			"Keep duckdb-extension-httpfs at DuckDB's version in tests/requirements.txt, or record the new build's checksum in scripts/setup.sh."
	mkdir -p "$DUCKDB_DIR/extensions"
	cp "$src" "$dest.tmp" && mv -f "$dest.tmp" "$dest"
	say "httpfs ok (installed $dest)"
}

# --- main ----------------------------------------------------------------------------------

case "${1:-all}" in
all)
	step_packages
	step_duckdb
	step_venv
	step_httpfs
	scripts/setup-dbt.sh
	scripts/setup-dagster.sh
	;;
packages) step_packages ;;
duckdb) step_duckdb ;;
venv) step_venv ;;
httpfs) step_httpfs ;;
dbt) scripts/setup-dbt.sh ;;
dagster) scripts/setup-dagster.sh ;;
*)
	die "unknown step \"$1\"" "The steps are all, packages, duckdb, venv, httpfs, dbt and dagster." \
		"Run scripts/setup.sh with no argument to do all of them."
	;;
esac
