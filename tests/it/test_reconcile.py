"""`floe reconcile`: every loaded table proven against its source (V1 counts, V2 column aggregates,
V3 bucketed checksums) with a planted control that must be caught; and differences planted for
real into the bronze tables — rewritten by PyIceberg, a writer floe did not write — caught by the
tier that must catch them and not claimed by a lower one."""
import datetime as dt
import json
import math
import sqlite3
from decimal import ROUND_DOWN

import psycopg
import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

import typematrix
from conftest import floe
from sourcedb import Source

CONTROLS = ["dropped-row", "tripled-row", "swapped-values", "truncated-decimal", "shifted-timestamp",
            "dropped-microseconds", "null-to-empty", "trimmed-space", "swapped-columns", "changed-byte"]

EXTRA = '''
CREATE TABLE public.edge (id int PRIMARY KEY, d date, ts timestamp, tz timestamptz, t time,
    n numeric(5,-2), n2 numeric(3,5), x8 xid8, c char(4), ch "char", nm name);
INSERT INTO public.edge VALUES
 (1, 'infinity', 'infinity', 'infinity', '24:00', 12300, 0.00123, '123', 'a  ', 'x', 'nm'),
 (2, '-infinity', '-infinity', '-infinity', '00:00:00.000001', -100, -0.00001, '0', '    ', 'y', ''),
 (3, '4713-01-01 BC', '4713-01-01 00:00:00 BC', '100000-01-01 00:00:00.5+00', '12:00', 0, 0,
  '18446744073709551615', '', '', 'z');
CREATE TABLE public."we""ird ; name" ("k e y" text PRIMARY KEY, "Ünï ""q""" int, "x'y" text,
    "-- c" timestamptz, "a,b" numeric);
INSERT INTO public."we""ird ; name"
 SELECT 'k ' || g, g, E'it''s\\n' || g, timestamptz '2020-02-29 12:00:00.000001+00' + g * interval '1 min',
        g / 7.0 FROM generate_series(1, 300) g;
CREATE TABLE public.nokey (a int, b text, f double precision);
INSERT INTO public.nokey SELECT g % 10, 'dup', g * 0.1 FROM generate_series(1, 50) g;
CREATE TABLE public.empty (id int PRIMARY KEY, v text);
CREATE TABLE public.plant (id bigint PRIMARY KEY, amount numeric(12,2), ts timestamptz, t2 timestamp,
    note text, a text, b text, n int, f double precision);
INSERT INTO public.plant SELECT g, ((g * 37) % 100000) / 100.0 + 0.01,
    timestamptz '2024-01-01 00:00:00+00' + g * interval '17.000123 s',
    timestamp '2023-06-01' + g * interval '37.5 s',
    CASE WHEN g % 10 = 0 THEN NULL WHEN g % 7 = 0 THEN 'pad ' ELSE 'note' || g END,
    'a' || g, 'b' || (g % 100), g % 1000, g * 0.5
 FROM generate_series(1, 3000) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "reconcile_it", "reconcile_reader")
    s.create(typematrix.SQL + EXTRA)
    s.admin(f'GRANT USAGE ON SCHEMA "{typematrix.SCHEMA}", public TO {s.role}')
    s.admin(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{typematrix.SCHEMA}", public TO {s.role}')
    return s


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("reconcile")
    src.project(d, schemas=("public", typematrix.SCHEMA))
    src.floe(d, "init", check=0)
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    return d


def reconcile(src, d, *args, check=None):
    r = src.floe(d, "reconcile", "--json", *args, check=check)
    assert r.out, r
    return r, {t["table"]: t for t in json.loads(r.out)["tables"]}


def catalog(d):
    return SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse")


def diffs(table):
    return [(m["column"], m["measure"]) for m in table["v2"] if not m["equal"]]


# ---- clean data: every table verified, every control caught ---------------------------------


def test_every_table_is_verified_and_its_control_caught(src, proj):
    r, tables = reconcile(src, proj, check=0)
    assert set(tables) >= {typematrix.BRONZE, "bronze.edge", 'bronze.we"ird ; name', "bronze.nokey",
                           "bronze.empty", "bronze.plant"}
    for name, t in tables.items():
        assert t["outcome"] == "verified", (name, t)
        assert t["control"]["fired"] is True and t["control"]["name"], t
        assert t["v1"]["source_rows"] == t["v1"]["lake_rows"]
        assert all(m["equal"] for m in t["v2"]) and t["v3"]["diverged"] == []
        # a full V3 hashes every value of every column: V2's aggregates are not computed, and it says so
        assert [m["measure"] for m in t["v2"]] == ["rows"] and t["v2_note"].startswith("not computed"), t
    assert tables["bronze.plant"]["v3"]["key"] == "primary key (id)"
    assert (" equal, every column hashed; column aggregates not computed (V3 covers them); control "
            in tables["bronze.plant"]["detail"]), tables["bronze.plant"]["detail"]
    assert tables["bronze.nokey"]["v3"]["key"] == "whole row"
    assert tables["bronze.empty"]["control"]["name"] == "added-row"
    # floating point is hashed like every other value (PostgreSQL's hashfloat8extended and its C twin)
    assert not any(e.startswith(("f4:", "f8:")) for e in tables[typematrix.BRONZE]["v3"]["excluded"])


def test_status_shows_verified_and_the_ledger_keeps_the_numbers(src, proj):
    st = json.loads(src.floe(proj, "status", "--json", check=0).out)
    rows = {t["table"]: t for t in st["tables"]}
    assert rows["bronze.plant"]["state"] == "verified", rows["bronze.plant"]
    rec = rows["bronze.plant"]["reconcile"]
    assert rec["current"] is True and rec["control_fired"] is True and rec["tier"] == "V3"
    with sqlite3.connect(proj / ".floe" / "state.db") as db:
        n, numbers = db.execute("select count(*), max(numbers) from reconcile_results "
                                "where table_name = 'bronze.plant'").fetchone()
    assert n >= 1 and json.loads(numbers)["v1"]["source_rows"] == 3000


@pytest.mark.parametrize("control", CONTROLS)
def test_each_control_is_caught_on_clean_data(src, proj, control):
    _, tables = reconcile(src, proj, "--table", "public.plant", "--control", control, check=0)
    t = tables["bronze.plant"]
    assert t["outcome"] == "verified" and t["control"]["name"] == control, t
    assert t["control"]["fired"] is True, t["control"]
    assert "V3 1 bucket" in t["control"]["detail"] and [m["measure"] for m in t["v2"]] == ["rows"], t
    if control in ("dropped-row", "tripled-row", "truncated-decimal", "null-to-empty"):  # V2 must catch these too
        _, tables = reconcile(src, proj, "--table", "public.plant", "--tier", "V2", "--control", control, check=0)
        t = tables["bronze.plant"]
        assert t["outcome"] == "verified" and t["control"]["fired"] is True, t["control"]
        assert ", V2 " in t["control"]["detail"] and len(t["v2"]) > 20, t


def test_controls_rotate_between_runs(src, proj):
    seen = set()
    for _ in range(4):
        _, tables = reconcile(src, proj, "--table", "public.plant", check=0)
        seen.add(tables["bronze.plant"]["control"]["name"])
    assert len(seen) == 4, seen


def test_the_type_matrix_reconciles_under_every_applicable_control(src, proj):
    caught = set()
    for control in CONTROLS:
        r, tables = reconcile(src, proj, "--table", typematrix.BRONZE, "--control", control)
        t = tables[typematrix.BRONZE]
        assert all(m["equal"] for m in t["v2"]) and t["v3"]["diverged"] == [], t
        if t["outcome"] == "verified":
            caught.add(control)
        else:  # only a control the three rows leave no room for may be missing
            assert t["outcome"] == "unverified" and "no control" in t["control"]["detail"], t
    assert len(caught) >= 8, caught


def test_tiers_run_what_they_say(src, proj):
    _, v1 = reconcile(src, proj, "--table", "public.plant", "--tier", "V1", check=0)
    t = v1["bronze.plant"]
    assert t["tier"] == "V1" and [m["measure"] for m in t["v2"]] == ["rows"] and t["v3"]["buckets"] == 0
    assert t["control"]["name"] in ("dropped-row", "tripled-row")
    _, v2 = reconcile(src, proj, "--table", "public.plant", "--tier", "v2", check=0)
    t = v2["bronze.plant"]
    assert t["tier"] == "V2" and len(t["v2"]) > 20 and t["v3"]["buckets"] == 0 and t["v2_note"] is None
    _, v3 = reconcile(src, proj, "--table", "public.plant", "--tier", "V3", check=0)
    t = v3["bronze.plant"]
    assert t["tier"] == "V3" and t["v3"]["buckets"] == 1 and [m["measure"] for m in t["v2"]] == ["rows"], t
    assert "V3 hashed every value" in t["v2_note"] and "column aggregates not computed" in t["detail"], t
    assert src.floe(proj, "reconcile", "--tier", "V4").rc == 2
    assert src.floe(proj, "reconcile", "--control", "nope").rc == 2


# ---- the source state: an exported snapshot is what both sides see ---------------------------


def test_an_exported_snapshot_hides_later_source_changes(src, proj):
    with src.reader() as conn:
        conn.autocommit = False
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        name = conn.execute("select pg_export_snapshot()").fetchone()[0]
        src.admin("UPDATE public.plant SET note = 'changed' WHERE id = 1500")
        try:
            _, pinned = reconcile(src, proj, "--table", "public.plant", "--pg-snapshot", name, check=0)
            assert pinned["bronze.plant"]["outcome"] == "verified"
            r, now = reconcile(src, proj, "--table", "public.plant")
            assert r.rc == 1 and now["bronze.plant"]["outcome"] == "diverged"
            assert len(now["bronze.plant"]["v3"]["diverged"]) == 1
            with sqlite3.connect(proj / ".floe" / "state.db") as db:
                keys, outcome = db.execute("select diverged_keys, outcome from reconcile_results where run_id = ?",
                                           (json.loads(r.out)["run_id"],)).fetchone()
            assert (json.loads(keys), outcome) == ([["1500"]], "diverged")
            assert "key (1500): source 1 rows, lake 1 rows" in src.floe(proj, "reconcile", "--table",
                                                                         "public.plant").out
        finally:
            src.admin("UPDATE public.plant SET note = 'note1500' WHERE id = 1500")
            conn.rollback()


# ---- differences planted for real into the bronze table ---------------------------------------


def rewrite(d, change):
    """Rewrite bronze.plant through PyIceberg with `change(rows)` applied to its rows."""
    tbl = catalog(d).load_table("bronze.plant")
    arrow = tbl.scan().to_arrow()
    rows = sorted(arrow.to_pylist(), key=lambda r: r["id"])
    rows = change(rows)
    tbl.overwrite(pa.Table.from_pylist(rows, schema=arrow.schema))


def row(rows, id_):
    return next(r for r in rows if r["id"] == id_)


def swap_values(rows):
    a, b = row(rows, 1501), row(rows, 1502)
    a["a"], b["a"] = b["a"], a["a"]
    return rows


def tripled(rows):
    return rows + [dict(row(rows, 1500)), dict(row(rows, 1500))]


def set_field(id_, field, fn):
    def change(rows):
        r = row(rows, id_)
        r[field] = fn(r[field])
        return rows
    return change


def swap_columns(rows):
    for r in rows:
        r["a"], r["b"] = r["b"], r["a"]
    return rows


# (control, change, the tiers that must report it, the columns V2 may name, the keys V3 names:
#  {id: (source rows, lake rows)}, None when every row differs)
REAL = [
    ("dropped-row", lambda rows: [r for r in rows if r["id"] != 1500], {"V1", "V2", "V3"}, None,
     {"1500": (1, 0)}),
    ("tripled-row", tripled, {"V1", "V2", "V3"}, None, {"1500": (1, 3)}),
    ("swapped-values", swap_values, {"V3"}, set(), {"1501": (1, 1), "1502": (1, 1)}),
    ("truncated-decimal", set_field(1501, "amount", lambda v: (v * 10).to_integral_value(ROUND_DOWN) / 10),
     {"V2", "V3"}, {"amount"}, {"1501": (1, 1)}),
    ("shifted-timestamp", set_field(1501, "ts", lambda v: v + dt.timedelta(hours=1)), {"V3"}, set(),
     {"1501": (1, 1)}),
    ("dropped-microseconds", set_field(1501, "ts", lambda v: v.replace(microsecond=0)), {"V3"}, set(),
     {"1501": (1, 1)}),
    ("null-to-empty", set_field(1500, "note", lambda v: ""), {"V2", "V3"}, {"note"}, {"1500": (1, 1)}),
    ("trimmed-space", set_field(1498, "note", lambda v: v.rstrip(" ")), {"V2", "V3"}, {"note"},
     {"1498": (1, 1)}),
    ("swapped-columns", swap_columns, {"V2", "V3"}, {"a", "b"}, None),
    ("changed-byte", set_field(1501, "a", lambda v: v[:-1] + "x"), {"V3"}, set(), {"1501": (1, 1)}),
    # one ulp of one double: far inside V2's tolerance, caught by V3's hash of the value's bits
    ("changed-float", set_field(1501, "f", lambda v: math.nextafter(v, math.inf)), {"V3"}, set(),
     {"1501": (1, 1)}),
]


@pytest.mark.parametrize("control,change,catching,v2_columns,keys", REAL, ids=[c[0] for c in REAL])
def test_a_difference_planted_for_real_is_caught_by_its_tier_only(src, proj, control, change, catching,
                                                                     v2_columns, keys):
    src.floe(proj, "run", "--table", "public.plant", check=0)
    rewrite(proj, change)
    try:
        seen = {}
        for tier in ("V1", "V2", "V3"):
            r, tables = reconcile(src, proj, "--table", "public.plant", "--tier", tier)
            t = seen[tier] = tables["bronze.plant"]
            if tier in catching:
                assert r.rc == 1 and t["outcome"] == "diverged", (tier, t)
            else:  # a lower tier must not claim what it cannot see
                assert r.rc == 0 and t["outcome"] == "verified", (tier, t)
            if tier == "V2" and v2_columns is not None:
                assert {c for c, _ in diffs(t)} <= v2_columns, diffs(t)
            if tier == "V3" and control not in ("dropped-row", "tripled-row", "swapped-values"):
                assert len(t["v3"]["diverged"]) == 1, t["v3"]
            if tier == "V3" and keys is not None:  # narrowed to exactly the rows planted
                got = {k["key"][0]: (k["source_rows"], k["lake_rows"]) for k in t["v3"]["keys"]}
                assert got == keys, t["v3"]
            if tier == "V3" and keys is None:
                assert len(t["v3"]["keys"]) == 100  # every row differs: the first 100 are named
            if tier == "V3":  # diverged: V2's aggregates computed after all, naming the columns V2 names
                assert t["v2_note"] is None and len(t["v2"]) == len(seen["V2"]["v2"]), t
                assert diffs(t) == diffs(seen["V2"]), (diffs(t), diffs(seen["V2"]))
    finally:
        src.floe(proj, "run", "--table", "public.plant", check=0)


def test_the_reload_is_verified_again(src, proj):
    src.floe(proj, "run", "--table", "public.plant", check=0)
    _, tables = reconcile(src, proj, "--table", "public.plant", check=0)
    assert tables["bronze.plant"]["outcome"] == "verified"


# ---- tables the plan has but bronze does not --------------------------------------------------


def test_a_table_never_loaded_is_unverified(src, proj):
    src.admin("CREATE TABLE public.late (id int PRIMARY KEY)")
    src.admin(f"GRANT SELECT ON public.late TO {src.role}")
    try:
        src.floe(proj, "generate", check=0)
        r, tables = reconcile(src, proj, "--table", "public.late")
        assert r.rc == 1 and tables["bronze.late"]["outcome"] == "unverified"
        assert "floe run" in tables["bronze.late"]["detail"]
    finally:
        src.admin("DROP TABLE public.late")
        src.floe(proj, "generate", check=0)


# ---- the shop, end to end --------------------------------------------------------------------


def test_a_shop_loaded_into_bronze_is_verified(stack, tmp_path_factory):
    s = Source(stack, "reconcile_shop", "reconcile_shop_reader")
    s.create("SELECT 1")
    target = f"{stack['socket_dir']}:{stack['port']}/{s.name}"
    floe("shop", "generate", "--scale", "0.1", "--seed", "5", "--target", target, "--replace", check=0)
    s.admin(f"GRANT USAGE ON SCHEMA public TO {s.role}")
    s.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {s.role}")
    d = tmp_path_factory.mktemp("reconcile-shop")
    s.project(d)
    s.floe(d, "init", check=0)
    s.floe(d, "generate", check=0)
    s.floe(d, "run", check=0)
    r = s.floe(d, "reconcile", check=0)
    assert "9 verified, 0 diverged, 0 unverified, 0 failed" in r.out, r
    st = s.floe(d, "status", "--json", check=0)
    assert {t["state"] for t in json.loads(st.out)["tables"] if t["layer"] == "bronze"} == {"verified"}
    with psycopg.connect(stack["admin"], autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{s.name}" WITH (FORCE)')
