#!/usr/bin/env bash
# A single-node Trino for the scale-out checks (`make scale-out`, tests/scaleout/test_trino.py),
# its Iceberg catalog `floe` on floe serve's REST catalog. Not part of `make test`.
#
#   scripts/trino.sh fetch
#       trino-server 476 (the newest whole server with its plugins on Maven Central; 477+ ship
#       the plugins elsewhere) through `mvn dependency:get` into ~/.m2, checked against the
#       sha256 below, unpacked into $FLOE_TRINO_HOME keeping only the iceberg plugin (startup
#       time). Prints the home directory.
#   scripts/trino.sh start RUNDIR PORT REST_URI ROOT
#       configures RUNDIR (etc/, var/log/server.log, trino.log, trino.pid) and starts Trino on 127.0.0.1:PORT:
#       coordinator and worker in one JVM, catalog `floe` = connector iceberg, catalog type rest
#       at REST_URI, the native local file system (file:// and local://) rooted at ROOT: floe's
#       tables carry absolute file:///… paths, which resolve under ROOT, so give `/` for them.
#       The bearer token is read from $FLOE_TRINO_REST_TOKEN by Trino itself (${ENV:…}): it is
#       never written to RUNDIR. Returns once /v1/info says the server is started and a query
#       sees an active node (or fails
#       after FLOE_TRINO_WAIT seconds, default 600, with the log's tail).
#   scripts/trino.sh stop RUNDIR
#       stops the JVM started there (TERM, then KILL after 30 s).
#
#   FLOE_TRINO_HOME   unpacked server (default .deps/trino/trino-server-476)
#   FLOE_TRINO_JAVA   Java for it (default /usr/lib/jvm/temurin-25-jdk-amd64; 476 needs 24+)
#   FLOE_TRINO_XMX    heap (default 4G)
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=476
SHA256=cfd5accde17e8ebd251eeeb78aed1f490e77bb3a164d95a0f454bf8a7c1cbd3f
HOME_DIR=${FLOE_TRINO_HOME:-$PWD/.deps/trino/trino-server-$VERSION}
JAVA_HOME_DIR=${FLOE_TRINO_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64}

die() { echo "trino.sh: $*" >&2; exit 1; }

fetch() {
	if [ -f "$HOME_DIR/.floe-sha256" ] && [ "$(cat "$HOME_DIR/.floe-sha256")" = "$SHA256" ]; then
		echo "$HOME_DIR"; return
	fi
	local m2=${MAVEN_REPO:-$HOME/.m2/repository}
	local tgz=$m2/io/trino/trino-server/$VERSION/trino-server-$VERSION.tar.gz
	if [ ! -f "$tgz" ]; then
		command -v mvn >/dev/null || die "mvn not found; install Debian's maven to fetch trino-server"
		mvn -q -B dependency:get -Dartifact=io.trino:trino-server:$VERSION:tar.gz -Dtransitive=false >&2 ||
			die "could not fetch io.trino:trino-server:$VERSION:tar.gz from Maven Central"
	fi
	echo "$SHA256  $tgz" | sha256sum -c --quiet - >&2 || die "$tgz: sha256 differs from the one recorded here"
	local parent tmp
	parent=$(dirname "$HOME_DIR")
	mkdir -p "$parent"
	tmp=$(mktemp -d "$parent/.unpack.XXXXXX")
	# the plugins share jars by hard links, so unpack them all, then keep only iceberg
	tar xzf "$tgz" -C "$tmp"
	find "$tmp/trino-server-$VERSION/plugin" -mindepth 1 -maxdepth 1 ! -name iceberg -exec rm -rf {} +
	rm -rf "$HOME_DIR"
	mv "$tmp/trino-server-$VERSION" "$HOME_DIR"
	rmdir "$tmp"
	echo "$SHA256" > "$HOME_DIR/.floe-sha256"
	echo "$HOME_DIR"
}

