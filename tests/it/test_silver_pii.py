"""Silver's PII masking: floe_hmac() in floe's DuckDB (libcrypto) and in the dbt-duckdb plugin
`floe generate` writes (Python's hmac, run under real dbt-duckdb from .venv-dbt — scripts/setup-dbt.sh)
give the same hex; a missing key is a configuration error before anything is written, and the key
never appears in output."""
import hashlib
import hmac
import os
import random
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from conftest import floe
from icebergkit import TOOLS
from sourcedb import Source

DBT_PYTHON = os.environ.get("FLOE_DBT_PYTHON",
                            str(Path(__file__).resolve().parents[2] / ".venv-dbt" / "bin" / "python"))

KEY_ENV = "FLOE_TEST_PII_KEY"
SILVER = """
[silver]
pii-key-env = "FLOE_TEST_PII_KEY"

[silver.pii]
"public.customers.email" = "%s"
"""
TOML = """[source]
host = "127.0.0.1"
port = 1
database = "shop"
user = "floe_reader"
""" + SILVER
ALPHABETS = ["abcXYZ019 -_.@", "äöüßéèêçñ", "漢字かなカナ한국어", "😀🎉👩‍💻🇫🇷", "\t\n'\"\\%"]


def random_values(n, seed=13):
    rnd = random.Random(seed)
    values = ["", "", None, "what do ya want for nothing?", "a" * 5000]
    while len(values) < n:
        if rnd.random() < 0.05:
            values.append(None)
            continue
        chars = "".join(rnd.sample(ALPHABETS, rnd.randint(1, len(ALPHABETS))))
        values.append("".join(rnd.choice(chars) for _ in range(rnd.randint(0, 40))))
    return values


# Run by .venv-dbt's Python: the generated plugin under real dbt-duckdb and DuckDB.
RUN_PLUGIN = """
import importlib.util, sys
import duckdb
spec = importlib.util.spec_from_file_location("floe_udfs", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
plugin = module.Plugin("floe_udfs", {"pii_key_env": sys.argv[2]})
con = duckdb.connect()
plugin.configure_connection(con)
if sys.argv[3] == "-":
    print(con.execute("select floe_hmac('x')").fetchone()[0])
else:
    con.execute(f"copy (select id, floe_hmac(v) as h from read_parquet('{sys.argv[3]}')) to '{sys.argv[4]}' (format parquet)")
"""


def generated_project(stack, project, key):
    """A project on a one-table source whose floe.toml masks an email with hmac, generated."""
    src = Source.readable(stack, "pii_it", "pii_reader",
                          "CREATE TABLE public.customers (id int PRIMARY KEY, email text);")
    src.project(project, extra=SILVER % "hmac")
    src.floe(project, "generate", check=0, env={KEY_ENV: key})
    return project / "pipeline" / "dbt"


def run_plugin(dbt_dir, *args, env=None):
    return subprocess.run([DBT_PYTHON, "-c", RUN_PLUGIN, str(dbt_dir / "floe_plugins" / "floe_udfs.py"),
                           KEY_ENV, *args], capture_output=True, text=True, timeout=120,
                          env=env if env is not None else os.environ)


def test_generated_plugin_and_floe_hmac_agree_on_1000_values(stack, project, monkeypatch):
    key = "k€y-" + "0123456789abcdef" * 2  # non-ASCII bytes in the key too
    monkeypatch.setenv(KEY_ENV, key)
    dbt_dir = generated_project(stack, project, key)
    assert f'pii_key_env: "{KEY_ENV}"' in (dbt_dir / "profiles.yml").read_text()
    values = random_values(1000)
    assert sum(v == "" for v in values) >= 2 and any(v and not v.isascii() for v in values)
    pq.write_table(pa.table({"id": pa.array(range(len(values)), pa.int32()),
                             "v": pa.array(values, pa.string())}), project / "in.parquet")
    subprocess.run([str(TOOLS / "silver_hmac"), str(project), str(project / "in.parquet"),
                    str(project / "floe.parquet")], check=True, capture_output=True, text=True)
    run = run_plugin(dbt_dir, str(project / "in.parquet"), str(project / "dbt.parquet"))
    assert run.returncode == 0, run.stderr
    floe_hex = dict(zip(*pq.read_table(project / "floe.parquet").to_pydict().values()))
    dbt_hex = dict(zip(*pq.read_table(project / "dbt.parquet").to_pydict().values()))
    for i, v in enumerate(values):
        expected = None if v is None else hmac.new(key.encode(), v.encode(), hashlib.sha256).hexdigest()
        assert floe_hex[i] == expected and dbt_hex[i] == expected, (i, v, floe_hex[i], dbt_hex[i])
    assert len({h for h in floe_hex.values() if h}) == len({v for v in values if v is not None})


def test_generated_plugin_without_key_fails_naming_the_variable(stack, project):
    dbt_dir = generated_project(stack, project, "a-key-of-enough-length-42")
    env = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    run = run_plugin(dbt_dir, "-", env=env)
    assert run.returncode != 0 and KEY_ENV in run.stderr, run


def test_missing_key_is_a_config_error_before_anything_is_written(project):
    (project / "floe.toml").write_text(TOML % "hmac")
    for cmd in (["generate"], ["run"]):
        r = floe("-C", str(project), *cmd, check=2, unset=[KEY_ENV])
        assert f"environment variable {KEY_ENV} is not set" in r.err, r
        assert "[silver.pii]" in r.err and "pii-key-env" in r.err, r
        r = floe("-C", str(project), *cmd, check=2, env={KEY_ENV: ""})
        assert f"environment variable {KEY_ENV} is empty" in r.err, r
        r = floe("-C", str(project), *cmd, check=2, env={KEY_ENV: "short-1"})
        assert "too short" in r.err and "short-1" not in r.out + r.err, r
    assert sorted(p.name for p in project.iterdir()) == ["floe.toml"]


def test_no_hmac_column_needs_no_key(project):
    (project / "floe.toml").write_text(TOML % "null")
    # past the key check: the unreachable source (port 1) is what stops it
    r = floe("-C", str(project), "generate", check=3, unset=[KEY_ENV])
    assert KEY_ENV not in r.err, r
