"""`floe run --follow` (docs/cdc.md, "Following"): one long-running process applies the CDC
tables' streams batch after batch, taking the positions of the rows a batch replaces from an
in-memory index instead of reading every key. Bronze must equal the source after inserts,
updates, key changes, deletes and a truncate (PyIceberg and DuckDB), after a kill -9 and a
restart, after a compaction by another process and a `floe run` of the same table meanwhile
(the index is rebuilt, never used stale); SIGTERM exits 0; a non-CDC table is refused."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import FLOE
from lakecheck import assert_equals_source, catalog
from sourcedb import Source

KV = '''
CREATE TABLE public.kv (k text PRIMARY KEY, n bigint NOT NULL, note text);
INSERT INTO public.kv SELECT 'k' || g, g, repeat('x', g % 50) FROM generate_series(1, 3000) g;
'''
TABLES = ["public.orders", "public.kv"]
CDC = (f'\n[cdc]\ntables = {json.dumps(TABLES)}\ncreate-slot = true\nfollow-interval-ms = 50\n'
       '\n[compaction]\ndelete-files = 4\n')  # the follower compacts too: its index is rebuilt after


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "cdcf_it", "cdcf_reader").shop(scale="0.05", seed="12", sql=KV)
    s.grant_read("public")
    s.admin(f"ALTER ROLE {s.role} REPLICATION")
    for t in TABLES:
        s.admin(f'CREATE PUBLICATION "floe_cdcf_it_public_{t.split(".")[1]}" FOR TABLE {t}')
    yield s
    for (slot,) in s.admin("select slot_name from pg_replication_slots where database = 'cdcf_it'").fetchall():
        s.admin("select pg_drop_replication_slot(%s)", (slot,))


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("cdcf")
    src.project(d, extra=CDC)
    src.floe(d, "generate", check=0)
    args = [a for t in TABLES for a in ("--table", t)]
    r = src.floe(d, "run", "--json", "--layer", "bronze", *args)  # the initial copies
    assert r.rc == 0, r.out + r.err
    return d


def lsn(text):
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


def wal_now(src):
    return lsn(src.admin("select pg_current_wal_lsn()::text").fetchone()[0])


def summary(d, bronze):
    return catalog(d).load_table(bronze).current_snapshot().summary


class Follower:
    def __init__(self, src, d, *args):
        env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
        self.log = open(d / "follow.log", "w")
        self.p = subprocess.Popen([FLOE, "-v", "-C", str(d), "run", "--follow", *args], env=env,
                                  stdout=subprocess.DEVNULL, stderr=self.log)
        self.d = d

    def wait_for(self, bronze, target, timeout=90):
        """Until bronze's floe.cdc.lsn reaches `target` (a change to that table was applied)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            assert self.p.poll() is None, (self.d / "follow.log").read_text()[-3000:]
            if lsn(summary(self.d, bronze)["floe.cdc.lsn"]) >= target:
                return
            time.sleep(0.1)
        raise AssertionError(f"{bronze} did not reach {target:x}: " + (self.d / "follow.log").read_text()[-3000:])

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(timeout=120)
        self.log.close()
        assert rc == 0, (self.d / "follow.log").read_text()[-3000:]


def slot_lsn(src, bronze):
    return src.admin("select confirmed_flush_lsn::text from pg_replication_slots where slot_name = %s",
                     ("floe_cdcf_it_public_" + bronze.split(".")[1],)).fetchone()[0]


def assert_all_equal(src, d):
    for t in TABLES:
        bronze = "bronze." + t.split(".")[1]
        assert_equals_source(src, d, bronze)
        assert lsn(slot_lsn(src, bronze)) <= lsn(summary(d, bronze)["floe.cdc.lsn"]), bronze  # never past bronze


def tick(src, seed):
    from conftest import floe
    floe("shop", "tick", "--target", src.target, "--orders", "30", "--updates", "40", "--deletes", "3",
         "--seed", str(seed), check=0)


def test_follow_refuses_a_table_not_loaded_by_cdc(src, proj):
    r = src.floe(proj, "run", "--follow", "--table", "public.customers", check=None)
    assert r.rc == 2, r.out + r.err
    assert "bronze.customers is not loaded by change data capture" in r.err, r.err


