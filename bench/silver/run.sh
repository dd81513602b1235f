#!/usr/bin/env bash
# bench/silver/run.sh — floe's silver build against real `dbt build` on the same generated project,
# in one run, and an incremental silver build after a 0.1 % change (issue #13's targets: floe at
# least 2× faster than dbt; the incremental build under 10 % of the full one).
#
#   setup    a private PostgreSQL, `floe shop generate --scale S`, init, `[bronze] write-mode` set to
#            $WRITE_MODE (default merge-on-read: what a user with small changes over uuid keys
#            chooses, docs/merge-on-read.md; orders and payments load incrementally, the other
#            seven in full), generate, then `floe run --layer bronze` (loaded and reconciled once,
#            not timed); dbt reads the very same bronze tables. BRONZE=cdc: every bronze table by
#            CDC instead (`[bronze] cdc = true`, `[cdc] create-slot = true`; the reader gets
#            REPLICATION and the publications are made by the "DBA" here, as bench/bronze/cdc.sh
#            does — `floe stack up` runs wal_level = logical), so each table moves by merge-on-read
#            deltas and silver's diff reads only those (docs/cdc.md)
#   floe     `floe run --layer silver --full-refresh`: every silver table rendered, run in floe's
#            DuckDB over the verified bronze snapshot, tested and published (each must be `built`)
#   dbt      `dbt build --full-refresh` from pipeline/dbt with dbt-core + dbt-duckdb (.venv-dbt,
#            scripts/setup-dbt.sh; $FLOE_DBT to override) over the same bronze tables, its DuckDB
#            file removed first; the generated profile's threads as written (1)
#   pairs    floe and dbt alternate, PAIRS times (default 3); medians and dbt / floe
#   incr     `floe shop tick` sized to 0.1 % of orders, `floe run --layer bronze` (untimed), then
#            `floe run --layer silver` timed against the full build's median; twice
# Wall time, CPU time (user + system: steadier than wall on a shared machine) and peak RSS from
# /usr/bin/time. Prints a Markdown block; with BENCH_RECORD=1 it is
# also appended to bench/RESULTS.md.
#
#   SCALE=10 bench/silver/run.sh      # orders ≈ 1 M rows
#   SCALE=10 BRONZE=cdc bench/silver/run.sh
set -euo pipefail

NAME=silver
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

SCALE="${SCALE:-10}"
PAIRS="${PAIRS:-3}"
WRITE_MODE="${WRITE_MODE:-merge-on-read}"
BRONZE="${BRONZE:-plan}" # plan: the plan's full/incremental modes; cdc: every table by CDC
DBT="${FLOE_DBT:-$ROOT/.venv-dbt/bin/dbt}"
PY="$ROOT/.venv/bin/python"
[ -x "$DBT" ] || { echo "bench: dbt not found at $DBT: run scripts/setup-dbt.sh (or set FLOE_DBT)" >&2; exit 2; }

export FLOE_SOURCE_PASSWORD="bench-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export FLOE_PII_KEY="bench-pii-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
bench_stack_up shop floe_reader
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h "$SOCK" -p "$PORT" -U postgres shop)
"$FLOE" -C "$WORK" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$WORK" >/dev/null
sed -i "s/^\[bronze\]\$/[bronze]\nwrite-mode = \"$WRITE_MODE\"/" "$WORK/floe.toml"
grep -q "^write-mode = \"$WRITE_MODE\"" "$WORK/floe.toml" || { echo "bench: could not set write-mode" >&2; exit 2; }
if [ "$BRONZE" = cdc ]; then
	project=bench # the publications' names: floe_<project>_<schema>_<table>
	sed -i "0,/^name = .*/s//name = \"$project\"/" "$WORK/floe.toml"
	grep -q "^name = \"$project\"" "$WORK/floe.toml" || { echo "bench: could not set the project name" >&2; exit 2; }
	"${PSQL[@]}" -c 'ALTER ROLE floe_reader REPLICATION'
	for t in $("${PSQL[@]}" -c "select tablename from pg_tables where schemaname = 'public'"); do
		"${PSQL[@]}" -c "CREATE PUBLICATION \"floe_${project}_public_$t\" FOR TABLE public.\"$t\""
	done
	sed -i "s/^\[bronze\]\$/[bronze]\ncdc = true/" "$WORK/floe.toml"
	printf '\n[cdc]\ncreate-slot = true\n' >>"$WORK/floe.toml"
