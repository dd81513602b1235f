"""Silver's PII masking: floe_hmac() in floe's DuckDB (libcrypto) and in the dbt-duckdb plugin
module floe writes (Python's hmac) give the same hex; a missing key is a configuration error
before anything is written, and the key never appears in output."""
import hashlib
import hmac
import importlib.util
import random
import subprocess
import sys
import types

import pyarrow as pa
import pyarrow.parquet as pq

from conftest import floe
from icebergkit import TOOLS

KEY_ENV = "FLOE_TEST_PII_KEY"
TOML = """[source]
host = "127.0.0.1"
port = 1
database = "shop"
user = "floe_reader"

[silver]
pii-key-env = "FLOE_TEST_PII_KEY"

[silver.pii]
"public.customers.email" = "%s"
"""
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


def load_plugin_module(path):
    """The generated module; with a stand-in for dbt-duckdb's BasePlugin when dbt is absent."""
    if "dbt" not in sys.modules and importlib.util.find_spec("dbt") is None:
        for name in ["dbt", "dbt.adapters", "dbt.adapters.duckdb", "dbt.adapters.duckdb.plugins"]:
            sys.modules.setdefault(name, types.ModuleType(name))
        sys.modules["dbt.adapters.duckdb.plugins"].BasePlugin = type("BasePlugin", (), {})
    spec = importlib.util.spec_from_file_location("floe_udfs_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RecordingConnection:
    def __init__(self):
        self.calls = []

    def create_function(self, name, fn, params, ret, **kwargs):
        self.calls.append((name, fn, params, ret))


def test_plugin_and_floe_hmac_agree_on_1000_values(project, monkeypatch):
    key = "k€y-" + "0123456789abcdef" * 2  # non-ASCII bytes in the key too
    (project / "floe.toml").write_text(TOML % "hmac")
    monkeypatch.setenv(KEY_ENV, key)
    values = random_values(1000)
    assert sum(v == "" for v in values) >= 2 and any(v and not v.isascii() for v in values)
    pq.write_table(pa.table({"id": pa.array(range(len(values)), pa.int32()),
                             "v": pa.array(values, pa.string())}), project / "in.parquet")
    subprocess.run([str(TOOLS / "silver_hmac"), "hash", str(project), str(project / "in.parquet"),
                    str(project / "out.parquet")], check=True, capture_output=True, text=True)
    floe_hex = dict(zip(*pq.read_table(project / "out.parquet").to_pydict().values()))

    text = subprocess.run([str(TOOLS / "silver_hmac"), "udfs-py", str(project)], check=True,
                          capture_output=True, text=True).stdout
    (project / "floe_udfs.py").write_text(text)
    module = load_plugin_module(project / "floe_udfs.py")
    assert module.KEY_ENV == KEY_ENV
    conn = RecordingConnection()
    module.Plugin.__new__(module.Plugin).configure_connection(conn)
    assert [(c[0], c[2], c[3]) for c in conn.calls] == [("floe_hmac", ["VARCHAR"], "VARCHAR")]
    registered = conn.calls[0][1]

    for i, v in enumerate(values):
        expected = None if v is None else hmac.new(key.encode(), v.encode(), hashlib.sha256).hexdigest()
        assert floe_hex[i] == expected, (i, v)
        assert registered(v) == expected, (i, v)
    assert floe_hex[3] == hmac.new(key.encode(), b"what do ya want for nothing?", hashlib.sha256).hexdigest()
    assert len({h for h in floe_hex.values() if h}) == len({v for v in values if v is not None})


def test_plugin_without_key_fails_naming_the_variable(project, monkeypatch):
    (project / "floe.toml").write_text(TOML % "hmac")
    monkeypatch.delenv(KEY_ENV, raising=False)
    text = subprocess.run([str(TOOLS / "silver_hmac"), "udfs-py", str(project)], check=True,
                          capture_output=True, text=True).stdout
    (project / "floe_udfs.py").write_text(text)
    module = load_plugin_module(project / "floe_udfs.py")
    conn = RecordingConnection()
    module.Plugin.__new__(module.Plugin).configure_connection(conn)
    assert conn.calls[0][1](None) is None
    try:
        conn.calls[0][1]("x")
        raise AssertionError("floe_hmac hashed without a key")
    except RuntimeError as e:
        assert KEY_ENV in str(e)


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
