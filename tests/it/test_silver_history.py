"""SCD2 history (silver.X_history) built from bronze's snapshots: update, delete, re-insert and a
run without change, on a full table, an incremental one and one with a composite key. Read back
by PyIceberg and DuckDB's iceberg extension and compared, row by row, with what `dbt snapshot`
(strategy check, check_cols all, hard_deletes invalidate) gives for the same observations —
computed here in Python from the source rows each load saw and each bronze snapshot's time."""
import datetime as dt
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

import duckdb
import pyarrow as pa

from icebergkit import TOOLS
from lakecheck import catalog, duckdb_iceberg, norm
from conftest import floe
from sourcedb import TOUCH, Source

TOOL = str(TOOLS / "silver_history")

SQL = TOUCH + '''
CREATE TABLE public.customers (id int PRIMARY KEY, name text NOT NULL, note text, score numeric(6,2));
INSERT INTO public.customers VALUES (1, 'Ada', NULL, 1.50), (2, 'Bob', 'b', 2.00), (3, 'Cy', 'c', NULL),
    (4, 'Dé 漢', NULL, 4.25);
CREATE TABLE public.accounts (id bigint PRIMARY KEY, status text,
                              updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.accounts FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.accounts (id, status) SELECT g, 'open' FROM generate_series(1, 5) g;
CREATE TABLE public.pairs (a int, b text, v int, PRIMARY KEY (a, b));
INSERT INTO public.pairs VALUES (1, 'x', 10), (1, 'y', 11), (2, 'x', 20);
'''

TABLES = {  # bronze table: (source table, key columns)
    "bronze.customers": ("customers", ["id"]),
    "bronze.accounts": ("accounts", ["id"]),
    "bronze.pairs": ("pairs", ["a", "b"]),
}
DBT = ["dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to"]
REPO = Path(__file__).resolve().parents[2]
DBT_BIN = os.environ.get("FLOE_DBT", str(REPO / ".venv-dbt" / "bin" / "dbt"))  # scripts/setup-dbt.sh


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "hist_it", "hist_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("hist")
    src.project(d, extra='\n[silver]\nhistory = ["public.customers", "public.accounts", "public.pairs"]\n')
    src.floe(d, "generate", check=0)
    return d


