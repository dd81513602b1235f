"""Work a silver build skips because floe proved it unnecessary (docs/silver.md, "What a build
skips, and why that is proven"): each shortcut's test plants the case where the shortcut would be
wrong and checks floe did the work there, and that a proven case gives the rows of the source."""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icebergkit import local_path
from lakecheck import catalog, query_rows, table_rows
from sourcedb import Source

SQL = '''
CREATE TABLE public.tags (tag text PRIMARY KEY, label text NOT NULL);
INSERT INTO public.tags VALUES ('a', 'same'), ('b', 'same'), ('c', 'same');
CREATE TABLE public.items (item_id int PRIMARY KEY, tag text REFERENCES tags, qty int NOT NULL);
INSERT INTO public.items SELECT g, (ARRAY['a','b','c'])[1 + g % 3], g FROM generate_series(1, 50) g;
'''

SKIPPED = "deduplication skipped: bronze proven unique on the key"


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "silver_proof", "silver_proof_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("silver_proof")
    src.project(d, extra='\n[bronze]\ntarget-file-rows = 20\n')  # items: key ranges in 3 files
    src.floe(d, "generate", check=0)
    return d


def run(src, d, *args):
    r = src.floe(d, "run", "--json", *args, check=None)
    return r, {t["table"]: t for t in json.loads(r.out).get("silver", [])}


rows = table_rows
source = query_rows


def test_generated_model_over_v3_verified_bronze_skips_the_dedup(src, proj):
    r, silver = run(src, proj)
    assert r.rc == 0, r.out + r.err
    for name in ("silver.tags", "silver.items"):
        assert silver[name]["state"] == "built" and SKIPPED in silver[name]["detail"], silver[name]
        # the key's uniqueness test holds by construction (one row per key): counted, not run
        assert "passed (1 by construction: one row per key)" in silver[name]["detail"], silver[name]
    assert rows(proj, "silver.tags") == source(src, "select * from tags")
    assert rows(proj, "silver.items") == source(src, "select * from items")
    assert_files_in_key_order(proj, "silver.items", "item_id", 3)


def assert_files_in_key_order(d, table, key, n_files):
    # nothing quarantined: each file is COPY'd from a scan of the key-sorted rows without a sort of
    # its own (write.c); its rows must still be in key order, the files disjoint key ranges
    files = [pq.read_table(local_path(t.file.file_path), columns=[key]).column(0).to_pylist()
             for t in catalog(d).load_table(table).scan().plan_files()]
    assert len(files) == n_files and all(k == sorted(k) for k in files), files
    ranges = sorted((k[0], k[-1]) for k in files)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), ranges


def test_hand_edited_model_keeps_the_dedup(src, proj):
    m = proj / "pipeline" / "dbt" / "models" / "silver" / "items.sql"
    text = m.read_text()
    m.write_text(text + "-- reviewed\n")  # the same query, but no longer floe's own generation
    try:
        r, silver = run(src, proj, "--layer", "silver", "--full-refresh", "--table", "silver.items")
        assert r.rc == 0, r.out + r.err
        i = silver["silver.items"]
        assert i["state"] == "built" and SKIPPED not in i["detail"], i
        assert rows(proj, "silver.items") == source(src, "select * from items")
    finally:
        m.write_text(text)


def test_bronze_verified_below_v3_keeps_the_dedup(src, proj):
    # bronze planted with key 'b' replaced by a second 'c': same row count, min, max, lengths and
    # label aggregates, so V2 verifies it; only V3's per-key hashes see the duplicate. Built over
    # that V2 verdict, silver must still deduplicate: without it, 'c' twice fails unique.
    tbl = catalog(proj).load_table("bronze.tags")
    arrow = tbl.scan().to_arrow()
    planted = [dict(r, tag="c") if r["tag"] == "b" else r for r in arrow.to_pylist()]
    tbl.overwrite(pa.Table.from_pylist(planted, schema=arrow.schema))
    rec = src.floe(proj, "reconcile", "--table", "public.tags", "--tier", "V2", "--json", check=None)
    assert rec.rc == 0, rec.out + rec.err
    r, silver = run(src, proj, "--layer", "silver", "--full-refresh", "--table", "silver.tags")
    assert r.rc == 0, r.out + r.err
    t = silver["silver.tags"]
    assert t["state"] == "built" and SKIPPED not in t["detail"], t
    assert t["tests"]["failed"] == 0, t
    assert rows(proj, "silver.tags") == [["a", "same"], ["c", "same"]]
    # V3 sees the planted duplicate: diverged, and silver is not built over it
    rec = src.floe(proj, "reconcile", "--table", "public.tags", "--json", check=None)
    assert rec.rc == 1, rec.out + rec.err
    r, silver = run(src, proj, "--layer", "silver", "--table", "silver.tags")
    assert silver["silver.tags"]["state"] == "skipped", silver


