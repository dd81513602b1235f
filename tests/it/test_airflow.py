"""`floe generate` writes pipeline/airflow/dags/floe_<project>.py: real Airflow 3 (tests/airflow, its own
venv .venv-airflow made by scripts/setup-airflow.sh) loads it with no import errors, and its task graph
equals the lineage of the lock — sync, bronze per table, silver per table after its bronze and after the
silver of each foreign key's parent, gold marts after the silver tables they read, publish last. Hand
edits are kept as drift; [orchestrators] airflow = false removes the (unedited) file.

`airflow dags test` over the shop is `make airflow-test` (tests/airflow/test_dags_run.py)."""
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import REPO
from sourcedb import Source

AIRFLOW_PY = Path(os.environ.get("FLOE_AIRFLOW_VENV", REPO / ".venv-airflow")) / "bin" / "python"
TOOLS = Path(os.environ.get("FLOE_TOOLS", str(REPO / "build" / "tools")))

SQL = '''
CREATE TABLE public.customers (customer_id int PRIMARY KEY, name text);
CREATE TABLE public.orders (order_id int PRIMARY KEY, customer_id int REFERENCES customers, total numeric(10,2));
CREATE TABLE public.items (order_id int REFERENCES orders, n int, PRIMARY KEY (order_id, n));
CREATE TABLE public."Odd Name" (id int PRIMARY KEY, parent int REFERENCES public."Odd Name");
INSERT INTO public.customers VALUES (1, 'a');
'''

PUBLISH = ('\n[publish]\ndatabase = "wh"\nuser = "publisher"\npassword-env = "WH_PASSWORD"\n')


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "airflow_it", "airflow_reader", SQL)


@pytest.fixture
def proj(src, tmp_path):
    tmp_path.chmod(0o755)
    src.project(tmp_path, extra=PUBLISH)
    src.floe(tmp_path, "generate", check=0)
    return tmp_path


