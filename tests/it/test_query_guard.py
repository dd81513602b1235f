"""`floe query` reads and nothing else: exactly one statement, counted by DuckDB's own parser and
classified by it as a query; DuckDB may open only the live data files of the tables; and the
process can write no file at all. Every write attempt fails with a user error (exit 2) and leaves
every file of the project byte-identical, the tables still verified by status and by reconcile.
Values DuckDB's old value API has no text for (±infinity, year 1, BC, timestamptz) print in the
table, CSV and JSON forms."""
import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

from lakecheck import catalog
from sourcedb import Source

SQL = '''
CREATE TABLE public.t (id int PRIMARY KEY, note text);
INSERT INTO public.t SELECT g, 'note ' || g FROM generate_series(1, 200) g;
CREATE TABLE public.edges (id int PRIMARY KEY, ts timestamp, tz timestamptz, d date);
INSERT INTO public.edges VALUES
 (1, 'infinity', 'infinity', 'infinity'),
 (2, '-infinity', '-infinity', '-infinity'),
 (3, '0001-01-01 00:00:00', '0001-01-01 00:00:00+00', '0001-01-01'),
 (4, '0044-03-15 12:00:00 BC', '0044-03-15 12:00:00+00 BC', '0044-03-15 BC'),
 (5, '2024-02-29 23:59:59.999999', '2024-02-29 23:59:59.999999+00', '2024-02-29'),
 (6, NULL, NULL, NULL);
CREATE TABLE public.plain_times (id int PRIMARY KEY, ts timestamp, d date);
INSERT INTO public.plain_times SELECT g, '2024-01-01'::timestamp + g * interval '1 hour',
  '2024-01-01'::date + g FROM generate_series(1, 100) g;
CREATE TYPE stamp AS (at timestamptz, "on" date, label text);
CREATE TABLE public.nested (id int PRIMARY KEY, s stamp, tsa timestamp[], ss stamp[]);
INSERT INTO public.nested VALUES
 (1, ROW('-infinity', '-infinity', 'past'), '{-infinity,infinity,NULL}', ARRAY[ROW('-infinity', '0001-01-01', 'x')::stamp]),
 (2, NULL, NULL, NULL);
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "query_it", "query_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("query")
    d.chmod(0o755)
    src.generated(d)
    r = src.floe(d, "run", "--json", check=0)
    assert all(t["state"] == "loaded" for t in json.loads(r.out)["tables"]), r
    return d


def tree(d: Path):
    """Every file under `d` with the sha256 of its bytes."""
    return {str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


def live_data_file(d: Path, table: str) -> str:
    task = next(iter(catalog(d).load_table(table).scan().plan_files()))
    return task.file.file_path.removeprefix("file://")


def attacks(d: Path, data: str):
    """Statements that would write, or read outside the tables, each of which must be refused."""
    out = d / ".tmp" / "x.csv"
    return [
        f"select 1; COPY (select 42 AS id, 'x' AS note) TO '{data}' (FORMAT parquet)",
        f"COPY (select 42 AS id, 'x' AS note) TO '{data}' (FORMAT parquet)",
        f"COPY (select 42 AS id) TO '{data}' (FORMAT parquet, USE_TMP_FILE false)",
        f"COPY bronze.t TO '{out}'",
        f"EXPLAIN ANALYZE COPY (select 42) TO '{out}'",
        f"EXPLAIN ANALYZE COPY (select 42 AS id) TO '{data}' (FORMAT parquet, USE_TMP_FILE false)",
        f"ATTACH '{d}/warehouse/x.duckdb' AS x",
        f"ATTACH '{d}/.floe/state.db' AS s (TYPE sqlite)",
        "INSTALL httpfs", "LOAD httpfs", "LOAD parquet",
        "CREATE TABLE x AS SELECT 1", "CREATE VIEW v AS SELECT 1", "CREATE MACRO m() AS 1",
        "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')",
        "CREATE PERSISTENT SECRET p (TYPE s3, KEY_ID 'a', SECRET 'b')",
        "SET enable_external_access = true", "SET allowed_directories = ['/']",
        "RESET lock_configuration", f"SET temp_directory = '{d}'", "PRAGMA enable_profiling",
        f"PRAGMA profiling_output = '{out}'",
        "select * from read_text('/etc/passwd')", "select * from read_text('/proc/self/environ')",
        f"select * from read_text('{d}/floe.toml')",
        f"select * from read_csv('{d}/floe.toml')", f"select * from read_blob('{d}/.floe/state.db')",
        f"select * from glob('{d}/*')", f"select * from read_parquet('{d}/warehouse/**/*.parquet')",
        f"EXPORT DATABASE '{d}/export'", "COPY FROM DATABASE memory TO other",
        "CALL pragma_version()", "CHECKPOINT", "UPDATE bronze.t SET note = 'x'",
        "DELETE FROM bronze.t", "DROP VIEW bronze.t", "select 1; select 2",
    ]


def test_every_write_attempt_fails_and_changes_nothing(src, proj):
    d = proj
    data = live_data_file(d, "bronze.t")
    before = tree(d)
    assert data.removeprefix(str(d) + "/") in before
    for sql in attacks(d, data):
        r = src.floe(d, "query", sql)
        assert r.rc == 2 and r.out == "" and r.err.startswith("floe: error: "), (sql, r)
        assert src.password not in r.err and "root:" not in r.err, (sql, r)
    assert tree(d) == before  # every file byte-identical, no file added
    assert not (d / ".tmp").exists() and not (d / "export").exists()
    # the tables are still what the last run proved
    status = json.loads(src.floe(d, "status", "--json", check=0).out)
    assert {t["table"]: t["state"] for t in status["tables"]}["bronze.t"] == "verified", status
    rec = json.loads(src.floe(d, "reconcile", "--table", "public.t", "--json", check=0).out)
    assert rec["tables"][0]["outcome"] == "verified", rec
    r = src.floe(d, "query", "--json", "select count(*) AS n, sum(id) AS s from bronze.t", check=0)
    assert json.loads(r.out) == [{"n": "200", "s": str(200 * 201 // 2)}]


def test_refusals_say_what_why_and_what_to_do(src, proj):
    d = proj
    r = src.floe(d, "query", "select 1; select 2")
    assert r.rc == 2 and "is 2 statements, not one" in r.err and "hint: Run one statement" in r.err, r
    r = src.floe(d, "query", "EXPLAIN ANALYZE select 1")
    assert r.rc == 2 and "is not a query" in r.err and "floe run" in r.err, r
    r = src.floe(d, "query", "select * from read_text('/etc/passwd')")
    assert r.rc == 2 and "Permission Error" in r.err, r
    assert "root:" not in r.out + r.err
    r = src.floe(d, "query", "select nope from bronze.t")
    assert r.rc == 2 and "Binder Error" in r.err, r
    r = src.floe(d, "query", "selec 1")
    assert r.rc == 2 and "could not parse" in r.err, r
    # a ';' in a string or a comment does not make a second statement
    r = src.floe(d, "query", "--csv", "select 'a;b' AS v -- ; drop view bronze.t", check=0)
    assert r.out == "v\na;b\n", r


def test_csv_and_json_together_are_a_usage_error(src, proj):
    r = src.floe(proj, "query", "--csv", "--json", "select 1")
    assert r.rc == 2 and "--csv" in r.err and "--json" in r.err and r.out == "", r


EDGES = [  # (id, ts, tz, d) as floe query prints them (DuckDB's text, UTC)
    ("1", "infinity", "infinity", "infinity"),
    ("2", "-infinity", "-infinity", "-infinity"),
    ("3", "0001-01-01 00:00:00", "0001-01-01 00:00:00+00", "0001-01-01"),
    ("4", "0044-03-15 (BC) 12:00:00", "0044-03-15 (BC) 12:00:00+00", "0044-03-15 (BC)"),
    ("5", "2024-02-29 23:59:59.999999", "2024-02-29 23:59:59.999999+00", "2024-02-29"),
    ("6", None, None, None),
]


def test_infinite_and_ancient_values_print_in_every_form(src, proj):
    d = proj
    sql = "select id, ts, tz, d from bronze.edges order by id"
    env = {"TZ": "UTC"}
    j = src.floe(d, "query", "--json", sql, env=env, check=0)
    assert json.loads(j.out) == [dict(zip(("id", "ts", "tz", "d"), row)) for row in EDGES], j
    c = src.floe(d, "query", "--csv", sql, env=env, check=0)
    rows = list(csv.reader(io.StringIO(c.out)))
    assert rows[0] == ["id", "ts", "tz", "d"]
    assert [tuple(v if v != "" else None for v in row) for row in rows[1:]] == EDGES, c
    t = src.floe(d, "query", sql, env=env, check=0)
    lines = t.out.splitlines()
    assert lines[-1] == "(6 rows)", t
    cells = [[v.strip() for v in line.split(" | ")] for line in lines[2:-1]]
    assert cells == [[v if v is not None else "NULL" for v in row] for row in EDGES], t
    # the views compare and filter on those values like DuckDB's own infinities
    r = src.floe(d, "query", "--csv", "select id from bronze.edges where ts < '0001-01-01'::timestamp "
                 "and d < '0001-01-01'::date order by id", check=0)
    assert r.out.split() == ["id", "2", "4"], r


def test_infinities_inside_composites_and_arrays_print(src, proj):
    r = src.floe(proj, "query", "--json", "select id, s, tsa, ss from bronze.nested order by id",
                 env={"TZ": "UTC"}, check=0)
    assert json.loads(r.out) == [
        {"id": "1", "s": "{'at': -infinity, 'on': -infinity, 'label': past}",
         "tsa": "[-infinity, infinity, NULL]", "ss": "[{'at': -infinity, 'on': 0001-01-01, 'label': x}]"},
        {"id": "2", "s": None, "tsa": None, "ss": None}], r


def view_sql(src, proj, name):
    r = src.floe(proj, "query", "--json", f"select sql from duckdb_views() where view_name = '{name}'", check=0)
    return json.loads(r.out)[0]["sql"]


def test_a_time_column_without_minus_infinity_reaches_duckdb_as_it_is(src, proj):
    """The view rewrites floe's -infinity into DuckDB's only where a file's statistics say the
    column may hold it: elsewhere the column is read as it is, so DuckDB's filters on it reach the
    Parquet scan and skip row groups by their statistics."""
    plain = view_sql(src, proj, "plain_times")
    assert "CASE" not in plain and "-infinity" not in plain, plain
    edges = view_sql(src, proj, "edges")
    assert edges.count("'-infinity'") >= 3, edges  # ts, tz and d hold -infinity: shown as DuckDB's
    r = src.floe(proj, "query", "--json",
                 "select count(*) as n from bronze.plain_times where ts >= '2024-01-02' and d <= '2024-02-01'", check=0)
    assert json.loads(r.out) == [{"n": "8"}], r.out  # g from 24 (ts) to 31 (d)
