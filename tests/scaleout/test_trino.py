"""Scale-out check (`make scale-out`, not the default suite): a single-node Trino 476
(scripts/trino.sh) with an Iceberg catalog `floe` on floe serve's REST catalog (/iceberg, an
operator token) over the shop project floe built — bronze, silver and the example gold marts.
Trino reads every table as PyIceberg does, time-travels to a snapshot floe wrote, writes a table
`floe query` then reads, and dbt-trino runs the generated project's `trino` target with the
silver and gold rows floe's embedded run built."""
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from conftest import REPO
from servekit import Serve, free_port
from sourcedb import Source

MARTS = ["monthly_revenue", "customer_segments", "payment_mix", "seller_scorecard"]
TRINO_SH = REPO / "scripts" / "trino.sh"


def git(d, *args):
    p = subprocess.run(["git", "-C", str(d / "pipeline"), *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "scaleout_trino", "scaleout_trino_reader").shop(seed="5")
    s.grant_read("public")
    return s


@pytest.fixture(scope="module")
def shop(src, tmp_path_factory):
    """The shop project: bronze and silver by `floe run`, the example marts drafted, merged and
    built by `floe run --layer gold`."""
    d = tmp_path_factory.mktemp("trino")
    src.project(d)
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    (d / "marts").mkdir()
    for name in MARTS:
        shutil.copy(REPO / "examples" / "shop" / "marts" / f"{name}.md", d / "marts")
        src.floe(d, "gold", "draft", f"marts/{name}.md", "--json", check=0)
        git(d, "merge", "--no-edit", f"floe/mart/{name}")
    r = src.floe(d, "run", "--layer", "gold", "--json", check=0)
    assert {g["mart"] for g in json.loads(r.out)["gold"]} == set(MARTS), r
    return d


@pytest.fixture(scope="module")
def served(src, shop):
    token = src.floe(shop, "serve", "token", "add", "--role", "operator", "--name", "trino", check=0).out.strip()
    s = Serve(shop, src.password)
    yield s, token
    s.stop()


@pytest.fixture(scope="module")
def trino(served, shop, tmp_path_factory):
    """Trino started by scripts/trino.sh on a free port, stopped after; yields a cursor factory."""
    import trino as trino_client
    server, token = served
    run = tmp_path_factory.mktemp("trino_run")
    port = free_port()
    env = dict(os.environ, FLOE_TRINO_REST_TOKEN=token)
    p = subprocess.run([str(TRINO_SH), "start", str(run), str(port), f"{server.base}/iceberg", "/"],
                       env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-4000:]
    assert token not in (run / "etc" / "catalog" / "floe.properties").read_text()

    def cursor():
        conn = trino_client.dbapi.connect(host="127.0.0.1", port=port, user="floe", catalog="floe",
                                          http_scheme="http")
        return conn.cursor()
    handle = {"cursor": cursor, "port": port, "run": run}
    # Trino's scheduler caches the nodes serving a catalog for a few seconds: a scan right after
    # start-up may get NO_NODES_AVAILABLE (seen once in about ten starts); wait for one to schedule.
    deadline = time.time() + 120
    while True:
        try:
            sql(handle, "SELECT count(*) FROM floe.bronze.sellers")
            break
        except trino_client.exceptions.TrinoQueryError as e:
            if e.error_name != "NO_NODES_AVAILABLE" or time.time() > deadline:
                raise
            time.sleep(1)
    yield handle
    subprocess.run([str(TRINO_SH), "stop", str(run)], check=False)


def catalog(d: Path):
    return SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse")


def sql(trino, query):
    cur = trino["cursor"]()
    cur.execute(query)
    return cur.fetchall()


def norm(v):
    """One comparable form for what PyIceberg (pyarrow) and Trino's client return."""
    if v is None:
        return None
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, dt.datetime):
        return v.astimezone(dt.timezone.utc).replace(tzinfo=None) if v.tzinfo is not None else v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, float):  # engines sum in different orders: 12 significant digits agree
        return "NaN" if v != v else float(f"{v:.12g}")
    if isinstance(v, Decimal):
        return v
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    return v


def content(rows):
    """(row count, sha256 over the sorted normalised rows): a table's content, order aside."""
    lines = sorted(repr(r) for r in rows)
    return len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest()


def differences(got, want, n=3):
    """The first rows only one side has, for an assertion message."""
    g, w = {repr(r) for r in got}, {repr(r) for r in want}
    return sorted(g - w)[:n], sorted(w - g)[:n]


def pyiceberg_rows(tbl, snapshot_id=None):
    names = [f.name for f in tbl.schema().fields]
    return [[norm(r[n]) for n in names] for r in tbl.scan(snapshot_id=snapshot_id).to_arrow().to_pylist()]


def trino_rows(trino, ident, names, suffix=""):
    cols = ", ".join('"' + n.replace('"', '""') + '"' for n in names)
    ns, name = ident
    return [[norm(v) for v in r] for r in sql(trino, f'SELECT {cols} FROM floe."{ns}"."{name}"{suffix}')]


def floe_tables(d):
    cat = catalog(d)
    return [(ns, t) for ns in ("bronze", "silver", "gold") for _, t in cat.list_tables(ns)]


