"""Merge-on-read silver (docs/silver.md, "Incremental"): with `[bronze] write-mode =
"merge-on-read"`, an incremental silver build writes the changed keys' new rows as a new data file
and the rows they replace (and deleted keys' rows) as one position delete file, rewriting no file;
the table read back by PyIceberg and DuckDB's iceberg extension equals the source and a full
rebuild, build after build."""
import json

import pyarrow.parquet as pq
import pytest

from icebergkit import local_path
from lakecheck import catalog, duckdb_iceberg, norm
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.accounts (account_id int PRIMARY KEY, owner text NOT NULL, balance numeric(12,2));
INSERT INTO public.accounts SELECT g, 'o' || g, g * 2.5 FROM generate_series(1, 400) g;
CREATE TABLE public.events (event_id int PRIMARY KEY, kind text NOT NULL,
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.events (event_id, kind, updated_at)
    SELECT g, 'k' || g, now() - interval '1 day' FROM generate_series(1, 300) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "silver_mor", "silver_mor_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("silver_mor")
    src.project(d, extra='\n[bronze]\nwrite-mode = "merge-on-read"\ntarget-file-rows = 100\n')
    src.floe(d, "generate", check=0)
    return d


def run(src, d, *args):
    r = src.floe(d, "run", "--json", *args, check=None)
    assert r.rc == 0, r.out + r.err
    return {t["table"]: t for t in json.loads(r.out).get("silver", [])}


def rows_pyiceberg(d, table):
    return sorted(([norm(v) for v in r.values()] for r in catalog(d).load_table(table).scan().to_arrow().to_pylist()),
                  key=repr)


def rows_duckdb(d, table):
    loc = catalog(d).load_table(table).metadata_location
    return sorted(([norm(v) for v in r] for r in duckdb_iceberg().execute(f"select * from iceberg_scan('{loc}')").fetchall()),
                  key=repr)


def source(src, table="accounts"):
    with src.reader() as conn:
        return sorted(([norm(v) for v in r] for r in conn.execute(f"select * from {table}").fetchall()), key=repr)


def test_incremental_silver_writes_a_delete_file_and_equals_the_source(src, proj):
    s = run(src, proj, "--table", "public.accounts")["silver.accounts"]
    assert s["state"] == "built" and s["changed_keys"] == -1, s
    files_before = {f.file.file_path for f in catalog(proj).load_table("silver.accounts").scan().plan_files()}
    assert len(files_before) == 4
    for step, sql in enumerate([
            "UPDATE accounts SET balance = balance + 1 WHERE account_id IN (5, 150, 399); "
            "DELETE FROM accounts WHERE account_id IN (7, 250); INSERT INTO accounts VALUES (401, 'new', 1)",
            # the second round replaces a row the first round's file holds, and one of the originals again
            "UPDATE accounts SET owner = 'again' WHERE account_id IN (150, 6); DELETE FROM accounts WHERE account_id = 401"]):
        src.admin(sql)
        s = run(src, proj, "--table", "public.accounts")["silver.accounts"]
        assert s["state"] == "built" and s["changed_keys"] == (6 if step == 0 else 3), s
        tbl = catalog(proj).load_table("silver.accounts")
        summary = tbl.current_snapshot().summary
        assert summary.get("deleted-data-files") in (None, "0"), summary  # nothing rewritten
        assert summary["added-delete-files"] == "1", summary
        assert summary["added-position-deletes"] == ("5" if step == 0 else "3"), summary
        files_now = {f.file.file_path for f in tbl.scan().plan_files()}
        assert files_before <= files_now  # the first build's files are all still live
        want = source(src)
        assert rows_pyiceberg(proj, "silver.accounts") == want
        assert rows_duckdb(proj, "silver.accounts") == want
        assert s["rows"] == len(want), s
    # floe's own readers apply the deletes too: floe query, and a full rebuild gives the same rows
    q = src.floe(proj, "query", "--json", "select count(*) as n from silver.accounts", check=None)
    assert q.rc == 0 and json.loads(q.out) == [{"n": str(len(want))}], q.out + q.err
    s = run(src, proj, "--layer", "silver", "--full-refresh")["silver.accounts"]
    assert s["state"] == "built" and s["changed_keys"] == -1, s
    tbl = catalog(proj).load_table("silver.accounts")
    assert tbl.current_snapshot().summary.get("total-delete-files") in (None, "0")
    assert rows_pyiceberg(proj, "silver.accounts") == want


def test_a_full_merge_on_read_build_keeps_the_model_order(src, proj):
    # merge-on-read: a full build writes the model's rows in the order bronze gives them (no sort
    # by key: replaced rows are deleted by position), and the next incremental build is still exact.
    # An UPDATE moves a source row to the end of the heap, so accounts' full load reads it last.
    src.admin("UPDATE accounts SET owner = 'moved' WHERE account_id IN (2, 3)")
    assert run(src, proj, "--layer", "bronze", "--table", "public.accounts") is not None
    s = run(src, proj, "--layer", "silver", "--full-refresh", "--table", "silver.accounts")["silver.accounts"]
    assert s["state"] == "built" and s["changed_keys"] == -1, s

    def file_keys():
        tbl = catalog(proj).load_table("silver.accounts")
        return [pq.read_table(local_path(t.file.file_path), columns=["account_id"]).column(0).to_pylist()
                for t in tbl.scan().plan_files()]
    assert any(keys != sorted(keys) for keys in file_keys()), file_keys()
    assert rows_pyiceberg(proj, "silver.accounts") == source(src)
    src.admin("UPDATE accounts SET balance = balance + 1 WHERE account_id IN (2, 200); DELETE FROM accounts WHERE account_id = 3")
    s = run(src, proj, "--table", "public.accounts")["silver.accounts"]
    assert s["state"] == "built" and s["changed_keys"] == 3, s
    assert rows_pyiceberg(proj, "silver.accounts") == rows_duckdb(proj, "silver.accounts") == source(src)


def test_silver_over_merge_on_read_bronze_takes_the_changed_keys_from_its_delete_files(src, proj):
    # events loads incrementally: bronze writes its changes merge-on-read (a delta file and a
    # position delete file); silver's diff reads the delta and the rows the delete file removed,
    # not every file of both snapshots, and builds incrementally
    s = run(src, proj, "--table", "public.events")["silver.events"]
    assert s["state"] == "built" and s["changed_keys"] == -1, s
    for step in range(2):
        src.admin(f"UPDATE events SET kind = 'x{step}' WHERE event_id IN (3, 150, 290); "
                  f"DELETE FROM events WHERE event_id = {10 + step}; "
                  f"INSERT INTO events (event_id, kind) VALUES ({301 + step}, 'new')")
        r = src.floe(proj, "-vv", "run", "--json", "--table", "public.events", check=None)
        assert r.rc == 0, r.out + r.err
        s = {t["table"]: t for t in json.loads(r.out)["silver"]}["silver.events"]
        # the deleted keys come from the delete file's `row` (bronze writes each deleted row's key
        # there), not from decoding the key column of the data files the rows were deleted from
        assert "silver.events: the keys bronze deleted read from its 1 new delete files' rows" in r.err, r.err
        bronze = catalog(proj).load_table("bronze.events").current_snapshot().summary
        assert bronze["floe.write-mode"] == "merge-on-read" and int(bronze["total-delete-files"]) >= 1, bronze
        assert s["state"] == "built" and s["changed_keys"] == 5, s
        summary = catalog(proj).load_table("silver.events").current_snapshot().summary
        assert summary.get("deleted-data-files") in (None, "0") and summary["added-position-deletes"] == "4", summary
        want = source(src, "events")
        assert rows_pyiceberg(proj, "silver.events") == want
        assert rows_duckdb(proj, "silver.events") == want


def test_the_key_index_finds_the_changed_rows_and_damage_falls_back_to_the_scan(src, proj):
    # every incremental build finds the live rows of its changed keys in the table's key index
    # (.floe/keys/), which the builds keep; the suite runs with FLOE_SILVER_KEYS_CHECK=1, so each
    # such build also finds them by scanning the key column and fails if the two differ
    s = run(src, proj, "--layer", "silver", "--full-refresh", "--table", "silver.accounts")["silver.accounts"]
    assert s["state"] == "built", s
    index = [p for p in (proj / ".floe" / "keys").glob("silver.accounts.*") if p.is_dir()]
    assert len(index) == 1 and (index[0] / "manifest").is_file(), index

    def build(sql):
        src.admin(sql)
        r = src.floe(proj, "-vv", "run", "--json", "--table", "public.accounts", check=None)
        assert r.rc == 0, r.out + r.err
        s = {t["table"]: t for t in json.loads(r.out)["silver"]}["silver.accounts"]
        assert s["state"] == "built" and s["changed_keys"] > 0, s
        want = source(src)
        assert rows_pyiceberg(proj, "silver.accounts") == rows_duckdb(proj, "silver.accounts") == want
        return r.err

    def segments():
        return [p for p in index[0].iterdir() if p.name.startswith("seg-")]

    err = build("UPDATE accounts SET balance = balance + 3 WHERE account_id IN (20, 220); DELETE FROM accounts WHERE account_id = 30")
    assert "silver.accounts: the rows of 3 changed keys found in the key index: 3 live" in err, err
    assert len(segments()) == 2  # the full build's, and this build's new file

    # damaged keys (every key byte of every segment flipped, the headers intact): the lookup that
    # reads them fails, the build finds its rows by the scan instead and says why
    for seg in segments():
        data = bytearray(seg.read_bytes())
        width, n_rows = int.from_bytes(data[8:12], "little"), int.from_bytes(data[24:32], "little")
        assert width == 4 and n_rows > 0  # the header: "FLOEKIX3", width, …, n_rows (src/keyindex/keyindex.c)
        for i in range(len(data) - width * n_rows, len(data)):
            data[i] ^= 0xFF
        seg.write_bytes(bytes(data))
    err = build("UPDATE accounts SET owner = 'dmg' WHERE account_id IN (21, 221)")
    assert "silver.accounts: the key index is not used (a lookup failed): the key index at" in err, err
    assert "is damaged" in err, err

    # a segment cut short is left out: its files are read into the index again, and it answers
    for seg in segments():
        seg.write_bytes(seg.read_bytes()[:100])
    err = build("UPDATE accounts SET owner = 'cut' WHERE account_id IN (22, 222)")
    assert "left out (missing, damaged or of another key)" in err, err
    assert "silver.accounts: the rows of 2 changed keys found in the key index: 2 live" in err, err

    # the index removed: built again from the table's files
    import shutil
    shutil.rmtree(index[0])
    err = build("DELETE FROM accounts WHERE account_id = 23")
    assert "silver.accounts: the rows of 1 changed keys found in the key index: 1 live" in err, err
    assert (index[0] / "manifest").is_file()
