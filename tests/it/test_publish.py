"""`floe publish`: gold marts copied from the lake into a PostgreSQL warehouse, swapped in atomically.

The gold table is written by PyIceberg into floe's SQL catalog (a writer floe did not write), read
by floe's own scan and Parquet reader, loaded with binary COPY into the stack's PostgreSQL, and
compared row for row through psycopg. A reader holding a REPEATABLE READ transaction on the old
table, a SIGKILL mid-load and between load and swap, a wrong password and a missing schema each
leave the previous table as it was."""
import datetime as dt
import json
import os
import secrets
import signal
import struct
import subprocess
import time
from decimal import Decimal

import psycopg
import pyarrow as pa
import pytest

from conftest import FLOE, floe
from lakecheck import catalog

WH = "publish_wh"
ROLE = "floe_publisher"
PASSWORD = "pub-" + secrets.token_hex(12)
ENV = {"FLOE_PUBLISH_PASSWORD": PASSWORD}

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("qty", pa.int32()),
    pa.field("amount", pa.decimal128(12, 2)),
    pa.field("ratio", pa.float64()),
    pa.field("day", pa.date32()),
    pa.field("at", pa.timestamp("us", tz="UTC")),
    pa.field("local_at", pa.timestamp("us")),
    pa.field("name", pa.string()),
    pa.field("flag", pa.bool_()),
    pa.field("clock", pa.time64("us")),
    pa.field("blob", pa.binary()),
    pa.field("small", pa.float32()),
])


def rows(first, n, tag="v1"):
    out = []
    for i in range(first, first + n):
        null = i % 7 == 0
        out.append({
            "id": i,
            "qty": None if null else i * 3 - 50,
            "amount": None if null else Decimal(i * 137 - 9000) / 100,
            "ratio": None if null else i / 3.0,
            "day": None if null else dt.date(1999, 12, 25) + dt.timedelta(days=i),
            "at": None if null else dt.datetime(1969, 12, 31, 23, 0, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=i * 3607, microseconds=i),
            "local_at": None if null else dt.datetime(2024, 2, 29, 12, 0) + dt.timedelta(minutes=i),
            "name": None if null else f"{tag} Zoë 東京 ✓ {i} 'q' \"d\" \\ tab\t",
            "flag": None if null else i % 2 == 0,
            "clock": None if null else dt.time(i % 24, i % 60, i % 60, i % 1000000),
            "blob": None if null else bytes([i % 256, 0, 255, 10]) * (i % 3),
            "small": None if null else i / 7.0,
        })
    return out


