"""`floe reconcile` on composite (struct) columns: the composite tables of test_bronze_composite.py
(nested records, arrays in them, arrays of them, anonymous ROW(...)s the extraction rebuilds,
NULL records apart from records of NULLs) are verified at V2 and V3 with nothing excluded (the
doubles inside records compared by value); a struct leaf altered for real in bronze — rewritten by PyIceberg from the data
files — is caught by V3 (and V2 where a count moves), narrowed to its key, and repaired."""
import json
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.io.pyarrow import parquet_file_to_data_file

from composites import SOURCE
from icebergkit import local_path
from sourcedb import Source

# Leaves at the edges of their types inside records (the extraction casts json and numeric to
# text and money to numeric: an anonymous ROW); character(n) padding inside a record and in an
# array of records; a name with a quote and a comma; a table without a key; an empty table; an
# incremental table (key-sorted files) whose repair re-copies keys.
EXTRA = '''
CREATE TYPE edgy AS (d date, ts timestamp, tz timestamptz, t time, c char(4), js json, n numeric,
                     m money, "we""ird, na'me" text, b bytea, nums numeric(12,3)[], flag boolean);
CREATE TYPE padded AS (c char(4), v varchar(3), u uuid);
CREATE TABLE public.comp_edge (id int PRIMARY KEY, e edgy, p padded, ps padded[]);
INSERT INTO public.comp_edge VALUES
 (1, ROW('infinity', 'infinity', '-infinity', '24:00', 'a ', '{"k": "v, w"}', 1.5e-20, 12.34, 'q"u,o''te',
         '\\x00', ARRAY[1.5, NULL, -0.001], true),
     ROW('ab  ', 'x ', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), ARRAY[ROW(' ', '', NULL)::padded, NULL]),
 (2, ROW('4713-01-01 BC', '4713-01-01 00:00:00.000001 BC', '2000-02-29 23:59:59.999999+14', '00:00:00.000001',
         '', 'null', 'NaN', -0.01, '', '\\x', '{}', false), NULL, '{}'),
 (3, NULL, ROW(NULL, NULL, NULL), NULL),
 (4, ROW('-infinity', '-infinity', 'infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
     ROW('', '', NULL), ARRAY[NULL]::padded[]);
CREATE TABLE public.comp_nokey (a int, home addr, homes addr[]);
INSERT INTO public.comp_nokey SELECT g % 3, CASE WHEN g % 2 = 0 THEN ROW('s' || (g % 3), g % 3, NULL)::addr END,
    ARRAY[ROW('h', NULL, ARRAY['x'])::addr] FROM generate_series(1, 30) g;
CREATE TABLE public.comp_empty (id int PRIMARY KEY, home addr, homes addr[], w wrapper);
CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := clock_timestamp();
    RETURN NEW;
END $$;
CREATE TABLE public.comp_inc (id bigint PRIMARY KEY, home addr, t tagged, homes addr[],
                              updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.comp_inc FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.comp_inc SELECT g, ROW('s' || g, g, ARRAY['t'])::addr,
    ROW('ok', 1 + g % 5, '{}', g::numeric / 3, ARRAY[g])::tagged, ARRAY[ROW('h' || g, g, NULL)::addr, NULL],
    now() - interval '1 day' FROM generate_series(1, 6000) g;
'''

TABLES = ["bronze.comp", "bronze.comp_edge", "bronze.comp_nokey", "bronze.comp_empty", "bronze.comp_inc"]


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "reconcile_comp_it", "reconcile_comp_reader", SOURCE + EXTRA)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = src.project(tmp_path_factory.mktemp("reconcile-comp"), extra="\n[bronze]\ntarget-file-rows = 2000\n")
    src.floe(d, "generate", check=0)
    run = json.loads(src.floe(d, "run", "--json", check=0).out)
    return d, {t["table"]: t for t in run["tables"]}


def reconcile(src, d, *args, check=None):
    r = src.floe(d, "reconcile", "--json", *args, check=check)
    assert r.out, r
    return r, {t["table"]: t for t in json.loads(r.out)["tables"]}


def excluded_leaves(t):
    return [e.split(":")[0] for e in t["v3"]["excluded"]]


# ---- clean data -------------------------------------------------------------------------------


def test_every_load_with_composites_was_verified(proj):
    _, run = proj
    for name in TABLES:
        assert run[name]["state"] == "loaded" and run[name]["check"] == "verified", run[name]
    assert run["bronze.comp_inc"]["mode"] == "incremental", run["bronze.comp_inc"]


