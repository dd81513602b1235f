#!/usr/bin/env bash
# install.sh — from nothing to a running pipeline and the console, in one command.
#
#   scripts/install.sh [--prefix DIR] [--project DIR] [--scale S] [--listen HOST:PORT]
#   scripts/install.sh --source HOST:PORT/DB --source-user USER [--project DIR] [--prefix DIR]
#
# Once installed, `floe quickstart [OPTIONS]` runs the installed copy of this script.
#
# Without --source: installs what is missing and floe itself (from a source tree), starts a
# private PostgreSQL under the project, fills it with the shop (`floe shop generate`), creates
# the project (default ~/floe-shop), runs doctor → plan → generate → run (bronze, silver, the
# shop's example gold marts), starts `floe serve` in the background and prints the console's
# address and an admin token.
#
# With --source: reads the password once from FLOE_SOURCE_PASSWORD (or a prompt without echo),
# keeps it in the project's .floe/secrets/ (mode 0600), creates the project for that database and
# runs doctor and plan; it stops before any load if doctor fails.
#
# Every step says what it does; a step with nothing to do says so, so a second run changes
# nothing. A failure names the step, the reason and what to do; the exit code is the failed
# command's (floe's: 1 check failed, 2 usage or configuration, 3 service unreachable, 4 internal).
set -euo pipefail

PREFIX=""
PROJECT=""
SOURCE=""
SOURCE_USER=""
SCALE="0.1"
LISTEN="127.0.0.1:0"
STEP="start"
STEPS=0

say() { printf 'install: %s\n' "$*"; }
step() {
	STEPS=$((STEPS + 1))
	STEP="$1"
	printf '\ninstall: [%d] %s\n' "$STEPS" "$1"
}
# fail REASON HINT: the step, why, what to do — then exit.
fail() {
	printf 'install: error: step "%s" failed: %s\n' "$STEP" "$1" >&2
	[ $# -ge 2 ] && printf '  hint: %s\n' "$2" >&2
	exit "${3:-1}"
}
usage() {
	sed -n '3,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) PREFIX="${2:?--prefix needs a directory}"; shift 2 ;;
	--project) PROJECT="${2:?--project needs a directory}"; shift 2 ;;
	--source) SOURCE="${2:?--source needs HOST:PORT/DB}"; shift 2 ;;
	--source-user) SOURCE_USER="${2:?--source-user needs a role name}"; shift 2 ;;
	--scale) SCALE="${2:?--scale needs a number}"; shift 2 ;;
	--listen) LISTEN="${2:?--listen needs HOST:PORT}"; shift 2 ;;
	-h | --help) usage 0 ;;
	*) printf 'install: error: unknown option "%s"\n' "$1" >&2; usage 2 >&2 ;;
	esac
done
if [ -n "$SOURCE" ] && [ -z "$SOURCE_USER" ]; then
	printf 'install: error: --source needs --source-user (the read-only role floe reads as)\n' >&2
	exit 2
fi

# make's variables from a calling make (e.g. a sanitizer build's) must not reach the build below.
unset MAKEFLAGS MAKELEVEL MFLAGS
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A source tree (scripts/install.sh beside the Makefile) builds and installs floe; the installed
# copy (PREFIX/share/floe/install.sh) uses the floe installed beside it.
if [ -f "$HERE/../Makefile" ] && [ -f "$HERE/setup.sh" ]; then
	TREE="$(cd "$HERE/.." && pwd)"
	EXAMPLES="$TREE/examples/shop/marts"
	if [ -z "$PREFIX" ]; then
		if [ "$(id -u)" = 0 ]; then PREFIX=/usr/local; else PREFIX="$HOME/.local"; fi
	fi
else
	TREE=""
	EXAMPLES="$HERE/examples/shop/marts"
	PREFIX="${PREFIX:-$(cd "$HERE/../.." && pwd)}"
fi
FLOE="$PREFIX/bin/floe"

# ---- floe itself ------------------------------------------------------------------------------

