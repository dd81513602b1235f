#!/usr/bin/env bash
# airflow-test.sh — `make airflow-test`: real Airflow runs the DAG `floe generate` writes for the shop.
#
# A private PostgreSQL (floe stack) holds an Olist-shaped shop (floe shop generate, FLOE_AIRFLOW_SCALE,
# default 0.02); `floe init` and `floe generate` write the project and its pipeline/, including
# pipeline/airflow/dags/floe_shop.py. Airflow (.venv-airflow, scripts/setup-airflow.sh) gets a
# private AIRFLOW_HOME with its SQLite metadata database, the DAG's pool, and runs
# `airflow dags test floe_shop`: every task, in the lineage's order, as `floe run --table T
# --layer L --json` against that PostgreSQL. Then every task instance must have succeeded, and
# `floe status --json` must show every bronze table verified and every silver table built.
# Then a mart (monthly revenue) is drafted with `floe gold draft`, merged, a warehouse database
# is made and [publish] set, and `floe generate` adds gold__monthly_revenue and publish tasks:
# a second `airflow dags test` must run them all, and the published marts.monthly_revenue must
# equal gold.monthly_revenue (rows and revenue).
# Then a planted failure: one order item's price set to numeric NaN, which no Iceberg decimal can
# carry, so a third `airflow dags test` must fail exactly bronze__public__order_items (the load
# refuses the value: exit 1, no retry), leave every
# task downstream of it upstream_failed (never run), run every other task to success, and call
# the failure callback (`floe alert --task-failed`) once — which posts one `task failed` message
# to a webhook receiver this script runs on a private port ([alerts], FLOE_ALERT_WEBHOOK). No
# output or file of the run holds the source password.
#
# A floe without `floe sync` (the command lands with the sync layer) cannot run the DAG's sync
# task: it is then marked successful without running (`--mark-success-pattern '^sync$'`), and
# the script says so.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FLOE="${FLOE_BIN:-$ROOT/build/floe}"
VENV="$ROOT/.venv-airflow"
SCALE="${FLOE_AIRFLOW_SCALE:-0.02}"

"$ROOT/scripts/setup-airflow.sh"
WORK="$(mktemp -d /tmp/floe-airflow-XXXXXX)"
chmod 755 "$WORK"
PROJECT="$WORK/shop"
mkdir -p "$PROJECT"
chmod 755 "$PROJECT"
export AIRFLOW_HOME="$WORK/airflow-home"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__CORE__DAGS_FOLDER="$PROJECT/pipeline/airflow/dags"
export FLOE_BIN="$FLOE"
export FLOE_SOURCE_PASSWORD="af-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
HOOK_PID=""
stop() {
	[ -z "$HOOK_PID" ] || kill "$HOOK_PID" 2>/dev/null || true
	"$FLOE" -C "$PROJECT" stack down >/dev/null 2>&1 || true
	[ -n "${FLOE_AIRFLOW_KEEP:-}" ] || rm -rf "$WORK"
}
trap stop EXIT

