"""Reading bronze back with readers floe did not write, and comparing it with the source:
PyIceberg's SqlCatalog on the project's catalog.db, DuckDB's iceberg extension loaded offline,
and the table's extraction query run by the reader role under the lock's session settings."""
import datetime as dt
import json
import uuid
from pathlib import Path

import duckdb
import duckdb_extension_avro
import duckdb_extension_iceberg
from pyiceberg.catalog.sql import SqlCatalog


# Projects whose warehouse is on S3 (tests/it/test_s3*.py): project dir -> (location, s3kit.Moto).
S3_WAREHOUSES = {}


def catalog(d: Path):
    if str(d) in S3_WAREHOUSES:
        location, server = S3_WAREHOUSES[str(d)]
        return SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=location,
                          **server.pyiceberg_props())
    return SqlCatalog("floe", uri=f"sqlite:///{d}/warehouse/catalog.db", warehouse=f"file://{d}/warehouse")


def lock_of(d: Path):
    return json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())


def lock_table(d: Path, bronze: str):
    return next(t for t in lock_of(d)["tables"] if t["bronze"] == bronze)


def run_layers(src, d):
    """`floe run --json` in project `d`: (the result, bronze's tables by name, silver's by name)."""
    r = src.floe(d, "run", "--json", check=None)
    out = json.loads(r.out)
    return r, {t["table"]: t for t in out["tables"]}, {t["table"]: t for t in out.get("silver", [])}


def snapshot_id(d, table):
    """The current snapshot id of Iceberg table `table` of project `d`."""
    return catalog(d).load_table(table).current_snapshot().snapshot_id


def table_rows(d, table):
    """Every row of Iceberg table `table` of project `d` as PyIceberg reads it, normalised, sorted."""
    scan = catalog(d).load_table(table).scan().to_arrow().to_pylist()
    return sorted(([norm(v) for v in r.values()] for r in scan), key=repr)


def query_rows(src, sql):
    """The rows of `sql` on the source as its reader role sees them, normalised, sorted."""
    with src.reader() as conn:
        return sorted(([norm(v) for v in r] for r in conn.execute(sql).fetchall()), key=repr)


def norm(v):
    """One comparable form for what psycopg, pyarrow and DuckDB return."""
    if isinstance(v, uuid.UUID):
        return v.bytes
    if isinstance(v, memoryview):
        return bytes(v)
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc)
    return v


def duckdb_iceberg(d: Path = None):
    """DuckDB with the iceberg extension (and httpfs with a secret when `d` is on S3)."""
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for mod, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        path = Path(mod.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
        con.execute(f"LOAD '{path}'")
    con.execute("SET TimeZone = 'UTC'")
    if d is not None and str(d) in S3_WAREHOUSES:
        S3_WAREHOUSES[str(d)][1].duckdb(con)
    return con


def source_rows(src, d: Path, t: dict):
    """The table's rows as the extraction query returns them now, normalised, sorted."""
    lock = lock_of(d)
    sql = (d / "pipeline" / [f for f in t["files"] if f.startswith("bronze/")][0]).read_text()
    _, rows = src.run_extraction(sql, lock["session"])
    return sorted(([norm(v) for v in r] for r in rows), key=repr)


def pyiceberg_rows(d: Path, bronze: str, snapshot_id=None):
    tbl = catalog(d).load_table(bronze)
    arrow = tbl.scan(snapshot_id=snapshot_id).to_arrow() if snapshot_id else tbl.scan().to_arrow()
    return sorted(([norm(v) for v in r.values()] for r in arrow.to_pylist()), key=repr)


def duckdb_rows(d: Path, bronze: str):
    tbl = catalog(d).load_table(bronze)
    rows = duckdb_iceberg(d).execute(f"select * from iceberg_scan('{tbl.metadata_location}')").fetchall()
    return sorted(([norm(v) for v in r] for r in rows), key=repr)


def assert_equals_source(src, d: Path, bronze: str):
    """Bronze equals the source, read by PyIceberg and by DuckDB."""
    want = source_rows(src, d, lock_table(d, bronze))
    got = pyiceberg_rows(d, bronze)
    assert len(got) == len(want), (bronze, len(got), len(want))
    assert got == want, bronze
    assert duckdb_rows(d, bronze) == want, bronze
