"""Merge-on-read incremental loads ([bronze] write-mode = "merge-on-read"): each run writes the new
and changed rows as new data files and marks the rows they replace, and deleted rows, in one
position delete file, in one snapshot. After every run PyIceberg, DuckDB's iceberg extension and
floe's reconciliation read bronze equal to the source; nothing untouched is rewritten."""
import contextlib
import json
import os
import random
import re
import subprocess
import time

import pytest

from conftest import FLOE, floe
from icebergkit import local_path
from lakecheck import assert_equals_source, catalog, duckdb_rows, lock_table, pyiceberg_rows, source_rows
from sourcedb import TOUCH, Source

EXTRA = TOUCH + '''
CREATE TABLE public.events (id bigint PRIMARY KEY, payload text,
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.events SELECT g, 'p' || g, now() - interval '1 day' - g * interval '1 second'
    FROM generate_series(1, 12000) g;
'''

FILE_ROWS = 2000


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "mor_it", "mor_reader").shop(scale="0.2", seed="11", sql=EXTRA)
    s.grant_read("public")
    return s


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("mor")
    src.project(d, extra=f'\n[bronze]\ntarget-file-rows = {FILE_ROWS}\nwrite-mode = "merge-on-read"\n')
    src.floe(d, "generate", check=0)
    first = src.floe(d, "run", "--json", "--layer", "bronze", "--table", "public.events", "--table", "public.orders",
                     check=0)
    return d, first


def results(run):
    return {t["table"]: t for t in json.loads(run.out)["tables"]}


def snapshot(d, bronze):
    return catalog(d).load_table(bronze).current_snapshot()


def data_files(d, bronze):
    return {t.file.file_path for t in catalog(d).load_table(bronze).scan().plan_files()}


@contextlib.contextmanager
def toml_extra(d, text):
    """floe.toml with `text` appended, restored after."""
    toml = (d / "floe.toml").read_text()
    (d / "floe.toml").write_text(toml + text)
    try:
        yield
    finally:
        (d / "floe.toml").write_text(toml)


def run(src, d, *tables):
    args = [x for t in tables for x in ("--table", t)]
    out = results(src.floe(d, "run", "--json", "--layer", "bronze", *args, check=0))
    for t in out.values():
        assert t["state"] == "loaded" and t["check"] == "verified", t
    return out


def assert_deletes_name_their_keys(d, bronze, key):
    """Every live position delete file carries each deleted row's `key` in the spec's optional `row`
    (field id 2147483544; its fields under the table's ids), equal to the key the data file holds at
    that position — what silver's diff reads instead of the data files."""
    import pyarrow.parquet as pq
    t = catalog(d).load_table(bronze)
    ids = {f.name: f.field_id for f in t.schema().fields}
    seen = 0
    for path in {df.file_path for task in t.scan().plan_files() for df in task.delete_files}:
        deletes = pq.read_table(local_path(path))
        row = deletes.schema.field("row")
        assert row.metadata[b"PARQUET:field_id"] == b"2147483544" and not row.nullable, row
        assert [c.name for c in row.type] == [key], row.type
        assert [int(c.metadata[b"PARQUET:field_id"]) for c in row.type] == [ids[key]], row.type
        by_file = {}
        for e in deletes.to_pylist():
            by_file.setdefault(e["file_path"], []).append((e["pos"], e["row"][key]))
        for data, entries in by_file.items():
            held = pq.read_table(local_path(data), columns=[key]).column(key).to_pylist()
            assert all(held[pos] == k for pos, k in entries), (data, entries[:3])
            seen += len(entries)
    assert seen > 0


