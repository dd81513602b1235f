"""Two writers racing on one table: two processes, many appends each. Every commit
lands (the loser of each race re-applies its append on the fresh metadata), no
snapshot is lost, the history is one line, and PyIceberg and DuckDB read it all."""
from icebergkit import Warehouse, duckdb_with_iceberg

PER_WRITER = 40
ROWS = 3


def test_two_writers_race(tmp_path):
    wh = Warehouse(tmp_path / "warehouse")
    wh.run("create", "bronze.race", "--column", "id:long:required", "--column", "writer:string")
    sql = "select ({i} * %d + range)::bigint as id, '%s' as writer from range(%d)"
    procs = [wh.popen("append-loop", "bronze.race", "--start", str(start), "--count", str(PER_WRITER),
                      "--sql", sql % (ROWS, name, ROWS))
             for start, name in ((0, "a"), (1000, "b"))]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert len(out.splitlines()) == PER_WRITER
    committed = {int(line.split()[2]) for out, _ in outs for line in out.splitlines()}
    assert len(committed) == 2 * PER_WRITER

    t = wh.pyiceberg().load_table("bronze.race")
    snaps = t.snapshots()
    assert {s.snapshot_id for s in snaps} == committed
    assert sorted(s.sequence_number for s in snaps) == list(range(1, 2 * PER_WRITER + 1))
    # One line of history: each snapshot's parent is the one before it.
    by_seq = sorted(snaps, key=lambda s: s.sequence_number)
    assert by_seq[0].parent_snapshot_id is None
    assert all(b.parent_snapshot_id == a.snapshot_id for a, b in zip(by_seq, by_seq[1:]))
    assert t.current_snapshot().summary["total-records"] == str(2 * PER_WRITER * ROWS)
    assert t.current_snapshot().summary["total-data-files"] == str(2 * PER_WRITER)
    data = t.scan().to_arrow()
    expected = sorted([i * ROWS + r for i in range(PER_WRITER) for r in range(ROWS)] +
                      [(1000 + i) * ROWS + r for i in range(PER_WRITER) for r in range(ROWS)])
    assert sorted(data.column("id").to_pylist()) == expected
    con = duckdb_with_iceberg()
    assert con.sql(f"select count(*), count(distinct id) from iceberg_scan('{t.metadata_location}')"
                   ).fetchone() == (2 * PER_WRITER * ROWS, 2 * PER_WRITER * ROWS)
    # Losing attempts cleaned up after themselves: no metadata file is unreferenced.
    meta = [f for f in wh.files("bronze.race") if f.endswith(".metadata.json")]
    assert len(meta) == 2 * PER_WRITER + 1
