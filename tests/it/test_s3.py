"""floe on an S3 warehouse: `[warehouse] location = "s3://bucket/prefix"` on a real S3-compatible
server (moto's server mode, started here on a private port). Bronze, reconciliation and silver run
as on local disk — the same source tables as test_silver.py and the type matrix — and what floe
wrote is read back by PyIceberg (its S3 FileIO) and DuckDB (iceberg + httpfs) equal to the source.
The catalog stays the project's SQLite file."""
import json

import pytest

import lakecheck
import s3kit
from s3kit import moto  # noqa: F401  (the session's S3 server)
import test_silver
import typematrix
from sourcedb import Source


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "s3_it", "s3_reader")
    s.create(test_silver.SQL + typematrix.SQL)
    s.grant_read("public", typematrix.SCHEMA)
    return s


def s3_project(src, moto, d, prefix="tables"):
    bucket = moto.bucket()
    location = f"s3://{bucket}/{prefix}"
    src.project(d, schemas=("public", typematrix.SCHEMA), extra=s3kit.warehouse_toml(location, moto.endpoint))
    (d / "quality").mkdir()
    (d / "quality" / "rules.toml").write_text(test_silver.QUALITY)
    lakecheck.S3_WAREHOUSES[str(d)] = (location, moto)
    return bucket, location


def floe(src, d, *args, check=None, env=None):
    server = lakecheck.S3_WAREHOUSES[str(d)][1]
    return src.floe(d, *args, check=check, env={**server.env(), **(env or {})})


@pytest.fixture(scope="module")
def proj(src, moto, tmp_path_factory):
    d = tmp_path_factory.mktemp("s3proj")
    bucket, _ = s3_project(src, moto, d)
    floe(src, d, "generate", check=0)
    r = floe(src, d, "run", "--json", check=None)
    return d, bucket, r


def test_run_writes_every_table_to_the_bucket_and_verifies_it(src, moto, proj):
    d, bucket, r = proj
    assert r.rc == 0, [(t["table"], t.get("error")) for t in json.loads(r.out)["tables"]]
    keys = moto.keys(bucket)
    assert any(k.startswith("tables/bronze/") and k.endswith(".parquet") for k in keys), keys
    assert any(k.endswith(".metadata.json") for k in keys) and any(k.endswith(".avro") for k in keys)
    assert all(k.startswith("tables/") for k in keys)
    # nothing of the tables on local disk: only the catalog
    assert sorted(p.name for p in (d / "warehouse").iterdir()) == ["catalog.db"]
    st = json.loads(floe(src, d, "status", "--json", check=0).out)
    states = {(t["table"], t.get("layer", "bronze")): t["state"] for t in st["tables"]}
    assert all(s == "verified" for (t, layer), s in states.items() if t.startswith("bronze.")), states


@pytest.mark.parametrize("bronze", ["bronze.customers", "bronze.orders", typematrix.BRONZE])
def test_bronze_on_s3_equals_the_source(src, proj, bronze):
    d, _, _ = proj
    lakecheck.assert_equals_source(src, d, bronze)


def test_reconcile_on_s3_verifies_and_catches_its_control(src, proj):
    d, _, _ = proj
    r = floe(src, d, "reconcile", "--json", check=0)
    tables = {t["table"]: t for t in json.loads(r.out)["tables"]}
    assert tables and all(t["outcome"] == "verified" and t["control"]["fired"] for t in tables.values()), tables


def test_silver_on_s3_equals_the_source(src, proj, monkeypatch):
    d, _, _ = proj
    monkeypatch.setattr(test_silver, "duckdb_iceberg", lambda: lakecheck.duckdb_iceberg(d))
    test_silver.assert_table(src, d, "silver.customers",
                             "select customer_id, name, tier, updated_at from public.customers where tier is not null")
    test_silver.assert_table(src, d, "silver.orders",
                             "select order_id, customer_id, status, amount, updated_at from public.orders")


def test_query_reads_the_s3_tables(src, proj):
    d, _, _ = proj
    r = floe(src, d, "query", "--json", "select count(*) as n from silver.orders", check=0)
    assert "300" in r.out, r