# The webhook receiver: every POST body, one JSON line each, in $WORK/hook.jsonl.
"$VENV/bin/python" - "$WORK" <<'PY' &
import http.server, json, sys
work = sys.argv[1]
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(f"{work}/hook.jsonl", "ab") as f:
            f.write(body.replace(b"\n", b" ") + b"\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), Hook)
open(f"{work}/hook.port", "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
HOOK_PID=$!
for _ in $(seq 100); do [ -s "$WORK/hook.port" ] && break; sleep 0.1; done
export FLOE_ALERT_WEBHOOK="http://127.0.0.1:$(cat "$WORK/hook.port")/hook"

"$FLOE" -C "$PROJECT" stack up --database shop --reader floe_reader
PORT="$("$FLOE" -C "$PROJECT" stack status --json | sed -n 's/.*"port":\([0-9]*\).*/\1/p')"
"$FLOE" -C "$PROJECT" shop generate --scale "$SCALE" --replace >/dev/null
"$FLOE" init --source "127.0.0.1:$PORT/shop" --source-user floe_reader "$PROJECT" >/dev/null
"$FLOE" -C "$PROJECT" generate >/dev/null
DAG="$PROJECT/pipeline/airflow/dags/floe_shop.py"
test -f "$DAG" || { echo "airflow-test: floe generate wrote no $DAG" >&2; exit 1; }

AIRFLOW="$VENV/bin/airflow"
"$AIRFLOW" db migrate >/dev/null
"$AIRFLOW" pools set floe_shop_catalog 1 "floe catalog writers" >/dev/null
MARK=()
if ! "$FLOE" sync --help >/dev/null 2>&1; then
	echo "airflow-test: this floe has no \`floe sync\`: the DAG's sync task is marked successful without running"
	MARK=(--mark-success-pattern '^sync$')
fi
START=$(date +%s)
"$AIRFLOW" dags test floe_shop "${MARK[@]}" >"$WORK/dags-test.log" 2>&1 || {
	tail -60 "$WORK/dags-test.log" >&2
	echo "airflow-test: airflow dags test failed (log above)" >&2
	exit 1
}
echo "airflow-test: airflow dags test floe_shop took $(( $(date +%s) - START )) s"

"$VENV/bin/python" - "$PROJECT" "$FLOE" <<'PY'
import json, subprocess, sys
from airflow.models import DagRun
from airflow.utils.session import create_session

project, floe = sys.argv[1], sys.argv[2]
with create_session() as s:
    run = s.query(DagRun).filter(DagRun.dag_id == "floe_shop").order_by(DagRun.id.desc()).first()
    tis = {ti.task_id: str(ti.state).rsplit(".", 1)[-1].lower() for ti in run.get_task_instances(session=s)}
    print(f"airflow-test: dag run {run.run_id}: {run.state}; {len(tis)} task instances")
    bad = {k: v for k, v in tis.items() if v != "success"}
    assert str(run.state).endswith("success") and not bad, (run.state, bad)
status = json.loads(subprocess.run([floe, "-C", project, "status", "--json"], capture_output=True, text=True).stdout)
states = {f'{t["layer"]} {t["table"]}': t["state"] for t in status["tables"]}
print("airflow-test: floe status:", json.dumps(states, sort_keys=True))
bronze_tasks = sum(1 for k in tis if k.startswith("bronze__"))
silver_tasks = sum(1 for k in tis if k.startswith("silver__"))
assert bronze_tasks and bronze_tasks == sum(1 for k in states if k.startswith("bronze ")), (bronze_tasks, states)
assert all(v == "verified" for k, v in states.items() if k.startswith("bronze ")), states
assert silver_tasks and all(v == "built" for k, v in states.items() if k.startswith("silver ")), states
print(f"airflow-test: ok — {bronze_tasks} bronze tasks verified, {silver_tasks} silver tasks built")
PY

# --- gold and publish: a mart drafted, merged and generated becomes gold and publish tasks -----
mkdir -p "$PROJECT/marts"
cat >"$PROJECT/marts/monthly_revenue.md" <<'MD'
---
mart: monthly_revenue
grain: [month, state]
dimensions:
  month: month of orders.order_purchase_timestamp
  state: customers.customer_state
measures:
  revenue: sum of order_items.price
  orders: number of orders
filters:
  - orders.order_status is not 'canceled'
---
Revenue per month and customer state.
MD
"$FLOE" -C "$PROJECT" gold draft marts/monthly_revenue.md >/dev/null
git -C "$PROJECT/pipeline" merge -q --no-edit floe/mart/monthly_revenue
export FLOE_PUBLISH_PASSWORD="pub-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
ADMIN=(psql -qAt -h "$PROJECT/.floe/pg/run" -p "$PORT" -U postgres)
"${ADMIN[@]}" shop -c "CREATE ROLE floe_publisher LOGIN PASSWORD '$FLOE_PUBLISH_PASSWORD'" -c "CREATE DATABASE wh"
"${ADMIN[@]}" wh -c "CREATE SCHEMA marts AUTHORIZATION floe_publisher"
printf '\n[publish]\nhost = "127.0.0.1"\nport = %s\ndatabase = "wh"\nschema = "marts"\nuser = "floe_publisher"\npassword-env = "FLOE_PUBLISH_PASSWORD"\n' "$PORT" >>"$PROJECT/floe.toml"
"$FLOE" -C "$PROJECT" generate >/dev/null
grep -q '"gold__monthly_revenue"' "$DAG" && grep -q '"publish": ("\*", "publish"' "$DAG" ||
	{ echo "airflow-test: the regenerated DAG has no gold or publish task" >&2; exit 1; }
"$AIRFLOW" dags test floe_shop "${MARK[@]}" >"$WORK/dags-test-gold.log" 2>&1 || {
	tail -60 "$WORK/dags-test-gold.log" >&2
	echo "airflow-test: airflow dags test with the mart failed (log above)" >&2
	exit 1
}
"$VENV/bin/python" - <<'PY'
from airflow.models import DagRun
from airflow.utils.session import create_session
with create_session() as s:
    run = s.query(DagRun).filter(DagRun.dag_id == "floe_shop").order_by(DagRun.id.desc()).first()
    tis = {ti.task_id: str(ti.state).rsplit(".", 1)[-1].lower() for ti in run.get_task_instances(session=s)}
assert str(run.state).endswith("success") and all(v == "success" for v in tis.values()), tis
assert tis.get("gold__monthly_revenue") == "success" and tis.get("publish") == "success", tis
print(f"airflow-test: dag run {run.run_id} with the mart: {len(tis)} task instances, gold and publish succeeded")
PY
LAKE=$("$FLOE" -C "$PROJECT" query "select count(*), sum(revenue) from gold.monthly_revenue" --csv | tail -1)
WH=$("${ADMIN[@]}" -F, wh -c "select count(*), sum(revenue) from marts.monthly_revenue")
[ "$LAKE" = "$WH" ] || { echo "airflow-test: published marts.monthly_revenue ($WH) differs from gold ($LAKE)" >&2; exit 1; }
echo "airflow-test: ok — marts.monthly_revenue in the warehouse equals gold.monthly_revenue (rows, revenue: $WH)"

# --- the planted failure ------------------------------------------------------------------
"${ADMIN[@]}" shop -c "UPDATE public.order_items SET price = 'NaN' WHERE ctid = (SELECT min(ctid) FROM public.order_items)"
"$AIRFLOW" dags test floe_shop "${MARK[@]}" >"$WORK/dags-test-failure.log" 2>&1 || true
"$VENV/bin/python" - "$WORK/dags-test-failure.log" "$WORK/hook.jsonl" <<'PY'
import json, sys
from airflow.dag_processing.dagbag import DagBag
from airflow.models import DagRun
from airflow.utils.session import create_session

log = open(sys.argv[1]).read()
with create_session() as s:
    run = s.query(DagRun).filter(DagRun.dag_id == "floe_shop").order_by(DagRun.id.desc()).first()
    tis = {ti.task_id: str(ti.state).rsplit(".", 1)[-1].lower() for ti in run.get_task_instances(session=s)}
import os
bag = DagBag(dag_folder=os.environ["AIRFLOW__CORE__DAGS_FOLDER"])
dag = bag.dags["floe_shop"]
planted = "bronze__public__order_items"
below = set()
todo = [planted]
while todo:
    for d in dag.get_task(todo.pop()).downstream_task_ids:
        if d not in below:
            below.add(d)
            todo.append(d)
print(f"airflow-test: planted failure run {run.run_id}: {run.state}; downstream of {planted}: {sorted(below)}")
assert str(run.state).endswith("failed"), run.state
assert tis[planted] == "failed", tis
assert below and all(tis[d] == "upstream_failed" for d in below), {d: tis[d] for d in below}
others = {k: v for k, v in tis.items() if k != planted and k not in below}
assert all(v == "success" for v in others.values()), others
calls = log.count(f"floe alert --task-failed --table public.order_items --layer bronze: exit")
assert calls == 1, f"the failure callback ran {calls} times"
line = next(l for l in log.splitlines() if "floe alert --task-failed --table public.order_items" in l)
assert line.endswith("exit 0"), line
posts = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
task_failed = [p for p in posts if "task failed" in json.dumps(p)]
assert "order_items" in json.dumps(task_failed), task_failed
assert len(task_failed) == 1, posts
print(f"airflow-test: ok — {planted} failed without retry, {len(below)} downstream task(s) upstream_failed, "
      f"{len(others)} others succeeded; callback: {line.split('floe alert', 1)[1].strip()}; "
      f"webhook: {len(posts)} post(s), one task failed: {task_failed[0].get('text', task_failed[0])!r:.160}")
PY

if grep -rqF -e "$FLOE_SOURCE_PASSWORD" -e "$FLOE_PUBLISH_PASSWORD" -e "$FLOE_ALERT_WEBHOOK" "$WORK"/dags-test*.log "$AIRFLOW_HOME" "$PROJECT/pipeline" 2>/dev/null; then
	echo "airflow-test: a password or the webhook URL appears in Airflow's output or files" >&2
	exit 1
fi
echo "airflow-test: no output or file holds a password or the webhook URL"
