"""Parallel full loads of one table (docs/parallel-load.md): key ranges read by N connections
that import one exported snapshot, each part writing its own files, one commit — read back by
PyIceberg and DuckDB, reconciled, and torn by no concurrent writer."""
import json
import os
import subprocess
import time

import pyarrow.parquet as pq
import pytest

from conftest import FLOE
from icebergkit import local_path
from lakecheck import assert_equals_source, catalog, pyiceberg_rows
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.words (w text PRIMARY KEY, n int, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.words FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.words SELECT md5(g::text) || (CASE WHEN g % 7 = 0 THEN 'Ä' ELSE 'a' END), g,
    now() - interval '1 day' FROM generate_series(1, 12000) g;
INSERT INTO public.words VALUES ('', 0, now() - interval '1 day'), ('Zz', -1, now() - interval '1 day'),
    (E'\\t', -2, now() - interval '1 day');
CREATE TABLE public.moves (id int PRIMARY KEY, v text);
INSERT INTO public.moves SELECT g, 'v' || g FROM generate_series(1, 4000) g;
CREATE TABLE public.nokey (msg text, n int);
INSERT INTO public.nokey SELECT 'm' || g, g FROM generate_series(1, 500) g;
CREATE TABLE public.fresh (id bigint PRIMARY KEY, v text) WITH (autovacuum_enabled = false);  -- never analyzed
INSERT INTO public.fresh SELECT g, 'f' || g FROM generate_series(1, 3000) g;
ANALYZE public.words;
ANALYZE public.moves;
'''
FILE_ROWS = 1000


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "par_it", "par_reader", SQL)


def project(src, tmp_path_factory, n):
    d = tmp_path_factory.mktemp(f"par{n}")
    src.project(d, extra=f"\n[bronze]\ntarget-file-rows = {FILE_ROWS}\nparallel = {n}\n")
    src.floe(d, "generate", check=0)
    return d


def results(run):
    return {t["table"]: t for t in json.loads(run.out)["tables"]}


def file_ranges(d, bronze, key):
    """(min, max, sorted?) of the key in each live data file, sorted by min."""
    out = []
    for task in catalog(d).load_table(bronze).scan().plan_files():
        keys = pq.read_table(local_path(task.file.file_path), columns=[key]).column(0).to_pylist()
        out.append((min(keys).encode() if isinstance(keys[0], str) else min(keys),
                    max(keys).encode() if isinstance(keys[0], str) else max(keys),
                    keys == sorted(keys, key=lambda k: k.encode() if isinstance(k, str) else k)))
    return sorted(out)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_a_parallel_load_equals_the_source_and_is_verified(src, tmp_path_factory, n):
    d = project(src, tmp_path_factory, n)
    run = src.floe(d, "run", "--no-sync", "--json", check=0)
    out = results(run)
    for bronze in ("bronze.words", "bronze.moves", "bronze.fresh", "bronze.nokey"):
        assert out[bronze]["state"] == "loaded", out[bronze]
        assert out[bronze]["check"] == "verified", out[bronze]
        assert_equals_source(src, d, bronze)
    summary = catalog(d).load_table("bronze.words").current_snapshot().summary.additional_properties
    if n == 1:
        assert "floe.parallel" not in summary and "parts" not in out["bronze.words"]["detail"]
        assert "one connection" not in out["bronze.nokey"]["detail"]
    else:
        # n parts over the histogram's quantiles (12 003 distinct keys give n distinct bounds)
        assert summary["floe.parallel"] == str(n), summary
        assert f"read in {n} parts by ranges of \"w\" (from pg_stats' histogram)" in out["bronze.words"]["detail"]
        # fresh was never analyzed: its ranges come from a sample of its keys
        assert "(from a sample of keys)" in out["bronze.fresh"]["detail"], out["bronze.fresh"]
        assert (f"read through one connection, not {n}: the table has no primary key"
                in out["bronze.nokey"]["detail"]), out["bronze.nokey"]
        assert "floe.parallel" not in catalog(d).load_table("bronze.nokey").current_snapshot().summary.additional_properties
        st = {t["table"]: t for t in json.loads(src.floe(d, "status", "--json", check=0).out)["tables"]}
        assert "read through one connection, not" in st["bronze.nokey"]["load_detail"], st["bronze.nokey"]
        assert f"read in {n} parts" in st["bronze.words"]["load_detail"], st["bronze.words"]
        plan = src.plan(d)
        assert (f"a full load reads through one connection, not {n}: the table has no primary key"
                in plan[("public", "nokey")]["notes"]), plan[("public", "nokey")]
        assert f"a full load reads by up to {n} connections over key ranges of \"w\"" in plan[("public", "words")]["notes"]
    # The parts' files together are one key-sorted, disjoint sequence (COLLATE "C"): what merges rely on.
    ranges = file_ranges(d, "bronze.words", "w")
    assert len(ranges) >= max(n, 12) and all(r[2] for r in ranges), ranges
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), ranges
    if n == 4:  # an incremental run merges into the parallel load's files
        src.admin("UPDATE public.words SET n = n + 1000000 WHERE n % 97 = 0")
        src.admin("DELETE FROM public.words WHERE n % 89 = 0")
        again = results(src.floe(d, "run", "--no-sync", "--json", "--table", "public.words", check=0))
        assert again["bronze.words"]["detail"].startswith("incremental:"), again
        assert again["bronze.words"]["check"] == "verified", again
        assert_equals_source(src, d, "bronze.words")


def test_the_command_line_overrides_floe_toml_and_is_checked(src, tmp_path_factory):
    d = project(src, tmp_path_factory, 1)
    bad = src.floe(d, "run", "--parallel", "0")
    assert bad.rc == 2 and "--parallel \"0\" is not a number from 1 to 64" in bad.err, bad
    run = results(src.floe(d, "run", "--no-sync", "--json", "--parallel", "3", "--table", "public.moves", check=0))
    assert "read in 3 parts" in run["bronze.moves"]["detail"], run
    assert_equals_source(src, d, "bronze.moves")
    (d / "floe.toml").write_text((d / "floe.toml").read_text() + '\n[bronze.tables."public.moves"]\nparallel = 99\n')
    bad = src.floe(d, "plan")
    assert bad.rc == 2 and "floe.toml" in bad.err and "1 to 64" in bad.err, bad


def test_a_transaction_moving_rows_between_ranges_mid_load_does_not_tear_it(src, tmp_path_factory):
    """Rows move from the first range to the last in one transaction that commits after the load
    took its snapshot and before its parts read: every part reads the snapshot, so bronze holds
    exactly the rows before the move — none twice, none lost — and reconciliation at that
    snapshot verifies it. Parts reading at their own snapshots would load the rows after it."""
    d = project(src, tmp_path_factory, 4)
    before = sorted(r[0] for r in src.admin("select id from public.moves").fetchall())
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    import psycopg
    with psycopg.connect(src.admin_dsn) as mover:
        mover.execute("LOCK TABLE public.moves IN ACCESS EXCLUSIVE MODE")
        mover.execute("UPDATE public.moves SET id = id + 100000 WHERE id <= 300")
        proc = subprocess.Popen([FLOE, "-C", str(d), "run", "--no-sync", "--json", "--table", "public.moves"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # wait until the load (its snapshot taken) waits for the mover's lock
        deadline = time.time() + 60
        waiting = False
        while time.time() < deadline and not waiting and proc.poll() is None:
            waiting = src.admin("select count(*) from pg_locks l join pg_class c on c.oid = l.relation "
                                "where c.relname = 'moves' and not l.granted").fetchone()[0] > 0
            time.sleep(0.05)
        assert waiting, proc.communicate()
        mover.commit()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, (out, err)
    res = results(type("R", (), {"out": out}))["bronze.moves"]
    assert "read in 4 parts" in res["detail"], res
    assert res["check"] == "verified" and "repair" not in res["detail"], res
    got = sorted(r[0] for r in pyiceberg_rows(d, "bronze.moves"))
    assert got == before, (len(got), len(before))
    after = sorted(r[0] for r in src.admin("select id from public.moves").fetchall())
    assert after != before and max(after) > 100000
    src.admin("UPDATE public.moves SET id = id - 100000 WHERE id > 100000")  # the next test's table as it was
