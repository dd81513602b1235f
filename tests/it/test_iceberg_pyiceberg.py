"""floe's Iceberg tables as PyIceberg sees them: PyIceberg's SqlCatalog opens floe's
catalog.db as it is, lists namespaces and tables, loads tables, scans them to Arrow,
travels in time by snapshot id, sees schema evolution, replace, rewrite and expiry
exactly as intended, and prunes files by the bounds floe wrote."""
import datetime
import decimal
import os
import struct

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from icebergkit import Warehouse, local_path

ROWS = "select (range + {base})::bigint as id, 'name-' || (range + {base}) as name, " \
       "((range + {base}) * 1.25)::decimal(10,2) as amount, (range + {base}) / 4.0 as score, " \
       "date '2024-01-01' + (range + {base})::int as day from range({n})"


@pytest.fixture
def wh(tmp_path):
    return Warehouse(tmp_path / "warehouse")


def create_orders(wh, table="bronze.orders", *extra):
    wh.run("create", table, "--column", "id:long:required", "--column", "name:string",
           "--column", "amount:decimal(10, 2)", "--column", "score:double",
           "--column", "day:date", "--identifier", "id", *extra)


def append(wh, table, base, n, *extra):
    return wh.json("append", table, "--sql", ROWS.format(base=base, n=n), *extra)


def ids(arrow_table):
    return sorted(arrow_table.column("id").to_pylist())


def test_catalog_lists_and_loads(wh):
    create_orders(wh)
    create_orders(wh, "silver.orders", "--prop", "owner=floe", "--prop", "write.format.default=parquet")
    cat = wh.pyiceberg()
    assert sorted(cat.list_namespaces()) == [("bronze",), ("silver",)]
    assert cat.list_tables("bronze") == [("bronze", "orders")]
    assert cat.load_namespace_properties("bronze") == {"exists": "true"}
    t = cat.load_table("silver.orders")
    assert t.properties["owner"] == "floe"
    schema = t.schema()
    assert [(f.field_id, f.name, str(f.field_type), f.required) for f in schema.fields] == [
        (1, "id", "long", True), (2, "name", "string", False),
        (3, "amount", "decimal(10, 2)", False), (4, "score", "double", False),
        (5, "day", "date", False)]
    assert schema.identifier_field_ids == [1]
    assert t.current_snapshot() is None
    assert t.scan().to_arrow().num_rows == 0
    assert t.metadata.format_version == 2
    assert t.metadata_location.startswith("file:///")
    assert os.path.basename(local_path(t.metadata_location)).startswith("00000-")


def test_scan_snapshots_and_summaries(wh):
    create_orders(wh)
    commits = [append(wh, "bronze.orders", 0, 10, "--summary", "floe.run-id=r1",
                      "--summary", "floe.source-position=0/16B3748"),
               append(wh, "bronze.orders", 10, 5),
               append(wh, "bronze.orders", 15, 7)]
    t = wh.pyiceberg().load_table("bronze.orders")
    data = t.scan().to_arrow()
    assert ids(data) == list(range(22))
    row = data.filter(pc.equal(data.column("id"), 13)).to_pylist()[0]
    assert row == {"id": 13, "name": "name-13", "amount": decimal.Decimal("16.25"), "score": 3.25,
                   "day": datetime.date(2024, 1, 14)}
    snaps = t.snapshots()
    assert [s.snapshot_id for s in snaps] == [c["snapshot_id"] for c in commits]
    assert [s.sequence_number for s in snaps] == [1, 2, 3]
    assert snaps[0].parent_snapshot_id is None
    assert [s.parent_snapshot_id for s in snaps[1:]] == [s.snapshot_id for s in snaps[:-1]]
    assert all(0 < s.snapshot_id < 2 ** 63 for s in snaps)
    first = snaps[0].summary
    assert first.operation.value == "append"
    assert first["floe.run-id"] == "r1" and first["floe.source-position"] == "0/16B3748"
    last = snaps[-1].summary
    assert last["added-records"] == "7" and last["total-records"] == "22"
    assert last["total-data-files"] == "3" and last["added-data-files"] == "1"
    sizes = sum(os.path.getsize(local_path(c["file"])) for c in commits)
    assert last["total-files-size"] == str(sizes)
    assert t.metadata.refs["main"].snapshot_id == commits[-1]["snapshot_id"]
    assert t.metadata.last_sequence_number == 3
    names = [os.path.basename(local_path(s.manifest_list)) for s in snaps]
    assert all(n.startswith(f"snap-{s.snapshot_id}-1-") and n.endswith(".avro")
               for n, s in zip(names, snaps))