def test_trino_reads_every_bronze_silver_and_gold_table_as_pyiceberg_does(shop, trino):
    tables = floe_tables(shop)
    layers = {ns for ns, _ in tables}
    assert layers == {"bronze", "silver", "gold"} and len(tables) >= 9 + 9 + len(MARTS), tables
    shown = {r[0] for r in sql(trino, "SHOW TABLES FROM floe.silver")}
    assert {t for ns, t in tables if ns == "silver"} <= shown
    cat = catalog(shop)
    for ident in tables:
        tbl = cat.load_table(ident)
        names = [f.name for f in tbl.schema().fields]
        want = content(pyiceberg_rows(tbl))
        got = content(trino_rows(trino, ident, names))
        assert got == want and want[0] > 0, (ident, got, want)


def test_a_table_trino_writes_through_rest_is_read_by_floe_query(src, shop, trino):
    sql(trino, "CREATE SCHEMA IF NOT EXISTS floe.trinow")
    sql(trino, "CREATE TABLE floe.trinow.sellers_by_state AS "  # a create, then a commit with the data
               "SELECT seller_state AS state, count(*) AS n FROM floe.bronze.sellers GROUP BY seller_state")
    sql(trino, "INSERT INTO floe.trinow.sellers_by_state VALUES ('ZZ', 1000)")  # an append commit
    with src.reader() as conn:
        states, sellers = conn.execute("select count(distinct seller_state), count(*) from sellers").fetchone()
    r = src.floe(shop, "query", "--csv", "select count(*) AS c, sum(n) AS s from trinow.sellers_by_state", check=0)
    assert r.out == f"c,s\n{states + 1},{sellers + 1000}\n", r
    assert len(catalog(shop).load_table("trinow.sellers_by_state").history()) == 2


DBT_TRINO = os.environ.get("FLOE_DBT_TRINO", str(REPO / ".venv-dbt-trino" / "bin" / "dbt"))


def dbt_trino(d, trino, *args):
    """dbt on the generated project's `trino` target, pointed at the test's Trino by the profile's
    variables (plain HTTP, no password: a private loopback server)."""
    if not Path(DBT_TRINO).exists():
        pytest.fail(f"dbt-trino not found at {DBT_TRINO}: run make scale-out (it creates .venv-dbt-trino)")
    env = dict(os.environ, FLOE_TRINO_HOST="127.0.0.1", FLOE_TRINO_PORT=str(trino["port"]),
               FLOE_TRINO_USER="floe", FLOE_TRINO_METHOD="none", FLOE_TRINO_HTTP_SCHEME="http",
               DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    return subprocess.run([DBT_TRINO, *args, "--target", "trino", "--profiles-dir", ".", "--project-dir", "."],
                          cwd=d / "pipeline" / "dbt", env=env, capture_output=True, text=True, timeout=1800)


def test_dbt_trino_builds_the_same_silver_and_gold_as_floe(shop, trino):
    cat = catalog(shop)
    built = [(ns, t) for ns, t in floe_tables(shop) if ns in ("silver", "gold")]
    floes = {}
    for ident in built:
        tbl = cat.load_table(ident)
        floes[ident] = ([f.name for f in tbl.schema().fields], pyiceberg_rows(tbl))
    p = dbt_trino(shop, trino, "build", "--full-refresh")
    assert p.returncode == 0, p.stdout[-8000:] + p.stderr[-3000:]
    results = json.loads((shop / "pipeline" / "dbt" / "target" / "run_results.json").read_text())["results"]
    models = {r["unique_id"].split(".")[-1] for r in results if r["unique_id"].startswith("model.")}
    assert {t for _, t in built} <= models, models
    assert all(r["status"] in ("success", "pass", "warn") for r in results), results
    assert sum(r["unique_id"].startswith("test.") for r in results) > 0
    for ident, (names, want) in floes.items():
        got = trino_rows(trino, ident, names)
        assert content(got) == content(want), (ident, differences(got, want))
        again = cat.load_table(ident)  # the table dbt replaced, read by PyIceberg from floe's catalog
        assert content(pyiceberg_rows(again)) == content(want), ident
    # an incremental run over the tables Trino built: the watermark filter, delete+insert and the
    # post-hook removing source deletes run on Trino and leave the same rows
    p = dbt_trino(shop, trino, "build")
    assert p.returncode == 0, p.stdout[-8000:] + p.stderr[-3000:]
    assert "incremental model silver.orders" in re.sub(r"\x1b\[[0-9;]*m", "", p.stdout), p.stdout[-3000:]
    for ident, (names, want) in floes.items():
        got = trino_rows(trino, ident, names)
        assert content(got) == content(want), (ident, "incremental", differences(got, want))


def test_trino_time_travels_to_a_snapshot_floe_wrote(src, shop, trino):
    cat = catalog(shop)
    old = cat.load_table("bronze.sellers")
    old_id, old_rows = old.current_snapshot().snapshot_id, pyiceberg_rows(old)
    names = [f.name for f in old.schema().fields]
    src.admin("UPDATE public.sellers SET seller_city = 'moved' WHERE seller_zip_code_prefix % 3 = 0")
    src.floe(shop, "run", "--table", "public.sellers", "--layer", "bronze", "--json", check=0)
    now = cat.load_table("bronze.sellers")
    assert now.current_snapshot().snapshot_id != old_id
    got_now = trino_rows(trino, ("bronze", "sellers"), names)
    assert content(got_now) == content(pyiceberg_rows(now))
    then = trino_rows(trino, ("bronze", "sellers"), names, f" FOR VERSION AS OF {old_id}")
    assert content(then) == content(old_rows) != content(got_now)
    assert content(pyiceberg_rows(now, snapshot_id=old_id)) == content(then)