def test_follower_applies_every_kind_of_change(src, proj):
    d = proj
    f = Follower(src, d)
    try:
        for seed in (1, 2):
            tick(src, seed)
            f.wait_for("bronze.orders", wal_now(src))
        src.admin("UPDATE public.kv SET k = k || '-moved', n = n + 1000000 WHERE n % 97 = 0")  # key changes
        src.admin("DELETE FROM public.kv WHERE n % 89 = 0")
        src.admin("UPDATE public.kv SET note = 'again' WHERE n % 7 = 0")
        f.wait_for("bronze.kv", wal_now(src))
        src.admin("UPDATE public.kv SET note = 'twice' WHERE n % 14 = 0")  # rows the last batch rewrote
        src.admin("INSERT INTO public.kv VALUES ('fresh', 1, NULL)")
        f.wait_for("bronze.kv", wal_now(src))
    finally:
        f.stop()
    log = (d / "follow.log").read_text()
    assert "bronze.kv: position index built" in log, log[-3000:]
    assert "bronze.kv: positions from the index" in log, log[-3000:]  # a later batch used it, no scan
    assert "every batch adds a snapshot and nothing expires them" in log, log[:2000]  # no keep-snapshots here
    assert_all_equal(src, d)
    src.admin("TRUNCATE public.kv")
    src.admin("INSERT INTO public.kv VALUES ('after', 2, 'truncate')")
    f = Follower(src, d)
    try:
        f.wait_for("bronze.kv", wal_now(src))
        src.admin("INSERT INTO public.kv VALUES ('after2', 3, 'truncate')")  # the index after a full load
        f.wait_for("bronze.kv", wal_now(src))
    finally:
        f.stop()
    assert_all_equal(src, d)


def test_kill_of_the_follower_resumes_without_loss_or_duplicates(src, proj):
    d = proj
    for i in range(3):
        f = Follower(src, d)
        tick(src, 20 + i)
        src.admin("UPDATE public.kv SET n = n + 1")
        time.sleep(0.2 + 0.3 * i)
        f.p.send_signal(signal.SIGKILL)
        f.p.wait()
        f.log.close()
    f = Follower(src, d)
    try:
        tick(src, 30)
        target = wal_now(src)
        f.wait_for("bronze.orders", target)
        src.admin("UPDATE public.kv SET n = n + 1")
        f.wait_for("bronze.kv", wal_now(src))
    finally:
        f.stop()
    assert_all_equal(src, d)


def test_sessions_the_server_ends_between_batches_are_opened_again(src, proj):
    d = proj
    f = Follower(src, d, "--table", "public.orders")
    try:
        tick(src, 60)
        f.wait_for("bronze.orders", wal_now(src))
        rows = src.admin("select usename, backend_type, state, left(query, 40) from pg_stat_activity where datname = current_database() or backend_type = 'walsender'").fetchall()
        ended = src.admin("select count(pg_terminate_backend(pid)) from pg_stat_activity where usename = %s "
                          "and pid <> pg_backend_pid()", (src.role,)).fetchone()[0]
        assert ended >= 1, rows  # the kept sessions (the load's, the snapshot holder's), or a batch's
        tick(src, 61)
        f.wait_for("bronze.orders", wal_now(src))
    finally:
        f.stop()
    log = (d / "follow.log").read_text()
    assert "the next batch connects again" in log, log[-3000:]
    assert_all_equal(src, d)


def test_over_its_memory_budget_the_follower_reads_the_keys_instead(src, proj):
    d = proj
    toml = (d / "floe.toml").read_text()
    (d / "floe.toml").write_text(toml.replace("follow-interval-ms = 50\n", "follow-interval-ms = 50\nfollow-index-mb = 0\n"))
    try:
        f = Follower(src, d, "--table", "public.orders")
        try:
            tick(src, 50)
            f.wait_for("bronze.orders", wal_now(src))
            tick(src, 51)
            f.wait_for("bronze.orders", wal_now(src))
        finally:
            f.stop()
    finally:
        (d / "floe.toml").write_text(toml)
    log = (d / "follow.log").read_text()
    assert log.count("over [cdc] follow-index-mb (0 MB): each batch reads the table's keys instead") == 1, log[-3000:]
    assert "positions from the index" not in log and "position index built" not in log, log[-3000:]
    assert_all_equal(src, d)


def until_done(src, d, *args):
    """Run a command until it is not refused for the follower's lock (it only holds it during a batch)."""
    for _ in range(100):
        r = src.floe(d, *args, check=None)
        if "is being loaded by" not in r.out + r.err:
            return r
        assert "run --follow" in r.out + r.err or "pid" in r.out + r.err, r.out + r.err  # says who holds it
        time.sleep(0.02)
    raise AssertionError("never got the table's lock: " + r.out + r.err)


