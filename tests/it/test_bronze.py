"""`floe run` loads bronze: every value read back by PyIceberg and DuckDB equals the source's."""
import json
import signal
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

import typematrix
from lakecheck import catalog, lock_of, norm
from sourcedb import Source

MATRIX = typematrix.SQL + '''
CREATE TABLE public.plain (id bigint PRIMARY KEY, note text);
INSERT INTO public.plain SELECT g, repeat('x', g % 50) FROM generate_series(1, 5000) g;
CREATE TABLE public.secretive (id int PRIMARY KEY, visible text, hidden text);
CREATE TABLE public.big (id bigint PRIMARY KEY, payload text);
INSERT INTO public.big SELECT g, md5(g::text) || repeat('y', 200) FROM generate_series(1, 600000) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "bronze_it", "bronze_reader")
    s.create(MATRIX)
    s.admin(f'GRANT USAGE ON SCHEMA "Odd Schema", public TO {s.role}')
    s.admin(f'GRANT SELECT ON ALL TABLES IN SCHEMA "Odd Schema", public TO {s.role}')
    s.admin(f"REVOKE SELECT ON public.secretive FROM {s.role}")
    s.admin(f"GRANT SELECT (id, visible) ON public.secretive TO {s.role}")
    return s


@pytest.fixture(scope="module")
def loaded(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("bronze")
    src.project(d, schemas=("public", "Odd Schema"))
    src.floe(d, "init", check=0)
    src.floe(d, "generate", check=0)
    run = src.floe(d, "run", "--json")
    return d, run


def test_every_planned_table_loads_or_is_refused(loaded):
    d, run = loaded
    out = json.loads(run.out)
    states = {t["table"]: t["state"] for t in out["tables"]}
    assert states["bronze.secretive"] == "refused"
    assert states["bronze.plain"] == "loaded" and states["bronze.big"] == "loaded"
    odd = [k for k in states if k.startswith("bronze.Odd Schema__")]
    assert len(odd) == 1 and states[odd[0]] == "loaded", states
    assert run.rc == 0, run


def test_values_equal_the_source_through_pyiceberg(src, loaded):
    d, _ = loaded
    lock = lock_of(d)
    for t in lock["tables"]:
        if t["mode"] not in ("full", "incremental"):
            continue
        sql = (d / "pipeline" / [f for f in t["files"] if f.startswith("bronze/")][0]).read_text()
        names, rows = src.run_extraction(sql, lock["session"])
        key = names.index(t["key"][0]) if t["key"] else 0
        want = sorted(([norm(v) for v in r] for r in rows), key=lambda r: r[key])
        tbl = catalog(d).load_table(t["bronze"])
        arrow = tbl.scan().to_arrow()
        assert arrow.column_names == [c["name"] for c in t["columns"]]
        got = sorted(([norm(v) for v in r.values()] for r in arrow.to_pylist()), key=lambda r: r[key])
        assert len(got) == len(want), t["bronze"]
        for g, w in zip(got, want):
            assert g == w, (t["bronze"], g, w)


def test_snapshot_summary_and_duckdb_read_it(src, loaded):
    import duckdb
    import duckdb_extension_avro
    import duckdb_extension_iceberg
    d, run = loaded
    run_id = json.loads(run.out)["run_id"]
    tbl = catalog(d).load_table("bronze.plain")
    summary = tbl.current_snapshot().summary
    assert summary["floe.run-id"] == run_id
    assert ":" in summary["floe.source-position"]  # xmin:xmax:xip
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for mod, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        path = Path(mod.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
        con.execute(f"LOAD '{path}'")
    n, s = con.execute(f"select count(*), sum(id) from iceberg_scan('{tbl.metadata_location}')").fetchone()
    assert (n, s) == (5000, 5000 * 5001 // 2)


def test_a_second_run_replaces_and_keeps_history(src, loaded):
    d, _ = loaded
    src.admin("INSERT INTO public.plain VALUES (5001, 'new')")
    r = src.floe(d, "run", "--table", "public.plain", "--json", check=0)
    tbl = catalog(d).load_table("bronze.plain")
    assert tbl.scan().to_arrow().num_rows == 5001
    history = tbl.history()
    assert len(history) == 2
    assert tbl.scan(snapshot_id=history[0].snapshot_id).to_arrow().num_rows == 5000
    assert json.loads(r.out)["tables"][0]["rows"] == 5001


def test_unknown_table_is_a_usage_error(src, loaded):
    d, _ = loaded
    r = src.floe(d, "run", "--table", "public.nope")
    assert r.rc == 2 and "not in the deployed plan" in r.err, r


def test_kill_during_a_load_keeps_the_previous_snapshot_and_the_lock_names_the_holder(src, loaded):
    d, _ = loaded
    before = catalog(d).load_table("bronze.big").current_snapshot().snapshot_id
    first = src.start_load(d, "public.big", "bronze.big")
    assert first.poll() is None, "the load finished before the test could interrupt it"
    second = src.floe(d, "run", "--table", "bronze.big", "--json")
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert second.rc == 1, second
    state = json.loads(second.out)["tables"][0]
    assert state["state"] == "failed" and "is being loaded by run" in state["error"], state
    assert "pid %d" % first.pid in state["error"], state
    tbl = catalog(d).load_table("bronze.big")
    assert tbl.current_snapshot().snapshot_id == before
    assert tbl.scan().to_arrow().num_rows == 600000
    again = src.floe(d, "run", "--table", "public.big", "--json", check=0)
    assert json.loads(again.out)["tables"][0]["rows"] == 600000


def test_status_shows_states_facts_drift_and_interruptions(src, loaded):
    d, _ = loaded
    st = json.loads(src.floe(d, "status", "--json").out)
    rows = {t["table"]: t for t in st["tables"]}
    # every load is reconciled in its own run: a loaded table is verified
    assert rows["bronze.plain"]["state"] == "verified" and rows["bronze.plain"]["rows"] == 5001
    assert rows["bronze.plain"]["age_seconds"] >= 0
    assert rows["bronze.secretive"]["state"] == "refused" and "hidden" in rows["bronze.secretive"]["facts"]
    # the killed load of bronze.big is followed by a completed one
    assert rows["bronze.big"]["state"] == "verified"
    sql = d / "pipeline" / "bronze" / "plain.sql"
    sql.write_text(sql.read_text() + "\n-- edited by hand\n")
    st = json.loads(src.floe(d, "status", "--json").out)
    assert {t["table"]: t for t in st["tables"]}["bronze.plain"]["drift"] is True
    assert "drift" in src.floe(d, "status").out


def test_a_failed_load_names_its_probable_cause(src, loaded, tmp_path):
    d, _ = loaded
    toml = (d / "floe.toml").read_text()
    (d / "floe.toml").write_text(toml.replace(f'port = {src.stack["port"]}', "port = 1"))
    try:
        r = src.floe(d, "run", "--table", "public.plain")
        assert r.rc == 3 and "probable cause: source unreachable" in r.out, r
        s = src.floe(d, "status")
        assert s.rc == 1 and "failed" in s.out and "source unreachable" in s.out, s
    finally:
        (d / "floe.toml").write_text(toml)
    # a wrong password is a refused login, not an unreachable source, and says where the password comes from
    r = src.floe(d, "run", "--table", "public.plain", env={"FLOE_SOURCE_PASSWORD": "not-the-password"})
    assert r.rc == 3 and "probable cause: the source refused floe's login" in r.out, r
    assert "password authentication failed" in r.out and "FLOE_SOURCE_PASSWORD" in r.out, r
    assert "not-the-password" not in r.out + r.err


def test_query_reads_the_current_tables_and_nothing_else(src, loaded):
    d, _ = loaded
    r = src.floe(d, "query", "select count(*) as n, sum(id) as s from bronze.plain", "--json", check=0)
    assert json.loads(r.out) == [{"n": "5001", "s": str(5001 * 5002 // 2)}]
    r = src.floe(d, "query", "select count(*) from bronze.big", "--csv", check=0)
    assert r.out.splitlines()[1] == "600000"
    assert src.floe(d, "query", "copy (select 1) to '/tmp/floe-x.csv'").rc == 2
    bad = src.floe(d, "query", "select * from read_csv('/etc/passwd')")
    assert bad.rc != 0 and "disabled" in bad.err, bad


def test_duckdb_iceberg_reads_every_value_pyiceberg_reads(src, loaded):
    """The two independent readers agree on every value of every table floe wrote."""
    import duckdb
    import duckdb_extension_avro
    import duckdb_extension_iceberg
    d, _ = loaded
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for mod, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        path = Path(mod.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
        con.execute(f"LOAD '{path}'")
    con.execute("SET TimeZone = 'UTC'")
    checked = 0
    for t in lock_of(d)["tables"]:
        if t["mode"] not in ("full", "incremental") or t["bronze"] == "bronze.big":
            continue
        tbl = catalog(d).load_table(t["bronze"])
        want = sorted(([norm(v) for v in r.values()] for r in tbl.scan().to_arrow().to_pylist()), key=repr)
        rows = con.execute(f"select * from iceberg_scan('{tbl.metadata_location}')").fetchall()
        got = sorted(([norm(v) for v in r] for r in rows), key=repr)
        assert got == want, t["bronze"]
        checked += 1
    assert checked >= 2
