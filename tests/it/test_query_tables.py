"""A table `floe query` cannot make a view of affects only itself: two catalog names DuckDB cannot
tell apart (its identifiers ignore case) and a table whose metadata is corrupt are each left out
with a warning naming the table and why, while `select 1` and queries of every other table work.
The tables are written by floe's Iceberg library (build/tools/iceberg_fixture)."""
import json
import tempfile
from pathlib import Path

import pytest

from conftest import floe
from icebergkit import Warehouse

TOML = '''[project]
name = "qt"

[source]
host = "127.0.0.1"
port = 5432
database = "qt"
user = "qt"
'''


def table(wh: Warehouse, name: str, rows: int):
    wh.run("create", name, "--column", "id:long", "--column", "v:string")
    wh.run("append", name, "--sql", f"select range::bigint as id, 'row ' || range as v from range({rows})")


@pytest.fixture(scope="module")
def proj():
    d = Path(tempfile.mkdtemp(prefix="floe-it-qt-"))
    (d / "floe.toml").write_text(TOML)
    (d / "warehouse").mkdir()
    wh = Warehouse(d / "warehouse")
    table(wh, "bronze.h__CamelCase", 3)
    table(wh, "bronze.h__camelcase", 4)
    table(wh, "bronze.good", 5)
    table(wh, "bronze.broken", 6)
    table(wh, "silver.good", 7)
    meta = sorted((d / "warehouse" / "bronze" / "broken" / "metadata").glob("*.metadata.json"))[-1]
    meta.write_text('{"format-version": 2, "table-uuid": ')  # cut short: not JSON
    return d


def query(d: Path, *args):
    return floe("-C", str(d), "query", *args)


def warnings(err: str):
    return [line for line in err.splitlines() if line.startswith("floe: warn:")]


def test_select_1_works_and_each_bad_table_is_named_with_its_reason(proj):
    r = query(proj, "--json", "select 1 AS one")
    assert r.rc == 0 and json.loads(r.out) == [{"one": "1"}], r
    w = warnings(r.err)
    assert len(w) == 3, r.err
    camel = [x for x in w if "bronze.h__CamelCase is not queryable" in x]
    lower = [x for x in w if "bronze.h__camelcase is not queryable" in x]
    assert camel and "differs from bronze.h__camelcase only in case" in camel[0], w
    assert lower and "differs from bronze.h__CamelCase only in case" in lower[0], w
    broken = [x for x in w if "bronze.broken is not queryable" in x]
    assert broken and "metadata" in broken[0], w


def test_the_other_tables_answer(proj):
    r = query(proj, "--csv", "select (select count(*) from bronze.good) AS b, (select count(*) from silver.good) AS s")
    assert r.rc == 0 and r.out == "b,s\n5,7\n", r
    r = query(proj, "--csv", "select table_schema, table_name from information_schema.tables order by 1, 2")
    assert r.out.splitlines()[1:] == ["bronze,good", "silver,good"], r


def test_a_left_out_table_is_a_user_error_naming_it(proj):
    r = query(proj, "select * from bronze.broken")
    assert r.rc == 2 and "broken" in r.err and "does not exist" in r.err, r
    assert any("bronze.broken is not queryable" in x for x in warnings(r.err)), r.err
