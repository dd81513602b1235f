"""Incremental bronze loads: rows past the watermark upserted by key with copy-on-write of the
key-sorted files they fall in (`write-mode = "copy-on-write"`, said here: the default is
merge-on-read, tests/it/test_merge_on_read.py), deletes found by a key-set diff — every result
read back by PyIceberg and DuckDB and compared with the source."""
import json
import os
import subprocess
import time

import pyarrow.parquet as pq
import pytest

from conftest import floe
from icebergkit import local_path
from lakecheck import assert_equals_source, catalog
from sourcedb import TOUCH, Source

EXTRA = TOUCH + '''
CREATE TABLE public.events (id bigint PRIMARY KEY, payload text,
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.events SELECT g, 'p' || g, now() - interval '1 day' - g * interval '1 second'
    FROM generate_series(1, 20000) g;
CREATE TABLE public."Wörter" ("Schlüssel" text PRIMARY KEY, "select" int,
                              updated_at timestamp NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public."Wörter" FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public."Wörter" SELECT k, n, localtimestamp - interval '1 day' - n * interval '1 hour' FROM (VALUES ('a', 1), ('B', 2),
    ('é', 3), ('Z', 4), ('aa', 5), ('', 6), ('a b', 7), ('ä', 8), ('A', 9), (E'\\t', 10)) v(k, n);
INSERT INTO public."Wörter" SELECT md5(g::text), g, localtimestamp - interval '1 day' - g * interval '1 hour'
    FROM generate_series(11, 3000) g;
'''

FILE_ROWS = 3000


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "incr_it", "incr_reader").shop(scale="0.2", seed="7", sql=EXTRA)
    s.grant_read("public")
    return s


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("incr")
    src.project(d, extra=f'\n[bronze]\ntarget-file-rows = {FILE_ROWS}\nwrite-mode = "copy-on-write"\n')
    src.floe(d, "generate", check=0)
    first = src.floe(d, "run", "--json", check=0)
    return d, first


def results(run):
    return {t["table"]: t for t in json.loads(run.out)["tables"]}


def summary(d, bronze):
    return catalog(d).load_table(bronze).current_snapshot().summary


def tick(src, *args):
    return floe("shop", "tick", "--target", src.target, *args, check=0)


def key_ranges(d, bronze, key):
    """(min, max, sorted?) of the key in each live data file, in file order by min."""
    tbl = catalog(d).load_table(bronze)
    ranges = []
    for task in tbl.scan().plan_files():
        keys = pq.read_table(local_path(task.file.file_path), columns=[key]).column(0).to_pylist()
        ranges.append((min(keys), max(keys), keys == sorted(keys)))
    return sorted(ranges)


def test_modes_and_a_first_load_sorted_by_key(src, proj):
    d, first = proj
    plan = src.plan(d)
    assert plan[("public", "orders")]["mode"] == "incremental"
    assert plan[("public", "payments")]["mode"] == "incremental"
    assert plan[("public", "reviews")]["mode"] == "full"
    assert plan[("public", "customers")]["mode"] == "full"
    out = results(first)
    assert all(t["state"] == "loaded" for t in out.values()), out
    s = summary(d, "bronze.orders")
    assert s["floe.load-mode"] == "full" and "floe.watermark" in s and s["floe.key"]
    assert "first load" in out["bronze.orders"]["detail"]
    # Files bounded by rows, each sorted, disjoint: the invariant upserts rely on.
    ranges = key_ranges(d, "bronze.orders", "order_id")
    assert len(ranges) >= 3 and all(r[2] for r in ranges)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), ranges
    assert_equals_source(src, d, "bronze.orders")


def test_after_a_tick_only_the_changes_load_and_bronze_equals_the_source(src, proj):
    d, _ = proj
    total = catalog(d).load_table("bronze.orders").scan().to_arrow().num_rows
    # The first tick leaves abandoned carts (loaded by the first run), the second deletes them.
    tick(src, "--orders", "40", "--updates", "30", "--deletes", "6")
    src.floe(d, "run", check=0)
    ticks = [json.loads(tick(src, "--orders", "40", "--updates", "30", "--deletes", "6", "--json").out)]
    deleted = {"orders": ticks[0]["orders"]["deleted"], "payments": ticks[0]["payments"]["deleted"]}
    assert deleted["orders"] > 0, ticks
    run = src.floe(d, "run", "--json", check=0)
    out = results(run)
    for bronze in ("bronze.orders", "bronze.payments"):
        s = summary(d, bronze)
        assert s["floe.load-mode"] == "incremental", s
        assert s["floe.run-id"] == json.loads(run.out)["run_id"]
        assert 0 < int(s["floe.rows-read"]) < total // 20, s  # the changes, not the table
        assert int(s["floe.rows-inserted"]) > 0, s
        assert int(s["floe.rows-deleted"]) == deleted[bronze.split(".")[1]], (s, ticks)
        assert out[bronze]["detail"].startswith("incremental:"), out[bronze]
        assert_equals_source(src, d, bronze)
    ranges = key_ranges(d, "bronze.orders", "order_id")
    assert all(r[2] for r in ranges) and all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))
    for full in ("bronze.customers", "bronze.reviews"):
        assert summary(d, full)["floe.load-mode"] == "full"
        assert_equals_source(src, d, full)