configure() {
	local run=$1 port=$2 uri=$3 root=$4
	mkdir -p "$run/etc/catalog"
	cat > "$run/etc/config.properties" <<EOF
coordinator=true
node-scheduler.include-coordinator=true
http-server.http.port=$port
discovery.uri=http://127.0.0.1:$port
node.environment=floe_scale_out
node.id=floe-trino-1
plugin.dir=$HOME_DIR/plugin
catalog.config-dir=$run/etc/catalog
query.max-memory=1GB
query.max-memory-per-node=1GB
EOF
	cat > "$run/etc/catalog/floe.properties" <<EOF
connector.name=iceberg
iceberg.catalog.type=rest
iceberg.rest-catalog.uri=$uri
iceberg.rest-catalog.security=OAUTH2
iceberg.rest-catalog.oauth2.token=\${ENV:FLOE_TRINO_REST_TOKEN}
fs.native-local.enabled=true
local.location=$root
EOF
	echo "io.trino=WARN" > "$run/etc/log.properties"
}

start() {
	[ $# -eq 4 ] || die "usage: trino.sh start RUNDIR PORT REST_URI ROOT"
	local run=$1 port=$2
	[ -x "$JAVA_HOME_DIR/bin/java" ] || die "no Java at $JAVA_HOME_DIR (Trino $VERSION needs 24+; set FLOE_TRINO_JAVA)"
	[ -d "$HOME_DIR/lib" ] || die "no Trino at $HOME_DIR: run scripts/trino.sh fetch"
	[ -n "${FLOE_TRINO_REST_TOKEN:-}" ] || die "FLOE_TRINO_REST_TOKEN is not set (a floe serve token)"
	configure "$@"
	(cd "$run" && exec "$JAVA_HOME_DIR/bin/java" -server "-Xmx${FLOE_TRINO_XMX:-4G}" \
		-XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djdk.attach.allowAttachSelf=true \
		--enable-native-access=ALL-UNNAMED \
		-Dconfig="$run/etc/config.properties" -Dlog.levels-file="$run/etc/log.properties" \
		-cp "$HOME_DIR/lib/*" io.trino.server.TrinoServer) >"$run/trino.log" 2>&1 &
	echo $! > "$run/trino.pid"
	wait_ready "$run" "$port"
}

# Whether the scheduler sees an active node: started is not yet schedulable (NO_NODES_AVAILABLE).
# One query through the client protocol, its nextUri followed to the end.
active_nodes() {
	local out next
	out=$(curl -fsS -X POST -H "X-Trino-User: floe" \
		--data "SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'" \
		"http://127.0.0.1:$1/v1/statement" 2>/dev/null) || return 1
	while next=$(printf '%s' "$out" | sed -n 's/.*"nextUri":"\([^"]*\)".*/\1/p') && [ -n "$next" ]; do
		if printf '%s' "$out" | grep -q '"data":\[\[[1-9]'; then
			return 0
		fi
		out=$(curl -fsS -H "X-Trino-User: floe" "$next" 2>/dev/null) || return 1
	done
	printf '%s' "$out" | grep -q '"data":\[\[[1-9]'
}

show_log() {
	tail -40 "$1/trino.log" >&2
	[ ! -f "$1/var/log/server.log" ] || grep -E "ERROR|Exception" "$1/var/log/server.log" | tail -20 >&2
}

wait_ready() {
	local run=$1 port=$2 pid deadline
	pid=$(cat "$run/trino.pid")
	deadline=$((SECONDS + ${FLOE_TRINO_WAIT:-600}))
	while [ $SECONDS -lt $deadline ]; do
		kill -0 "$pid" 2>/dev/null || { show_log "$run"; rm -f "$run/trino.pid"; die "trino exited while starting (log: $run/trino.log)"; }
		if curl -fsS "http://127.0.0.1:$port/v1/info" 2>/dev/null | grep -q '"starting":false' &&
			active_nodes "$port"; then
			return 0
		fi
		sleep 1
	done
	show_log "$run"
	stop "$run"
	die "trino not ready after ${FLOE_TRINO_WAIT:-600} s (log: $run/trino.log)"
}

stop() {
	[ $# -eq 1 ] || die "usage: trino.sh stop RUNDIR"
	local pid
	pid=$(cat "$1/trino.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || { rm -f "$1/trino.pid"; return 0; }
	for _ in $(seq 30); do
		kill -0 "$pid" 2>/dev/null || { rm -f "$1/trino.pid"; return 0; }
		sleep 1
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$1/trino.pid"
}

case ${1:-} in
	fetch) fetch ;;
	start) shift; start "$@" ;;
	stop) shift; stop "$@" ;;
	*) die "usage: trino.sh fetch | start RUNDIR PORT REST_URI WAREHOUSE | stop RUNDIR" ;;
esac