def dagbag(folder):
    assert AIRFLOW_PY.exists(), f"{AIRFLOW_PY} missing: run scripts/setup-airflow.sh"
    with tempfile.TemporaryDirectory() as home:
        proc = subprocess.run([str(AIRFLOW_PY), str(REPO / "tests" / "airflow" / "dagbag.py"), str(folder)],
                              env=dict(os.environ, AIRFLOW_HOME=home), capture_output=True, text=True,
                              timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def expected_graph(lock, marts=(), publish=False):
    """The lineage, computed here from the lock independently of floe's emitter: task → downstream."""
    def tid(layer, name):
        return f"{layer}__" + name.replace(".", "__")
    graph = {"sync": set()}
    silver_of = {}
    loaded = [t for t in lock["tables"] if t["mode"] in ("full", "incremental")]
    for t in loaded:
        name = f'{t["schema"]}.{t["table"]}'
        graph[tid("bronze", name)] = set()
        graph["sync"].add(tid("bronze", name))
        if t.get("silver"):
            graph[tid("silver", name)] = set()
            graph[tid("bronze", name)].add(tid("silver", name))
            silver_of[t["silver"]["table"]] = tid("silver", name)
    for t in loaded:
        child = silver_of.get((t.get("silver") or {}).get("table"))
        for test in (t.get("silver") or {}).get("tests", []):
            parent = silver_of.get(test.get("to")) if test["kind"] == "relationships" else None
            if parent and child and parent != child:
                graph[parent].add(child)
    for m in marts:
        g = tid("gold", m["name"])
        graph[g] = set()
        for r in m["reads"]:
            graph[silver_of[r]].add(g)
        if publish:
            graph.setdefault("publish", set())
            graph[g].add("publish")
    return graph


def graph_of(dag):
    return {task_id: set(t["downstream"]) for task_id, t in dag["tasks"].items()}


def test_dagbag_loads_the_dag_and_its_graph_is_the_lineage(proj):
    dags = proj / "pipeline" / "airflow" / "dags"
    path = dags / "floe_airflow_it.py"
    assert path.exists()
    text = path.read_text()
    assert "from airflow.sdk import" in text
    lock = json.loads((proj / "pipeline" / "lakehouse.lock.json").read_text())
    assert "airflow/dags/floe_airflow_it.py" in lock["files"]
    bag = dagbag(dags)
    assert bag["import_errors"] == {}
    dag = bag["dags"]["floe_airflow_it"]
    got = graph_of(dag)
    want = expected_graph(lock)
    # "Odd Name" is not a safe task id: floe names its tasks <layer>__public_odd_name_<hash>
    odd = {k for k in got if "odd_name" in k}
    assert len(odd) == 2 and all(k.startswith(("bronze__public_odd_name_", "silver__public_odd_name_")) for k in odd)
    rename = {f"{k.split('__')[0]}__public__Odd Name": k for k in odd}
    want = {rename.get(k, k): {rename.get(x, x) for x in v} for k, v in want.items()}
    assert got == want
    assert got["silver__public__customers"] >= {"silver__public__orders"}
    assert got["silver__public__orders"] >= {"silver__public__items"}
    for t in dag["tasks"].values():
        assert t["pool"] == "floe_airflow_it_catalog" and t["retries"] == 3 and t["exponential_backoff"]
        assert t["on_failure_callback"]
    assert dag["schedule"] == "0 * * * *" and dag["catchup"] is False and dag["max_active_runs"] == 1
    # each task runs floe run --table T --layer L --json; credentials only by variable name
    assert '["run", "--table", "public.orders", "--layer", "silver", "--json"]' in text
    assert '"WH_PASSWORD"' in text and '"FLOE_SOURCE_PASSWORD"' in text
    assert '_floe("alert", "--task-failed", "--table", table, "--layer", layer, "--run-id",' in text


def test_marts_of_the_lock_become_gold_tasks_before_publish(proj, tmp_path_factory):
    lock_path = proj / "pipeline" / "lakehouse.lock.json"
    lock = json.loads(lock_path.read_text())
    marts = [{"name": "order_totals", "table": "gold.order_totals", "model": "dbt/models/gold/order_totals.sql",
              "reads": ["silver.orders", "silver.items"], "grain": ["order_id"], "hash": "0" * 64},
             {"name": "customer_value", "table": "gold.customer_value", "model": "dbt/models/gold/customer_value.sql",
              "reads": ["silver.customers", "silver.orders"], "grain": ["customer_id"], "hash": "1" * 64}]
    lock["marts"] = marts
    work = tmp_path_factory.mktemp("marts")
    (work / "lock.json").write_text(json.dumps(lock))
    dags = work / "dags"
    dags.mkdir()
    proc = subprocess.run([str(TOOLS / "airflow_dag"), str(proj / "floe.toml"), str(work / "lock.json")],
                          capture_output=True, text=True, check=True)
    (dags / "floe_airflow_it.py").write_text(proc.stdout)
    bag = dagbag(dags)
    assert bag["import_errors"] == {}
    got = graph_of(bag["dags"]["floe_airflow_it"])
    assert got["gold__order_totals"] == {"publish"} and got["gold__customer_value"] == {"publish"}
    assert "gold__order_totals" in got["silver__public__orders"] and "gold__order_totals" in got["silver__public__items"]
    assert "gold__customer_value" in got["silver__public__customers"]
    assert got["publish"] == set()
    assert '["publish", "--json"]' in proc.stdout
    # no [publish]: no publish task
    toml = (proj / "floe.toml").read_text().split("[publish]")[0]
    (work / "floe.toml").write_text(toml)
    out = subprocess.run([str(TOOLS / "airflow_dag"), str(work / "floe.toml"), str(work / "lock.json")],
                         capture_output=True, text=True, check=True).stdout
    assert '"publish"' not in out.split("EDGES = [")[1].split("]\n")[0]


def test_hand_edit_is_kept_as_drift_and_airflow_false_removes_the_file(src, proj):
    assert (proj / "pipeline" / "dagster" / "pyproject.toml").exists()
    path = proj / "pipeline" / "airflow" / "dags" / "floe_airflow_it.py"
    original = path.read_text()
    path.write_text(original.replace('"retries": 3', '"retries": 5'))
    r = src.floe(proj, "generate", "--json", check=0)
    files = {f["path"]: f["action"] for f in json.loads(r.out)["files"]}
    assert files["airflow/dags/floe_airflow_it.py"] == "kept"
    assert '"retries": 5' in path.read_text()
    path.write_text(original)
    (proj / "floe.toml").write_text((proj / "floe.toml").read_text() + "\n[orchestrators]\nairflow = false\ndagster = false\n")
    r = src.floe(proj, "generate", "--json", check=0)
    files = {f["path"]: f["action"] for f in json.loads(r.out)["files"]}
    assert files["airflow/dags/floe_airflow_it.py"] == "removed"
    assert not path.exists()
    lock = json.loads((proj / "pipeline" / "lakehouse.lock.json").read_text())
    assert not any(p.startswith(("airflow/", "dagster/")) for p in lock["files"])
    assert not (proj / "pipeline" / "dagster" / "pyproject.toml").exists()
