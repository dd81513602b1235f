"""`floe serve`'s scheduler on a controllable clock (FLOE_TEST_CLOCK, a file of unix seconds):
runs start at their ticks as `floe run --table T --layer L --json` children and land in the ledger;
a tick that finds the table's run still going is skipped and counted, never overlapping; a failed run
is retried up to `retries`; ticks missed while the server was down run once."""
import sqlite3
import time
from datetime import datetime, timezone

import psycopg
import pytest

from servekit import Serve
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.customers (customer_id int PRIMARY KEY, name text NOT NULL);
INSERT INTO public.customers SELECT g, 'c' || g FROM generate_series(1, 30) g;
CREATE TABLE public.orders (order_id bigint PRIMARY KEY, amount numeric(10,2));
INSERT INTO public.orders SELECT g, g * 1.5 FROM generate_series(1, 100) g;
'''

SCHEDULE = '\n[schedule]\nbronze = "*/15 * * * *"\nretries = 2\nretry-delay = "1s"\n'
T0 = int(datetime(2027, 1, 1, 0, 5, tzinfo=timezone.utc).timestamp())


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "sched_it", "sched_reader", SQL)


@pytest.fixture
def proj(src, tmp_path):
    src.project(tmp_path, extra=SCHEDULE)
    src.floe(tmp_path, "init", check=0)
    src.floe(tmp_path, "generate", check=0)
    return tmp_path


class Clock:
    def __init__(self, path, t):
        self.path = path
        self.set(t)

    def set(self, t):
        self.t = t
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(str(t))
        tmp.replace(self.path)

    def advance(self, seconds):
        self.set(self.t + seconds)


def ledger(d, sql, params=()):
    with sqlite3.connect(d / ".floe" / "state.db") as db:
        return db.execute(sql, params).fetchall()


def runs_of(d, table):
    """(state, started_at, finished_at) of every bronze record of `table`, oldest first."""
    return ledger(d, "SELECT state, started_at, finished_at FROM table_runs WHERE table_name = ? "
                     "ORDER BY started_at", (table,))


def wait(cond, timeout=60, tick=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        if tick:
            tick()
        time.sleep(0.3)
    raise AssertionError("timed out")


def metric(server, name, table):
    body = server.get("/metrics")[2]
    prefix = f'{name}{{table="{table}",layer="bronze"}} '
    return [float(l[len(prefix):]) for l in body.splitlines() if l.startswith(prefix)]


def finished(d, table, n):
    r = runs_of(d, table)
    return len(r) >= n and all(x[2] for x in r)


def test_ticks_run_once_and_catch_up_once_after_downtime(src, proj, tmp_path_factory):
    clock = Clock(tmp_path_factory.mktemp("clock") / "now", T0)
    env = {"FLOE_TEST_CLOCK": str(clock.path)}
    s = Serve(proj, src.password, env=env)
    try:
        time.sleep(1.5)
        assert runs_of(proj, "bronze.orders") == [], "a schedule never run starts at its next tick"
        clock.set(T0 + 10 * 60)  # 00:15
        wait(lambda: finished(proj, "bronze.orders", 1) and finished(proj, "bronze.customers", 1))
        time.sleep(1.5)
        assert [r[0] for r in runs_of(proj, "bronze.orders")] == ["loaded"]
        assert [r[0] for r in runs_of(proj, "bronze.customers")] == ["loaded"]
    finally:
        assert s.stop() == 0, s.stderr()
    clock.set(T0 + 3 * 3600)  # 12 ticks missed while down
    s = Serve(proj, src.password, env=env)
    try:
        wait(lambda: finished(proj, "bronze.orders", 2) and finished(proj, "bronze.customers", 2))
        time.sleep(3)
        assert len(runs_of(proj, "bronze.orders")) == 2, "missed ticks run once, not once per tick"
        assert len(runs_of(proj, "bronze.customers")) == 2
        ticks = dict(ledger(proj, "SELECT schedule, last_tick FROM schedule_ticks"))
        assert ticks["bronze public.orders"] == int(datetime(2027, 1, 1, 3, 0, tzinfo=timezone.utc).timestamp())
    finally:
        assert s.stop() == 0, s.stderr()


def test_a_tick_during_a_run_is_skipped_and_counted(src, proj, tmp_path_factory):
    clock = Clock(tmp_path_factory.mktemp("clock") / "now", T0)
    s = Serve(proj, src.password, env={"FLOE_TEST_CLOCK": str(clock.path)})
    blocker = psycopg.connect(src.admin_dsn)
    try:
        blocker.execute("LOCK TABLE public.orders IN ACCESS EXCLUSIVE MODE")  # the load waits on it
        clock.set(T0 + 10 * 60)
        wait(lambda: len(runs_of(proj, "bronze.orders")) == 1 and finished(proj, "bronze.customers", 1))
        clock.set(T0 + 25 * 60)  # the next tick, while the orders load still waits
        wait(lambda: metric(s, "floe_scheduler_skipped_runs_total", "bronze.orders") == [1.0])
        assert metric(s, "floe_scheduler_skipped_runs_total", "bronze.customers") == [0.0]
        wait(lambda: finished(proj, "bronze.customers", 2))
        blocker.rollback()
        wait(lambda: finished(proj, "bronze.orders", 1))
        time.sleep(1.5)
        r = runs_of(proj, "bronze.orders")
        assert [x[0] for x in r] == ["loaded"], r
        c = runs_of(proj, "bronze.customers")
        assert all(c[i][2] <= c[i + 1][1] for i in range(len(c) - 1)), "runs of one table never overlap"
    finally:
        blocker.close()
        assert s.stop() == 0, s.stderr()


def test_a_failed_run_is_retried_up_to_retries(src, proj, tmp_path_factory):
    clock = Clock(tmp_path_factory.mktemp("clock") / "now", T0)
    s = Serve(proj, src.password, env={"FLOE_TEST_CLOCK": str(clock.path)})
    try:
        src.admin(f'ALTER ROLE "{src.role}" NOLOGIN')
        clock.set(T0 + 10 * 60)
        # The backoff is on the test clock: move it on until both jobs spent their two retries.
        wait(lambda: metric(s, "floe_scheduler_retries_total", "bronze.orders") == [2.0]
             and metric(s, "floe_scheduler_retries_total", "bronze.customers") == [2.0],
             tick=lambda: clock.advance(2))
        wait(lambda: len(ledger(proj, "SELECT 1 FROM runs WHERE status = 'running'")) == 0)
        for _ in range(6):
            clock.advance(2)
            time.sleep(0.3)
        failed = ledger(proj, "SELECT count(*) FROM runs WHERE status = 'failed'")[0][0]
        assert failed == 6, "1 run and 2 retries per table, no more"
        src.admin(f'ALTER ROLE "{src.role}" LOGIN')
        clock.set(T0 + 25 * 60)
        wait(lambda: finished(proj, "bronze.orders", 1) and finished(proj, "bronze.customers", 1))
    finally:
        src.admin(f'ALTER ROLE "{src.role}" LOGIN')
        assert s.stop() == 0, s.stderr()


def test_sigterm_abandons_a_running_load_cleanly_and_a_second_exits_at_once(src, proj, tmp_path_factory):
    import json
    import signal
    src.floe(proj, "run", "--table", "public.orders", check=0)
    before = {t["table"]: t for t in json.loads(src.floe(proj, "status", "--json").out)["tables"]}
    clock = Clock(tmp_path_factory.mktemp("clock") / "now", T0)
    env = {"FLOE_TEST_CLOCK": str(clock.path)}
    blocker = psycopg.connect(src.admin_dsn)
    try:
        blocker.execute("LOCK TABLE public.orders IN ACCESS EXCLUSIVE MODE")
        s = Serve(proj, src.password, "--grace", "1", env=env)
        clock.set(T0 + 10 * 60)
        wait(lambda: len(runs_of(proj, "bronze.orders")) == 2)
        started = time.time()
        assert s.stop(signal.SIGTERM, timeout=30) == 0, s.stderr()
        assert time.time() - started < 15
        after = {t["table"]: t for t in json.loads(src.floe(proj, "status", "--json").out)["tables"]}
        assert after["bronze.orders"]["state"] == "interrupted", after["bronze.orders"]
        assert after["bronze.orders"]["snapshot_id"] == before["bronze.orders"]["snapshot_id"]
        q = src.floe(proj, "query", "select count(*) as n from bronze.orders", "--json", check=0)
        assert "100" in q.out

        s = Serve(proj, src.password, "--grace", "300", env=env)
        clock.set(T0 + 25 * 60)
        wait(lambda: len(runs_of(proj, "bronze.orders")) == 3)
        s.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        started = time.time()
        assert s.stop(signal.SIGTERM, timeout=10) == 0, s.stderr()
        assert time.time() - started < 5, "a second SIGTERM exits at once"
    finally:
        blocker.close()


def test_silver_runs_as_one_layer_job_after_every_bronze_run(src, tmp_path, tmp_path_factory):
    src.project(tmp_path, extra='\n[schedule]\nbronze = "*/15 * * * *"\nsilver = "*/15 * * * *"\n')
    src.floe(tmp_path, "init", check=0)
    src.floe(tmp_path, "generate", check=0)
    clock = Clock(tmp_path_factory.mktemp("clock") / "now", T0)
    s = Serve(tmp_path, src.password, env={"FLOE_TEST_CLOCK": str(clock.path)})
    try:
        clock.set(T0 + 10 * 60)
        wait(lambda: finished(tmp_path, "silver.orders", 1) and finished(tmp_path, "silver.customers", 1))
        bronze = runs_of(tmp_path, "bronze.orders") + runs_of(tmp_path, "bronze.customers")
        silver = runs_of(tmp_path, "silver.orders") + runs_of(tmp_path, "silver.customers")
        assert [x[0] for x in bronze + silver] == ["loaded"] * 4, (bronze, silver)
        assert max(b[2] for b in bronze) <= min(x[1] for x in silver), "silver starts after every bronze run"
        silver_runs = ledger(tmp_path, "SELECT DISTINCT run_id FROM table_runs WHERE layer = 'silver'")
        assert len(silver_runs) == 1, "one floe run --layer silver builds the layer in lineage order"
        assert metric(s, "floe_scheduler_skipped_runs_total", "bronze.orders") == [0.0]
        body = s.get("/metrics")[2]
        assert 'floe_scheduler_skipped_runs_total{table="all",layer="silver"} 0' in body
    finally:
        assert s.stop() == 0, s.stderr()