def test_time_travel_replace_and_rewrite(wh):
    create_orders(wh)
    s1 = append(wh, "bronze.orders", 0, 10)["snapshot_id"]
    s2 = wh.json("replace", "bronze.orders", "--sql", ROWS.format(base=100, n=3))["snapshot_id"]
    t = wh.pyiceberg().load_table("bronze.orders")
    assert ids(t.scan().to_arrow()) == [100, 101, 102]
    assert ids(t.scan(snapshot_id=s1).to_arrow()) == list(range(10))
    replace = t.snapshot_by_id(s2).summary
    assert replace.operation.value == "overwrite"
    assert replace["deleted-data-files"] == "1" and replace["deleted-records"] == "10"
    assert replace["total-records"] == "3"

    # Copy-on-write: rewrite the one file with row 101 changed and a row added.
    live = wh.json("plan", "bronze.orders")["files"]
    assert len(live) == 1
    sql = ("select id, case when id = 101 then 'changed' else name end as name, amount, score, day "
           f"from ({ROWS.format(base=100, n=4)})")
    s3 = wh.json("rewrite", "bronze.orders", "--remove", live[0]["path"], "--sql", sql)["snapshot_id"]
    t = wh.pyiceberg().load_table("bronze.orders")
    data = t.scan().to_arrow()
    assert ids(data) == [100, 101, 102, 103]
    assert data.filter(pc.equal(data.column("id"), 101)).column("name").to_pylist() == ["changed"]
    rewrite = t.snapshot_by_id(s3).summary
    assert rewrite.operation.value == "overwrite"
    assert rewrite["deleted-data-files"] == "1" and rewrite["added-data-files"] == "1"
    assert rewrite["total-records"] == "4"
    # Every snapshot still reads as it was.
    assert ids(t.scan(snapshot_id=s1).to_arrow()) == list(range(10))
    assert ids(t.scan(snapshot_id=s2).to_arrow()) == [100, 101, 102]
    old = t.scan(snapshot_id=s2).to_arrow()
    assert old.filter(pc.equal(old.column("id"), 101)).column("name").to_pylist() == ["name-101"]
    # A second rewrite of the same (now gone) file is a conflict, not a silent double delete.
    rc, _, err = wh.run("rewrite", "bronze.orders", "--remove", live[0]["path"], "--sql", sql,
                        check=False)
    assert rc == 1 and "is not live in table bronze.orders" in err
    assert wh.pyiceberg().load_table("bronze.orders").current_snapshot().snapshot_id == s3


