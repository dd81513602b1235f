"""Silver over CDC bronze (docs/silver.md, "What a build skips, and why that is proven"): a CDC run
commits a bronze snapshot for every table it follows, if only to stamp the stream position it
reached. A silver table whose bronze rows did not move is then not built again — proven by the
live files of the two bronze snapshots — unless something its tests read did move: the planted
case deletes a parent row under its children, whose own bronze rows stay as they were."""
import json

import pytest

from lakecheck import query_rows, run_layers, snapshot_id, table_rows
from sourcedb import Source

SQL = '''
CREATE TABLE public.tags (tag text PRIMARY KEY, label text NOT NULL);
INSERT INTO public.tags VALUES ('a', 'one'), ('b', 'two'), ('c', 'three');
CREATE TABLE public.items (item_id int PRIMARY KEY, tag text REFERENCES tags, qty int NOT NULL);
INSERT INTO public.items SELECT g, (ARRAY['a','b','c'])[1 + g % 3], g FROM generate_series(1, 60) g;
CREATE TABLE public.other (id int PRIMARY KEY, n int NOT NULL);
INSERT INTO public.other SELECT g, g FROM generate_series(1, 10) g;
'''
TABLES = ["public.tags", "public.items", "public.other"]
AS_BUILT = "which the model built and its tests passed as they stand"


@pytest.fixture(scope="module")
def src(stack):
    s = Source.readable(stack, "silver_cdc", "silver_cdc_reader", SQL)
    s.admin(f"ALTER ROLE {s.role} REPLICATION")
    for t in TABLES:
        s.admin(f'CREATE PUBLICATION "floe_silver_cdc_public_{t.split(".")[1]}" FOR TABLE {t}')
    yield s
    for (slot,) in s.admin("select slot_name from pg_replication_slots where database = 'silver_cdc'").fetchall():
        s.admin("select pg_drop_replication_slot(%s)", (slot,))


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("silver_cdc")
    src.project(d, extra=f'\n[cdc]\ntables = {json.dumps(TABLES)}\ncreate-slot = true\n')
    src.floe(d, "generate", check=0)
    return d


run = run_layers
snapshot = snapshot_id


rows = table_rows
source = query_rows


def test_first_run_builds_every_table(src, proj):
    r, bronze, silver = run(src, proj)
    assert r.rc == 0, r.out + r.err
    for t in ("silver.tags", "silver.items", "silver.other"):
        assert silver[t]["state"] == "built", silver[t]


def test_a_bronze_snapshot_that_only_stamps_the_stream_position_builds_nothing(src, proj):
    before = {t: snapshot(proj, t) for t in ("bronze.tags", "bronze.items", "silver.tags", "silver.items")}
    src.admin("UPDATE other SET n = n + 1 WHERE id = 3")  # the WAL moves; tags and items do not
    r, bronze, silver = run(src, proj)
    assert r.rc == 0, r.out + r.err
    assert silver["silver.other"]["state"] == "built" and silver["silver.other"]["changed_keys"] == 1, silver
    for name in ("tags", "items"):
        # bronze committed a new snapshot (the position it reached), with the very same rows
        assert snapshot(proj, f"bronze.{name}") != before[f"bronze.{name}"], name
        s = silver[f"silver.{name}"]
        assert s["state"] == "unchanged" and AS_BUILT in s["detail"], s
        assert str(before[f"bronze.{name}"]) in s["detail"], s  # the snapshot it was built from
        assert snapshot(proj, f"silver.{name}") == before[f"silver.{name}"], name
        assert rows(proj, f"silver.{name}") == source(src, f"select * from {name}")
    human = src.floe(proj, "run", check=0).out  # quiet again: the human output says why, not "0 passed"
    assert "unchanged silver.items" in human and AS_BUILT in human and "tests 0 passed" not in human, human


def test_a_parent_that_lost_keys_tests_its_children_again(src, proj):
    # the source's foreign key bypassed (replica role: no FK triggers): tag 'c' deleted under its
    # items. items' own bronze rows do not move, but the parent its relationships test reads did:
    # items must be tested again and fail, its published snapshot kept
    before = snapshot(proj, "silver.items")
    orphans = source(src, "select item_id from items where tag = 'c'")
    assert len(orphans) == 20
    src.admin("SET session_replication_role = replica; DELETE FROM tags WHERE tag = 'c'")
    r, bronze, silver = run(src, proj)
    assert silver["silver.tags"]["state"] == "built", silver["silver.tags"]
    i = silver["silver.items"]
    assert r.rc == 1 and i["state"] == "failed" and i["changed_keys"] == 0, i
    assert f"failed: {len(orphans)} rows" in i["error"], i
    assert snapshot(proj, "silver.items") == before
    # put right in the source: items' bronze still has not moved, the parent has; items passes again
    src.admin("INSERT INTO tags VALUES ('c', 'three again')")
    r, bronze, silver = run(src, proj)
    i = silver["silver.items"]
    assert r.rc == 0 and i["state"] == "built" and i["tests"]["failed"] == 0, i
    assert rows(proj, "silver.items") == source(src, "select * from items")
