"""floe's Iceberg tables as DuckDB's iceberg extension sees them (iceberg_scan on the
metadata file, iceberg_snapshots, iceberg_metadata, iceberg_column_stats), loaded
offline from the wheels in .venv."""
import pytest

from icebergkit import Warehouse, duckdb_with_iceberg

ROWS = "select (range + {base})::bigint as id, 'v' || (range + {base}) as name, " \
       "(range + {base})::int as qty, date '2024-03-01' + (range + {base})::int as day from range({n})"


@pytest.fixture
def wh(tmp_path):
    return Warehouse(tmp_path / "warehouse")


@pytest.fixture
def con():
    c = duckdb_with_iceberg()
    yield c
    c.close()


def current(wh, table):
    return wh.json("info", table)["metadata_location"]


def scan_ids(con, meta, snapshot=None):
    extra = f", snapshot_from_id={snapshot}" if snapshot else ""
    return [r[0] for r in con.sql(f"select id from iceberg_scan('{meta}'{extra}) order by id").fetchall()]


def create(wh, table="bronze.items"):
    wh.run("create", table, "--column", "id:long:required", "--column", "name:string",
           "--column", "qty:int", "--column", "day:date")


def test_duckdb_reads_every_operation(wh, con):
    create(wh)
    s1 = wh.json("append", "bronze.items", "--sql", ROWS.format(base=0, n=5))["snapshot_id"]
    s2 = wh.json("append", "bronze.items", "--sql", ROWS.format(base=5, n=5))["snapshot_id"]
    meta = current(wh, "bronze.items")
    assert scan_ids(con, meta) == list(range(10))
    assert scan_ids(con, meta, s1) == list(range(5))
    snaps = con.sql(f"select sequence_number, snapshot_id, manifest_list from "
                    f"iceberg_snapshots('{meta}') order by sequence_number").fetchall()
    assert [(s[0], s[1]) for s in snaps] == [(1, s1), (2, s2)]

    wh.json("evolve", "bronze.items", "widen", "qty", "long", "rename", "name", "label",
            "add", "note", "string")
    wh.json("append", "bronze.items", "--sql",
            "select 10::bigint as id, 'v10' as label, 5000000000::bigint as qty, "
            "date '2024-05-01' as day, 'n' as note")
    meta = current(wh, "bronze.items")
    rows = con.sql(f"select id, label, qty, note from iceberg_scan('{meta}') order by id").fetchall()
    assert rows[0] == (0, "v0", 0, None)
    assert rows[-1] == (10, "v10", 5000000000, "n")
    cols = [d[0] for d in con.sql(f"select * from iceberg_scan('{meta}')").description]
    assert cols == ["id", "label", "qty", "day", "note"]

    live = wh.json("plan", "bronze.items")["files"]
    victim = next(f for f in live if f["record_count"] == 5 and f["snapshot_id"] == s1)
    wh.json("rewrite", "bronze.items", "--remove", victim["path"], "--sql",
            "select id, label, qty * 10 as qty, day, 'cow' as note from (select (range)::bigint as id, "
            "'v' || range as label, range::bigint as qty, date '2024-03-01' + range::int as day "
            "from range(5))")
    meta = current(wh, "bronze.items")
    rows = con.sql(f"select id, qty, note from iceberg_scan('{meta}') where id < 5 order by id").fetchall()
    assert rows == [(i, i * 10, "cow") for i in range(5)]
    entries = con.sql(f"select status, file_path from iceberg_metadata('{meta}')").fetchall()
    assert ("DELETED", victim["path"]) in entries
    assert sum(1 for e in entries if e[0] != "DELETED") == 3

    s_rep = wh.json("replace", "bronze.items", "--sql",
                    "select 99::bigint as id, 'x' as label, 1::bigint as qty, date '2024-01-01' as day, "
                    "null::varchar as note")["snapshot_id"]
    meta = current(wh, "bronze.items")
    assert scan_ids(con, meta) == [99]
    assert scan_ids(con, meta, s2) == list(range(10))
    ops = con.sql(f"select operation from iceberg_snapshots('{meta}') order by sequence_number").fetchall()
    assert [o[0] for o in ops] == ["append", "append", "append", "overwrite", "overwrite"]
    assert con.sql(f"select max(snapshot_id) filter (where sequence_number = 5) "
                   f"from iceberg_snapshots('{meta}')").fetchone()[0] == s_rep


def test_duckdb_decodes_the_bounds(wh, con):
    create(wh)
    wh.json("append", "bronze.items", "--sql", ROWS.format(base=40, n=17))
    meta = current(wh, "bronze.items")
    stats = {r[0]: r[1:] for r in con.sql(
        f"select column_name, lower_bound, upper_bound, value_count, null_value_count "
        f"from iceberg_column_stats('{meta}')").fetchall()}
    assert stats["id"] == ("40", "56", 17, 0)
    assert stats["qty"] == ("40", "56", 17, 0)
    assert stats["name"] == ("v40", "v56", 17, 0)
    assert stats["day"] == ("2024-04-10", "2024-04-26", 17, 0)


def test_duckdb_after_expiry(wh, con):
    create(wh)
    snaps = [wh.json("append", "bronze.items", "--sql", ROWS.format(base=10 * i, n=3))["snapshot_id"]
             for i in range(4)]
    wh.json("expire", "bronze.items", "--snapshot", str(snaps[0]), "--snapshot", str(snaps[1]))
    meta = current(wh, "bronze.items")
    left = [r[0] for r in con.sql(f"select snapshot_id from iceberg_snapshots('{meta}') "
                                  f"order by sequence_number").fetchall()]
    assert left == snaps[2:]
    assert len(scan_ids(con, meta)) == 12
    assert scan_ids(con, meta, snaps[2]) == [0, 1, 2, 10, 11, 12, 20, 21, 22]