@pytest.mark.parametrize("tier", ["V2", "V3"])
def test_composite_tables_are_verified_with_nothing_excluded(src, proj, tier):
    d, _ = proj
    _, tables = reconcile(src, d, "--tier", tier, check=0)
    for name in TABLES:
        t = tables[name]
        assert t["outcome"] == "verified" and t["control"]["fired"] is True, (name, t)
        assert t["state"] == "verified" and excluded_leaves(t) == [], (name, t["v3"])
        assert all(m["equal"] for m in t["v2"]), (name, t["v2"])
    comp = tables["bronze.comp"]
    measures = {(m["column"], m["measure"]): m["source"] for m in comp["v2"]}
    if tier == "V2":
        # V2: a struct's non-null count (a record of NULLs is not NULL), a list of structs' elements
        assert measures[("home", "non_null")] == str(25004 - 1 - sum(1 for g in range(10, 25010) if g % 7 == 0))
        assert ("homes", "elements") in measures and ("w", "non_null") in measures
    if tier == "V3":  # every leaf hashed: the column aggregates are not computed
        assert list(measures) == [("*", "rows")] and comp["v2_note"], comp
        assert comp["v3"]["key"] == "primary key (id)" and comp["v3"]["buckets"] == 3
        assert tables["bronze.comp_nokey"]["v3"]["key"] == "whole row"
        assert tables["bronze.comp_empty"]["control"]["name"] == "added-row"


def test_row_controls_are_caught_and_value_controls_do_not_pick_a_struct(src, proj):
    d, _ = proj
    for control in ("dropped-row", "tripled-row"):
        _, tables = reconcile(src, d, "--table", "public.comp", "--control", control, check=0)
        t = tables["bronze.comp"]
        assert t["outcome"] == "verified" and t["control"]["fired"] is True, t
    for control in ("swapped-values", "swapped-columns", "changed-byte", "null-to-empty"):
        _, tables = reconcile(src, d, "--table", "public.comp", "--control", control)
        t = tables["bronze.comp"]
        assert t["outcome"] == "unverified" and "no control" in t["control"]["detail"], t
        assert all(m["equal"] for m in t["v2"]) and t["v3"]["diverged"] == [], t
    # beside structs, a plain column takes the value controls
    _, tables = reconcile(src, d, "--table", "public.comp_inc", "--control", "shifted-timestamp", check=0)
    t = tables["bronze.comp_inc"]
    assert t["control"]["fired"] is True and "column updated_at" in t["control"]["detail"], t


# ---- a struct leaf altered for real -----------------------------------------------------------


def catalog(d):
    return SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse")


def rewrite(d, change):
    """Replace bronze.comp's files by one pyarrow writes with `change(rows)` applied, committed
    by PyIceberg. Not PyIceberg's own write: it turns a NULL list<struct> into [] (the bug its
    scan has, see test_bronze_composite.py), which would plant differences of its own."""
    tbl = catalog(d).load_table("bronze.comp")
    tasks = list(tbl.scan().plan_files())
    # uuids as plain bytes through Python, cast back to the files' types (field ids kept)
    plain = pa.concat_tables([pq.read_table(local_path(t.file.file_path), arrow_extensions_enabled=False)
                              for t in tasks])
    typed = pq.read_schema(local_path(tasks[0].file.file_path))
    rows = change(sorted(plain.to_pylist(), key=lambda r: r["id"]))
    path = f"{tbl.location()}/data/planted-{uuid.uuid4()}.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=plain.schema).cast(typed), local_path(path))
    with tbl.transaction() as tx:
        with tx.update_snapshot().overwrite() as ow:
            for t in tasks:
                ow.delete_data_file(t.file)
            ow.append_data_file(parquet_file_to_data_file(tbl.io, tbl.metadata, path))


def at(id_, fn):
    def change(rows):
        fn(next(r for r in rows if r["id"] == id_))
        return rows
    return change


def set_path(row, path, value):
    """Set a leaf by path: names, and integers for list positions."""
    for part in path[:-1]:
        row = row[part]
    row[path[-1]] = value