def test_a_run_without_changes_commits_nothing(src, proj):
    d, _ = proj
    before = catalog(d).load_table("bronze.events").current_snapshot().snapshot_id
    run = src.floe(d, "run", "--table", "public.events", "--json", check=0)
    t = results(run)["bronze.events"]
    assert t["state"] == "loaded" and t["detail"].startswith("no changes"), t
    assert catalog(d).load_table("bronze.events").current_snapshot().snapshot_id == before


def test_clustered_changes_rewrite_only_their_files(src, proj):
    d, _ = proj
    files_before = len(key_ranges(d, "bronze.events", "id"))
    assert files_before == 20000 // FILE_ROWS + 1
    src.admin("UPDATE public.events SET payload = 'changed' WHERE id BETWEEN 19990 AND 19995")
    src.admin("INSERT INTO public.events SELECT g, 'new' FROM generate_series(20001, 20100) g")
    src.admin("DELETE FROM public.events WHERE id = 19000")
    run = src.floe(d, "-v", "run", "--table", "public.events", check=0)
    assert "1 of 7 key ranges differ in count" in run.err, run  # only the last file's keys compared
    # The six untouched ranges hold most rows: the whole table is counted, less the last range's pieces.
    assert "source counted (the whole table, less the pieces of the touched ranges)" in run.err, run.err
    s = summary(d, "bronze.events")
    assert s["floe.load-mode"] == "incremental"
    assert (s["floe.rows-updated"], s["floe.rows-inserted"], s["floe.rows-deleted"]) == ("6", "100", "1"), s
    assert s.get("floe.rows-deleted-untouched") is None, s  # the delete fell in the range the changes touched
    assert s["floe.files-rewritten"] == "1", s  # the last file holds all three changes
    assert_equals_source(src, d, "bronze.events")


def test_deletes_in_untouched_ranges_are_found_and_the_next_load_counts_the_ranges_at_once(src, proj):
    """The last load's delete was in the range its changes touched: this one counts the whole table
    less that range's pieces (no range one by one); the two deletes in ranges no change touches make
    that count differ, the ranges are then counted one by one and exactly those two diffed. Having
    found deletes there, the next load counts every range in its first query."""
    d, _ = proj
    assert summary(d, "bronze.events")["floe.rows-deleted"] == "1"
    src.admin("DELETE FROM public.events WHERE id IN (9, 16000)")
    src.admin("UPDATE public.events SET payload = 'again' WHERE id = 20050")
    run = src.floe(d, "-v", "run", "--table", "public.events", check=0)
    assert "key ranges are counted at once" not in run.err, run.err
    assert "source counted by key range (after the keys)" in run.err, run.err
    assert "2 of 7 key ranges differ in count" in run.err, run.err
    s = summary(d, "bronze.events")
    assert (s["floe.rows-updated"], s["floe.rows-deleted"], s["floe.files-rewritten"]) == ("1", "2", "3"), s
    assert s["floe.rows-deleted-untouched"] == "2", s
    assert_equals_source(src, d, "bronze.events")
    src.admin("DELETE FROM public.events WHERE id = 5000")
    src.admin("UPDATE public.events SET payload = 'once more' WHERE id = 20060")
    run = src.floe(d, "-v", "run", "--table", "public.events", check=0)
    assert "the last load found deletes in key ranges its changes did not touch: the 7 key ranges are counted at " \
           "once" in run.err, run.err
    assert "1 of 7 key ranges differ in count" in run.err, run.err
    s = summary(d, "bronze.events")
    assert (s["floe.rows-deleted"], s["floe.rows-deleted-untouched"]) == ("1", "1"), s
    assert_equals_source(src, d, "bronze.events")


