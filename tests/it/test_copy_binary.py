"""floe's binary COPY decoder against PostgreSQL itself: every value, every type it decodes.

The expected values are computed by PostgreSQL (text functions over the same rows), the
actual ones by floe's decoder (tests/tools/copy_probe), so neither side is checked against
itself.
"""
import json
import math
import os
import subprocess
from pathlib import Path

import psycopg
import pytest

TOOLS = Path(os.environ.get("FLOE_TOOLS", Path(__file__).resolve().parents[2] / "build" / "tools"))
DB = "copy_it"

# column, PostgreSQL type, probe spec (oid:vec[:p:s]), canonical expected text expression
COLUMNS = [
    ("b", "boolean", "16:boolean", "b::text"),
    ("i2", "smallint", "21:int", "i2::text"),
    ("i4", "integer", "23:int", "i4::text"),
    ("i8", "bigint", "20:long", "i8::text"),
    ("f4", "real", "700:float", "f4::text"),
    ("f8", "double precision", "701:double", "f8::text"),
    ("n1", "numeric(1,0)", "1700:decimal:1:0", "n1::text"),
    ("n9", "numeric(9,4)", "1700:decimal:9:4", "n9::text"),
    ("n18", "numeric(18,6)", "1700:decimal:18:6", "n18::text"),
    ("n19", "numeric(19,2)", "1700:decimal:19:2", "n19::text"),
    ("n38", "numeric(38,10)", "1700:decimal:38:10", "n38::text"),
    ("m", "money", "790:decimal:18:2", "m::numeric::text"),
    ("d", "date", "1082:date", "(d - date '1970-01-01')::text"),
    ("t", "time", "1083:time", "(extract(epoch from t) * 1000000)::bigint::text"),
    ("ts", "timestamp", "1114:timestamp", "(extract(epoch from ts) * 1000000)::bigint::text"),
    ("tz", "timestamptz", "1184:timestamptz", "(extract(epoch from tz) * 1000000)::bigint::text"),
    ("u", "uuid", "2950:uuid", "replace(u::text, '-', '')"),
    ("s", "text", "25:string", "s"),
    ("vc", "varchar(20)", "1043:string", "vc::text"),
    ("c", "char(4)", "1042:string", "c::text || repeat(' ', 4 - octet_length(c::text))"),
    ("j", "jsonb", "3802:string", "j::text"),
    ("js", "json", "114:string", "js::text"),
    ("by", "bytea", "17:binary", "encode(by, 'hex')"),
    ("ai", "integer[]", "1007:list:23:int", "array_to_json(ai)::text"),
    ("at", "text[]", "1009:list:25:string", "array_to_json(at)::text"),
]

ROWS = """
INSERT INTO matrix VALUES
 (true, 1, 1, 1, 1.5, 1.5, 1, 1.2345, 1.5, 1.25, 1.5, 1.25, '2026-11-30', '12:34:56.789012',
  '2026-11-30 12:34:56.789012', '2026-11-30 12:34:56.789012+05:30',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'hello', 'v', 'ab', '{"a": [1, 2]}', '{"z": 1, "a": 2}',
  '\\x00ff10', '{1,NULL,3}', '{"x","",NULL,"ünï"}'),
 (false, -32768, -2147483648, -9223372036854775808, '-Infinity', 'NaN', -9, -99999.9999,
  -999999999999.999999, -99999999999999999.99, -9999999999999999999999999999.9999999999, -0.01,
  '0001-01-01', '00:00:00', '1677-09-21 00:12:43.145225', '1900-01-01 00:00:00+00',
  '00000000-0000-0000-0000-000000000000', '', '', '', '[]', '[]', '\\x', '{}', '{}'),
 (NULL, 32767, 2147483647, 9223372036854775807, 'Infinity', 1e308, 9, 99999.9999,
  999999999999.999999, 99999999999999999.99, 9999999999999999999999999999.9999999999,
  92233720368547758.07, '5874897-12-31', '24:00:00', '294246-12-31 23:59:59.999999',
  '4713-01-01 00:00:00+00 BC', 'ffffffff-ffff-ffff-ffff-ffffffffffff', repeat('é', 300000), NULL,
  NULL, 'null', '"s"', NULL, NULL, NULL),
 (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
"""


