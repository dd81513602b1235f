"""Silver built by floe's own runtime: models rendered and run over the verified bronze snapshot,
tests run on the written files before the one commit that publishes them, failing rows
quarantined, and every silver and quarantine table read back by PyIceberg and DuckDB.

`floe generate` writes the models and the lock's silver section (tests from the source's primary
keys, NOT NULLs and foreign keys, plus the user's quality/*.toml rules); floe runs them itself."""
import json

import pyarrow as pa
import pyarrow.parquet as pq

import pytest

from icebergkit import local_path, referenced_files
from lakecheck import catalog, duckdb_iceberg, lock_of, norm
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.customers (customer_id int PRIMARY KEY, name text NOT NULL, tier text,
                               updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.customers FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.customers (customer_id, name, tier, updated_at)
    SELECT g, 'c' || g, CASE WHEN g % 3 = 0 THEN 'gold' ELSE 'basic' END, now() - interval '1 day'
    FROM generate_series(1, 40) g;
CREATE TABLE public.orders (order_id bigint PRIMARY KEY, customer_id int NOT NULL REFERENCES customers,
                            status text, amount numeric(10,2), updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.orders FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.orders (order_id, customer_id, status, amount, updated_at)
    SELECT g, 1 + g % 40, CASE WHEN g % 2 = 0 THEN 'created' ELSE 'shipped' END, g * 1.5,
           now() - interval '1 day' FROM generate_series(1, 300) g;
CREATE TABLE public.visits (visit_id int, page text);
INSERT INTO public.visits SELECT g, 'p' || g FROM generate_series(1, 20) g;
'''


# The user's own rules (quality/*.toml): a NULL tier quarantined, a warn rule, a uniqueness rule on
# a table without a primary key (so bronze can hold a duplicate), a row-count bound.
QUALITY = '''
[[rule]]
name = "not_null_customers_tier"
table = "public.customers"
kind = "not_null"
columns = ["tier"]

[[rule]]
name = "accepted_values_orders_status"
table = "public.orders"
kind = "accepted_values"
columns = ["status"]
values = ["created", "shipped"]
severity = "warn"

[[rule]]
table = "public.orders"
kind = "range"
columns = ["amount"]
min = 0
max = 100000

[[rule]]
name = "unique_visits_visit_id"
table = "public.visits"
kind = "unique"
columns = ["visit_id"]

[[rule]]
table = "public.visits"
kind = "row_count"
min = 1
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "silver_it", "silver_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("silver")
    # small files, so silver's key-range files and an incremental rewrite of some of them show
    src.project(d, extra='\n[bronze]\ntarget-file-rows = 100\nwrite-mode = "copy-on-write"\n\n[silver]\nhistory = ["public.customers"]\n')
    (d / "quality").mkdir()
    (d / "quality" / "rules.toml").write_text(QUALITY)
    src.floe(d, "generate", check=0)
    return d


def run(src, d, *args, check=0):
    r = src.floe(d, "run", "--json", *args, check=None)
    out = json.loads(r.out)
    return r, {t["table"]: t for t in out.get("silver", [])}


def rows_pyiceberg(d, table, snapshot_id=None):
    tbl = catalog(d).load_table(table)
    scan = tbl.scan(snapshot_id=snapshot_id) if snapshot_id else tbl.scan()
    return sorted(([norm(v) for v in r.values()] for r in scan.to_arrow().to_pylist()), key=repr)


def rows_duckdb(d, table):
    tbl = catalog(d).load_table(table)
    got = duckdb_iceberg().execute(f"select * from iceberg_scan('{tbl.metadata_location}')").fetchall()
    return sorted(([norm(v) for v in r] for r in got), key=repr)


def expected(src, sql):
    with src.reader() as conn:
        return sorted(([norm(v) for v in r] for r in conn.execute(sql).fetchall()), key=repr)


def assert_table(src, d, table, sql):
    want = expected(src, sql)
    assert rows_pyiceberg(d, table) == want, table
    assert rows_duckdb(d, table) == want, table


def field_ids(d, table):
    return {f.name: f.field_id for f in catalog(d).load_table(table).schema().fields}


def test_first_run_builds_silver_over_verified_bronze(src, proj):
    d = proj
    # customers no order references (a quarantined parent would orphan its orders: relationships fails)
    src.admin("INSERT INTO public.customers (customer_id, name, tier) VALUES (41, 'c41', NULL), (42, 'c42', NULL)")
    r, silver = run(src, d)
    assert r.rc == 0, r.out + r.err
    assert set(silver) == {"silver.customers", "silver.orders", "silver.visits"}
    for t in silver.values():
        assert t["state"] == "built", t
    # the NULL tiers are quarantined and kept out of silver
    assert silver["silver.customers"]["quarantined"] == 2
    assert_table(src, d, "silver.customers", "select * from customers where tier is not null")
    assert_table(src, d, "silver.orders", "select * from orders")
    assert_table(src, d, "silver.visits", "select * from visits")
    q = rows_pyiceberg(d, "silver.customers__quarantine")
    assert [(r[0], r[1]) for r in q] == [(41, "not_null_customers_tier"), (42, "not_null_customers_tier")]
    assert all(r[2].startswith("r") for r in q)  # the run id
    assert [r[0] for r in rows_duckdb(d, "silver.customers__quarantine")] == [41, 42]
    # history (history.h) is brought up to date after the table's build: every bronze row, current
    hist = catalog(d).load_table("silver.customers_history").scan().to_arrow().to_pylist()
    assert len(hist) == 42 and all(h["dbt_valid_to"] is None for h in hist)
    assert "history: 1 bronze snapshots read, 42 versions opened" in silver["silver.customers"]["detail"]
    # silver carries the lock's field ids
    lock = {t["table"]: t for t in lock_of(d)["tables"]}
    assert field_ids(d, "silver.orders") == {c["name"]: c["id"] for c in lock["orders"]["silver"]["columns"]}
    # every test of the lock ran: those from the source's constraints and the user's rules
    for name, t in lock.items():
        n = len(t["silver"]["tests"])
        got = silver[f"silver.{name}"]["tests"]
        assert {k: got[k] for k in ("passed", "failed", "warned")} == {"passed": n, "failed": 0, "warned": 0}, got
        assert got["incremental"] == 0, got  # a first build tests the whole table
    kinds = {(x["kind"], tuple(x.get("columns", []))) for x in lock["orders"]["silver"]["tests"]}
    assert {("unique", ("order_id",)), ("not_null", ("customer_id",)), ("relationships", ("customer_id",)),
            ("accepted_values", ("status",)), ("range", ("amount",))} <= kinds


def test_unchanged_bronze_and_model_rebuild_nothing(src, proj):
    r, silver = run(src, proj, "--layer", "silver")
    assert r.rc == 0, r.err
    assert {t["state"] for t in silver.values()} == {"unchanged"}


def test_warn_failure_publishes_and_is_reported(src, proj):
    d = proj
    src.admin("UPDATE public.orders SET status = 'lost' WHERE order_id = 5")
    r, silver = run(src, d)
    assert r.rc == 0, r.out + r.err
    o = silver["silver.orders"]
    assert o["state"] == "built" and o["tests"]["warned"] == 1, o
    assert "accepted_values_orders_status warned: 1 row, keys (5)" in o["detail"]
    assert_table(src, d, "silver.orders", "select * from orders")


def test_incremental_processes_changed_keys_and_equals_a_full_build(src, proj):
    d = proj
    src.admin("UPDATE public.orders SET amount = amount + 1 WHERE order_id IN (10, 11, 12)")
    src.admin("DELETE FROM public.orders WHERE order_id = 300")
    src.admin("INSERT INTO public.orders (order_id, customer_id, status, amount) VALUES (301, 2, 'created', 9)")
    r, silver = run(src, d)
    assert r.rc == 0, r.out + r.err
    o = silver["silver.orders"]
    assert o["state"] == "built" and o["changed_keys"] == 5, o
    # 301 rows in key-range files of 100: the files of keys 10-12 and 300-301 rewritten, the middle kept
    tbl = catalog(d).load_table("silver.orders")
    summary = tbl.current_snapshot().summary
    assert summary["deleted-data-files"] == "2" and summary["added-data-files"] == "2", summary
    ranges = sorted((min(k), max(k)) for k in (pq.read_table(local_path(t.file.file_path), columns=["order_id"])
                                                 .column(0).to_pylist() for t in tbl.scan().plan_files()))
    assert len(ranges) == 3 and all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), ranges
    incremental = rows_pyiceberg(d, "silver.orders")
    assert incremental == expected(src, "select * from orders")
    # a full rebuild of the same bronze snapshot gives the same rows
    r, silver = run(src, d, "--layer", "silver", "--full-refresh", "--table", "silver.orders")
    assert r.rc == 0, r.err
    assert silver["silver.orders"]["state"] == "built" and silver["silver.orders"]["changed_keys"] == -1, silver
    assert rows_pyiceberg(d, "silver.orders") == incremental
    assert rows_duckdb(d, "silver.orders") == expected(src, "select * from orders")


def test_an_expired_starting_snapshot_builds_in_full(src, proj):
    d = proj
    built_from = int(catalog(d).load_table("silver.orders").current_snapshot().summary["floe.bronze-snapshot-id"])
    src.admin("UPDATE public.orders SET amount = amount + 1 WHERE order_id = 30")
    r, silver = run(src, d, "--table", "public.orders", "--layer", "bronze")
    assert r.rc == 0, r.out + r.err
    bronze = catalog(d).load_table("bronze.orders")
    bronze.maintenance.expire_snapshots().by_id(built_from).commit()
    r, silver = run(src, d, "--layer", "silver", "--table", "silver.orders")
    assert r.rc == 0, r.out + r.err
    o = silver["silver.orders"]
    assert o["state"] == "built" and o["changed_keys"] == -1, o
    assert rows_pyiceberg(d, "silver.orders") == expected(src, "select * from orders")

def test_duplicate_key_fails_unique_and_keeps_the_previous_snapshot(src, proj):
    d = proj
    before = catalog(d).load_table("silver.visits").current_snapshot().snapshot_id
    src.admin("INSERT INTO public.visits VALUES (5, 'again'), (6, 'again')")
    r, silver = run(src, d)
    assert r.rc == 1, r.out + r.err
    v = silver["silver.visits"]
    assert v["state"] == "failed", v
    assert "unique_visits_visit_id failed: 4 rows, keys (5); (6)" in v["error"], v
    tbl = catalog(d).load_table("silver.visits")
    assert tbl.current_snapshot().snapshot_id == before
    assert rows_pyiceberg(d, "silver.visits") == expected(src, "select * from visits where page <> 'again'")
    # no unreferenced data file is left behind
    data = {str(p) for p in (d / "warehouse" / "silver" / "visits" / "data").iterdir()}
    assert data <= referenced_files(catalog(d), "silver.visits")
    status = json.loads(src.floe(d, "status", "--json", check=None).out)
    row = next(t for t in status["tables"] if t["table"] == "silver.visits")
    assert row["layer"] == "silver" and row["state"] == "failed", row
    assert "unique_visits_visit_id" in row["facts"] and "(5); (6)" in row["facts"], row
    src.admin("DELETE FROM public.visits WHERE page = 'again'")


def test_silver_reads_only_the_verified_bronze_snapshot(src, proj):
    d = proj
    r, silver = run(src, d, "--table", "public.visits")  # the duplicates deleted above: built again
    assert silver["silver.visits"]["state"] == "built", silver
    built = rows_pyiceberg(d, "silver.visits")
    # a load nobody verified: floe run builds no silver over it, and --layer silver reads the last
    # verified snapshot, which silver was built from already
    src.admin("UPDATE public.visits SET page = 'unverified' WHERE visit_id = 1")
    r, silver = run(src, d, "--no-reconcile", "--table", "public.visits")
    assert "silver.visits" not in silver, silver
    r, silver = run(src, d, "--layer", "silver", "--table", "silver.visits")
    assert silver["silver.visits"]["state"] == "unchanged", silver
    assert rows_pyiceberg(d, "silver.visits") == built
    # bronze planted with a difference, reconciliation finds it diverged: silver is skipped
    tbl = catalog(d).load_table("bronze.visits")
    arrow = tbl.scan().to_arrow()
    rows = [dict(r, page="planted") if r["visit_id"] == 2 else r for r in arrow.to_pylist()]
    tbl.overwrite(pa.Table.from_pylist(rows, schema=arrow.schema))
    rec = src.floe(d, "reconcile", "--table", "public.visits", "--json", check=None)
    assert rec.rc == 1, rec.out
    r, silver = run(src, d, "--layer", "silver", "--table", "silver.visits")
    v = silver["silver.visits"]
    assert v["state"] == "skipped" and "bronze.visits is diverged" in v["detail"], v
    assert rows_pyiceberg(d, "silver.visits") == built
    # a normal run reloads, verifies and builds again
    src.admin("UPDATE public.visits SET page = 'p1' WHERE visit_id = 1")
    r, silver = run(src, d, "--table", "public.visits")
    assert r.rc == 0, r.out + r.err
    assert silver["silver.visits"]["state"] in ("built", "unchanged"), silver
    assert rows_pyiceberg(d, "silver.visits") == expected(src, "select * from visits")


def test_hand_edit_of_a_model_takes_effect(src, proj):
    d = proj
    m = d / "pipeline" / "dbt" / "models" / "silver" / "customers.sql"
    m.write_text(m.read_text().replace('"name"', 'upper("name") as "name"', 1))
    r, silver = run(src, d, "--layer", "silver", "--table", "silver.customers")
    assert r.rc == 0, r.out + r.err
    assert list(silver) == ["silver.customers"] and silver["silver.customers"]["state"] == "built"
    assert_table(src, d, "silver.customers",
                 "select customer_id, upper(name), tier, updated_at from customers where tier is not null")


def test_unsupported_jinja_names_construct_and_file(src, proj):
    d = proj
    m = d / "pipeline" / "dbt" / "models" / "silver" / "visits.sql"
    text = m.read_text()
    at = text.index("\nselect") + 1
    m.write_text(text[:at] + "select {{ var('extra') }}" + text[at + len("select"):])
    line = text[:at].count("\n") + 1
    r, silver = run(src, d, "--layer", "silver", "--table", "silver.visits")
    assert r.rc == 2, r.out + r.err
    err = silver["silver.visits"]["error"]
    assert (f"unsupported Jinja construct \"{{{{ var('extra') }}}}\" in pipeline/dbt/models/silver/visits.sql "
            f"at {line}:8") in err, err
    m.write_text(text)

def test_a_new_source_column_reaches_silver_with_its_field_id(src, proj):
    d = proj
    src.admin("ALTER TABLE public.orders ADD COLUMN note text")
    src.admin("UPDATE public.orders SET note = 'n' || order_id WHERE order_id < 10")
    src.floe(d, "generate", check=0)  # the lock's silver columns and the model, regenerated
    r, silver = run(src, d, "--table", "public.orders")
    assert r.rc == 0, r.out + r.err
    assert silver["silver.orders"]["state"] == "built", silver
    lock = {t["table"]: t for t in lock_of(d)["tables"]}
    assert field_ids(d, "silver.orders") == {c["name"]: c["id"] for c in lock["orders"]["silver"]["columns"]}
    assert_table(src, d, "silver.orders", "select * from orders")