elif [ "$BRONZE" != plan ]; then
	echo "bench: BRONZE is plan or cdc, not $BRONZE" >&2; exit 2
fi
"$FLOE" -C "$WORK" generate >/dev/null
"$FLOE" -C "$WORK" run --layer bronze >"$WORK/out" || { tail -c 4000 "$WORK/out" >&2; exit 1; }
DBTDIR="$WORK/pipeline/dbt"

# timed CMD...: runs CMD (its stdout in $WORK/out), prints "wall-seconds peak-RSS-kB cpu-seconds";
# after a sync, so that the writeback of what earlier steps wrote (dbt's database, a full build's
# files: flushed ~30 s after they were written) does not run inside the timed command
timed() {
	sync
	/usr/bin/time -f '%e %M %U %S' -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err" || {
		tail -c 6000 "$WORK/out" >&2; cat "$WORK/err" >&2; exit 1; }
	awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$WORK/time"
}

# check_silver MODE: every silver table of the lock is in `floe run --json`'s silver array and none
# failed; MODE full: each `built`. Prints "tables rows changed-keys how-built".
check_silver() {
	"$PY" - "$WORK" "$1" <<'PY'
import json, sys
work, mode = sys.argv[1], sys.argv[2]
want = {t["silver"]["table"] for t in json.load(open(f"{work}/pipeline/lakehouse.lock.json"))["tables"]
        if t.get("silver")}
got = {r["table"]: r for r in json.load(open(f"{work}/out"))["silver"]}
bad = [f'{t}: {got[t]["state"] if t in got else "missing"}' for t in sorted(want)
       if t not in got or got[t]["state"] == "failed" or (mode == "full" and got[t]["state"] != "built")]
if not want or bad:
    sys.exit(f"bench: silver not built: {', '.join(bad) or 'no silver table in the lock'}")
built = [r for r in got.values() if r["state"] == "built"]
incr = [r for r in built if r["changed_keys"] >= 0]  # -1: built in full
print(len(want), sum(r["rows"] for r in got.values()), sum(r["changed_keys"] for r in incr),
      f"{len(incr)} incremental, {len(built) - len(incr)} full, {len(got) - len(built)} unchanged")
PY
}

