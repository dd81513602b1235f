"""Scale-out check (`make scale-out`): Spark through floe serve's Iceberg REST catalog (/iceberg,
with a bearer token) — lists floe's tables, reads the rows PyIceberg reads, time-travels to older
snapshots floe wrote; and writes: a CTAS (stage-create, then a commit with assert-create) and an
INSERT (an append commit from Java's client), which `floe query` and PyIceberg then read."""
import json

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from servekit import Serve
from sourcedb import Source
from test_spark import assert_same, pyiceberg_rows, spark_rows

SOURCE = '''
CREATE TABLE public.history (id bigint PRIMARY KEY, note text, amount numeric(10,2), at timestamptz);
INSERT INTO public.history SELECT g, 'v1-' || g, g * 1.5, timestamptz '2024-01-01 00:00+00' + g * interval '1 hour'
FROM generate_series(1, 1000) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "scaleout_rest", "scaleout_rest_reader", SOURCE)


@pytest.fixture(scope="module")
def served(src, tmp_path_factory):
    d = src.generated(tmp_path_factory.mktemp("spark_rest"))
    run = src.floe(d, "run", "--json", check=0)
    assert {t["table"]: t["state"] for t in json.loads(run.out)["tables"]} == {"bronze.history": "loaded"}, run
    token = src.floe(d, "serve", "token", "add", "--role", "operator", "--name", "spark", check=0).out.strip()
    s = Serve(d, src.password)
    yield d, s, token
    s.stop()


@pytest.fixture(scope="module")
def spark(spark_session, served):
    _, server, token = served
    p = "spark.sql.catalog.floerest"
    spark_session.conf.set(p, "org.apache.iceberg.spark.SparkCatalog")
    spark_session.conf.set(f"{p}.type", "rest")
    spark_session.conf.set(f"{p}.uri", f"{server.base}/iceberg")
    spark_session.conf.set(f"{p}.token", token)
    return spark_session


def catalog(d):
    return SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse")


def test_spark_lists_and_reads_through_rest(served, spark):
    d, _, _ = served
    assert "history" in {r.tableName for r in spark.sql("SHOW TABLES IN floerest.bronze").collect()}
    tbl = catalog(d).load_table("bronze.history")
    assert_same(spark_rows(spark.table("floerest.bronze.history"), tbl), pyiceberg_rows(tbl), "bronze.history")


def test_spark_time_travels_through_rest(src, served, spark):
    d, _, _ = served
    old = catalog(d).load_table("bronze.history")
    old_id, old_rows = old.current_snapshot().snapshot_id, pyiceberg_rows(old)
    src.admin("UPDATE public.history SET note = 'v2-' || id WHERE id % 10 = 0")
    src.admin("DELETE FROM public.history WHERE id > 990")
    src.floe(d, "run", "--table", "public.history", "--json", check=0)
    tbl = catalog(d).load_table("bronze.history")
    assert tbl.current_snapshot().snapshot_id != old_id
    spark.sql("REFRESH TABLE floerest.bronze.history")
    assert_same(spark_rows(spark.table("floerest.bronze.history"), tbl), pyiceberg_rows(tbl), "now")
    then = spark_rows(spark.sql(f"SELECT * FROM floerest.bronze.history VERSION AS OF {old_id}"), tbl)
    assert_same(then, old_rows, f"at {old_id}")
    assert len(then) == 1000 and then[9][1] == "v1-10"


def test_spark_writes_through_rest_and_floe_reads_it(src, served, spark):
    d, _, _ = served
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floerest.sparkw")
    spark.sql("CREATE TABLE floerest.sparkw.big_notes USING iceberg AS "
              "SELECT id, note FROM floerest.bronze.history WHERE id <= 100")  # stage-create + assert-create
    spark.sql("INSERT INTO floerest.sparkw.big_notes VALUES (5000, 'from spark')")  # an append commit
    r = src.floe(d, "query", "--csv", "select count(*) AS n, max(id) AS m from sparkw.big_notes", check=0)
    assert r.out == "n,m\n101,5000\n", r
    tbl = catalog(d).load_table("sparkw.big_notes")
    assert len(tbl.history()) == 2 and len(tbl.scan().to_arrow()) == 101
