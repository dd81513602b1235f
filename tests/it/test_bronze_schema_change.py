"""The bronze table's columns follow the deployed plan when the source's columns change: renames
(names swapped too), drops, additions, widenings and NOT NULL dropped are made in the lake by
Iceberg schema evolution with the plan's field ids; old files read under the new names by
PyIceberg, DuckDB's iceberg extension and `floe query`; an added or widened column reloads an
incremental table in full; a change Iceberg cannot make in place stops the load with the reason."""
import json

import pytest

from lakecheck import assert_equals_source, catalog, lock_table
from sourcedb import TOUCH, Source

SOURCE = TOUCH + '''
CREATE TABLE public.items (id bigint PRIMARY KEY, label text NOT NULL, qty int, price numeric(8,2),
                           note text, "Größe" text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.items FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.items SELECT g, 'l' || g, g % 50, g / 10.0, 'n' || g, 's' || (g % 3),
    now() - interval '1 day' - g * interval '1 second' FROM generate_series(1, 5000) g;
CREATE TABLE public.rekey (id int PRIMARY KEY, code text NOT NULL, v text);
INSERT INTO public.rekey SELECT g, 'c' || g, 'v' || g FROM generate_series(1, 50) g;
CREATE TABLE public.plain (id int PRIMARY KEY, a text, b text);
INSERT INTO public.plain SELECT g, 'a' || g, 'b' || g FROM generate_series(1, 100) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "schema_change_it", "schema_change_reader", SOURCE)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("schema_change")
    src.project(d, extra="\n[bronze]\ntarget-file-rows = 1000\n")
    src.floe(d, "generate", check=0)
    first = json.loads(src.floe(d, "run", "--json", check=0).out)
    assert all(t["state"] == "loaded" for t in first["tables"]), first
    return d


def summary(d, bronze):
    return catalog(d).load_table(bronze).current_snapshot().summary


def lake_columns(d, bronze):
    return [(f.field_id, f.name) for f in catalog(d).load_table(bronze).schema().fields]


def lock_columns(d, bronze):
    return [(c["id"], c["name"]) for c in lock_table(d, bronze)["columns"]]


def change(src, d, *statements):
    for sql in statements:
        src.admin(sql)
    src.floe(d, "generate", check=0)


def run(src, d, *args, check=0):
    return src.floe(d, "run", "--json", *args, check=check)


def result(r, bronze):
    return next(t for t in json.loads(r.out)["tables"] if t["table"] == bronze)


def verified_run(src, d, bronze, *args):
    """`floe run`: the table's result, verified, and its snapshot summary."""
    t = result(run(src, d, *args), bronze)
    assert t["state"] == "loaded" and t["check"] == "verified", t
    return t, summary(d, bronze)


def test_a_rename_keeps_the_field_and_the_load_incremental(src, proj):
    d = proj
    ids = dict((n, i) for i, n in lock_columns(d, "bronze.items"))
    change(src, d, "ALTER TABLE public.items RENAME COLUMN note TO remark",
           'ALTER TABLE public.items RENAME COLUMN "Größe" TO "size class"',
           "UPDATE public.items SET remark = 'changed' WHERE id IN (7, 4000)")
    t, s = verified_run(src, d, "bronze.items")
    assert s["floe.load-mode"] == "incremental", s  # a rename needs no reload
    assert 'renamed "note" to "remark"' in s["floe.columns-changed"], s
    assert lake_columns(d, "bronze.items") == lock_columns(d, "bronze.items")
    assert dict((n, i) for i, n in lake_columns(d, "bronze.items"))["remark"] == ids["note"]
    assert_equals_source(src, d, "bronze.items")  # files written before the rename read under the new name
    q = json.loads(src.floe(d, "query", "--json", 'SELECT remark, "size class" FROM bronze.items WHERE id IN (1, 7) ORDER BY id').out)
    assert q == [{"remark": "n1", "size class": "s1"}, {"remark": "changed", "size class": "s1"}], q


def test_two_columns_that_swap_names(src, proj):
    """The plan reads a swap as two columns dropped and two added (new ids: a name that still exists
    is never taken for a rename); the lake follows, and every value lands under its new name."""
    d = proj
    before = dict(lock_columns(d, "bronze.plain"))
    change(src, d, "ALTER TABLE public.plain RENAME COLUMN a TO tmp", "ALTER TABLE public.plain RENAME COLUMN b TO a",
           "ALTER TABLE public.plain RENAME COLUMN tmp TO b")
    verified_run(src, d, "bronze.plain")
    after = lock_columns(d, "bronze.plain")
    assert [n for _, n in after] == ["id", "b", "a"] and min(i for i, _ in after[1:]) > max(before)
    assert lake_columns(d, "bronze.plain") == after
    assert_equals_source(src, d, "bronze.plain")
    q = json.loads(src.floe(d, "query", "--json", "SELECT a, b FROM bronze.plain WHERE id = 3").out)
    assert q == [{"a": "b3", "b": "a3"}], q


def test_a_drop_and_an_addition_reload_the_incremental_table_in_full(src, proj):
    d = proj
    dropped = dict((n, i) for i, n in lock_columns(d, "bronze.items"))["size class"]
    change(src, d, 'ALTER TABLE public.items DROP COLUMN "size class"',
           "ALTER TABLE public.items ADD COLUMN rating smallint NOT NULL DEFAULT 3",
           "ALTER TABLE public.items ADD COLUMN label2 text")
    t, s = verified_run(src, d, "bronze.items")
    assert s["floe.load-mode"] == "full", s  # old files lack rating, the source's old rows have 3
    assert 'column "rating" was added' in t["detail"], t
    assert 'dropped "size class"' in s["floe.columns-changed"] and 'added "rating"' in s["floe.columns-changed"], s
    cols = lake_columns(d, "bronze.items")
    assert cols == lock_columns(d, "bronze.items") and dropped not in [i for i, _ in cols]
    assert max(i for i, _ in cols) > dropped  # a spent id is never used again
    assert_equals_source(src, d, "bronze.items")
    # the next change loads incrementally again
    src.admin("UPDATE public.items SET rating = 5 WHERE id = 9")
    run(src, d)
    assert summary(d, "bronze.items")["floe.load-mode"] == "incremental"
    assert_equals_source(src, d, "bronze.items")


def test_a_widening_and_a_dropped_not_null(src, proj):
    d = proj
    change(src, d, "ALTER TABLE public.items ALTER COLUMN qty TYPE bigint",
           "ALTER TABLE public.items ALTER COLUMN label DROP NOT NULL",
           "UPDATE public.items SET qty = 5000000000, label = NULL WHERE id = 11")
    t, s = verified_run(src, d, "bronze.items")
    assert s["floe.load-mode"] == "full" and 'widened "qty" to long' in s["floe.columns-changed"], s
    field = {f.name: f for f in catalog(d).load_table("bronze.items").schema().fields}
    assert str(field["qty"].field_type) == "long" and not field["label"].required
    assert_equals_source(src, d, "bronze.items")


def test_a_type_iceberg_cannot_widen_becomes_a_new_column(src, proj):
    """text → int cannot change in place: the plan retires the column's id and gives it a new one;
    the lake drops the old column (old snapshots keep it) and adds the new one, loaded in full."""
    d = proj
    old_id = dict((n, i) for i, n in lock_columns(d, "bronze.plain"))["a"]
    before = catalog(d).load_table("bronze.plain").current_snapshot().snapshot_id
    src.admin("ALTER TABLE public.plain ALTER COLUMN a TYPE int USING length(a)")
    gen = src.floe(d, "generate", check=0)
    new_id = dict((n, i) for i, n in lock_columns(d, "bronze.plain"))["a"]
    assert new_id > old_id, (old_id, new_id)
    assert f"column a dropped, id {old_id} retired" in gen.out and f"new column a, id {new_id}" in gen.out, gen.out
    verified_run(src, d, "bronze.plain", "--table", "public.plain")
    field = {f.name: f for f in catalog(d).load_table("bronze.plain").schema().fields}
    assert field["a"].field_id == new_id and str(field["a"].field_type) == "int"
    assert_equals_source(src, d, "bronze.plain")
    # the snapshot before the change is still there to read
    assert catalog(d).load_table("bronze.plain").scan(snapshot_id=before).to_arrow().num_rows == 100


def test_a_new_primary_key_moves_the_identifier_fields_and_the_old_key_column_can_go(src, proj):
    d = proj
    ids = dict((n, i) for i, n in lock_columns(d, "bronze.rekey"))
    assert catalog(d).load_table("bronze.rekey").schema().identifier_field_ids == [ids["id"]]
    change(src, d, "ALTER TABLE public.rekey DROP CONSTRAINT rekey_pkey", "ALTER TABLE public.rekey ADD PRIMARY KEY (code)",
           "ALTER TABLE public.rekey DROP COLUMN id")
    t, s = verified_run(src, d, "bronze.rekey", "--table", "public.rekey")
    assert 'dropped "id"' in s["floe.columns-changed"], s
    schema = catalog(d).load_table("bronze.rekey").schema()
    assert schema.identifier_field_ids == [ids["code"]] and [f.name for f in schema.fields] == ["code", "v"]
    assert_equals_source(src, d, "bronze.rekey")
