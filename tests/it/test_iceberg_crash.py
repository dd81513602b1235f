"""Crash safety: a writer killed with SIGKILL at random instants during 100 appends.
Every time the table is opened it is at a committed snapshot — its row count is
that snapshot's total-records and its rows are exactly those of the appends that
committed — and PyIceberg and DuckDB read it. The files of the unfinished commits
are orphans: orphan removal deletes them and nothing else."""
import os
import random
import subprocess
import time

import icebergkit
from icebergkit import Warehouse, duckdb_with_iceberg

TOTAL = 100
RUN = 8      # commits one writer process is given at most
ROWS = 2
SQL = "select ({i} * %d + range)::bigint as id, {i}::bigint as batch from range(%d)" % (ROWS, ROWS)


def check_table(wh, con):
    """The table as the independent readers see it; returns the number of commits."""
    t = wh.pyiceberg().load_table("bronze.crash")
    snap = t.current_snapshot()
    n = len(t.snapshots())
    if snap is None:
        assert n == 0 and t.scan().to_arrow().num_rows == 0
        return 0
    total = int(snap.summary["total-records"])
    data = t.scan().to_arrow()
    assert data.num_rows == total == n * ROWS
    # Exactly the appends 0..n-1, each once: nothing half-applied, nothing lost.
    assert sorted(data.column("id").to_pylist()) == list(range(n * ROWS))
    assert sorted(int(s.summary["floe.test-index"]) for s in t.snapshots()) == list(range(n))
    assert con.sql(f"select count(*) from iceberg_scan('{t.metadata_location}')").fetchone()[0] == total
    return n


def referenced_files(wh):
    return icebergkit.referenced_files(wh.pyiceberg(), "bronze.crash")


def test_kill_9_during_appends(tmp_path):
    seed = int(os.environ.get("FLOE_CRASH_SEED", str(time.time_ns() % 1_000_000)))
    rng = random.Random(seed)
    wh = Warehouse(tmp_path / "warehouse")
    wh.run("create", "bronze.crash", "--column", "id:long:required", "--column", "batch:long")
    con = duckdb_with_iceberg()
    done, kills, launches, started = 0, 0, 0, time.monotonic()
    # Each writer gets at most RUN commits and is SIGKILLed at a random point of the time
    # such a run takes on this machine — learnt from the runs that finished, and a sanitizer
    # build is several times slower — so most runs die mid-write or mid-commit.
    full_run = None
    while done < TOTAL:
        # a bound on attempts, not on time (a loaded machine is slow, not wrong): every writer
        # killed before its first commit 300 times over would mean kills that never let one land
        launches += 1
        assert launches <= 300, f"seed {seed}: {launches} writers brought the table to only {done} commits"
        count = min(TOTAL - done, RUN)
        proc = wh.popen("append-loop", "bronze.crash", "--start", str(done),
                        "--count", str(count), "--sql", SQL)
        began = time.monotonic()
        try:
            proc.wait(timeout=rng.uniform(0.35, 0.95) * full_run if full_run else 30)
        except subprocess.TimeoutExpired:
            proc.kill()  # SIGKILL: no cleanup, no atexit, mid-write or mid-commit
            kills += 1
        out, err = proc.communicate()
        ran = time.monotonic() - began
        assert proc.returncode in (0, -9), f"seed {seed}: {err}"
        n = check_table(wh, con)
        assert n >= done, f"seed {seed}: a committed snapshot disappeared"
        if proc.returncode == 0 and count == RUN:
            full_run = ran if full_run is None else 0.5 * (full_run + ran)
        done = n
    print(f"seed {seed}: {kills} kills in {time.monotonic() - started:.1f} s")
    assert kills >= 5, f"seed {seed}: the writer was killed only {kills} times"

    # The unfinished commits left orphans; removing them leaves exactly the referenced files.
    res = wh.json("orphans", "bronze.crash")
    on_disk = set(wh.files("bronze.crash"))
    assert on_disk == referenced_files(wh), f"seed {seed}, removed {res}"
    assert check_table(wh, con) == TOTAL
