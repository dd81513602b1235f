"""Probable causes that point the right way. Each failure is reproduced for real against the
session's PostgreSQL (or the machine): the backend ended during COPY, a column dropped or renamed
after `floe generate`, a privilege revoked, non-UTF-8 bytes in an SQL_ASCII database, the table
held by another run, a full disk at every step of the catalog commit, a read-only warehouse, a
file-size limit, and the source unreachable. Each asserts the cause in `floe run`'s text and in
`floe status --json`, the exit code (README "Exit codes"), and that the warehouse holds no file
the catalog's snapshots do not reference (read by PyIceberg)."""
import fcntl
import json
import os
import resource
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from conftest import FLOE
from icebergkit import referenced_files
from lakecheck import catalog
from sourcedb import Source

SOURCE = '''
CREATE TABLE public.colchg (id int PRIMARY KEY, a text, b text);
INSERT INTO public.colchg SELECT g, 'a' || g, 'b' || g FROM generate_series(1, 200) g;
CREATE TABLE public.priv (id int PRIMARY KEY, v text);
INSERT INTO public.priv SELECT g, 'v' || g FROM generate_series(1, 50) g;
CREATE TABLE public.busy (id int PRIMARY KEY, v text);
INSERT INTO public.busy SELECT g, 'v' || g FROM generate_series(1, 50) g;
CREATE TABLE public.locked (id int PRIMARY KEY, v text);
INSERT INTO public.locked SELECT g, 'v' || g FROM generate_series(1, 50) g;
CREATE TABLE public.fill (id int, a text, b text);
INSERT INTO public.fill SELECT g, md5(g::text), md5((g * 7)::text) FROM generate_series(1, 40000) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "causes_it", "causes_reader", SOURCE)


def project(src, base, name, extra=""):
    d = Path(tempfile.mkdtemp(prefix=f"floe-it-{name}-", dir=base))
    d.chmod(0o755)
    src.project(d, extra=extra)
    src.floe(d, "generate", check=0)
    return d


@pytest.fixture
def base(tmp_path):
    return tmp_path


def run_text(src, d, table, rc):
    """`floe run --table` in text form, the plan as deployed (no sync: the causes of loading a stale
    plan are the point); its exit code is `rc`. Returns the output."""
    r = src.floe(d, "run", "--no-sync", "--table", table)
    assert r.rc == rc, r
    return r.out


def cause_in_run(out):
    lines = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("probable cause: ")]
    assert len(lines) == 1, out
    return lines[0][len("probable cause: "):]


def status_row(src, d, bronze):
    r = src.floe(d, "status", "--json")
    return next(t for t in json.loads(r.out)["tables"] if t["table"] == bronze)


def assert_cause(src, d, table, bronze, rc, starts):
    """The run fails with exit `rc`; run and status name the same cause, starting with `starts`."""
    cause = cause_in_run(run_text(src, d, table, rc))
    assert cause.startswith(starts), cause
    row = status_row(src, d, bronze)
    assert row["state"] == "failed" and row["cause"] == cause, row
    return cause


def files_on_disk(root: Path):
    return {str(p) for p in root.rglob("*") if p.is_file()}


def assert_no_orphans(d, bronze, warehouse=None):
    """Every file under the table's directory is one its catalog entry's metadata reaches."""
    wh = Path(warehouse) if warehouse else d / "warehouse"
    root = wh.joinpath(*bronze.split("."))
    on_disk = files_on_disk(root) if root.exists() else set()
    refs = set()
    if (wh / "catalog.db").exists():
        cat = catalog(d) if not warehouse else catalog_at(wh)
        if cat.table_exists(bronze):
            refs = referenced_files(cat, bronze)
    assert on_disk <= refs, sorted(on_disk - refs)


def catalog_at(wh: Path):
    from pyiceberg.catalog.sql import SqlCatalog
    return SqlCatalog("floe", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


# ---- the source ----

def floe_backend(src, where, timeout=120):
    """The pid of floe's backend once pg_stat_activity shows it `where` (an SQL condition)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = src.admin("select pid from pg_stat_activity where datname = %s and application_name = 'floe'"
                        f" and state = 'active' and {where}", (src.name,)).fetchone()
        if row:
            return row[0]
        time.sleep(0.005)
    raise AssertionError(f"no backend of floe's was ever {where}")


def backend_gone(src, pid, timeout=30):
    deadline = time.monotonic() + timeout
    while src.admin("select 1 from pg_stat_activity where pid = %s", (pid,)).fetchone():
        assert time.monotonic() < deadline, f"backend {pid} never ended"
        time.sleep(0.01)


def run_until_ended(src, d, table, end_backend):
    """`floe run --table` started; `end_backend(proc)` ends its session; returns (exit code, output)."""
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    proc = subprocess.Popen([FLOE, "-C", str(d), "run", "--table", table], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end_backend(proc)
        out, err = proc.communicate(timeout=300)
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.kill()
        proc.wait()
    return proc.returncode, out, err


def test_backend_terminated_during_the_load(src, base):
    """pg_terminate_backend while floe's read waits (here on another session's lock): PostgreSQL sends
    its FATAL 57P01 before it closes the session, so the cause says the session was ended."""
    d = project(src, base, "terminate", extra='lock-timeout = "300s"\n')
    with psycopg.connect(src.admin_dsn) as conn:  # a transaction held open until ROLLBACK
        conn.execute("LOCK TABLE public.locked IN ACCESS EXCLUSIVE MODE")

        def terminate(proc):
            pid = floe_backend(src, "wait_event_type = 'Lock'")
            assert src.admin("select pg_terminate_backend(%s)", (pid,)).fetchone()[0]
        rc, out, err = run_until_ended(src, d, "public.locked", terminate)
        conn.execute("ROLLBACK")
    assert rc == 3, (out, err)  # a service unreachable, not an internal error
    cause = cause_in_run(out)
    assert cause.startswith("PostgreSQL shut down or ended floe's session during the load"), cause
    assert "57P01" not in cause and "terminating connection due to administrator command" in cause, cause
    row = status_row(src, d, "bronze.locked")
    assert row["state"] == "failed" and row["cause"] == cause, row
    assert_no_orphans(d, "bronze.locked")


def test_backend_terminated_while_floe_falls_behind_the_copy(src, base):
    """pg_terminate_backend while the backend is blocked sending COPY rows floe has not read yet
    (floe stopped, the socket full): PostgreSQL then closes the session without a message (sending
    one could block again), so there is no SQLSTATE to say why, and the cause says only that the
    connection broke. Classified by the connection's state, never by libpq's words."""
    src.admin("DROP TABLE IF EXISTS public.big")
    src.admin("CREATE TABLE public.big AS SELECT g AS id, md5(g::text) AS a, g * 1.5 AS b, now() AS t"
              " FROM generate_series(1, 3000000) g")
    src.grant_read("public")
    d = project(src, base, "behind")

    def terminate_blocked(proc):
        floe_backend(src, "query like 'COPY (%%'")
        proc.send_signal(signal.SIGSTOP)
        pid = floe_backend(src, "query like 'COPY (%%' and wait_event = 'ClientWrite'")
        assert src.admin("select pg_terminate_backend(%s)", (pid,)).fetchone()[0]
        backend_gone(src, pid)
        proc.send_signal(signal.SIGCONT)
    rc, out, err = run_until_ended(src, d, "public.big", terminate_blocked)
    assert rc == 3, (out, err)
    cause = cause_in_run(out)
    assert cause.startswith("the connection to the source broke during the load"), cause
    row = status_row(src, d, "bronze.big")
    assert row["state"] == "failed" and row["cause"] == cause, row
    assert_no_orphans(d, "bronze.big")
    src.admin("DROP TABLE public.big")


def test_column_dropped_or_renamed_after_generate(src, base):
    d = project(src, base, "colchg")
    assert "loaded" in run_text(src, d, "public.colchg", 0)
    src.admin("ALTER TABLE public.colchg DROP COLUMN b")
    cause = assert_cause(src, d, "public.colchg", "bronze.colchg", 1,
                         "the source's columns changed since `floe generate`")
    assert 'column "b" does not exist' in cause and "run `floe plan`, then `floe generate`" in cause
    src.admin("ALTER TABLE public.colchg RENAME COLUMN a TO a2")
    src.floe(d, "generate", check=0)
    src.admin("ALTER TABLE public.colchg RENAME COLUMN a2 TO a3")
    cause = assert_cause(src, d, "public.colchg", "bronze.colchg", 1,
                         "the source's columns changed since `floe generate`")
    assert 'column "a2" does not exist' in cause
    assert_no_orphans(d, "bronze.colchg")
    src.floe(d, "generate", check=0)  # regenerated, it loads again
    assert "loaded" in run_text(src, d, "public.colchg", 0)


def test_privilege_revoked_after_generate(src, base):
    d = project(src, base, "priv")
    src.admin(f"REVOKE SELECT ON public.priv FROM {src.role}")
    try:
        assert_cause(src, d, "public.priv", "bronze.priv", 1, "the source role lacks a privilege floe needs")
    finally:
        src.admin(f"GRANT SELECT ON public.priv TO {src.role}")
    assert_no_orphans(d, "bronze.priv")


def test_table_locked_in_the_source_fails_after_the_lock_timeout(src, base):
    """Another session's ACCESS EXCLUSIVE lock (an ALTER TABLE in progress) no longer makes the
    load wait forever: after `source.lock-timeout` the table fails with the lock as its cause
    (SQLSTATE 55P03), and loads once the lock is gone."""
    d = project(src, base, "locked", extra='lock-timeout = "1s"\n')
    with psycopg.connect(src.admin_dsn) as conn:  # a transaction held open until ROLLBACK
        conn.execute("LOCK TABLE public.locked IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        assert_cause(src, d, "public.locked", "bronze.locked", 1, "a lock in the source blocked floe's read")
        assert time.monotonic() - started < 60
        conn.execute("ROLLBACK")
    assert_no_orphans(d, "bronze.locked")
    assert "loaded" in run_text(src, d, "public.locked", 0)


ASCII = '''
CREATE TABLE public.latin (id int PRIMARY KEY, label text);
INSERT INTO public.latin VALUES (1, 'plain'), (2, E'caf\\xe9 au lait');
'''


def test_invalid_bytes_in_an_sql_ascii_database(stack, base):
    s = Source.readable(stack, "causes_ascii_it", "causes_ascii_reader", ASCII,
                        options="ENCODING 'SQL_ASCII' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'")
    assert s.admin("select pg_encoding_to_char(encoding)::bytea from pg_database"
                   " where datname = current_database()").fetchone()[0] == b"SQL_ASCII"
    d = project(s, base, "ascii")
    cause = assert_cause(s, d, "public.latin", "bronze.latin", 1,
                         "the source holds text that is not valid in its encoding for UTF-8")
    assert "SQL_ASCII" in cause
    assert_no_orphans(d, "bronze.latin")


# ---- floe's own state ----

def test_table_held_by_another_run(src, base):
    d = project(src, base, "busy")
    lock = d / ".floe" / "locks" / "bronze.busy.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = f"run 20261201T000000Z-held (pid {os.getpid()}, since 2026-12-01T00:00:00Z)"
    with open(lock, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        f.truncate(0)
        f.write(holder + "\n")
        f.flush()
        cause = assert_cause(src, d, "public.busy", "bronze.busy", 1, f"held by {holder}")
        assert "privilege" not in cause
    assert_no_orphans(d, "bronze.busy")
    assert "loaded" in run_text(src, d, "public.busy", 0)  # released, it loads


# ---- the machine ----

@pytest.fixture
def small_disk():
    """A 6 MB tmpfs (root can mount one; CI runs as root)."""
    path = Path(tempfile.mkdtemp(prefix="floe-it-disk-"))
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m,mode=0755", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        path.rmdir()
        pytest.skip(f"cannot mount a small tmpfs here ({r.stderr.strip() or r.returncode}); "
                    "test_file_size_limit still runs")
    try:
        yield path
    finally:
        subprocess.run(["umount", "--lazy", str(path)], check=False)  # PyIceberg may hold catalog.db
        path.rmdir()


def pages(path: Path):
    return sum((p.stat().st_size + 4095) // 4096 for p in path.rglob("*") if p.is_file())


def leave_free(disk: Path, pad: Path, n_pages: int):
    """Fill the disk with `pad` until exactly `n_pages` pages are free."""
    st = os.statvfs(disk)
    assert st.f_frsize == 4096
    assert st.f_bavail >= n_pages, (st.f_bavail, n_pages)
    with open(pad, "wb") as f:
        f.write(b"\0" * ((st.f_bavail - n_pages) * 4096))
    assert os.statvfs(disk).f_bavail == n_pages


def test_disk_full_at_each_step_of_the_commit(src, base, small_disk):
    """The table's data file fits; then the manifests, the manifest list, the metadata file or the
    catalog's journal finds the disk full — with one page more free at each attempt. Every attempt
    fails at once with the disk named (never "other writers changed it"), exit 4, and leaves no
    file behind; the first attempt with room enough loads."""
    wh = small_disk / "wh"
    d = project(src, base, "diskfull", extra=f'\n[warehouse]\nlocation = "{wh}"\n')
    assert "loaded" in run_text(src, d, "public.fill", 0)
    data_pages = pages(wh / "bronze" / "fill" / "data")
    assert data_pages > 50, data_pages  # the data file is most of what a load writes
    pad = small_disk / "pad"
    failures = []
    for extra in range(0, 24):
        leave_free(small_disk, pad, data_pages + extra)
        r = src.floe(d, "run", "--table", "public.fill", "--layer", "bronze")  # bronze's commit (silver writes too)
        pad.unlink()
        if r.rc == 0:
            break
        assert r.rc == 4, r
        cause = cause_in_run(r.out)
        assert cause.startswith("disk full at " + str(wh)), r
        assert f"(the file system mounted at {small_disk}): no space left" in cause, cause
        assert "other writers" not in r.out, r
        row = status_row(src, d, "bronze.fill")
        assert row["state"] == "failed" and row["cause"] == cause, row
        assert_no_orphans(d, "bronze.fill", wh)
        failures.append(cause)
    assert r.rc == 0, r
    assert any(c.startswith(f"disk full at {wh}/bronze/fill/metadata/") for c in failures), failures
    assert any(c.startswith(f"disk full at {wh}/catalog.db") for c in failures), failures
    assert_no_orphans(d, "bronze.fill", wh)


def test_read_only_warehouse(src, base, small_disk):
    """A warehouse on a file system remounted read-only (root ignores mode bits, not EROFS)."""
    wh = small_disk / "wh"
    d = project(src, base, "readonly", extra=f'\n[warehouse]\nlocation = "{wh}"\n')
    assert "loaded" in run_text(src, d, "public.priv", 0)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    try:
        cause = assert_cause(src, d, "public.priv", "bronze.priv", 4, f"permission denied at {wh}/bronze/priv/")
        assert f"(the file system mounted at {small_disk})" in cause and "read-only" in cause, cause
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
    assert_no_orphans(d, "bronze.priv", wh)


def test_file_size_limit(src, base):
    """A file-size limit (ulimit -f): the Parquet write fails with EFBIG, named like a full disk."""
    d = project(src, base, "fsize")
    limit = 256 * 1024

    def limited():  # SIGXFSZ keeps its default (kill): floe itself ignores it
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, FLOE_SOURCE_PASSWORD=src.password)
    r = subprocess.run([FLOE, "-C", str(d), "run", "--table", "public.fill"], env=env, preexec_fn=limited,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 4, (r.stdout, r.stderr)
    cause = cause_in_run(r.stdout)
    assert cause.startswith(f"file too large / disk full at {d}/warehouse/bronze/fill/data/"), cause
    row = status_row(src, d, "bronze.fill")
    assert row["state"] == "failed" and row["cause"] == cause, row
    assert_no_orphans(d, "bronze.fill")


# ---- exit codes with the source unreachable ----

def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_source_unreachable_exits_3(src, base):
    d = project(src, base, "unreachable")
    assert "loaded" in run_text(src, d, "public.busy", 0)
    toml = d / "floe.toml"
    toml.write_text(toml.read_text().replace(f"port = {src.stack['port']}", f"port = {closed_port()}"))
    r = src.floe(d, "run", "--table", "public.busy")
    assert r.rc == 3, r
    assert cause_in_run(r.out).startswith("source unreachable: "), r
    assert status_row(src, d, "bronze.busy")["cause"].startswith("source unreachable: ")
    for args in (("plan",), ("reconcile", "--table", "public.busy")):
        r = src.floe(d, *args)
        assert r.rc == 3, (args, r)
    # doctor's answer is its list of checks: an unreachable source is a failing check (README: 1)
    r = src.floe(d, "doctor")
    assert r.rc == 1 and "1 fail" in r.out, r
