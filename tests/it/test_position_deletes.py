"""Position delete files (merge-on-read) written by floe's Iceberg library, read by readers
floe did not write: PyIceberg and DuckDB's iceberg extension must drop exactly the deleted
rows, floe's own scan must count the same, and a compaction-style rewrite that removes the
delete files must leave the same rows with no delete file live."""
from icebergkit import Warehouse, duckdb_with_iceberg


def rows_of(wh, table):
    t = wh.pyiceberg().load_table(table)
    py = sorted(tuple(r.values()) for r in t.scan().to_arrow().to_pylist())
    duck = sorted(duckdb_with_iceberg().sql(f"select * from iceberg_scan('{t.metadata_location}')").fetchall())
    return t, py, duck


def test_position_deletes_read_by_pyiceberg_and_duckdb(tmp_path):
    wh = Warehouse(tmp_path / "warehouse")
    wh.run("create", "bronze.mor", "--column", "id:long:required", "--column", "v:string")
    a = wh.json("append", "bronze.mor", "--sql", "select range::bigint id, 'a' || range v from range(10)")["file"]
    b = wh.json("append", "bronze.mor", "--sql", "select (10 + range)::bigint id, 'b' v from range(5)")["file"]
    # An update of ids 3 and 12 and a delete of id 0: new versions in a new file, old rows by position.
    c = wh.json("delete", "bronze.mor", "--sql", "select * from (values (3::bigint, 'new3'), (12, 'new12')) t(id, v)",
                "--delete", f"{a}@3", "--delete", f"{b}@2", "--delete", f"{a}@0")["file"]
    expected = sorted([(i, f"a{i}") for i in range(1, 10) if i != 3] + [(3, "new3")] +
                      [(10 + i, "b") for i in range(5) if i != 2] + [(12, "new12")])
    t, py, duck = rows_of(wh, "bronze.mor")
    assert py == expected and duck == expected
    snap = t.current_snapshot()
    assert snap.summary.operation.value == "overwrite"
    assert snap.summary["added-position-deletes"] == "3"
    assert snap.summary["total-position-deletes"] == "3"
    assert snap.summary["total-delete-files"] == "1"
    plan = wh.json("plan", "bronze.mor")
    assert plan["live_rows"] == len(expected) and plan["delete_files"] == 1
    # A second delete in a later snapshot deletes a row of the file the first one added.
    wh.json("delete", "bronze.mor", "--delete", f"{c}@0")
    expected.remove((3, "new3"))
    t, py, duck = rows_of(wh, "bronze.mor")
    assert py == expected and duck == expected
    assert t.current_snapshot().summary.operation.value == "delete"
    # Compaction: every file out, the live rows in, as one replace; no delete file stays live.
    deletes = [f for f in wh.files("bronze.mor") if f.endswith(".deletes.parquet")]
    assert len(deletes) == 2
    values = ", ".join(f"({i}, '{v}')" for i, v in expected)
    wh.json("rewrite", "bronze.mor", "--operation", "replace", "--remove", a, "--remove", b, "--remove", c,
            *[x for f in deletes for x in ("--remove", "file://" + f)],
            "--sql", f"select * from (values {values}) t(id, v)")
    t, py, duck = rows_of(wh, "bronze.mor")
    assert py == expected and duck == expected
    assert t.current_snapshot().summary["total-delete-files"] == "0"
    assert t.current_snapshot().summary["total-position-deletes"] == "0"
    assert wh.json("plan", "bronze.mor")["delete_files"] == 0