def test_updates_inserts_and_deletes_merge_on_read(src, proj):
    d, first = proj
    assert all(t["state"] == "loaded" for t in results(first).values()), first.out
    before = data_files(d, "bronze.events")
    src.admin("UPDATE public.events SET payload = 'u' || id WHERE id % 1000 = 7")
    src.admin("DELETE FROM public.events WHERE id IN (15, 3015, 11999)")
    src.admin("INSERT INTO public.events SELECT g, 'n' || g FROM generate_series(20001, 20010) g")
    out = run(src, d, "public.events")
    snap = snapshot(d, "bronze.events")
    s = snap.summary
    assert snap.summary.operation.value == "overwrite", s
    assert s["floe.write-mode"] == "merge-on-read", s
    assert (s["floe.rows-updated"], s["floe.rows-deleted"], s["floe.rows-inserted"]) == ("12", "3", "10"), s
    assert s["added-position-deletes"] == "15" and s["added-delete-files"] == "1", s
    assert s.get("deleted-data-files") is None, s  # nothing rewritten
    assert before <= data_files(d, "bronze.events")
    assert "merge-on-read" in out["bronze.events"]["detail"]
    assert_deletes_name_their_keys(d, "bronze.events", "id")
    count = src.admin("SELECT count(*) FROM public.events").fetchone()[0]
    assert out["bronze.events"]["table_rows"] == count, out  # data rows less position deletes
    assert_equals_source(src, d, "bronze.events")
    # A second round touches rows the first one wrote (deltas) and the base files again.
    src.admin("UPDATE public.events SET payload = 'v' || id WHERE id % 1000 = 7 OR id = 20003")
    src.admin("DELETE FROM public.events WHERE id IN (20005, 4007, 16)")
    run(src, d, "public.events")
    assert int(snapshot(d, "bronze.events").summary["total-delete-files"]) == 2
    assert_equals_source(src, d, "bronze.events")
    # floe query reads the table as the source has it (its view leaves deleted rows out).
    r = floe("-C", str(d), "query", "--json", "select count(*) AS n, sum(id) AS s, "
             "count(*) FILTER (WHERE payload LIKE 'v%') AS v FROM bronze.events", check=0)
    want = src.admin("SELECT count(*), sum(id), count(*) FILTER (WHERE payload LIKE 'v%') FROM public.events").fetchall()
    got = json.loads(r.out)[0]
    assert (int(got["n"]), int(got["s"]), int(got["v"])) == tuple(int(x) for x in want[0]), (got, want)
    # Silver builds over the delete files (in full) and holds the source's rows.
    silver = json.loads(src.floe(d, "run", "--json", "--layer", "silver", "--table", "public.events", check=0).out)
    assert [t["state"] for t in silver["silver"]] == ["built"], silver
    r = floe("-C", str(d), "query", "--json", "select count(*) AS n, sum(id) AS s FROM silver.events", check=0)
    got = json.loads(r.out)[0]
    assert (int(got["n"]), int(got["s"])) == tuple(int(x) for x in want[0][:2]), (got, want)
    # No change: no commit.
    sid = snapshot(d, "bronze.events").snapshot_id
    out = run(src, d, "public.events")
    assert out["bronze.events"]["detail"].startswith("no changes"), out
    assert snapshot(d, "bronze.events").snapshot_id == sid


def test_shop_ticks_with_uuid_keys(src, proj):
    d, _ = proj
    for _ in range(1):
        floe("shop", "tick", "--target", src.target, "--orders", "30", "--updates", "30", "--deletes", "5", check=0)
        run(src, d, "public.orders")
        assert_equals_source(src, d, "bronze.orders")
    snaps = catalog(d).load_table("bronze.orders").snapshots()
    assert any(int(x.summary.get("added-position-deletes") or 0) > 0 for x in snaps)
    assert_deletes_name_their_keys(d, "bronze.orders", "order_id")


def test_per_table_write_mode_overrides_the_default(src, proj, tmp_path):
    d, _ = proj
    with toml_extra(d, '\n[bronze.write-modes]\n"public.events" = "copy-on-write"\n'):
        src.admin("UPDATE public.events SET payload = 'w' || id WHERE id = 8")
        run(src, d, "public.events")
        s = snapshot(d, "bronze.events").summary
        assert s.get("floe.write-mode") is None and s.get("added-delete-files") is None, s
        assert int(s["deleted-data-files"]) >= 1, s  # copy-on-write rewrote the unit (and its deltas)
        assert_equals_source(src, d, "bronze.events")


def test_compaction_leaves_the_same_rows_without_delete_files(src, proj):
    d, _ = proj
    src.admin("UPDATE public.events SET payload = 'c' || id WHERE id % 997 = 3")
    run(src, d, "public.events")
    assert int(snapshot(d, "bronze.events").summary["total-delete-files"]) > 0
    r = src.floe(d, "-vv", "compact", "--table", "public.events", "--json", check=0)
    t = json.loads(r.out)["tables"][0]
    assert t["state"] == "loaded" and t["detail"].startswith("compacted"), t
    # two cores and more than two files' rows: the later half of the ranges on a thread of its own
    assert re.search(r"bronze\.events: units \d+ to \d+ of \d+ rewritten on a second thread", r.err), r.err[-2000:]
    snap = snapshot(d, "bronze.events")
    s = snap.summary
    assert snap.summary.operation.value == "replace", s
    assert (s["total-delete-files"], s["total-position-deletes"], s["floe.load-mode"]) == ("0", "0", "compaction"), s
    assert s["floe.watermark"] and s["floe.key"], s  # carried: the next load stays incremental
    assert_equals_source(src, d, "bronze.events")
    # Key-sorted, disjoint files again.
    tbl = catalog(d).load_table("bronze.events")
    ranges = sorted((int.from_bytes(f.file.lower_bounds[1], "little", signed=True),
                     int.from_bytes(f.file.upper_bounds[1], "little", signed=True)) for f in tbl.scan().plan_files())
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), ranges
    # Nothing left to do: a second compaction commits nothing.
    again = json.loads(src.floe(d, "compact", "--table", "public.events", "--json", check=0).out)["tables"][0]
    assert again["detail"].startswith("nothing to compact"), again
    assert snapshot(d, "bronze.events").snapshot_id == snap.snapshot_id
    src.admin("UPDATE public.events SET payload = 'd' || id WHERE id = 9")
    out = run(src, d, "public.events")
    assert out["bronze.events"]["detail"].startswith("incremental:"), out


