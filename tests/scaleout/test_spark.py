"""Scale-out check (`make scale-out`, not the default suite): Spark, through Iceberg's JDBC
catalog on floe's catalog.db, reads the same rows as PyIceberg, and time-travels to older
snapshots floe wrote. Spark is an engine floe's own code never touches."""
import datetime as dt
import json
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.types import UUIDType, TimestamptzType

from conftest import register_catalog
from sourcedb import Source

SOURCE = '''
CREATE TABLE public.spread (
    id integer PRIMARY KEY,
    i2 smallint, i8 bigint, f4 real, f8 double precision, n numeric(12,2), m money,
    note text, c char(3), vc varchar(20), u uuid, ok boolean,
    d date, ts timestamp, tz timestamptz, iv interval,
    b bytea, j jsonb, ip inet,
    ai integer[], at text[], an numeric(6,2)[]
);
INSERT INTO public.spread VALUES
 (1, -32768, 9223372036854775807, 1.5, -0.1, 1234567890.12, 12.34,
  'ünï ☃', 'ab', 'x', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', true,
  '2024-02-29', '1970-01-01 00:00:00', '2000-01-01 12:00:00.123456+02', '1 year 2 mons 3 days 04:05:06.7',
  '\\x00ff', '{"b": [1, 2], "a": null}', '192.168.0.1/24',
  '{1,NULL,3}', '{"a","",NULL}', '{1.25,NULL}'),
 (2, 0, -9223372036854775808, 'NaN', '-Infinity', -0.01, -0.01,
  '', '', '', '00000000-0000-0000-0000-000000000000', false,
  '1900-01-01', '1969-12-31 23:59:59.999999', '2038-01-19 03:14:08+00', '-1 day',
  '\\x', '[]', '::1', '{}', '{}', '{}'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.spread
SELECT g, (g % 100)::smallint, g::bigint * 1000003, g / 7.0, g / 3.0, (g * 1.01)::numeric(12,2), g,
       md5(g::text), chr(65 + g % 26), repeat('v', g % 20), md5('u' || g)::uuid, g % 2 = 0,
       date '2020-01-01' + g, timestamp '2020-01-01' + g * interval '61 seconds',
       timestamptz '2020-01-01 00:00+05' + g * interval '1 minute 1.5 seconds', g * interval '1 hour',
       decode(md5(g::text), 'hex'), jsonb_build_object('g', g), ('10.0.0.' || g % 250)::inet,
       ARRAY[g, g + 1], ARRAY['t' || g], ARRAY[(g % 1000) / 10.0]::numeric(6,2)[]
FROM generate_series(4, 20000) g;
CREATE TABLE public.history (id bigint PRIMARY KEY, note text, amount numeric(10,2));
INSERT INTO public.history SELECT g, 'v1-' || g, g * 1.5 FROM generate_series(1, 1000) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "scaleout_spark", "scaleout_reader")
    s.create(SOURCE)
    s.admin(f"GRANT USAGE ON SCHEMA public TO {s.role}")
    s.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {s.role}")
    return s


@pytest.fixture(scope="module")
def loaded(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("spark")
    src.project(d)
    src.floe(d, "init", check=0)
    src.floe(d, "generate", check=0)
    run = src.floe(d, "run", "--json", check=0)
    states = {t["table"]: t["state"] for t in json.loads(run.out)["tables"]}
    assert states == {"bronze.spread": "loaded", "bronze.history": "loaded"}, run
    return d


@pytest.fixture(scope="module")
def spark(spark_session, loaded):
    register_catalog(spark_session, loaded)
    return spark_session


def catalog(d: Path):
    return SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse")


def norm(v, itype=None):
    """One comparable form for what PyIceberg (pyarrow) and Spark (Row) return."""
    if v is None:
        return None
    if isinstance(itype, UUIDType):
        if isinstance(v, uuid.UUID):  # PyIceberg: uuid.UUID; Spark: its text
            return str(v)
        return str(uuid.UUID(bytes=bytes(v))) if isinstance(v, (bytes, bytearray)) else str(uuid.UUID(v))
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc).replace(tzinfo=None)  # Spark: naive, session zone UTC
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, list):
        return [norm(x, getattr(itype, "element_type", None)) for x in v]
    if hasattr(v, "asDict"):  # pyspark Row (struct)
        v = v.asDict()
    if isinstance(v, dict):
        fields = {f.name: f.field_type for f in itype.fields} if itype is not None else {}
        return {k: norm(x, fields.get(k)) for k, x in v.items()}
    return v


def pyiceberg_rows(tbl, snapshot_id=None):
    fields = tbl.schema().fields
    arrow = tbl.scan(snapshot_id=snapshot_id).to_arrow()
    assert arrow.column_names == [f.name for f in fields]
    rows = [[norm(r[f.name], f.field_type) for f in fields] for r in arrow.to_pylist()]
    return sorted(rows, key=lambda r: r[0])


def spark_rows(df, tbl):
    fields = tbl.schema().fields
    assert df.columns == [f.name for f in fields]
    rows = [[norm(r[i], f.field_type) for i, f in enumerate(fields)] for r in df.collect()]
    return sorted(rows, key=lambda r: r[0])


def assert_same(got, want, what):
    assert len(got) == len(want), (what, len(got), len(want))
    for g, w in zip(got, want):
        assert g == w, (what, g, w)


def test_spark_lists_floes_tables(spark):
    names = {r.tableName for r in spark.sql("SHOW TABLES IN floe.bronze").collect()}
    assert {"spread", "history"} <= names, names


def test_every_row_equals_pyiceberg_and_the_count_equals_postgresql(src, loaded, spark):
    tbl = catalog(loaded).load_table("bronze.spread")
    df = spark.table("floe.bronze.spread")
    got = spark_rows(df, tbl)
    want = pyiceberg_rows(tbl)
    n_pg = src.admin("select count(*) from public.spread").fetchone()[0]
    assert len(got) == n_pg == 20000
    assert_same(got, want, "bronze.spread")
    # spot values as Spark types them, not only as equal to PyIceberg
    one = spark.sql("SELECT * FROM floe.bronze.spread WHERE id = 1").collect()[0]
    assert one.i8 == 9223372036854775807 and one.n == Decimal("1234567890.12")
    assert one.tz == dt.datetime(2000, 1, 1, 10, 0, 0, 123456)  # 12:00+02 in UTC
    assert one.ts == dt.datetime(1970, 1, 1) and one.d == dt.date(2024, 2, 29)
    assert one.u == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" and bytes(one.b) == b"\x00\xff"
    assert one.ai == [1, None, 3]


def test_spark_types_match_the_iceberg_schema(spark):
    types = {f.name: f.dataType.simpleString() for f in spark.table("floe.bronze.spread").schema.fields}
    assert types["id"] == "int" and types["i2"] == "int" and types["i8"] == "bigint"
    assert types["n"] == "decimal(12,2)" and types["m"] == "decimal(19,2)"
    assert types["ts"] == "timestamp_ntz" and types["tz"] == "timestamp"
    assert types["u"] == "string" and types["b"] == "binary" and types["ai"] == "array<int>"


def test_spark_aggregates_and_metadata_tables(loaded, spark):
    tbl = catalog(loaded).load_table("bronze.spread")
    n, s = spark.sql("SELECT count(*), sum(i8) FROM floe.bronze.spread").collect()[0]
    arrow = tbl.scan().to_arrow()
    assert n == arrow.num_rows
    files = spark.sql("SELECT sum(record_count) FROM floe.bronze.spread.files").collect()[0][0]
    assert files == arrow.num_rows
    snaps = [r.snapshot_id for r in spark.sql(
        "SELECT snapshot_id FROM floe.bronze.spread.snapshots ORDER BY committed_at").collect()]
    assert snaps == [h.snapshot_id for h in tbl.history()]


def test_time_travel_to_snapshots_floe_wrote(src, loaded, spark):
    d = loaded
    first = catalog(d).load_table("bronze.history")
    old_id = first.current_snapshot().snapshot_id
    old = pyiceberg_rows(first)
    src.admin("UPDATE public.history SET note = 'v2-' || id, amount = amount + 1 WHERE id % 10 = 0")
    src.admin("DELETE FROM public.history WHERE id > 990")
    src.admin("INSERT INTO public.history SELECT g, 'new-' || g, g FROM generate_series(2001, 2100) g")
    src.floe(d, "run", "--table", "public.history", "--json", check=0)

    tbl = catalog(d).load_table("bronze.history")
    assert len(tbl.history()) >= 2 and tbl.current_snapshot().snapshot_id != old_id
    spark.sql("REFRESH TABLE floe.bronze.history")
    now = spark_rows(spark.table("floe.bronze.history"), tbl)
    assert_same(now, pyiceberg_rows(tbl), "bronze.history now")
    assert len(now) == src.admin("select count(*) from public.history").fetchone()[0] == 1090

    then = spark_rows(spark.sql(f"SELECT * FROM floe.bronze.history VERSION AS OF {old_id}"), tbl)
    assert_same(then, old, f"bronze.history at {old_id}")
    assert len(then) == 1000 and then[9][1] == "v1-10"
    # every snapshot in the history reads as PyIceberg reads it
    for h in tbl.history():
        got = spark_rows(spark.sql(f"SELECT * FROM floe.bronze.history VERSION AS OF {h.snapshot_id}"), tbl)
        assert_same(got, pyiceberg_rows(tbl, h.snapshot_id), f"bronze.history at {h.snapshot_id}")
