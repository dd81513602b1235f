"""Bronze loads whose outcome must be told as it is: a watermark from the future does not pin later
loads, a load killed with kill -9 shows as interrupted at once, a run without reconciliation says
so, and a run that cannot start its threads fails with the reason instead of crashing."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import FLOE
from lakecheck import assert_equals_source, catalog
from sourcedb import TOUCH, Source

# Two tables whose watermark is proven (timestamptz and timestamp), each with one row from 2100.
STAMPED_SQL = '''
CREATE TABLE public.{name} (id bigint PRIMARY KEY, payload text, updated_at {type} NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.{name} FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.{name} SELECT g, 'p' || g, {now} - interval '1 day' - g * interval '1 second'
    FROM generate_series(1, 3000) g;
INSERT INTO public.{name} VALUES (5000, 'from the future', '2100-01-01 00:00:00{zone}');
'''
SQL = TOUCH + STAMPED_SQL.format(name="stamped", type="timestamptz", now="now()", zone="+00") \
    + STAMPED_SQL.format(name="local_stamped", type="timestamp", now="localtimestamp", zone="") + '''
CREATE TABLE public.big (id bigint PRIMARY KEY, payload text);
INSERT INTO public.big SELECT g, md5(g::text) || repeat('y', 200) FROM generate_series(1, 600000) g;
'''

STAMPED = ("bronze.stamped", "bronze.local_stamped")


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "trust_it", "trust_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    return src.generated(tmp_path_factory.mktemp("trust"))


def tables(run):
    return {t["table"]: t for t in json.loads(run.out)["tables"]}


def source_now(src):
    return src.admin("select now()").fetchone()[0]


@pytest.mark.parametrize("bronze", STAMPED)
def test_a_future_watermark_does_not_pin_later_loads(src, proj, bronze):
    d, name = proj, bronze.split(".")[1]
    plan = src.plan(d)
    assert plan[("public", name)]["mode"] == "incremental", plan[("public", name)]
    first = src.floe(d, "run", "--table", bronze, "--json", check=0)
    # the row from 2100 is loaded, the watermark stays at the source's clock, and the run says so
    assert f"1 row of {bronze} has \"updated_at\" past the source's clock" in first.err, first
    assert "past the source's clock" in tables(first)[bronze]["detail"]
    summary = catalog(d).load_table(bronze).current_snapshot().summary
    assert summary["floe.watermark"] < "2100" and summary["floe.watermark"][:4] == str(source_now(src).year)
    assert summary["floe.watermark-future-rows"] == "1"
    assert_equals_source(src, d, bronze)
    # an update of another row, the future row deleted, no reconciliation to repair a miss
    src.admin(f"UPDATE public.{name} SET payload = 'changed after' WHERE id = 17")
    src.admin(f"DELETE FROM public.{name} WHERE id = 5000")
    second = src.floe(d, "run", "--table", bronze, "--no-reconcile", "--json", check=0)
    t = tables(second)[bronze]
    assert t["state"] == "loaded" and t["detail"].startswith("incremental:"), t
    assert "1 updated, 1 deleted" in t["detail"], t
    assert_equals_source(src, d, bronze)
    # and the watermark moves on from there
    src.admin(f"UPDATE public.{name} SET payload = 'changed again' WHERE id = 18")
    third = src.floe(d, "run", "--table", bronze, "--no-reconcile", "--json", check=0)
    assert "1 updated" in tables(third)[bronze]["detail"], third
    assert "past the source's clock" not in third.err
    assert_equals_source(src, d, bronze)


def test_no_reconcile_says_the_tables_are_not_reconciled(src, proj):
    d = proj
    run = src.floe(d, "run", "--table", "public.stamped", "--table", "public.local_stamped", "--no-reconcile")
    assert run.rc == 0, run
    last = run.out.strip().splitlines()[-1]
    assert last == "2 tables, 0 failed, 2 loaded, not reconciled (--no-reconcile)", run.out
    assert "not verified" not in run.out
    js = json.loads(src.floe(d, "run", "--table", "public.stamped", "--no-reconcile", "--json", check=0).out)
    assert js["not_reconciled"] == 1 and js["not_verified"] == 0, js
    checked = src.floe(d, "run", "--table", "public.stamped", "--layer", "bronze", check=0)
    assert checked.out.strip().splitlines()[-1] == "1 table, 0 failed, 0 not verified", checked.out


def test_status_says_interrupted_right_after_a_kill_9(src, proj):
    d = proj
    load = src.start_load(d, "public.big", "bronze.big")
    time.sleep(0.2)  # into the COPY
    assert load.poll() is None, "the load finished before the test could interrupt it"
    load.send_signal(signal.SIGKILL)
    load.wait()
    st = json.loads(src.floe(d, "status", "--json", check=None).out)
    big = {t["table"]: t for t in st["tables"]}["bronze.big"]
    assert big["state"] == "interrupted", big
    run_id = big["last_run"]
    assert run_id and f"run {run_id} (pid {load.pid}, started at " in big["facts"], big
    assert "was killed or crashed" in big["facts"], big
    text = src.floe(d, "status").out
    line = next(ln for ln in text.splitlines() if ln.startswith("bronze.big "))
    assert " interrupted " in line and f"pid {load.pid}" in line, text
    # the summary counts it (a summary of no failures must not hide it), and status exits 1
    assert ", 1 interrupted, " in text.strip().splitlines()[-1], text
    assert st["interrupted"] == 1 and src.floe(d, "status", check=None).rc == 1
    # the next run loads it, and status follows
    again = src.floe(d, "run", "--table", "public.big", "--json", check=0)
    assert tables(again)["bronze.big"]["rows"] == 600000
    st = json.loads(src.floe(d, "status", "--json").out)
    assert {t["table"]: t for t in st["tables"]}["bronze.big"]["state"] == "verified"


def test_a_run_that_cannot_start_a_thread_fails_with_the_reason(src, proj):
    """A stack limit of 4 x memory makes every pthread_create fail (EAGAIN: the kernel's default,
    heuristic overcommit refuses a thread stack larger than memory and swap), while the main
    thread runs as usual. (Not far more: a huge stack gap moves the mappings where ThreadSanitizer
    cannot run.)"""
    d = proj
    meminfo = dict(line.split(":", 1) for line in open("/proc/meminfo"))
    memory = sum(int(meminfo[k].split()[0]) * 1024 for k in ("MemTotal", "SwapTotal"))
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    proc = subprocess.run(["prlimit", f"--stack={4 * memory}", FLOE, "-C", str(d), "run", "--table",
                           "public.stamped"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 4, (proc.returncode, proc.stderr)  # an exit (internal), not a signal
    assert "could not start a load thread" in proc.stderr, proc.stderr
    st = json.loads(src.floe(d, "status", "--json").out)
    assert {t["table"]: t for t in st["tables"]}["bronze.stamped"]["state"] != "loading"
    src.floe(d, "run", "--table", "public.stamped", check=0)


HUGE_MB = 50


def peak_rss_mb(args, env):
    """Run args in a fresh interpreter's child and return that child's peak RSS in MB."""
    import sys
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(p.stdout + p.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True,
                          timeout=300)
    rc, kb = proc.stdout.split()
    return int(rc), int(kb) / 1024, proc.stderr


def test_a_large_value_loads_in_bounded_memory(src, proj):
    """One 50 MB text value: floe's peak RSS stays below 4 x the value above the floor (the same
    load of a one-row table). It was 13 x (677 MB): seven copies of the value were statistics."""
    if os.environ.get("FLOE_SANITIZE"):
        pytest.skip(f"peak RSS under -fsanitize={os.environ['FLOE_SANITIZE']} measures the sanitizer's "
                    "shadow memory and quarantine, not floe; the plain build's pass asserts the bound")
    d = proj
    src.admin("CREATE TABLE public.huge (id int PRIMARY KEY, body text)")
    src.admin(f"INSERT INTO public.huge SELECT 1, string_agg(md5(g::text), '') "
              f"FROM generate_series(1, {HUGE_MB * 1024 * 1024 // 32}) g")
    src.admin("INSERT INTO public.huge VALUES (2, 'small')")
    src.admin("CREATE TABLE public.tiny (id int PRIMARY KEY, body text)")
    src.admin("INSERT INTO public.tiny VALUES (1, 'small')")
    src.grant_read("public")
    src.floe(d, "generate", check=0)
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    run = [FLOE, "-C", str(d), "run", "--no-reconcile", "--table"]
    rc, floor, err = peak_rss_mb(run + ["public.tiny"], env)
    assert rc == 0, err
    rc, peak, err = peak_rss_mb(run + ["public.huge"], env)
    assert rc == 0, err
    print(f"peak RSS: {floor:.0f} MB for one small row, {peak:.0f} MB with one {HUGE_MB} MB value")
    assert floor < 100, f"{floor:.0f} MB"
    assert peak < floor + 4 * HUGE_MB, f"{peak:.0f} MB above a floor of {floor:.0f} MB"
    assert_equals_source(src, d, "bronze.huge")


def test_the_progress_line_on_a_terminal(src, proj):
    """On a terminal, a progress thread reads the counters the load threads write (C11 atomics:
    clean under ThreadSanitizer, `make it SANITIZE=thread CC=clang`) and shows each table."""
    import pty
    import select
    d = proj
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    master, slave = pty.openpty()
    proc = subprocess.Popen([FLOE, "-C", str(d), "run", "--table", "public.big", "--no-reconcile"], env=env,
                            stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.communicate(timeout=120)[0]
    assert proc.returncode == 0, (proc.returncode, seen.decode(errors="replace"))
    text = seen.decode(errors="replace")
    assert "[0/1] bronze.big copying" in text and " rows " in text and "MB/s" in text, text
    assert "1 table, 0 failed, 1 loaded, not reconciled (--no-reconcile)" in out
