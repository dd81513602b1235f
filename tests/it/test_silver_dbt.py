"""floe's own runtime and real dbt run the same generated models on the shop: every silver table
floe publishes equals the table `dbt build` makes from the same bronze tables, value by value,
masked columns included (floe_hmac in floe's DuckDB and in dbt-duckdb's plugin).

dbt runs from pipeline/dbt as tests/it/test_dbt_project.py runs it ($FLOE_DBT or .venv-dbt)."""
import os
import subprocess
from pathlib import Path

import duckdb
import pytest

from conftest import floe
from lakecheck import catalog, lock_of, norm
from sourcedb import Source
from test_dbt_project import DBT, EXTRA, QUALITY

KEY = "silver-dbt-key-" + "9d2f6b1e4a7c3b08"


@pytest.fixture(scope="module")
def proj(stack, tmp_path_factory):
    src = Source(stack, "silver_dbt_it", "silver_dbt_reader")
    src.create("")
    floe("shop", "generate", "--scale", "0.01", "--seed", "11",
         "--target", f"{stack['socket_dir']}:{stack['port']}/silver_dbt_it", check=0)
    src.grant_read("public")
    d = tmp_path_factory.mktemp("silverdbt")
    src.project(d, extra=EXTRA)
    (d / "quality").mkdir()
    (d / "quality" / "shop.toml").write_text(QUALITY)
    env = {"FLOE_PII_KEY": KEY}
    src.floe(d, "generate", check=0, env=env)
    run = src.floe(d, "run", "--json", check=0, env=env)
    if not Path(DBT).exists():
        pytest.fail(f"dbt not found at {DBT}: run scripts/setup-dbt.sh (or set FLOE_DBT)")
    p = subprocess.run([DBT, "build", "--profiles-dir", ".", "--project-dir", "."], cwd=d / "pipeline" / "dbt",
                       env=dict(os.environ, FLOE_PII_KEY=KEY, DBT_SEND_ANONYMOUS_USAGE_STATS="false"),
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    return d, run


def floe_rows(d, table):
    arrow = catalog(d).load_table(table).scan().to_arrow()
    return [name for name in arrow.column_names], sorted(([norm(v) for v in r.values()] for r in arrow.to_pylist()),
                                                          key=repr)


def dbt_rows(d, table, columns):
    db = d / "pipeline" / "dbt" / "floe_dbt.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute("SET TimeZone = 'UTC'")
        cols = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
        rows = con.execute(f"select {cols} from {table}").fetchall()
    return sorted(([norm(v) for v in r] for r in rows), key=repr)


def test_floe_silver_equals_dbt_build_for_every_shop_table(proj):
    d, _ = proj
    tables = [t["silver"]["table"] for t in lock_of(d)["tables"] if t.get("silver")]
    assert len(tables) >= 8, tables
    for table in tables:
        columns, mine = floe_rows(d, table)
        assert mine, table
        assert dbt_rows(d, table, columns) == mine, table


def test_masked_column_is_masked_alike_and_never_clear(proj):
    d, _ = proj
    _, rows = floe_rows(d, "silver.customers")
    emails = [r for r in rows if any(isinstance(v, str) and "@" in v for v in r)]
    assert emails == [], emails[:2]
