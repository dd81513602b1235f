"""`verified` only when it is true (issue 11, items 3, 4 and 6).

- Floating point inside a composite and in a float array is compared by value: a change made
  behind a proven watermark (the trigger disabled) is found by V3, narrowed to its key and
  repaired — never `verified` while bronze still holds the old value.
- A column reconciliation still cannot read makes the table `verified (partial)` in the text of
  run, reconcile and status, naming the column and why; run and reconcile exit 1.
- An array whose lower bound is not 1 stops the load (the previous snapshot kept), and V3 tells
  it, and a multi-dimensional one, from the list bronze holds.
- Tables as wide as PostgreSQL allows are verified at V3, and a difference in their last
  column is caught.
Bronze is read back by PyIceberg."""
import json

import pytest

from lakecheck import catalog
from sourcedb import TOUCH, Source

WIDE_INTS = 999    # besides the key: 1 000 columns
WIDE_TEXTS = 450

SQL = TOUCH + f'''
CREATE TYPE geo AS (lat double precision, lon real);
CREATE TYPE cases AS ("A" int, a int);
CREATE TABLE public.floats (id bigint PRIMARY KEY, g geo, gs geo[], f8 float8[], f4 float4[],
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.floats FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.floats SELECT g, ROW(g * 1.5, g * 0.25)::geo, ARRAY[ROW(g, -g)::geo, NULL],
    ARRAY[g * 0.1, NULL, 'NaN'], ARRAY[g * 0.5]::float4[], now() - interval '1 day' + g * interval '1 minute'
FROM generate_series(1, 300) g;
CREATE TABLE public.partial (id int PRIMARY KEY, cs cases, n int);
INSERT INTO public.partial SELECT g, ROW(g, -g)::cases, g FROM generate_series(1, 20) g;
CREATE TABLE public.bounds (id int PRIMARY KEY, a int[]);
INSERT INTO public.bounds VALUES (1, '{{7,8}}'), (2, '{{1,2}}'), (3, NULL);  -- an f-string: '{7,8}' 
CREATE TABLE public.wide (id int PRIMARY KEY, {", ".join(f"c{i} int" for i in range(1, WIDE_INTS + 1))});
INSERT INTO public.wide SELECT g, {", ".join(f"g * {i}" for i in range(1, WIDE_INTS + 1))}
FROM generate_series(1, 40) g;
CREATE TABLE public.widet (id int PRIMARY KEY, {", ".join(f"t{i} text" for i in range(1, WIDE_TEXTS + 1))});
INSERT INTO public.widet SELECT g, {", ".join(f"'v{i}-' || g" for i in range(1, WIDE_TEXTS + 1))}
FROM generate_series(1, 40) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "reconcile_trust_it", "reconcile_trust_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = src.generated(tmp_path_factory.mktemp("reconcile-trust"))
    r = src.floe(d, "run", "--json")
    return d, {t["table"]: t for t in json.loads(r.out)["tables"]}


def run_json(src, d, table):
    r = src.floe(d, "run", "--table", table, "--json")
    return r, json.loads(r.out)["tables"][0]


def reconcile_json(src, d, table, *args):
    r = src.floe(d, "reconcile", "--table", table, "--json", *args)
    return r, json.loads(r.out)["tables"][0]


def behind_the_watermark(src, sql):
    """Change the source without moving the watermark: the trigger that proves it, disabled."""
    src.admin("ALTER TABLE public.floats DISABLE TRIGGER touch")
    try:
        src.admin(sql)
    finally:
        src.admin("ALTER TABLE public.floats ENABLE TRIGGER touch")


def bronze_row(d, table, id_):
    return catalog(d).load_table(table).scan(row_filter=f"id = {id_}").to_arrow().to_pylist()[0]


# ---- item 3: floats inside composites and lists -------------------------------------------------


def test_floats_inside_records_and_lists_are_compared_nothing_is_excluded(src, proj):
    d, run = proj
    assert run["bronze.floats"]["mode"] == "incremental", run["bronze.floats"]
    assert run["bronze.floats"]["check"] == "verified", run["bronze.floats"]
    _, t = reconcile_json(src, d, "public.floats")
    assert t["state"] == "verified" and t["partial"] is False and t["v3"]["excluded"] == [], t


# (name, row id, the source change, where bronze shows it after the repair, the value)
CHANGES = [
    ("double-in-a-record-one-ulp", 5, "UPDATE public.floats SET g.lat = 7.500000000000001 WHERE id = 5",
     lambda r: r["g"]["lat"], 7.500000000000001),
    ("real-in-a-record-in-an-array", 6, "UPDATE public.floats SET gs[1].lon = -6.0000005 WHERE id = 6",
     lambda r: r["gs"][0]["lon"], pytest.approx(-6.0000005, rel=1e-7)),
    ("element-of-a-float8-array", 7, "UPDATE public.floats SET f8[1] = 0.7000000000000002 WHERE id = 7",
     lambda r: r["f8"][0], 0.7000000000000002),
    ("element-of-a-float4-array", 8, "UPDATE public.floats SET f4[1] = 4.0000005 WHERE id = 8",
     lambda r: r["f4"][0], pytest.approx(4.0000005, rel=1e-7)),
    ("nan-to-a-number-in-an-array", 9, "UPDATE public.floats SET f8[3] = 0 WHERE id = 9",
     lambda r: r["f8"][2], 0.0),
]


@pytest.mark.parametrize("name,id_,sql,read,want", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_float_changed_behind_the_watermark_is_diverged_then_repaired(src, proj, name, id_, sql, read, want):
    d, _ = proj
    before = read(bronze_row(d, "bronze.floats", id_))
    behind_the_watermark(src, sql)
    # without a repair: diverged, narrowed to the key (exit 1), never verified
    r, t = reconcile_json(src, d, "public.floats")
    assert r.rc == 1 and t["outcome"] == "diverged", t
    assert [k["key"] for k in t["v3"]["keys"]] == [[str(id_)]], t["v3"]
    # the incremental load finds no row past the watermark; its check finds the change and repairs it
    r, t = run_json(src, d, "public.floats")
    assert r.rc == 0 and t["check"] == "verified" and t["repaired"] is True, (t, r.out)
    after = read(bronze_row(d, "bronze.floats", id_))
    assert after == want and before != after, (before, after)
    status = json.loads(src.floe(d, "status", "--json").out)
    row = next(x for x in status["tables"] if x["table"] == "bronze.floats")
    assert row["state"] == "verified" and row["reconcile"]["history"].startswith("diverged"), row


# ---- item 3: what is still not compared is said ------------------------------------------------


def test_a_column_not_compared_makes_the_table_verified_partial_in_every_text(src, proj):
    d, run = proj
    assert run["bronze.partial"]["check"] == "verified (partial)", run["bronze.partial"]
    why = 'cs: fields "A" and "a" differ only in case'
    r = src.floe(d, "run", "--table", "public.partial")
    line = next(x for x in r.out.splitlines() if x.strip().startswith("verified"))
    assert r.rc == 1 and line.strip().startswith("verified (partial): ") and why in line, r
    assert "1 not verified" in r.out, r
    r = src.floe(d, "reconcile", "--table", "public.partial")
    assert r.rc == 1, r
    line = next(x for x in r.out.splitlines() if "bronze.partial" in x)
    assert line.split()[:2] == ["verified", "(partial)"] and why in line, r
    assert "0 verified, 1 verified (partial), 0 diverged" in r.out, r
    r = src.floe(d, "status")
    assert r.rc == 0, r
    line = next(x for x in r.out.splitlines() if x.startswith("bronze.partial "))
    assert "verified (partial)" in line and why in line, r
    assert "1 verified (partial)" in r.out.splitlines()[-1], r
    _, t = reconcile_json(src, d, "public.partial")
    assert t["outcome"] == "verified" and t["state"] == "verified (partial)" and t["partial"] is True, t
    assert [e.split(":")[0] for e in t["v3"]["excluded"]] == ["cs"], t["v3"]
    status = json.loads(src.floe(d, "status", "--json").out)
    assert next(x for x in status["tables"] if x["table"] == "bronze.partial")["state"] == "verified (partial)"
    assert status["partial"] >= 1, status


# ---- item 4: array lower bounds ----------------------------------------------------------------


def assert_load_stopped(src, d, why):
    r = src.floe(d, "run", "--table", "public.bounds")
    line = next(x for x in r.out.splitlines() if "bronze.bounds" in x)
    assert r.rc == 1 and line.split()[0] == "failed", r
    assert why in line and 'in column "a" of row' in line, r


def test_an_array_lower_bound_stops_the_load_and_v3_sees_it(src, proj):
    d, run = proj
    assert run["bronze.bounds"]["check"] == "verified", run["bronze.bounds"]
    tbl = catalog(d).load_table("bronze.bounds")
    snapshot = tbl.current_snapshot().snapshot_id
    src.admin("UPDATE public.bounds SET a = '[0:1]={7,8}' WHERE id = 1")
    src.admin("UPDATE public.bounds SET a = '{{1},{2}}' WHERE id = 2")
    try:
        # V3 tells '[0:1]={7,8}' from the list [7, 8], and {{1},{2}} from [1, 2]
        r, t = reconcile_json(src, d, "public.bounds")
        assert r.rc == 1 and t["outcome"] == "diverged", t
        assert sorted(k["key"] for k in t["v3"]["keys"]) == [["1"], ["2"]], t["v3"]
        # each stops the load, naming the column and why
        src.admin("UPDATE public.bounds SET a = '{7,8}' WHERE id = 1")
        assert_load_stopped(src, d, "multi-dimensional arrays cannot be carried")
        src.admin("UPDATE public.bounds SET a = '[0:1]={7,8}' WHERE id = 1")
        src.admin("UPDATE public.bounds SET a = '{1,2}' WHERE id = 2")
        assert_load_stopped(src, d, "an array with lower bound 0 (not 1) cannot be carried")
        tbl = catalog(d).load_table("bronze.bounds")
        assert tbl.current_snapshot().snapshot_id == snapshot
        assert bronze_row(d, "bronze.bounds", 1)["a"] == [7, 8]
    finally:
        src.admin("UPDATE public.bounds SET a = '{7,8}' WHERE id = 1")
        src.admin("UPDATE public.bounds SET a = '{1,2}' WHERE id = 2")
    r, t = run_json(src, d, "public.bounds")
    assert r.rc == 0 and t["check"] == "verified", t


# ---- item 6: wide tables -----------------------------------------------------------------------


@pytest.mark.parametrize("table,column,n_columns", [("wide", f"c{WIDE_INTS}", WIDE_INTS + 1),
                                                     ("widet", f"t{WIDE_TEXTS}", WIDE_TEXTS + 1)])
def test_a_wide_table_is_verified_at_v3_and_its_last_column_compared(src, proj, table, column, n_columns):
    d, run = proj
    assert run[f"bronze.{table}"]["check"] == "verified", run[f"bronze.{table}"]
    assert len(catalog(d).load_table(f"bronze.{table}").schema().fields) == n_columns
    r, t = reconcile_json(src, d, f"public.{table}", "--tier", "V3")
    assert r.rc == 0 and t["state"] == "verified" and t["v3"]["buckets"] >= 1 and t["v3"]["excluded"] == [], t
    assert [m["measure"] for m in t["v2"]] == ["rows"] and t["v2_note"], t  # every value hashed: no aggregates
    change = "{c} = {c} + 1" if table == "wide" else "{c} = {c} || 'x'"
    src.admin(f"UPDATE public.{table} SET {change.format(c=column)} WHERE id = 7")
    try:
        r, t = reconcile_json(src, d, f"public.{table}", "--tier", "V3")
        assert r.rc == 1 and t["outcome"] == "diverged", t
        assert [k["key"] for k in t["v3"]["keys"]] == [["7"]], t["v3"]
        # the divergence described by V2's aggregates: more than one PostgreSQL target list holds
        assert len(t["v2"]) > 1664 and t["v2_note"] is None, (len(t["v2"]), t["v2_note"])
        assert {m["column"] for m in t["v2"] if not m["equal"]} == {column}, [m for m in t["v2"] if not m["equal"]]
    finally:
        restore = "{c} = {c} - 1" if table == "wide" else "{c} = rtrim({c}, 'x')"
        src.admin(f"UPDATE public.{table} SET {restore.format(c=column)} WHERE id = 7")