floe_full() {
	timed "$FLOE" -C "$WORK" run --layer silver --full-refresh --json
	check_silver full >"$WORK/silver"
}
dbt_full() {
	rm -f "$DBTDIR/floe_dbt.duckdb" "$DBTDIR/floe_dbt.duckdb.wal"
	(cd "$DBTDIR" && timed "$DBT" build --full-refresh --profiles-dir . --project-dir .)
	{ grep -o "Done\. PASS=.*" "$WORK/out" || true; } | tail -1 >"$WORK/dbt-done"
}
dbt_version() { "$DBT" --version 2>/dev/null | sed -n "s/^ *- $1: *\([0-9.]*\).*/\1/p"; }
# steps: the silver build's step times of the last `floe -vv` run ($WORK/err): the total, each
# step summed over the tables (the eight largest; tests by kind), then the five largest single table steps
# (awk's NR, not head: head exiting early would SIGPIPE sort, which pipefail and set -e turn into exit 141)
steps() {
	local lines
	lines=$(sed -n 's/.* \(silver\.[a-z_]*\): \([^:]*\) \([0-9.]*\) s$/\3|\1|\2/p' "$WORK/err")
	printf '%s\n' "$lines" | awk -F'|' '{ t += $1 } END { printf "%.2f in all — ", t }'
	printf '%s\n' "$lines" | awk -F'|' '{ k = $3; if (match(k, /^(relationships|unique|not_null|check|accepted_values)_/))
			k = "test " substr(k, 1, RLENGTH - 1); s[k] += $1 } END { for (k in s) printf "%.2f|%s\n", s[k], k }' |
		sort -gr | awk -F'|' 'NR <= 8 { printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }'
	printf '; largest: '
	printf '%s\n' "$lines" | sort -t'|' -gr | awk -F'|' 'NR <= 5 { printf "%s%s %s %s", (NR > 1 ? ", " : ""), $2, $3, $1 }'
}
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
pct() { awk "BEGIN { printf \"%.1f\", 100 * $1 / $2 }"; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
floe_times="" dbt_times="" floe_cpus="" dbt_cpus="" floe_rss=0 dbt_rss=0 pairs_md=""
for i in $(seq 1 "$PAIRS"); do
	f=$(floe_full) # assigned first: a failure stops the script (set -e), not only `read`
	d=$(dbt_full)
	read -r ft fm fc <<<"$f"
	read -r dt dm dc <<<"$d"
	floe_times+="$ft"$'\n' dbt_times+="$dt"$'\n' floe_cpus+="$fc"$'\n' dbt_cpus+="$dc"$'\n'
	((fm > floe_rss)) && floe_rss=$fm
	((dm > dbt_rss)) && dbt_rss=$dm
	pairs_md+="| $i | $ft | $dt | $(ratio "$dt" "$ft")× | $fc | $dc | $(ratio "$dc" "$fc")× |"$'\n'
done
read -r n_tables silver_rows _ <"$WORK/silver"
fmed=$(printf '%s' "$floe_times" | median)
dmed=$(printf '%s' "$dbt_times" | median)
fcmed=$(printf '%s' "$floe_cpus" | median)
dcmed=$(printf '%s' "$dbt_cpus" | median)

rows_orders=$("${PSQL[@]}" -c 'select count(*) from orders')
per=$((rows_orders / 1000 / 3 + 1))
incr_md="" steps_md=""
for i in 1 2; do
	"$FLOE" -C "$WORK" shop tick --orders "$per" --updates "$per" --deletes "$per" >/dev/null
	"$FLOE" -C "$WORK" run --layer bronze >"$WORK/out" || { tail -c 4000 "$WORK/out" >&2; exit 1; }
	r=$(timed "$FLOE" -vv -C "$WORK" run --layer silver --json)
	c=$(check_silver incr)
	steps_md+="incremental $i, where the time went (\`floe -vv\`, wall s summed over the tables; the largest table steps): $(steps)"$'\n\n'
	read -r it im ic <<<"$r"
	read -r _ _ changed how <<<"$c"
	incr_md+="| incremental $i (tick: $per new, $per progressed, $per deleted orders) | $it | $(pct "$it" "$fmed") % | $ic | $(pct "$ic" "$fcmed") % | $how | $changed | $((im / 1024)) |"$'\n'
done

block=$(cat <<MD

### silver build: floe vs dbt build, and incremental — $(date -u +%Y-%m-%d) on $(nproc) × $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | sed -n 1p)

Command: \`SCALE=$SCALE BRONZE=$BRONZE bench/silver/run.sh\` (git $(git -C "$ROOT" rev-parse --short HEAD)); bronze write-mode $WRITE_MODE, bronze $BRONZE; dbt-core $(dbt_version installed), dbt-duckdb $(dbt_version duckdb); load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)

$n_tables silver tables, $silver_rows rows; orders: $rows_orders rows; dbt's last build: $(cat "$WORK/dbt-done").

| pair | floe run --layer silver --full-refresh s | dbt build --full-refresh s | dbt / floe | floe CPU s | dbt CPU s | dbt / floe CPU |
|---|---|---|---|---|---|---|
${pairs_md}| **median** | **$fmed** | **$dmed** | **$(ratio "$dmed" "$fmed")×** | **$fcmed** | **$dcmed** | **$(ratio "$dcmed" "$fcmed")×** |

Peak RSS: floe $((floe_rss / 1024)) MB, dbt $((dbt_rss / 1024)) MB.

| after a 0.1 % change | floe run --layer silver s | / full build (median) | CPU s | / full build CPU (median) | silver tables built | changed keys | peak RSS MB |
|---|---|---|---|---|---|---|---|
${incr_md%$'\n'}

${steps_md%$'\n\n'}
MD
)
echo "$block"
if [ -n "${BENCH_RECORD:-}" ]; then
	printf '%s\n' "$block" >>"$ROOT/bench/RESULTS.md"
fi