install_floe() {
	if [ -z "$TREE" ]; then
		step "floe: installed at $PREFIX"
		[ -x "$FLOE" ] || fail "$FLOE is missing" "Reinstall floe (make install, or the Debian package)."
		say "using $("$FLOE" --version)"
		return
	fi
	step "packages: the Debian packages and the pinned DuckDB library floe needs"
	"$TREE/scripts/setup.sh" packages || fail "the Debian packages could not be installed" \
		"Run as root (or with sudo), with the Debian package archive reachable."
	"$TREE/scripts/setup.sh" duckdb || fail "the DuckDB library could not be installed" "See the message above."
	step "build: floe from $TREE"
	make -s -C "$TREE" -j"$(nproc)" build/installed/floe >/dev/null || fail "floe did not build" "Run make in $TREE to see why."
	step "install: floe into $PREFIX"
	if [ -x "$FLOE" ] && cmp -s "$TREE/build/installed/floe" "$FLOE" &&
		cmp -s "$TREE/.deps/duckdb/libduckdb.so" "$PREFIX/lib/floe/libduckdb.so" &&
		cmp -s "$TREE/scripts/install.sh" "$PREFIX/share/floe/install.sh"; then
		say "already installed (the same build): nothing to do"
	else
		make -s -C "$TREE" install PREFIX="$PREFIX" >/dev/null ||
			fail "make install did not finish" "Check that $PREFIX is writable (or pass --prefix DIR)."
		say "installed $("$FLOE" --version) (binary, DuckDB library, man page, bash completion)"
	fi
	case ":$PATH:" in
	*":$PREFIX/bin:"*) ;;
	*) say "note: $PREFIX/bin is not on your PATH; add it: export PATH=\"$PREFIX/bin:\$PATH\"" ;;
	esac
}

# ---- the project ------------------------------------------------------------------------------