def test_hand_edited_model_runs_the_key_uniqueness_test(src, proj):
    # a model that is not floe's own generation may return a key twice: the test must run, and fail
    m = proj / "pipeline" / "dbt" / "models" / "silver" / "items.sql"
    text = m.read_text()
    m.write_text("select * from {{ source('bronze', 'items') }}\n"
                 "union all select * from {{ source('bronze', 'items') }} where item_id = 7\n")
    try:
        before = catalog(proj).load_table("silver.items").current_snapshot().snapshot_id
        r, silver = run(src, proj, "--layer", "silver", "--full-refresh", "--table", "silver.items")
        assert r.rc == 1, r.out + r.err
        i = silver["silver.items"]
        assert i["state"] == "failed" and "unique_items_item_id failed: 2 rows, keys (7)" in i["error"], i
        assert catalog(proj).load_table("silver.items").current_snapshot().snapshot_id == before
    finally:
        m.write_text(text)


SAME = "bronze's new files are byte for byte those of the last build: no row read"


def test_a_full_load_of_unchanged_rows_is_recognised_by_its_bytes(src, proj):
    r, silver = run(src, proj)  # tags reloaded (the planted bronze replaced); items from the restored model
    assert silver["silver.items"]["state"] == "built", silver["silver.items"]
    # bronze loads items in full again: new files, the same rows — the same bytes, so silver reads nothing
    r, silver = run(src, proj, "--table", "public.items")
    i = silver["silver.items"]
    assert i["state"] == "built" and i["changed_keys"] == 0 and SAME in i["detail"], i
    # one value changed to another of the same width: the files' bytes differ, the diff runs and finds it
    src.admin("UPDATE items SET qty = 98 WHERE item_id = 10")
    r, silver = run(src, proj, "--table", "public.items")
    i = silver["silver.items"]
    assert i["state"] == "built" and i["changed_keys"] == 1 and SAME not in i["detail"], i
    assert rows(proj, "silver.items") == source(src, "select * from items")


NARROWED = "floe.parent-snapshots"


def relationships_test(d):
    lock = json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())
    items = next(t for t in lock["tables"] if t.get("silver", {}).get("table") == "silver.items")
    return next(t["name"] for t in items["silver"]["tests"] if t["kind"] == "relationships")


def test_an_incremental_relationships_test_records_the_parent_snapshot_it_passed_against(src, proj):
    # a child row changes, the parent does not: the test reads the new row's foreign key only, and the
    # publish records the parent snapshot it passed against (what the next build narrows from)
    src.admin("UPDATE items SET qty = 97 WHERE item_id = 13")
    r, silver = run(src, proj)
    i = silver["silver.items"]
    assert r.rc == 0 and i["state"] == "built" and i["changed_keys"] == 1 and i["tests"]["failed"] == 0, i
    tags = catalog(proj).load_table("silver.tags").current_snapshot().snapshot_id
    summary = catalog(proj).load_table("silver.items").current_snapshot().summary
    assert f"{relationships_test(proj)}={tags};" in summary[NARROWED], summary


def test_a_narrowed_relationships_test_finds_the_orphans_of_a_deleted_parent_row(src, proj):
    # the source's foreign key bypassed (replica role: no FK triggers): tag 'c' deleted under its
    # items. The items' build is incremental (one unrelated row changed), so its relationships test
    # reads the new row and the parent keys removed since the snapshot it last passed against —
    # it must find every orphan the whole test would.
    before = catalog(proj).load_table("silver.items").current_snapshot().snapshot_id
    src.admin("UPDATE items SET qty = 96 WHERE item_id = 12")  # tag 'a': not an orphan
    src.admin("SET session_replication_role = replica; DELETE FROM tags WHERE tag = 'c'")
    orphans = source(src, "select item_id from items where tag = 'c'")
    assert len(orphans) >= 10
    r, silver = run(src, proj)
    i = silver["silver.items"]
    assert r.rc == 1 and i["state"] == "failed" and i["changed_keys"] == 1, i
    assert f"{relationships_test(proj)} failed: {len(orphans)} rows" in i["error"], i
    assert catalog(proj).load_table("silver.items").current_snapshot().snapshot_id == before
    assert silver["silver.tags"]["state"] == "built", silver["silver.tags"]