def source_state(src, table):
    with src.reader() as conn:
        cur = conn.execute(f"select * from public.{table}")
        names = [c.name for c in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def duck_text(ts: dt.datetime) -> str:
    """A TIMESTAMP as DuckDB casts it to varchar: fraction without trailing zeros."""
    text = ts.strftime("%Y-%m-%d %H:%M:%S")
    return text + ("." + f"{ts.microsecond:06d}".rstrip("0") if ts.microsecond else "")


def dbt_snapshot(observations, key):
    """dbt's check strategy on all columns with hard_deletes=invalidate, run once per observation
    (time, rows): changed or gone current versions close at `time`; new, changed or returning
    rows open a version from `time`, dbt_scd_id = md5(key parts | time as text)."""
    rows = []
    for at, data in observations:
        current = {tuple(r[k] for k in key): r for r in rows if r["dbt_valid_to"] is None}
        seen = {tuple(d[k] for k in key): d for d in data}
        cols = list(data[0]) if data else []
        for k, r in current.items():
            if k not in seen or any(norm(r[c]) != norm(seen[k][c]) for c in cols):
                r["dbt_valid_to"] = at
        for k, d in seen.items():
            if k not in current or any(norm(current[k][c]) != norm(d[c]) for c in cols):
                scd = hashlib.md5("|".join([*("" if v is None else str(v) for v in k), duck_text(at)]).encode())
                rows.append({**d, "dbt_scd_id": scd.hexdigest(), "dbt_updated_at": at, "dbt_valid_from": at,
                             "dbt_valid_to": None})
    return rows


def as_sorted(rows, key):
    return sorted(([norm(v) for v in r.values()] for r in rows),
                  key=lambda r: repr(r))


class History:
    """Runs floe and the history build; remembers each new bronze snapshot's time and source rows."""

    def __init__(self, src, d):
        self.src, self.d = src, d
        self.observations = {t: [] for t in TABLES}
        self.seen = {t: set() for t in TABLES}

    def load(self):
        # bronze only: the tool builds the history (floe run's silver layer calls the same function)
        run = json.loads(self.src.floe(self.d, "run", "--layer", "bronze", "--json", check=0).out)
        cat = catalog(self.d)
        for r in run["tables"]:
            if r["table"] not in TABLES:
                continue
            snap = cat.load_table(r["table"]).current_snapshot()
            if snap.snapshot_id not in self.seen[r["table"]]:
                self.seen[r["table"]].add(snap.snapshot_id)
                at = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=snap.timestamp_ms)
                self.observations[r["table"]].append((at, source_state(self.src, TABLES[r["table"]][0])))

    def build(self, table):
        out = subprocess.run([TOOL, str(self.d), table, "run-x"], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def build_all(self):
        return {t: self.build(t) for t in TABLES}

    def check(self):
        cat = catalog(self.d)
        for bronze, (name, key) in TABLES.items():
            want = as_sorted(dbt_snapshot(self.observations[bronze], key), key)
            tbl = cat.load_table(f"silver.{name}_history")
            cols = [f.name for f in tbl.schema().fields]
            assert cols[-4:] == DBT and cols[:-4] == list(self.observations[bronze][0][1][0]), cols
            got = as_sorted(tbl.scan().to_arrow().to_pylist(), key)
            assert got == want, (bronze, got, want)
            duck = duckdb_iceberg().execute(f"select * from iceberg_scan('{tbl.metadata_location}')")
            names = [c[0] for c in duck.description]
            assert as_sorted([dict(zip(names, r)) for r in duck.fetchall()], key) == want, bronze


@pytest.fixture(scope="module")
def hist(src, proj):
    return History(src, proj)


def test_first_load_opens_one_version_per_row(hist):
    hist.load()
    res = hist.build_all()
    assert res["bronze.customers"]["opened"] == 4 and res["bronze.customers"]["closed"] == 0, res
    assert res["bronze.pairs"]["rows"] == 3 and res["bronze.pairs"]["snapshot_id"] > 0, res
    hist.check()


def test_update_closes_and_opens(hist):
    hist.src.admin("UPDATE public.customers SET name = 'Bobby', note = NULL WHERE id = 2")
    hist.src.admin("UPDATE public.customers SET note = 'new' WHERE id = 1")  # NULL → value is a change
    hist.src.admin("UPDATE public.accounts SET status = 'frozen' WHERE id = 2")
    hist.src.admin("UPDATE public.pairs SET v = 12 WHERE a = 1 AND b = 'y'")
    hist.load()
    res = hist.build_all()
    assert (res["bronze.customers"]["opened"], res["bronze.customers"]["closed"]) == (2, 2), res
    assert (res["bronze.accounts"]["opened"], res["bronze.accounts"]["closed"]) == (1, 1), res
    hist.check()


def test_delete_closes_and_reinsert_opens_two_loads_in_one_build(hist):
    hist.src.admin("DELETE FROM public.customers WHERE id = 3")
    hist.src.admin("DELETE FROM public.accounts WHERE id = 4")
    hist.src.admin("DELETE FROM public.pairs WHERE a = 2")
    hist.load()
    res = hist.build_all()
    assert (res["bronze.customers"]["opened"], res["bronze.customers"]["closed"]) == (0, 1), res
    hist.src.admin("INSERT INTO public.customers VALUES (3, 'Cy', 'c', NULL)")  # the same row comes back
    hist.src.admin("INSERT INTO public.accounts (id, status) VALUES (4, 'open')")
    hist.src.admin("INSERT INTO public.pairs VALUES (2, 'x', 20)")
    hist.load()
    hist.src.admin("UPDATE public.customers SET score = 9.99 WHERE id = 4")
    hist.load()  # two bronze snapshots, then one build reads both
    res = hist.build_all()
    assert res["bronze.customers"]["observations"] == 2, res
    assert (res["bronze.customers"]["opened"], res["bronze.customers"]["closed"]) == (2, 1), res
    hist.check()
    versions = [r for r in catalog(hist.d).load_table("silver.customers_history").scan().to_arrow().to_pylist()
                if r["id"] == 3]
    assert len(versions) == 2 and sum(r["dbt_valid_to"] is None for r in versions) == 1, versions


def test_a_run_without_change_adds_nothing(hist):
    before = {t: len(catalog(hist.d).load_table(f"silver.{n}_history").snapshots()) for t, (n, _) in TABLES.items()}
    hist.load()
    res = hist.build_all()
    for t, (name, _) in TABLES.items():
        assert res[t]["opened"] == 0 and res[t]["closed"] == 0 and res[t]["snapshot_id"] == -1, res
        assert len(catalog(hist.d).load_table(f"silver.{name}_history").snapshots()) == before[t]
    again = hist.build_all()  # and building twice on the same bronze snapshot reads nothing new
    assert all(r["opened"] == 0 and r["snapshot_id"] == -1 for r in again.values()), again
    hist.check()
    summary = catalog(hist.d).load_table("silver.customers_history").current_snapshot().summary
    assert summary["floe.history-bronze-snapshot"] and summary["floe.run-id"] == "run-x"


def dbt_project(path: Path, snapshots):
    """A dbt project snapshotting obs.<name> for each (name, key) of `snapshots` with strategy check on
    all columns and hard_deletes invalidate; dbt's snapshot clock pinned to var `observed_at`."""
    files = {
        "dbt_project.yml": "name: hist\nversion: '1.0'\nprofile: hist\nmacro-paths: [macros]\n"
                           "snapshot-paths: [snapshots]\nmodel-paths: [models]\n"
                           "dispatch:\n  - macro_namespace: dbt\n    search_order: [hist, dbt]\n",
        # floe takes the bronze snapshot's time where dbt takes its own clock: pin dbt's to it
        "macros/observed_at.sql": "{% macro duckdb__snapshot_get_time() -%}\n"
                                  "  '{{ var(\"observed_at\") }}'::timestamp\n{%- endmacro %}\n",
        "models/sources.yml": "sources:\n  - name: obs\n    schema: obs\n    tables: ["
                              + ", ".join("{name: %s}" % name for name, _ in snapshots) + "]\n",
        "snapshots/history.yml": "snapshots:\n" + "".join(
            f"  - name: {name}_history\n    relation: source('obs', '{name}')\n    config:\n"
            f"      schema: snapshots\n      unique_key: {json.dumps(key)}\n      strategy: check\n"
            f"      check_cols: all\n      hard_deletes: invalidate\n" for name, key in snapshots),
        "profiles.yml": f"hist:\n  target: dev\n  outputs:\n    dev: {{type: duckdb, path: '{path / 'dbt.duckdb'}', "
                        "threads: 1}\n",
    }
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    return path / "dbt.duckdb"


def dbt_snapshot_run(path: Path, name: str, at: dt.datetime):
    run = subprocess.run([DBT_BIN, "snapshot", "--select", f"{name}_history", "--vars",
                          json.dumps({"observed_at": duck_text(at)}), "--project-dir", str(path),
                          "--profiles-dir", str(path)], capture_output=True, text=True, timeout=300, cwd=path,
                         env=dict(os.environ, DBT_SEND_ANONYMOUS_USAGE_STATS="false"))
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def dbt_rows(db: Path, name: str):
    con = duckdb.connect(str(db), read_only=True)
    cur = con.execute(f"select * from main_snapshots.{name}_history")
    names = [c[0] for c in cur.description]
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    con.close()
    return names, rows


def assert_floe_history_equals(d: Path, name: str, key, db: Path, first_rows: int):
    names, want = dbt_rows(db, name)
    tbl = catalog(d).load_table(f"silver.{name}_history")
    got = tbl.scan().to_arrow().to_pylist()
    assert names == [f.name for f in tbl.schema().fields], names
    assert len(want) == len(got) > first_rows, (name, len(want), len(got))
    assert as_sorted(want, key) == as_sorted(got, key), name
    duck = duckdb_iceberg().execute(f"select * from iceberg_scan('{tbl.metadata_location}')")
    cols = [c[0] for c in duck.description]
    assert as_sorted([dict(zip(cols, r)) for r in duck.fetchall()], key) == as_sorted(want, key), name


def test_real_dbt_snapshot_of_the_same_observations_equals_floes_history(hist, tmp_path):
    """`dbt snapshot` (dbt-duckdb) run once per observation over the rows that load saw, its clock
    pinned to the bronze snapshot's time: its snapshot tables equal floe's history tables."""
    db = dbt_project(tmp_path, [(name, key) for name, key in TABLES.values()])
    for bronze, (name, key) in TABLES.items():
        for at, rows in hist.observations[bronze]:
            con = duckdb.connect(str(db))
            con.execute("create schema if not exists obs")
            obs = pa.Table.from_pylist(rows)  # noqa: F841 (read by DuckDB by name)
            con.execute(f"create or replace table obs.{name} as select * from obs")
            con.close()
            dbt_snapshot_run(tmp_path, name, at)
        assert_floe_history_equals(hist.d, name, key, db, len(hist.observations[bronze][0][1]))


SHOP = {"bronze.customers": ("customers", ["customer_id"]), "bronze.orders": ("orders", ["order_id"])}


def test_shop_tick_run_tick_run_equals_dbt_snapshots_of_the_same_bronze_snapshots(stack, tmp_path):
    """The issue's check: the shop with customers (full) and orders (incremental) in history, tick →
    run → tick → run, each history build after its run; real dbt snapshot over each bronze snapshot
    (read by DuckDB's iceberg extension) with the clock at its time gives the same tables."""
    src = Source(stack, "hist_shop", "hist_shop_reader")
    src.create("")
    target = f"{stack['socket_dir']}:{stack['port']}/hist_shop"
    floe("shop", "generate", "--scale", "0.01", "--seed", "11", "--target", target, check=0)
    src.grant_read("public")
    d = tmp_path / "proj"
    d.mkdir()
    src.project(d, extra='\n[silver]\nhistory = ["public.customers", "public.orders"]\n')
    src.floe(d, "generate", check=0)
    hist = History(src, d)
    for step in range(3):
        if step:
            floe("shop", "tick", "--target", target, "--orders", "15", "--updates", "30", "--deletes", "3",
                 check=0)
        src.floe(d, "run", "--layer", "bronze", check=0)
        for bronze in SHOP:
            hist.build(bronze)
    assert hist.build("bronze.orders")["opened"] == 0  # no new bronze snapshot: nothing

    dbt_dir = tmp_path / "dbt"
    db = dbt_project(dbt_dir, list(SHOP.values()))
    cat = catalog(d)
    for bronze, (name, key) in SHOP.items():
        tbl = cat.load_table(bronze)
        snaps = [s for s in tbl.snapshots() if s.summary.operation.value != "replace"]
        assert len(snaps) >= 2, (bronze, len(snaps))
        first_rows = None
        for snap in sorted(snaps, key=lambda s: s.sequence_number):
            con = duckdb_iceberg()
            con.execute(f"attach '{db}' as dbt")
            con.execute("create schema if not exists dbt.obs")
            con.execute(f"create or replace table dbt.obs.{name} as select * from iceberg_scan("
                        f"'{tbl.metadata_location}', snapshot_from_id => {snap.snapshot_id})")
            first_rows = first_rows or con.execute(f"select count(*) from dbt.obs.{name}").fetchone()[0]
            con.close()
            dbt_snapshot_run(dbt_dir, name, dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=snap.timestamp_ms))
        assert_floe_history_equals(d, name, key, db, first_rows)