# (name, row id, change, tiers that must report it)
REAL = [
    ("nested-street", 1, lambda r: set_path(r, ["p", "at", "street"], "Elx"), {"V3"}),
    ("zip-in-a-struct-in-a-list", 1, lambda r: set_path(r, ["homes", 0, "zip"], 2), {"V3"}),
    ("array-in-a-struct", 10, lambda r: set_path(r, ["home", "tags"], ["t10"]), {"V3"}),
    ("record-to-record-of-nulls", 10, lambda r: set_path(r, ["home"], {"street": None, "zip": None, "tags": None}),
     {"V3"}),
    ("null-record-to-record-of-nulls", 2, lambda r: set_path(r, ["home"], {"street": None, "zip": None, "tags": None}),
     {"V2", "V3"}),
    ("anonymous-row-leaf", 1, lambda r: set_path(r, ["w", "inner_t", "label"], "sad"), {"V3"}),
    ("null-element-of-a-list-of-structs", 11, lambda r: set_path(r, ["geos", 0], None), {"V3"}),
    ("double-inside-a-record-to-null", 1, lambda r: set_path(r, ["p", "pos", "lat"], None), {"V3"}),
    ("double-inside-a-record-value", 1, lambda r: set_path(r, ["p", "pos", "lat"], 2.5), {"V3"}),
    ("double-inside-a-record-in-a-list", 11, lambda r: set_path(r, ["geos", 0, "lat"], 11.000000000000002), {"V3"}),
]


@pytest.mark.parametrize("name,id_,change,catching", REAL, ids=[c[0] for c in REAL])
def test_a_struct_leaf_altered_for_real_is_caught_narrowed_and_repaired(src, proj, name, id_, change, catching):
    d, _ = proj
    rewrite(d, at(id_, change))
    try:
        for tier in ("V2", "V3"):
            r, tables = reconcile(src, d, "--table", "public.comp", "--tier", tier)
            t = tables["bronze.comp"]
            # a tier that cannot see the change must not claim it
            want = (1, "diverged") if tier in catching else (0, "verified")
            assert (r.rc, t["outcome"]) == want, (tier, t)
            if "V2" in catching:  # V3's divergence is described by the same aggregates
                assert [(m["column"], m["measure"]) for m in t["v2"] if not m["equal"]] == [("home", "non_null")]
            if tier == "V3":
                assert len(t["v3"]["diverged"]) == 1, t["v3"]
                got = {k["key"][0]: (k["source_rows"], k["lake_rows"]) for k in t["v3"]["keys"]}
                assert got == {str(id_): (1, 1)}, t["v3"]
        r, tables = reconcile(src, d, "--table", "public.comp", "--repair", check=0)
        t = tables["bronze.comp"]
        assert t["outcome"] == "verified" and t["repaired"], t
    finally:
        src.floe(d, "run", "--table", "public.comp", check=0)


def test_a_silent_source_change_inside_a_record_is_narrowed_to_its_keys_and_repaired(src, proj):
    """A keyed table with a proven watermark: the rows changed behind the watermark are named by
    key; bronze re-copies exactly those keys (composite values rewritten in their files), and the
    table is verified."""
    d, _ = proj
    src.admin("ALTER TABLE public.comp_inc DISABLE TRIGGER touch")
    src.admin("UPDATE public.comp_inc SET home.street = 'changed', "
              "homes = ARRAY[ROW('h', NULL, ARRAY[NULL])::addr] WHERE id IN (100, 4500)")
    src.admin("ALTER TABLE public.comp_inc ENABLE TRIGGER touch")
    r, tables = reconcile(src, d, "--table", "public.comp_inc")
    t = tables["bronze.comp_inc"]
    assert r.rc == 1 and t["outcome"] == "diverged", t
    assert sorted(k["key"] for k in t["v3"]["keys"]) == [["100"], ["4500"]], t["v3"]
    _, tables = reconcile(src, d, "--table", "public.comp_inc", "--repair", check=0)
    t = tables["bronze.comp_inc"]
    assert t["outcome"] == "verified" and t["repaired"].startswith("2 keys re-copied"), t
    assert "repair of 2 keys: 2 rows read, 0 inserted, 2 updated" in t["repaired"], t["repaired"]
    assert "full reload" not in t["repaired"], t["repaired"]
    rows = catalog(d).load_table("bronze.comp_inc").scan(row_filter="id = 100").to_arrow().to_pylist()
    assert rows[0]["home"]["street"] == "changed" and rows[0]["homes"] == [{"street": "h", "zip": None,
                                                                             "tags": [None]}], rows