@pytest.fixture(scope="module")
def db(stack):
    with psycopg.connect(stack["admin"].replace("dbname=shop", "dbname=postgres"), autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
        c.execute(f"CREATE DATABASE {DB}")
    conninfo = stack["admin"].replace("dbname=shop", f"dbname={DB}")
    with psycopg.connect(conninfo, autocommit=True) as c:
        cols = ", ".join(f"{n} {t}" for n, t, _, _ in COLUMNS)
        c.execute(f"CREATE TABLE matrix ({cols})")
        c.execute("SET timezone = 'UTC'")
        c.execute(ROWS)
    return {"conninfo": conninfo, **stack}


def probe(db, sql, specs):
    env = dict(os.environ, PGTZ="UTC")
    return subprocess.run([str(TOOLS / "copy_probe"), str(db["port"]), db["socket_dir"], DB,
                           "postgres", sql, *specs], capture_output=True, text=True, env=env)


def expected(db, exprs):
    with psycopg.connect(db["conninfo"]) as c:
        c.execute("SET timezone = 'UTC'")
        return c.execute(f"SELECT {', '.join(exprs)} FROM matrix ORDER BY i4 NULLS LAST").fetchall()


def same(kind, got, want):
    if want is None:
        return got is None
    if kind in ("float", "double"):
        g, w = float(got), float(want)
        return (math.isnan(g) and math.isnan(w)) or g == w
    if kind in ("int", "long", "date", "time", "timestamp", "timestamptz"):
        return got == int(want)
    if kind == "boolean":
        return got == (want == "true")
    if kind == "list":
        return got == json.loads(want)
    if kind == "string" and want[:1] in "[{\"n" and (want.startswith(("{", "[", '"')) or want == "null"):
        try:
            return json.loads(got) == json.loads(want)
        except ValueError:
            return got == want
    return got == want


def test_every_value_of_every_type_decodes_exactly(db):
    names = [c[0] for c in COLUMNS]
    r = probe(db, f"SELECT {', '.join(names)} FROM matrix ORDER BY i4 NULLS LAST", [c[2] for c in COLUMNS])
    assert r.returncode == 0, r.stderr
    got = [json.loads(line) for line in r.stdout.splitlines()]
    want = expected(db, [c[3] for c in COLUMNS])
    assert len(got) == len(want) == 4
    bad = []
    for row_got, row_want in zip(got, want):
        for (name, _, spec, _), g, w in zip(COLUMNS, row_got, row_want):
            if not same(spec.split(":")[1], g, w):
                bad.append((name, g if not isinstance(g, str) or len(g) < 80 else g[:80], w if not isinstance(w, str) or len(w) < 80 else w[:80]))
    assert bad == []
    assert "rows=4" in r.stderr


def test_infinity_is_refused_with_column_and_row(db):
    with psycopg.connect(db["conninfo"], autocommit=True) as c:
        c.execute("CREATE TABLE IF NOT EXISTS inf (id int, d date)")
        c.execute("TRUNCATE inf")
        c.execute("INSERT INTO inf VALUES (1, '2020-01-01'), (2, 'infinity')")
    r = probe(db, "SELECT d FROM inf ORDER BY id", ["1082:date"])
    assert r.returncode == 1
    assert "date infinity" in r.stderr and "row 2" in r.stderr, r.stderr


def test_a_spec_that_does_not_match_the_query_fails_before_copying(db):
    r = probe(db, "SELECT i4 FROM matrix", ["20:long"])
    assert r.returncode == 1 and "type oid 23, the plan expects 20" in r.stderr, r.stderr


def test_numeric_beyond_the_scale_is_refused(db):
    r = probe(db, "SELECT 1.005::numeric", ["1700:decimal:10:2"])
    assert r.returncode == 1 and "fractional digits" in r.stderr, r.stderr


def test_timestamps_past_the_iceberg_range_are_refused(db):
    r = probe(db, "SELECT timestamp '294276-12-31 23:59:59'", ["1114:timestamp"])
    assert r.returncode == 1 and "past the last instant" in r.stderr, r.stderr