def test_schema_evolution_visible(wh):
    wh.run("create", "bronze.events", "--column", "id:long:required", "--column", "qty:int",
           "--column", "ratio:float", "--column", "price:decimal(9, 2)", "--column", "label:string:required")
    old_sql = ("select range::bigint as id, range::int as qty, (range / 2)::float as ratio, "
               "(range * 1.5)::decimal(9,2) as price, 'l' || range as label from range(4)")
    s1 = wh.json("append", "bronze.events", "--sql", old_sql)["snapshot_id"]
    wh.json("evolve", "bronze.events", "widen", "qty", "long", "widen", "ratio", "double",
            "widen", "price", "decimal(18, 2)", "rename", "label", "tag", "optional", "tag",
            "add", "note", "string")
    new_sql = ("select (10 + range)::bigint as id, (3000000000 + range)::bigint as qty, "
               "0.1::double as ratio, 12345678901.25::decimal(18,2) as price, null::varchar as tag, "
               "'new' as note from range(2)")
    wh.json("append", "bronze.events", "--sql", new_sql)
    t = wh.pyiceberg().load_table("bronze.events")
    schema = t.schema()
    assert schema.schema_id == 1
    assert [(f.field_id, f.name, str(f.field_type), f.required) for f in schema.fields] == [
        (1, "id", "long", True), (2, "qty", "long", False), (3, "ratio", "double", False),
        (4, "price", "decimal(18, 2)", False), (5, "tag", "string", False),
        (6, "note", "string", False)]
    assert t.metadata.last_column_id == 6
    assert len(t.schemas()) == 2
    data = t.scan().to_arrow().sort_by("id").to_pylist()
    # The old file reads through the new schema: widened values, the renamed column, nulls for note.
    assert data[1] == {"id": 1, "qty": 1, "ratio": 0.5, "price": decimal.Decimal("1.50"), "tag": "l1",
                       "note": None}
    assert data[4] == {"id": 10, "qty": 3000000000, "ratio": 0.1,
                       "price": decimal.Decimal("12345678901.25"), "tag": None, "note": "new"}
    # The first snapshot keeps the schema it was written with.
    assert t.snapshot_by_id(s1).schema_id == 0
    assert len(t.scan(snapshot_id=s1).to_arrow()) == 4
    # Narrowing is refused with a reason.
    rc, _, err = wh.run("evolve", "bronze.events", "widen", "qty", "int", check=False)
    assert rc == 2 or (rc == 1 and "cannot change column \"qty\" from long to int" in err)


