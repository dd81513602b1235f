"""Change data capture from PostgreSQL's logical replication (docs/cdc.md): the initial copy at
the slot's exported snapshot, then `floe run` applying the pgoutput stream — shop ticks (inserts,
status updates, deletes, a transaction that commits late), key changes, a truncate and a large
transaction — with bronze equal to the source after every run (PyIceberg and DuckDB), the slot
acknowledged only up to the LSN the bronze snapshot records, a kill -9 mid-stream resumed without
loss or duplicates, and a dropped slot detected and reloaded in full."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import FLOE, floe
from lakecheck import assert_equals_source, catalog
from sourcedb import Source

KV = '''
CREATE TABLE public.kv (k text PRIMARY KEY, n bigint NOT NULL, note text);
INSERT INTO public.kv SELECT 'k' || g, g, repeat('x', g % 50) FROM generate_series(1, 2000) g;
CREATE TABLE public.big (id bigint PRIMARY KEY, v text NOT NULL);
INSERT INTO public.big SELECT g, md5(g::text) FROM generate_series(1, 40000) g;
'''
TABLES = ["public.orders", "public.payments", "public.kv"]
# CDC tables write merge-on-read by default; kv says copy-on-write for itself, so both paths run
CDC = (f'\n[cdc]\ntables = {json.dumps(TABLES)}\ncreate-slot = true\n'
       '\n[bronze.write-modes]\n"public.kv" = "copy-on-write"\n'
       '\n[compaction]\ndelete-files = 2\n'  # compaction after CDC loads, early
       '\n[reconcile]\nfull-every = 4\n')  # big's 4 buckets: V3 hashes a batch's and a share's
CDC = CDC.replace('"public.kv"]', '"public.kv", "public.big"]')  # big: its own test, by --table


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "cdc_it", "cdc_reader").shop(scale="0.05", seed="11", sql=KV)
    s.grant_read("public")
    s.admin(f"ALTER ROLE {s.role} REPLICATION")
    s.admin('CREATE PUBLICATION "floe_cdc_it_public_big" FOR TABLE public.big')
    yield s
    # a leftover slot retains WAL for ever: drop every slot this module made
    for (slot,) in s.admin("select slot_name from pg_replication_slots where database = 'cdc_it'").fetchall():
        s.admin("select pg_drop_replication_slot(%s)", (slot,))


def runs(src, d, *args):
    if "--table" not in args:  # the CDC tables only: the shop's others would load in full each run
        args = args + tuple(a for t in TABLES for a in ("--table", t))
    r = src.floe(d, "run", "--json", "--layer", "bronze", *args)
    assert r.rc == 0, r.out + r.err
    return {t["table"]: t for t in json.loads(r.out)["tables"]}


def summary(d, bronze):
    return catalog(d).load_table(bronze).current_snapshot().summary


def slot_lsn(src, bronze):
    name = "floe_cdc_it_public_" + bronze.split(".")[1]
    row = src.admin("select confirmed_flush_lsn::text from pg_replication_slots where slot_name = %s",
                    (name,)).fetchone()
    return row[0] if row else None


def assert_all_equal(src, d, tables=TABLES):
    for t in tables:
        bronze = "bronze." + t.split(".")[1]
        assert_equals_source(src, d, bronze)
        # the slot is acknowledged exactly up to what bronze holds
        assert slot_lsn(src, bronze) == summary(d, bronze)["floe.cdc.lsn"], bronze


def tick(src, seed):
    floe("shop", "tick", "--target", src.target, "--orders", "30", "--updates", "40", "--deletes", "3",
         "--late", "1", "--hold-ms", "200", "--seed", str(seed), check=0)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("cdc")
    src.project(d, extra=CDC)
    src.floe(d, "generate", check=0)
    return d


def test_doctor_names_what_is_missing_and_the_sql(src, proj):
    src.admin("ALTER TABLE public.kv REPLICA IDENTITY NOTHING")  # published, its updates would fail
    try:
        r = src.floe(proj, "doctor", "--json")
    finally:
        src.admin("ALTER TABLE public.kv REPLICA IDENTITY DEFAULT")
    checks = {c["id"]: c for c in json.loads(r.out)["checks"]}
    c = checks["cdc.ready"]
    assert c["status"] == "fail", c
    assert "publication" in c["facts"] and "public.kv has REPLICA IDENTITY NOTHING" in c["facts"], c
    assert 'CREATE PUBLICATION "floe_cdc_it_public_orders" FOR TABLE "public"."orders"' in c["todo"], c
    assert 'ALTER TABLE "public"."kv" REPLICA IDENTITY DEFAULT' in c["todo"], c
    # a DBA runs what doctor says (the role owns none of the tables, so floe cannot)
    for t in TABLES:
        name = "floe_cdc_it_public_" + t.split(".")[1]
        src.admin(f'CREATE PUBLICATION "{name}" FOR TABLE {t}')
    r = src.floe(proj, "doctor", "--json")
    c = {c["id"]: c for c in json.loads(r.out)["checks"]}["cdc.ready"]
    assert c["status"] == "warn" and "slot" in c["facts"], c  # slots: floe makes them (create-slot)


def test_initial_copy_then_stream(src, proj):
    d = proj
    first = runs(src, d)
    for t in TABLES:
        b = "bronze." + t.split(".")[1]
        assert first[b]["state"] == "loaded", first[b]
        assert "initial copy at the new replication slot" in first[b]["detail"], first[b]
        assert summary(d, b)["floe.cdc.lsn"], b
    assert_all_equal(src, d)
    for seed in (1,):
        tick(src, seed)
        second = runs(src, d)
        o = second["bronze.orders"]
        assert o["state"] == "loaded" and o["detail"].startswith("cdc: "), o
        s = summary(d, "bronze.orders")
        assert s["floe.load-mode"] == "cdc"
        # merge-on-read by default: the changed rows in a new file, the rows they replace as
        # position deletes, no data file rewritten
        assert s["floe.write-mode"] == "merge-on-read" and s["floe.files-rewritten"] == "0", s
        assert int(s["added-position-deletes"]) > 0 and "rows marked deleted (merge-on-read)" in o["detail"], s
        assert o["check"] == "verified", o
        assert_all_equal(src, d)


def test_key_changes_deletes_truncate_and_a_large_transaction(src, proj):
    d = proj
    src.admin("UPDATE public.kv SET k = k || '-moved', n = n + 1000000 WHERE n % 97 = 0")  # key changes
    src.admin("DELETE FROM public.kv WHERE n % 89 = 0")
    src.admin("INSERT INTO public.kv VALUES ('fresh', 1, NULL)")
    r = runs(src, d, "--table", "public.kv")["bronze.kv"]
    assert r["detail"].startswith("cdc: 3 transactions"), r
    s = summary(d, "bronze.kv")  # [bronze.write-modes] over the CDC default: rewritten in place
    assert s["floe.write-mode"] is None and int(s["floe.files-rewritten"]) > 0, s
    assert not int(s["added-delete-files"] or 0), s
    assert_all_equal(src, d, ["public.kv"])
    # a large transaction — every row touched in one commit, 10,000 keys, one with quotes and a
    # backslash — is still re-read by key (the keys travel as one typed array per key column)
    src.admin("UPDATE public.kv SET note = coalesce(note, '') || 'L'")
    src.admin("INSERT INTO public.kv SELECT 'big' || g, g, NULL FROM generate_series(1, 8000) g")
    src.admin("INSERT INTO public.kv VALUES ('we\"ird\\k''ey', 7, 'odd')")
    r = runs(src, d, "--table", "public.kv")["bronze.kv"]
    assert r["detail"].startswith("cdc: 3 transactions") and "loaded in full" not in r["detail"], r
    assert_all_equal(src, d, ["public.kv"])
    # more keys than a keyed re-read takes: loaded in full at the stream's snapshot
    src.admin("INSERT INTO public.kv SELECT 'huge' || g, g, NULL FROM generate_series(1, 50001) g")
    r = runs(src, d, "--table", "public.kv")["bronze.kv"]
    assert "more than 50000 keys changed" in r["detail"], r
    assert_all_equal(src, d, ["public.kv"])
    src.admin("TRUNCATE public.kv")
    src.admin("INSERT INTO public.kv VALUES ('after', 2, 'truncate')")
    r = runs(src, d, "--table", "public.kv")["bronze.kv"]
    assert "truncated" in r["detail"], r
    assert_all_equal(src, d, ["public.kv"])
    # nothing changed: the LSN still moves on (other tables wrote WAL), and bronze stays equal
    src.admin("UPDATE public.payments SET payment_value = payment_value WHERE false")
    runs(src, d, "--table", "public.kv")
    assert_all_equal(src, d, ["public.kv"])


def unique_keys(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


def test_compaction_after_cdc_loads_keeps_the_lsn(src, proj):
    d = proj
    for seed in (30, 31, 32):
        tick(src, seed)
        runs(src, d, "--table", "public.orders")
    snaps = catalog(d).load_table("bronze.orders").snapshots()
    compacted = [s for s in snaps if s.summary["floe.load-mode"] == "compaction"]
    assert compacted, [s.summary["floe.load-mode"] for s in snaps]
    for c in compacted:  # it carries the LSN of the load it compacted, once (floe reads the metadata again)
        parent = next(s for s in snaps if s.snapshot_id == c.parent_snapshot_id)
        assert c.summary["floe.cdc.lsn"] == parent.summary["floe.cdc.lsn"], (c.summary, parent.summary)
    path = catalog(d).load_table("bronze.orders").metadata_location[len("file://"):]
    with open(path) as f:
        json.load(f, object_pairs_hook=unique_keys)
    runs(src, d, "--table", "public.orders")
    assert_all_equal(src, d, ["public.orders"])


def test_reconciliation_after_a_batch_hashes_the_buckets_of_its_keys(src, proj):
    d = proj
    first = runs(src, d, "--table", "public.big")["bronze.big"]
    assert first["check"] == "verified" and "V3 on" not in first["check_detail"], first  # a full load: all
    src.admin("UPDATE public.big SET v = 'changed' WHERE id = 777")
    r = runs(src, d, "--table", "public.big")["bronze.big"]
    assert r["detail"].startswith("cdc: 1 transactions") and r["check"] == "verified", r
    # the batch's one key touched one bucket; with the rotating share, at most 2 of 4 hashed in full
    assert "(1 touched by the run, share" in r["check_detail"], r["check_detail"]
    assert "every bucket's rows and keys counted" in r["check_detail"], r["check_detail"]
    assert_all_equal(src, d, ["public.big"])


def test_kill_mid_stream_resumes_without_loss_or_duplicates(src, proj):
    d = proj
    for seed in (3, 4, 5):
        tick(src, seed)
    src.admin("UPDATE public.kv SET n = n + 1")
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    killed = 0
    for i, delay in enumerate((0.15, 0.3, 0.6)):
        p = subprocess.Popen([FLOE, "-C", str(d), "run", "--layer", "bronze", "--table", "public.orders",
                              "--table", "public.payments", "--table", "public.kv"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        time.sleep(delay)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed += 1
        p.wait()
        tick(src, 10 + i)  # a seed of its own: the same seed adds the same customers again
    assert killed, "floe finished before every kill"
    runs(src, d)
    assert_all_equal(src, d)


def test_dropped_slot_is_detected_and_reloaded(src, proj):
    d = proj
    tick(src, 20)
    src.admin("select pg_drop_replication_slot('floe_cdc_it_public_orders')")
    r = runs(src, d)["bronze.orders"]
    assert "the replication slot \"floe_cdc_it_public_orders\" is missing" in r["detail"], r
    assert r["check"] == "verified", r
    assert_all_equal(src, d)


def test_status_shows_lag_and_warns_on_retained_wal(src, proj):
    d = proj
    rows = {t["table"]: t for t in json.loads(src.floe(d, "status", "--json").out)["tables"]}
    c = rows["bronze.orders"]["cdc"]
    assert c["slot"] == "floe_cdc_it_public_orders" and c["lsn"] == summary(d, "bronze.orders")["floe.cdc.lsn"], c
    assert c["lag_bytes"] >= 0 and 0 <= c["lag_seconds"] < 600 and c["retained_bytes"] > 0, c
    assert c["wal_status"] == "reserved" and c.get("warning") is None, c
    assert "cdc" not in rows["bronze.customers"]  # not a CDC table
    toml = (d / "floe.toml").read_text()
    (d / "floe.toml").write_text(toml.replace("create-slot = true", 'create-slot = true\nmax-retained-wal = "1"'))
    try:
        text = src.floe(d, "status").out
        assert 'warning: slot "floe_cdc_it_public_orders" retains' in text, text
        assert "more than [cdc] max-retained-wal (1)" in text, text
    finally:
        (d / "floe.toml").write_text(toml)