def test_compaction_and_a_run_by_other_processes_while_following(src, proj):
    d = proj
    f = Follower(src, d)
    try:
        tick(src, 40)
        f.wait_for("bronze.orders", wal_now(src))
        r = until_done(src, d, "compact", "--table", "public.orders", "--json")
        assert r.rc == 0, r.out + r.err
        compacted = catalog(d).load_table("bronze.orders").current_snapshot()
        tick(src, 41)  # applied on the compacted snapshot: positions from a rebuilt index
        f.wait_for("bronze.orders", wal_now(src))
        # a `floe run` of the table meanwhile: it loads between two batches (or is told who holds it)
        before = catalog(d).load_table("bronze.orders").current_snapshot().snapshot_id
        r = until_done(src, d, "run", "--json", "--layer", "bronze", "--table", "public.orders")
        assert r.rc == 0 and json.loads(r.out)["tables"][0]["state"] == "loaded", r.out + r.err
        # the run commits only when the slot moved past what the follower applied: a timing matter
        run_committed = catalog(d).load_table("bronze.orders").current_snapshot().snapshot_id != before
        tick(src, 42)
        f.wait_for("bronze.orders", wal_now(src))
    finally:
        f.stop()
    assert compacted.summary["floe.load-mode"] == "compaction", compacted.summary
    log = (d / "follow.log").read_text()
    # built at the first batch, rebuilt after the compaction, and after the run when it committed
    assert log.count("bronze.orders: position index built") >= 2 + run_committed, log[-3000:]
    assert_all_equal(src, d)


def walsender(src, bronze):
    """The pid of the walsender reading the table's slot (None: no stream open)."""
    return src.admin("select active_pid from pg_replication_slots where slot_name = %s",
                     ("floe_cdcf_it_public_" + bronze.split(".")[1],)).fetchone()[0]


def asleep(f):
    """Until the follower sleeps between two polls (no batch under way, no lock held)."""
    for _ in range(5000):
        with open(f"/proc/{f.p.pid}/wchan") as w:
            if w.read() == "hrtimer_nanosleep":
                return
        time.sleep(0.002)
    raise AssertionError("the follower never paused between polls")


def test_the_stream_stays_open_across_quiet_polls_and_keepalive_only_intervals(src, proj):
    """One START_REPLICATION for the follower's life: the same walsender serves every batch, through
    pauses longer than wal_sender_timeout, in which only keepalives come (answered between polls)."""
    d = proj
    toml = (d / "floe.toml").read_text()
    (d / "floe.toml").write_text(toml.replace("follow-interval-ms = 50\n", "follow-interval-ms = 4000\n"))
    src.admin("ALTER SYSTEM SET wal_sender_timeout = '1500ms'")
    src.admin("SELECT pg_reload_conf()")
    try:
        f = Follower(src, d, "--table", "public.kv")
        try:
            src.admin("UPDATE public.kv SET n = n + 1 WHERE n % 5 = 0")
            f.wait_for("bronze.kv", wal_now(src))
            pid = walsender(src, "bronze.kv")
            assert pid, "no stream open between batches"
            time.sleep(5)  # more than three times wal_sender_timeout: only keepalives meanwhile
            src.admin("UPDATE public.kv SET n = n + 1 WHERE n % 5 = 1")
            f.wait_for("bronze.kv", wal_now(src))
            assert walsender(src, "bronze.kv") == pid  # the same stream, never restarted
        finally:
            f.stop()
    finally:
        (d / "floe.toml").write_text(toml)
        src.admin("ALTER SYSTEM RESET wal_sender_timeout")
        src.admin("SELECT pg_reload_conf()")
    assert_all_equal(src, d)


def test_the_stream_stays_open_across_a_compaction_by_another_process(src, proj):
    """`floe compact` commits between two batches (the follower paused, not holding the table's lock):
    the table's LSN did not move, so the next batch reads on from the open stream, positions from a
    rebuilt index; a change made while it was paused is applied once."""
    d = proj
    toml = (d / "floe.toml").read_text()  # the follower does not compact on its own here: it is ours to do
    (d / "floe.toml").write_text(toml.replace("delete-files = 4\n", "delete-files = 1000\n"))
    f = Follower(src, d, "--table", "public.kv")
    try:
        for i in range(3):  # delete files for the compaction to fold
            src.admin(f"INSERT INTO public.kv VALUES ('compact{i}', {i}, NULL)")
            src.admin("UPDATE public.kv SET n = n + 1")
            f.wait_for("bronze.kv", wal_now(src))
        pid = walsender(src, "bronze.kv")
        assert pid, "no stream open between batches"
        asleep(f)
        f.p.send_signal(signal.SIGSTOP)
        try:
            src.admin("UPDATE public.kv SET note = 'paused'")
            src.admin("INSERT INTO public.kv VALUES ('paused', 0, NULL)")
            r = src.floe(d, "compact", "--table", "public.kv", "--json")
            assert r.rc == 0, r.out + r.err
            assert summary(d, "bronze.kv")["floe.load-mode"] == "compaction", r.out
        finally:
            f.p.send_signal(signal.SIGCONT)
        f.wait_for("bronze.kv", wal_now(src))
        assert walsender(src, "bronze.kv") == pid
    finally:
        f.stop()
        (d / "floe.toml").write_text(toml)
    log = (d / "follow.log").read_text()
    assert log.count("bronze.kv: position index built") >= 2, log[-3000:]  # rebuilt after the compaction
    assert_all_equal(src, d)