def encode(value, kind):
    """Appendix D encoding of a python value (what the bounds must be)."""
    if kind == "long":
        return struct.pack("<q", value)
    if kind == "double":
        return struct.pack("<d", value)
    if kind == "date":
        return struct.pack("<i", (value - datetime.date(1970, 1, 1)).days)
    if kind == "decimal":
        unscaled = int(value.scaleb(2))
        n = max(1, (unscaled.bit_length() + 8) // 8)
        return unscaled.to_bytes(n, "big", signed=True)
    if kind == "string":
        return value.encode()
    raise ValueError(kind)


def test_bounds_match_and_scans_prune(wh):
    create_orders(wh)
    commits = [append(wh, "bronze.orders", base, 100) for base in (0, 100, 200, 300)]
    t = wh.pyiceberg().load_table("bronze.orders")
    tasks = list(t.scan().plan_files())
    assert len(tasks) == 4
    kinds = {1: "long", 2: "string", 3: "decimal", 4: "double", 5: "date"}
    for task in tasks:
        df = task.file
        path = local_path(df.file_path)
        assert df.file_format.value == "PARQUET"
        assert df.file_size_in_bytes == os.path.getsize(path)
        meta = pq.ParquetFile(path).metadata
        assert df.record_count == meta.num_rows == 100
        first = meta.row_group(0).column(0)
        start = first.dictionary_page_offset or first.data_page_offset
        assert df.split_offsets == [start]
        table = pq.read_table(path)
        for field_id, kind in kinds.items():
            col = table.column(t.schema().find_field(field_id).name)
            lo, hi = pc.min(col).as_py(), pc.max(col).as_py()
            assert df.lower_bounds[field_id] == encode(lo, kind), (field_id, kind)
            assert df.upper_bounds[field_id] == encode(hi, kind), (field_id, kind)
            assert df.value_counts[field_id] == 100
            assert df.null_value_counts[field_id] == 0
            assert df.column_sizes[field_id] > 0
        assert df.nan_value_counts[4] == 0
    # Pruning: PyIceberg plans only the files whose bounds can match.
    assert len(list(t.scan(row_filter="id >= 250").plan_files())) == 2
    assert len(list(t.scan(row_filter="id < 0").plan_files())) == 0
    assert len(list(t.scan(row_filter="day = '2024-04-15'").plan_files())) == 1
    assert len(list(t.scan(row_filter="score > 90.0").plan_files())) == 1
    assert t.scan(row_filter="id >= 250").to_arrow().num_rows == 150
    # floe's own planning agrees with PyIceberg's view of the same statistics.
    ours = {f["path"]: f for f in wh.json("plan", "bronze.orders")["files"]}
    for task in tasks:
        f = ours[task.file.file_path]
        assert {c["id"]: bytes.fromhex(c["lower"]) for c in f["columns"]} == task.file.lower_bounds
        assert {c["id"]: bytes.fromhex(c["upper"]) for c in f["columns"]} == task.file.upper_bounds
    assert {c["snapshot_id"] for c in commits} == {s.snapshot_id for s in t.snapshots()}


def test_string_bounds_are_truncated(wh):
    wh.run("create", "bronze.notes", "--column", "id:long:required", "--column", "body:string")
    wh.json("append", "bronze.notes", "--sql",
            "select 1::bigint as id, 'abcdefghijklmnopqrstuvwxyz' as body union all "
            "select 2, 'zzzzzzzzzzzzzzzzzzzz' union all select 3, 'héllo wörld ünïcode €'")
    t = wh.pyiceberg().load_table("bronze.notes")
    df = next(iter(t.scan().plan_files())).file
    assert df.lower_bounds[2] == b"abcdefghijklmnop"
    assert df.upper_bounds[2] == b"zzzzzzzzzzzzzzz{"
    # The truncated bounds still contain every value: filters that match are not pruned.
    assert len(list(t.scan(row_filter="body = 'zzzzzzzzzzzzzzzzzzzz'").plan_files())) == 1
    assert t.scan(row_filter="body = 'zzzzzzzzzzzzzzzzzzzz'").to_arrow().num_rows == 1


def test_expiry_and_orphans(wh):
    create_orders(wh)
    wh.run("props", "bronze.orders", "--set", "history.expire.min-snapshots-to-keep=2")
    commits = [append(wh, "bronze.orders", 10 * i, 10) for i in range(3)]
    s_replace = wh.json("replace", "bronze.orders", "--sql", ROWS.format(base=500, n=5))["snapshot_id"]
    s_last = append(wh, "bronze.orders", 600, 5)["snapshot_id"]
    before = set(wh.files("bronze.orders"))
    res = wh.json("expire", "bronze.orders", "--older-than-ms", str(2 ** 62))
    assert res["expired_snapshots"] == 3
    assert res["deleted_data_files"] == 3 and res["deleted_manifest_lists"] == 3
    after = set(wh.files("bronze.orders"))
    for c in commits:
        assert local_path(c["file"]) not in after
    t = wh.pyiceberg().load_table("bronze.orders")
    assert [s.snapshot_id for s in t.snapshots()] == [s_replace, s_last]
    assert ids(t.scan().to_arrow()) == list(range(500, 505)) + list(range(600, 605))
    assert ids(t.scan(snapshot_id=s_replace).to_arrow()) == list(range(500, 505))
    assert [e.snapshot_id for e in t.metadata.snapshot_log] == [s_replace, s_last]
    with pytest.raises(Exception):
        t.scan(snapshot_id=commits[0]["snapshot_id"]).to_arrow()
    # Nothing but the expiry's own metadata file is new; only unreferenced files went.
    new = after - before
    assert len(new) == 1 and new.pop().endswith(".metadata.json")
    assert len(before - after) == 3 + 3 + 3  # data files, manifests, manifest lists
    # A failed commit leaves an orphan data file; orphan removal finds exactly it.
    rc, _, _ = wh.run("rewrite", "bronze.orders", "--remove", commits[0]["file"], "--sql",
                      ROWS.format(base=900, n=1), check=False)
    assert rc == 1
    stray = set(wh.files("bronze.orders")) - after
    assert len(stray) == 1
    res = wh.json("orphans", "bronze.orders")
    assert res["deleted_data_files"] == 1
    assert set(wh.files("bronze.orders")) == after
    assert ids(wh.pyiceberg().load_table("bronze.orders").scan().to_arrow()) == \
        list(range(500, 505)) + list(range(600, 605))


def test_metadata_log_capped_and_old_versions_deleted(wh):
    create_orders(wh, "bronze.orders", "--prop", "write.metadata.previous-versions-max=3",
                  "--prop", "write.metadata.delete-after-commit.enabled=true")
    for i in range(6):
        append(wh, "bronze.orders", 10 * i, 2)
    t = wh.pyiceberg().load_table("bronze.orders")
    assert len(t.metadata.metadata_log) == 3
    jsons = [f for f in wh.files("bronze.orders") if f.endswith(".metadata.json")]
    assert len(jsons) == 4  # current + 3 logged
    assert sorted(os.path.basename(j)[:5] for j in jsons) == ["00003", "00004", "00005", "00006"]
    assert t.scan().to_arrow().num_rows == 12


def test_small_manifests_are_merged(wh):
    create_orders(wh, "bronze.orders", "--prop", "commit.manifest.min-count-to-merge=5")
    commits = [append(wh, "bronze.orders", 10 * i, 3) for i in range(8)]
    t = wh.pyiceberg().load_table("bronze.orders")
    manifests = t.current_snapshot().manifests(t.io)
    assert len(manifests) < 8
    assert ids(t.scan().to_arrow()) == sorted(10 * i + r for i in range(8) for r in range(3))
    # Entries moved into a merged manifest keep the snapshot that added them.
    added_by = {e.data_file.file_path: e.snapshot_id
                for m in manifests for e in m.fetch_manifest_entry(t.io)}
    assert added_by == {c["file"]: c["snapshot_id"] for c in commits}
    assert ids(t.scan(snapshot_id=commits[2]["snapshot_id"]).to_arrow()) == \
        sorted(10 * i + r for i in range(3) for r in range(3))


def test_pyiceberg_and_floe_take_turns(wh):
    """PyIceberg commits to a floe table and floe builds on it: floe reads PyIceberg's
    manifests (another Avro writer), carries them forward, and can rewrite its files."""
    import pyarrow as pa
    create_orders(wh)
    append(wh, "bronze.orders", 0, 3)
    t = wh.pyiceberg().load_table("bronze.orders")
    arrow_schema = t.schema().as_arrow()
    t.append(pa.Table.from_pylist([
        {"id": 50, "name": "py", "amount": decimal.Decimal("1.00"), "score": 0.5,
         "day": datetime.date(2024, 6, 1)}], schema=arrow_schema))
    py_snapshot = t.current_snapshot().snapshot_id
    append(wh, "bronze.orders", 100, 2)
    plan = wh.json("plan", "bronze.orders")
    assert plan["record_count"] == 6 and len(plan["files"]) == 3
    py_file = next(f for f in plan["files"] if f["snapshot_id"] == py_snapshot)
    assert {c["id"] for c in py_file["columns"]} >= {1, 2, 3, 4, 5}
    wh.json("rewrite", "bronze.orders", "--remove", py_file["path"], "--sql",
            "select 51::bigint as id, 'floe' as name, 2.00::decimal(10,2) as amount, "
            "1.5::double as score, date '2024-06-02' as day")
    t = wh.pyiceberg().load_table("bronze.orders")
    assert ids(t.scan().to_arrow()) == [0, 1, 2, 51, 100, 101]
    assert ids(t.scan(snapshot_id=py_snapshot).to_arrow()) == [0, 1, 2, 50]
    assert [s.sequence_number for s in t.snapshots()] == [1, 2, 3, 4]