# The postgres OS user must reach the project's cluster directory when we run as root.
choose_project() {
	local default="$HOME/floe-shop"
	[ -z "$SOURCE" ] || default="$HOME/floe-$(printf '%s' "${SOURCE##*/}" | tr -c 'A-Za-z0-9_-' '_')"
	PROJECT="${PROJECT:-$default}"
	mkdir -p "$PROJECT"
	PROJECT="$(cd "$PROJECT" && pwd)"
	if [ "$(id -u)" = 0 ] && [ -z "$SOURCE" ] && ! runuser -u postgres -- test -x "$PROJECT"; then
		fail "PostgreSQL runs as the postgres OS user, which cannot reach $PROJECT" \
			"Pass --project DIR in a directory every user can enter, e.g. --project /srv/floe-shop." 2
	fi
	chmod 755 "$PROJECT"
}

SECRET_FILE() { printf '%s/.floe/secrets/%s' "$PROJECT" "$1"; }

# The password: the environment, the project's secrets file (a second run), a prompt, or (for the
# private PostgreSQL only) a fresh random one. Never printed, never in any other file.
read_password() {
	if [ -n "${FLOE_SOURCE_PASSWORD:-}" ]; then
		return
	elif [ -s "$(SECRET_FILE source-password)" ]; then
		FLOE_SOURCE_PASSWORD="$(cat "$(SECRET_FILE source-password)")"
	elif [ -z "$SOURCE" ]; then
		FLOE_SOURCE_PASSWORD="$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
	elif [ -t 0 ]; then
		read -r -s -p "password of $SOURCE_USER at $SOURCE: " FLOE_SOURCE_PASSWORD
		echo
	else
		fail "no password for $SOURCE_USER" "Set FLOE_SOURCE_PASSWORD, or run in a terminal to be asked." 2
	fi
	export FLOE_SOURCE_PASSWORD
}

private_source() {
	step "source: a private PostgreSQL under $PROJECT/.floe/pg"
	if "$FLOE" -C "$PROJECT" stack status >/dev/null 2>&1; then
		say "already running: nothing to do"
	else
		"$FLOE" -C "$PROJECT" stack up --database shop --reader floe_reader ||
			fail "the private PostgreSQL did not start" "See the message above; \`floe -C $PROJECT stack status\` shows its state." $?
	fi
	local port
	port="$("$FLOE" -C "$PROJECT" stack status --json | sed -n 's/.*"port":\([0-9]*\).*/\1/p')"
	SOURCE="127.0.0.1:$port/shop"
	SOURCE_USER="floe_reader"
	step "shop: an Olist-shaped e-commerce database at scale $SCALE"
	if "$FLOE" -C "$PROJECT" shop checksum >/dev/null 2>&1; then
		say "already there: nothing to do"
	else
		"$FLOE" -C "$PROJECT" shop generate --scale "$SCALE" || fail "the shop was not generated" "See the message above." $?
	fi
}

init_project() {
	step "project: floe init in $PROJECT"
	if [ -f "$PROJECT/floe.toml" ]; then
		say "floe.toml exists: nothing to do"
	else
		"$FLOE" init --source "$SOURCE" --source-user "$SOURCE_USER" --save-password "$PROJECT" ||
			fail "the project was not created" "See the message above." $?
	fi
}

check_source() {
	step "doctor: the source, the role, the warehouse, the catalog"
	"$FLOE" -C "$PROJECT" doctor || fail "floe doctor found a problem; nothing was loaded" \
		"Fix what doctor names above, then run this again." $?
	step "plan: how each table will load"
	"$FLOE" -C "$PROJECT" plan || fail "floe plan failed" "See the message above." $?
}

# ---- the pipeline -----------------------------------------------------------------------------

run_pipeline() {
	step "generate: pipeline/ as a git repository"
	"$FLOE" -C "$PROJECT" generate || fail "floe generate failed" "See the message above." $?
	step "run: bronze (verified against the source), silver"
	local states
	states="$("$FLOE" -C "$PROJECT" status --json | grep -o '"state":"[^"]*"' | sort -u | tr '\n' ' ')"
	if [ "$states" = '"state":"built" "state":"verified" ' ]; then
		say "already loaded and verified: nothing to do (\`floe -C $PROJECT run\` loads again)"
	else
		"$FLOE" -C "$PROJECT" run || fail "floe run failed" "\`floe -C $PROJECT status\` names the table and the cause." $?
	fi
	step "gold: the shop's example marts, drafted, merged, built"
	mkdir -p "$PROJECT/marts"
	local built=0 example name
	for example in "$EXAMPLES"/*.md; do
		name="$(basename "$example" .md)"
		if git -C "$PROJECT/pipeline" cat-file -e "main:dbt/models/gold/$name.sql" 2>/dev/null; then
			continue
		fi
		cp "$example" "$PROJECT/marts/$name.md"
		"$FLOE" -C "$PROJECT" gold draft "marts/$name.md" || fail "the mart $name was not drafted" "See its questions above." $?
		git -C "$PROJECT/pipeline" merge --quiet --no-edit "floe/mart/$name" ||
			fail "the mart branch floe/mart/$name did not merge" "Merge it by hand in $PROJECT/pipeline."
		built=$((built + 1))
	done
	if [ "$built" = 0 ]; then
		say "every example mart is merged already: nothing to do"
	else
		"$FLOE" -C "$PROJECT" run --layer gold || fail "the gold marts were not built" "See the message above." $?
	fi
}

# ---- the console ------------------------------------------------------------------------------

serve_pid() {
	local pid
	pid="$(cat "$PROJECT/.floe/serve.pid" 2>/dev/null || true)"
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && printf '%s' "$pid"
}

start_console() {
	step "console: floe serve in the background"
	local token_file
	token_file="$(SECRET_FILE console-admin-token)"
	if [ ! -s "$token_file" ]; then
		(umask 077 && "$FLOE" -C "$PROJECT" serve token add --role admin --name quickstart >"$token_file.tmp") ||
			fail "no admin token was created" "See the message above." $?
		mv "$token_file.tmp" "$token_file"
	fi
	if [ -n "$(serve_pid)" ]; then
		say "already running (pid $(serve_pid)): nothing to do"
	else
		: >"$PROJECT/.floe/serve.log"
		nohup "$FLOE" -C "$PROJECT" serve --listen "$LISTEN" >"$PROJECT/.floe/serve.log" 2>&1 &
		echo $! >"$PROJECT/.floe/serve.pid"
		local i
		for i in $(seq 1 100); do
			grep -q '^listening on ' "$PROJECT/.floe/serve.log" && break
			kill -0 "$(cat "$PROJECT/.floe/serve.pid")" 2>/dev/null ||
				fail "floe serve stopped at once" "Its output is in $PROJECT/.floe/serve.log."
			sleep 0.1
		done
		sed -n 's/^listening on //p' "$PROJECT/.floe/serve.log" | head -1 >"$PROJECT/.floe/console-url"
	fi
	printf '\nThe console:  %s/\n' "$(cat "$PROJECT/.floe/console-url")"
	printf 'Admin token:  %s\n' "$(tail -1 "$token_file")"
	printf '(kept in %s, readable by you only; `floe -C %s serve token add --role viewer` makes one for a colleague)\n' \
		"$token_file" "$PROJECT"
	printf 'Stop it with: kill %s; stop the database with: floe -C %s stack down\n' "$(serve_pid)" "$PROJECT"
}

# ---- main -------------------------------------------------------------------------------------

install_floe
choose_project
read_password
if [ -z "$SOURCE" ]; then
	private_source
	init_project
	check_source
	run_pipeline
	start_console
else
	init_project
	check_source
	printf '\nThe project for %s is ready at %s; nothing was loaded yet.\n' "$SOURCE" "$PROJECT"
	printf 'Next: floe -C %s generate && floe -C %s run\n' "$PROJECT" "$PROJECT"
fi
