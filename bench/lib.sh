# bench/lib.sh — what every benchmark starts with: the floe binary, a private work directory
# removed at exit, and a private PostgreSQL under it. Source it after setting NAME:
#
#   NAME=bronze; . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"; bench_stack_up shop floe_reader
#
# Sets ROOT, FLOE, WORK; bench_stack_up sets PORT and SOCK; measure times a command (ROUNDS runs).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FLOE="${FLOE_BIN:-$ROOT/build/floe}"
WORK="$(mktemp -d "/tmp/floe-bench-$NAME.XXXXXX")"
chmod 755 "$WORK"
bench_cleanup() { "$FLOE" -C "$WORK" stack down >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap bench_cleanup EXIT
[ -x "$FLOE" ] || { echo "bench: build floe first (make)" >&2; exit 2; }

# bench_stack_up DATABASE [READER]: the cluster, its port and socket directory
bench_stack_up() {
	if [ -n "${2:-}" ]; then
		"$FLOE" -C "$WORK" stack up --database "$1" --reader "$2" >/dev/null
	else
		"$FLOE" -C "$WORK" stack up --database "$1" >/dev/null
	fi
	PORT="$("$FLOE" -C "$WORK" stack status --json | sed -n 's/.*"port":\([0-9]*\).*/\1/p')"
	SOCK="$WORK/.floe/pg/run"
}

# median: the median of the numbers on stdin, one a line (the mean of the middle two for an even count)
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# measure NAME CMD...: "NAME best-wall-seconds its-peak-RSS-kB its-CPU-seconds" (user + system)
# over ROUNDS runs of CMD (stdout discarded; a failure prints its stderr and exits)
measure() {
	local name=$1 best="" rss="" cpu=""
	shift
	for _ in $(seq "$ROUNDS"); do
		/usr/bin/time -f '%e %M %U %S' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
		read -r t m u k <"$WORK/time"
		if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t rss=$m cpu=$(awk "BEGIN { print $u + $k }"); fi
	done
	echo "$name $best $rss $cpu"
}

# bench_events_table N: the bronze benchmarks' `events` table in the stack's `shop` database (after
# `floe shop generate`): N rows keyed by a serial id with an updated_at trigger, indexes on
# updated_at of events and orders, readable by floe_reader, analysed. Sets PSQL.
bench_events_table() {
	PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U postgres shop)
	"${PSQL[@]}" <<SQL
CREATE FUNCTION bench_touch() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN NEW.updated_at := clock_timestamp(); RETURN NEW; END \$\$;
CREATE TABLE events (id bigint PRIMARY KEY, kind text NOT NULL, amount numeric(12,2),
                     payload text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION bench_touch();
INSERT INTO events SELECT g, (ARRAY['view','cart','buy'])[1 + g % 3], g % 10000 / 100.0, md5(g::text),
    now() - interval '30 days' + g * interval '0.5 second' FROM generate_series(1, $1) g;
CREATE INDEX ON events (updated_at);
CREATE INDEX ON orders (updated_at);
GRANT SELECT ON events TO floe_reader;
VACUUM ANALYZE;
SQL
}

# bench_shop_project SCALE: a private cluster with the shop at SCALE and a floe project on it in
# $WORK (initialised, pipeline generated), read by floe_reader with a fresh password
bench_shop_project() {
	export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
	bench_stack_up shop floe_reader
	"$FLOE" -C "$WORK" shop generate --scale "$1" --replace >/dev/null
	"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
	"$FLOE" -C "$WORK" generate >/dev/null
}