def test_compaction_runs_after_a_load_past_the_threshold(src, proj):
    d, _ = proj
    with toml_extra(d, "\n[compaction]\ndelete-files = 2\n"):
        details = []
        for i in range(3):  # deletes pile up until a load finds two and compacts after itself
            src.admin(f"UPDATE public.events SET payload = 't{i}' || id WHERE id % 1500 = {i}")
            details.append(run(src, d, "public.events")["bronze.events"]["detail"])
            assert_equals_source(src, d, "bronze.events")
        compacted = [x for x in details if "then compacted" in x]
        assert compacted, details
        assert int(snapshot(d, "bronze.events").summary["total-delete-files"]) < 2


def test_expiry_deletes_nothing_a_kept_snapshot_references(src, proj):
    d, _ = proj
    src.admin("UPDATE public.events SET payload = 'e' || id WHERE id % 1200 = 5")
    run(src, d, "public.events")
    tbl = catalog(d).load_table("bronze.events")
    kept = sorted(tbl.snapshots(), key=lambda s: s.sequence_number)[-2:]
    root = d / "warehouse" / "bronze" / "events"
    before = {str(p) for p in root.rglob("*") if p.is_file()}
    r = src.floe(d, "expire", "--table", "public.events", "--keep-snapshots", "2", "--json", check=0)
    t = json.loads(r.out)["tables"][0]
    assert t["error"] is None and t["snapshots_after"] == 2 and t["deleted_files"] > 0, t
    after = {str(p) for p in root.rglob("*") if p.is_file()}
    assert before - after and all(f.endswith(".metadata.json") for f in after - before), after - before
    tbl = catalog(d).load_table("bronze.events")
    assert {s.snapshot_id for s in tbl.snapshots()} == {s.snapshot_id for s in kept}
    needed = set()  # every file a kept snapshot reads: data and position delete files
    for snap in kept:
        for task in tbl.scan(snapshot_id=snap.snapshot_id).plan_files():
            needed |= {local_path(task.file.file_path)} | {local_path(f.file_path) for f in task.delete_files}
    assert needed <= after, needed - after
    for s in kept:  # every kept snapshot still reads, deletes applied
        assert tbl.scan(snapshot_id=s.snapshot_id).to_arrow().num_rows > 0
    assert_equals_source(src, d, "bronze.events")


def killed(src, d, *args, rng, windows):
    """floe ARGS started and SIGKILLed at a random instant (or left to finish): its return code.
    `windows` holds, per command, how long its last uninterrupted run took: the kill falls inside
    that, so a fast command is still killed mid-way rather than always finishing first."""
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    window = windows.get(args[0], 0.7)
    started = time.monotonic()
    proc = subprocess.Popen([FLOE, "-C", str(d), *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=rng.uniform(0.05, 0.95) * window)
        windows[args[0]] = time.monotonic() - started
    except subprocess.TimeoutExpired:
        proc.kill()  # SIGKILL: mid-read, mid-write or mid-commit
        proc.wait()
    return proc.returncode


def test_kill_9_during_runs_compaction_and_expiry(src, proj):
    """After each kill the table reads (PyIceberg, DuckDB) exactly as one committed state: the
    source before the change or after it; every file its snapshot needs is there."""
    d, _ = proj
    seed = int(os.environ.get("FLOE_CRASH_SEED", str(time.time_ns() % 1_000_000)))
    rng = random.Random(seed)
    t = lock_table(d, "bronze.events")
    kills, states, windows = 0, [pyiceberg_rows(d, "bronze.events")], {}
    for cycle in range(30):
        if kills >= 3 and cycle >= 9:
            break
        step = ["run", "--layer", "bronze", "--no-reconcile", "--table", "public.events"]
        if cycle % 3 == 1:
            step = ["compact", "--table", "public.events"]
        elif cycle % 3 == 2:
            step = ["expire", "--table", "public.events", "--keep-snapshots", "1"]
        else:
            src.admin(f"UPDATE public.events SET payload = 'k{cycle}' || id WHERE id % 700 = {cycle}")
            src.admin(f"DELETE FROM public.events WHERE id = {100 + cycle}")
            states.append(source_rows(src, d, t))
        kills += killed(src, d, *step, rng=rng, windows=windows) == -9
        got = pyiceberg_rows(d, "bronze.events")
        assert got in states, f"seed {seed}, cycle {cycle} ({step[0]}): not a committed state"
        assert duckdb_rows(d, "bronze.events") == got, f"seed {seed}, cycle {cycle}"
    assert kills >= 3, f"seed {seed}: only {kills} kills in {cycle + 1} cycles"
    run(src, d, "public.events")  # after the crashes a run completes and proves the table
    assert_equals_source(src, d, "bronze.events")