@pytest.fixture(scope="module")
def wh(stack):
    admin = f"host={stack['socket_dir']} port={stack['port']} user=postgres"
    with psycopg.connect(admin + " dbname=postgres", autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {WH}")
        c.execute(f"DROP ROLE IF EXISTS {ROLE}")
        c.execute(f"DROP ROLE IF EXISTS analyst")
        c.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
        c.execute("CREATE ROLE analyst NOLOGIN")
        c.execute(f"CREATE DATABASE {WH}")
    with psycopg.connect(admin + f" dbname={WH}", autocommit=True) as c:
        c.execute(f"CREATE SCHEMA marts AUTHORIZATION {ROLE}")
    return admin + f" dbname={WH}"


def make_project(path, stack, schema="marts", lock_timeout="1s"):
    (path / "floe.toml").write_text(
        f'[project]\nname = "pubtest"\n\n[source]\nhost = "127.0.0.1"\nport = {stack["port"]}\n'
        f'database = "shop"\nuser = "floe_reader"\n\n'
        f'[publish]\nhost = "127.0.0.1"\nport = {stack["port"]}\ndatabase = "{WH}"\nschema = "{schema}"\n'
        f'user = "{ROLE}"\npassword-env = "FLOE_PUBLISH_PASSWORD"\ngrants = ["analyst"]\n'
        f'lock-timeout = "{lock_timeout}"\n')
    (path / "warehouse").mkdir(exist_ok=True)
    return path


def write_gold(path, name, data, replace=True):
    cat = catalog(path)
    if ("gold",) not in cat.list_namespaces():
        cat.create_namespace("gold")
    table = pa.Table.from_pylist(data, schema=SCHEMA)
    ident = f"gold.{name}"
    if cat.table_exists(ident):
        t = cat.load_table(ident)
        t.overwrite(table) if replace else t.append(table)
    else:
        cat.create_table(ident, schema=SCHEMA).append(table)
    return cat.load_table(ident)


def f32(rows):
    """real values as their float32 bits: psycopg reads PostgreSQL's shortest text of a real."""
    for r in rows:
        if r["small"] is not None:
            r["small"] = struct.unpack("<I", struct.pack("<f", r["small"]))[0]
    return rows


def lake_rows(path, name):
    t = catalog(path).load_table(f"gold.{name}")
    return f32(sorted(t.scan().to_arrow().to_pylist(), key=lambda r: r["id"]))


def wh_rows(dsn, name, conn=None):
    own = conn is None
    conn = conn or psycopg.connect(dsn, autocommit=True)
    try:
        conn.execute("SET TIME ZONE 'UTC'")
        cur = conn.execute(f'SELECT {", ".join(f.name for f in SCHEMA)} FROM marts.{name} ORDER BY id')
        return f32([dict(zip([d.name for d in cur.description], r)) for r in cur.fetchall()])
    finally:
        if own:
            conn.close()


def publish(path, *args, env=ENV, check=None):
    return floe("-C", str(path), "publish", "--json", *args, env=env, check=check)


def test_published_table_equals_the_mart(project, stack, wh):
    make_project(project, stack)
    write_gold(project, "sales", rows(1, 500))
    r = publish(project, check=0)
    out = json.loads(r.out)
    assert out["published"] == 1 and out["failed"] == 0, r
    m = out["marts"][0]
    assert m["mart"] == "sales" and m["table"] == "marts.sales" and m["rows"] == 500
    assert PASSWORD not in r.out + r.err
    lake = lake_rows(project, "sales")
    assert wh_rows(wh, "sales") == lake and len(lake) == 500
    with psycopg.connect(wh, autocommit=True) as c:
        types = dict(c.execute("SELECT column_name, format_type(atttypid, atttypmod) FROM information_schema.columns "
                               "JOIN pg_attribute ON attrelid = 'marts.sales'::regclass AND attname = column_name "
                               "WHERE table_schema = 'marts' AND table_name = 'sales'").fetchall())
        assert types == {"id": "bigint", "qty": "integer", "amount": "numeric(12,2)", "ratio": "double precision",
                         "day": "date", "at": "timestamp with time zone", "local_at": "timestamp without time zone",
                         "name": "text", "flag": "boolean", "clock": "time without time zone", "blob": "bytea",
                         "small": "real"}
        assert c.execute("SELECT has_table_privilege('analyst', 'marts.sales', 'SELECT')").fetchone()[0]
        assert c.execute("SELECT attnotnull FROM pg_attribute WHERE attrelid = 'marts.sales'::regclass "
                         "AND attname = 'id'").fetchone()[0]
        assert str(m["snapshot_id"]) in c.execute("SELECT obj_description('marts.sales'::regclass)").fetchone()[0]
    # numeric edge cases at the scale: the encoder's base-10000 groups, signs and zeros
    edge = rows(1, 1)
    for i, v in enumerate(["0.00", "-0.01", "9999999999.99", "-9999999999.99", "10000.00", "0.10", "-100000000.01"]):
        edge.append({**rows(2, 1)[0], "id": 1000 + i, "amount": Decimal(v)})
    write_gold(project, "sales", edge)
    publish(project, "--mart", "sales", check=0)
    assert wh_rows(wh, "sales") == lake_rows(project, "sales")


def test_reader_in_repeatable_read_is_neither_blocked_forever_nor_shown_mixed_rows(project, stack, wh):
    make_project(project, stack)
    write_gold(project, "orders", rows(1, 300, "old"))
    publish(project, check=0)
    old = wh_rows(wh, "orders")
    write_gold(project, "orders", rows(1, 400, "new"))
    with psycopg.connect(wh) as reader:
        reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        assert wh_rows(wh, "orders", reader) == old
        started = time.monotonic()
        r = publish(project)
        elapsed = time.monotonic() - started
        # the swap waited the lock timeout (1 s), not forever, and failed with the lock as its cause
        assert r.rc == 1, r
        assert elapsed < 20, elapsed
        m = json.loads(r.out)["marts"][0]
        assert m["state"] == "failed" and "lock" in m["error"] and "lock-timeout" in m["hint"], m
        assert wh_rows(wh, "orders", reader) == old  # the reader still sees only the old rows
        reader.execute("COMMIT")
    with psycopg.connect(wh, autocommit=True) as c:  # the failed swap dropped its new table
        assert c.execute("SELECT to_regclass('marts.orders__floe_new')").fetchone()[0] is None
    publish(project, check=0)
    assert wh_rows(wh, "orders") == lake_rows(project, "orders") and len(lake_rows(project, "orders")) == 400


def start_publish(project):
    return subprocess.Popen([FLOE, "-C", str(project), "publish", "--mart", "big"], env=dict(os.environ, **ENV),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(conn, sql, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if conn.execute(sql).fetchone()[0]:
            return True
        time.sleep(0.005)
    return False


def test_killed_publish_leaves_the_old_table_and_the_next_one_succeeds(project, stack, wh):
    make_project(project, stack, lock_timeout="60s")
    write_gold(project, "big", rows(1, 2000, "old"))
    publish(project, check=0)
    old = wh_rows(wh, "big")
    write_gold(project, "big", rows(1, 60000, "new"))
    watcher = psycopg.connect(wh, autocommit=True)
    # 1. SIGKILL while COPY is streaming rows into the new table
    proc = start_publish(project)
    # (the new table is not visible outside the load's transaction: find the COPY by its command)
    loading = wait_for(watcher, "SELECT count(*) > 0 FROM pg_stat_progress_copy p JOIN pg_stat_activity a "
                                f"USING (pid) WHERE p.tuples_processed > 0 AND a.usename = '{ROLE}' "
                                "AND p.command = 'COPY FROM'", proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert loading, "the publish never reached its COPY"
    assert wh_rows(wh, "big") == old
    # 2. SIGKILL between load and swap: the swap waits for a reader's lock
    reader = psycopg.connect(wh)
    reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    wh_rows(wh, "big", reader)
    proc = start_publish(project)
    waiting = wait_for(watcher, "SELECT count(*) > 0 FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                                f"WHERE NOT l.granted AND a.usename = '{ROLE}'", proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert waiting, "the publish never waited in its swap"
    assert wh_rows(wh, "big", reader) == old
    reader.rollback()
    reader.close()
    assert watcher.execute("SELECT to_regclass('marts.big__floe_new')").fetchone()[0] is not None
    assert wh_rows(wh, "big") == old
    # the next publish drops the leftover and succeeds
    r = publish(project, "--mart", "big", check=0)
    assert json.loads(r.out)["marts"][0]["cleaned_up"] is True
    assert watcher.execute("SELECT to_regclass('marts.big__floe_new')").fetchone()[0] is None
    assert wh_rows(wh, "big") == lake_rows(project, "big")
    watcher.close()


def test_wrong_password_exits_3_and_changes_nothing(project, stack, wh):
    make_project(project, stack)
    write_gold(project, "pw", rows(1, 50))
    publish(project, check=0)
    before = wh_rows(wh, "pw")
    write_gold(project, "pw", rows(1, 80, "changed"))
    wrong = "wrong-" + secrets.token_hex(8)
    r = publish(project, env={"FLOE_PUBLISH_PASSWORD": wrong}, check=3)
    assert wrong not in r.out + r.err
    assert "FLOE_PUBLISH_PASSWORD" in r.err
    assert wh_rows(wh, "pw") == before


def test_missing_schema_and_missing_section_are_configuration_errors(project, stack, wh):
    make_project(project, stack, schema="nowhere")
    write_gold(project, "s", rows(1, 5))
    r = publish(project, check=2)
    assert 'schema "nowhere" does not exist' in r.err and "CREATE SCHEMA" in r.err
    make_project(project, stack)
    r = publish(project, "--mart", "nope")
    m = json.loads(r.out)["marts"][0]
    assert r.rc == 2 and m["state"] == "failed" and "nope" in m["error"], r
    (project / "floe.toml").write_text((project / "floe.toml").read_text().split("[publish]")[0])
    r = publish(project, check=2)
    assert "[publish]" in r.err


def test_floe_run_publishes_after_the_layers_when_publish_is_set(stack, wh, tmp_path_factory):
    from sourcedb import Source
    src = Source.readable(stack, "publish_src", "publish_reader",
                          "CREATE TABLE public.t (id int PRIMARY KEY, v text); INSERT INTO public.t VALUES (1, 'a');")
    d = tmp_path_factory.mktemp("pubrun")
    d.chmod(0o755)
    src.project(d, extra=make_project(d, stack).joinpath("floe.toml").read_text().split("\n\n", 2)[2])
    src.floe(d, "generate", check=0)
    write_gold(d, "from_run", rows(1, 20))
    r = src.floe(d, "run", "--json", env=ENV, check=0)
    out = json.loads(r.out)
    assert out["publish"]["published"] == 1 and out["publish"]["marts"][0]["mart"] == "from_run", r
    assert wh_rows(wh, "from_run") == lake_rows(d, "from_run")
    # one layer, or some tables only: no publish
    r = src.floe(d, "run", "--json", "--layer", "bronze", env=ENV, check=0)
    assert "publish" not in json.loads(r.out)


def test_a_mart_floe_built_is_published_by_floe_run(stack, wh, tmp_path_factory):
    """The real thing end to end: a mart drafted by `floe gold draft`, merged, built by `floe run`,
    and published by the same run into the warehouse, equal to the gold table row for row."""
    import test_gold as tg
    src = tg.shop_source(stack, "pubgold_it", 5)
    d = tmp_path_factory.mktemp("pubgold")
    d.chmod(0o755)
    tg.shop_project(src, d)
    tg.draft(src, d, "monthly_revenue", tg.MONTHLY, check=0)
    tg.git(d, "merge", "--no-edit", "floe/mart/monthly_revenue")
    src.floe(d, "generate", check=0)
    toml = make_project(tmp_path_factory.mktemp("pubgold_conf"), stack).joinpath("floe.toml").read_text()
    (d / "floe.toml").write_text((d / "floe.toml").read_text() + "\n" + toml.split("\n\n", 2)[2])
    r = src.floe(d, "run", "--json", env=ENV, check=0)
    out = json.loads(r.out)
    assert [g["state"] for g in out["gold"]] == ["built"], out["gold"]
    assert out["publish"]["published"] == 1 and out["publish"]["marts"][0]["mart"] == "monthly_revenue", r
    tbl = catalog(d).load_table("gold.monthly_revenue")
    cols = [f.name for f in tbl.schema().fields]
    lake = sorted(tuple(r[c] for c in cols) for r in tbl.scan().to_arrow().to_pylist())
    with psycopg.connect(wh, autocommit=True) as c:
        c.execute("SET TIME ZONE 'UTC'")
        got = sorted(c.execute(f'SELECT {", ".join(cols)} FROM marts.monthly_revenue').fetchall())
    assert got == lake and len(lake) > 10