def test_text_keys_merge_in_bytewise_order(src, proj):
    """ORDER BY … COLLATE "C" on the source and floe's byte order agree, whatever the collation."""
    d, _ = proj
    src.admin('''UPDATE public."Wörter" SET "select" = -"select" WHERE "Schlüssel" IN ('a', 'B', 'é', '')''')
    src.admin('''INSERT INTO public."Wörter" VALUES ('b', 100), ('Ä', 101), ('zz', 102)''')
    src.admin('''DELETE FROM public."Wörter" WHERE "Schlüssel" IN ('Z', E'\\t')''')
    src.floe(d, "run", "--table", "public.Wörter", check=0)
    s = summary(d, "bronze.Wörter")
    assert s["floe.load-mode"] == "incremental"
    assert (s["floe.rows-updated"], s["floe.rows-inserted"], s["floe.rows-deleted"]) == ("4", "3", "2"), s
    assert_equals_source(src, d, "bronze.Wörter")


def test_late_arrival_outside_the_window_is_repaired_then_a_wider_window_takes_it(src, proj):
    d, _ = proj
    src.admin("INSERT INTO public.events VALUES (30000, 'late', now() - interval '1 hour')")
    run = src.floe(d, "run", "--table", "public.events", "--json", check=0)
    t = results(run)["bronze.events"]
    # The key-set diff sees it arrive late; reconciliation finds the bucket, the repair re-copies it.
    assert "1 source rows are missing from bronze" in t["detail"], t
    assert t["repaired"] is True and t["check"] == "verified", t
    assert summary(d, "bronze.events")["floe.load-mode"] == "repair"
    assert_equals_source(src, d, "bronze.events")
    set_late_window(d, "2h")
    src.admin("INSERT INTO public.events VALUES (30001, 'late', now() - interval '1 hour')")
    src.admin("UPDATE public.events SET payload = 'touch' WHERE id = 1")
    run = src.floe(d, "run", "--table", "public.events", "--json", check=0)
    t = results(run)["bronze.events"]
    s = summary(d, "bronze.events")
    assert t["repaired"] is False and s.get("floe.rows-missing") is None, (t, s)
    assert s["floe.load-mode"] == "incremental" and int(s["floe.rows-inserted"]) == 1, s
    assert_equals_source(src, d, "bronze.events")


def set_late_window(d, value):
    toml = (d / "floe.toml").read_text()
    lines = [line for line in toml.splitlines() if not line.startswith("late-window")]
    toml = "\n".join(lines).replace("[bronze]", f'[bronze]\nlate-window = "{value}"') + "\n"
    (d / "floe.toml").write_text(toml)


def repair(src, d, table, width, *values):
    tool = os.path.join(os.environ.get("FLOE_TOOLS", "build/tools"), "bronze_repair")
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    return subprocess.run([tool, str(d), table, str(width), *values], env=env, capture_output=True,
                          text=True, timeout=120)


def test_repair_recopies_the_given_keys_only(src, proj):
    """What reconciliation does with a diverged table: re-read given keys, upsert, delete the gone."""
    d, _ = proj
    before = summary(d, "bronze.events")
    # Changes the watermark cannot see (the trigger is off, as for a transaction that commits late).
    src.admin("ALTER TABLE public.events DISABLE TRIGGER touch")
    src.admin("UPDATE public.events SET payload = 'silent' WHERE id IN (5, 12000)")
    src.admin("ALTER TABLE public.events ENABLE TRIGGER touch")
    src.admin("DELETE FROM public.events WHERE id = 7")
    r = repair(src, d, "public.events", 1, "5", "12000", "7", "999999")
    assert r.returncode == 0 and r.stdout.startswith("loaded repair of 4 keys"), r
    s = summary(d, "bronze.events")
    assert s["floe.load-mode"] == "repair", s
    assert (s["floe.rows-read"], s["floe.rows-updated"], s["floe.rows-deleted"], s["floe.rows-inserted"]) == \
        ("2", "2", "1", "0"), s
    assert s["floe.files-rewritten"] == "2", s  # ids 5 and 7 share a file; 12000 is in another
    assert s["floe.watermark"] == before["floe.watermark"]  # a repair does not move the watermark
    assert_equals_source(src, d, "bronze.events")


def test_repair_of_a_table_not_sorted_by_key_reloads_it(src, proj):
    d, _ = proj
    r = repair(src, d, "public.customers", 1, "00000000-0000-0000-0000-000000000000")
    assert r.returncode == 0 and "repaired by a full reload" in r.stdout, r
    assert "loaded in full" not in r.stdout and r.stdout.count("full reload") == 1, r.stdout  # said once
    assert summary(d, "bronze.customers")["floe.load-mode"] == "full"
    assert_equals_source(src, d, "bronze.customers")


def test_repair_refuses_a_key_of_the_wrong_width(src, proj):
    d, _ = proj
    r = repair(src, d, "public.payments", 2, "00000000-0000-0000-0000-000000000000")
    assert r.returncode == 2 and "not keys of width 2" in r.stderr, r


def test_a_late_commit_beyond_the_window_is_caught_repaired_and_verified(src, proj):
    """The issue's late arrival: an update stamped before the watermark, committed after the load."""
    d, _ = proj
    set_late_window(d, "0s")
    tick_cmd = [os.environ.get("FLOE_BIN", "build/floe"), "shop", "tick", "--target", src.target, "--orders", "5",
                "--updates", "20", "--deletes", "0", "--late", "3", "--hold-ms", "4000", "--json"]
    late = subprocess.Popen(tick_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2)  # the main transaction committed; the late one holds its rows, stamped earlier
    # bronze only: silver.orders would fail relationships, its new customers not loaded (--table)
    first = results(src.floe(d, "run", "--table", "public.orders", "--layer", "bronze", "--json",
                             check=None))["bronze.orders"]
    out, err = late.communicate(timeout=60)
    assert late.returncode == 0, err
    assert json.loads(out)["late"]["orders"] == 3
    assert first["check"] == "verified", first
    run = src.floe(d, "run", "--table", "public.orders", "--layer", "bronze", "--json", check=0)
    t = results(run)["bronze.orders"]
    # The incremental load cannot see them (stamped before its watermark); V3 does.
    assert t["repaired"] is True and t["check"] == "verified", t
    assert "diverged" in t["detail"] or "repair" in t["detail"], t
    assert summary(d, "bronze.orders")["floe.load-mode"] == "repair"
    assert_equals_source(src, d, "bronze.orders")
    status = json.loads(src.floe(d, "status", "--json", check=None).out)
    orders = next(x for x in status["tables"] if x["table"] == "bronze.orders")
    assert orders["state"] == "verified", orders
    assert orders["reconcile"]["history"].startswith("diverged (") and \
        orders["reconcile"]["history"].endswith("→ repaired → verified"), orders
    assert "repaired" in src.floe(d, "status", check=None).out
    set_late_window(d, "5m")


def test_concurrent_traffic_gives_no_false_differences(src, proj):
    d, _ = proj
    stop = time.monotonic() + 8
    traffic = []
    while time.monotonic() < stop:
        traffic.append(subprocess.Popen([os.environ.get("FLOE_BIN", "build/floe"), "shop", "tick", "--target",
                                         src.target, "--orders", "20", "--updates", "20", "--deletes", "2"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        run = src.floe(d, "run", "--json", check=None)
        out = json.loads(run.out)
        assert out["failed"] == 0 and out["not_verified"] == 0, run
        assert not any(t["repaired"] for t in out["tables"]), run  # nothing diverged
        for p in traffic:
            p.wait(timeout=60)


def test_reconcile_on_demand_finds_a_silent_change_and_repair_fixes_it(src, proj):
    d, _ = proj
    src.admin("ALTER TABLE public.events DISABLE TRIGGER touch")
    src.admin("UPDATE public.events SET payload = 'unseen' WHERE id IN (100, 15000)")
    src.admin("ALTER TABLE public.events ENABLE TRIGGER touch")
    r = src.floe(d, "reconcile", "--table", "public.events", "--json", check=1)
    res = json.loads(r.out)["tables"][0]
    assert res["outcome"] == "diverged", res
    assert sorted(k["key"] for k in res["v3"]["keys"]) == [["100"], ["15000"]], res
    r = src.floe(d, "reconcile", "--table", "public.events", "--repair", "--json", check=0)
    res = json.loads(r.out)["tables"][0]
    assert res["outcome"] == "verified" and res["repaired"].startswith("2 keys re-copied"), res
    assert summary(d, "bronze.events")["floe.load-mode"] == "repair"
    assert_equals_source(src, d, "bronze.events")
    status = json.loads(src.floe(d, "status", "--json", check=None).out)
    assert next(x for x in status["tables"] if x["table"] == "bronze.events")["state"] == "verified"
