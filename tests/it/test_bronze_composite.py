"""Composite (row) columns load into bronze as Iceberg structs: nested composites, arrays inside
them, arrays of them, enums and domains inside (extracted with ROW(...)), NULL records apart from
records of NULLs — read back by PyIceberg and DuckDB's iceberg extension equal to PostgreSQL's
values, with the lock's field ids in the schema and the data files, and statistics per leaf."""
import datetime as dt
import json
import uuid
from decimal import Decimal
from pathlib import Path

import psycopg
import pyarrow.parquet as pq
import pytest
from psycopg.adapt import Loader
from psycopg.types.composite import CompositeInfo, register_composite
from icebergkit import Warehouse, duckdb_with_iceberg, local_path
from composites import SOURCE
from sourcedb import Source


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "composite_it", "composite_reader", SOURCE)


@pytest.fixture(scope="module")
def loaded(src, tmp_path_factory):
    d = src.generated(tmp_path_factory.mktemp("composite"))
    return d, src.floe(d, "run", "--json")


def catalog(d: Path):
    return Warehouse(d / "warehouse").pyiceberg()


def lock_table(d: Path, bronze):
    lock = json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())
    return next(t for t in lock["tables"] if t["bronze"] == bronze)


class TextLoader(Loader):
    def load(self, data):
        return bytes(data).decode()


def source_rows(src):
    """Every row of public.comp as PostgreSQL returns it: composites as named tuples (nested
    ones too), jsonb and numeric as PostgreSQL's own text."""
    with src.reader() as conn:
        conn.execute("SET TimeZone = 'UTC'")
        for name in ("jsonb", "numeric"):
            conn.adapters.register_loader(name, TextLoader)
        for name in ("addr", "geo", "place", "tagged", "wrapper"):
            register_composite(CompositeInfo.fetch(conn, name), conn)
        cur = conn.execute("SELECT * FROM public.comp ORDER BY id")
        return [d.name for d in cur.description], cur.fetchall()


def carried(value, t):
    """A PostgreSQL value as the lock's Iceberg type `t` carries it."""
    if value is None:
        return None
    if isinstance(t, dict) and t["type"] == "struct":
        return {f["name"]: carried(getattr(value, f["name"]), f["type"]) for f in t["fields"]}
    if isinstance(t, dict) and t["type"] == "list":
        return [carried(v, t["element"]) for v in value]
    if t == "string":
        return str(value)                    # enum labels, jsonb and numeric text
    if t in ("int", "long"):
        return int(value)                    # a domain's value arrives as text
    if t.startswith("decimal"):
        return Decimal(value)
    return norm(value)


def norm(v):
    """One comparable form for what psycopg, pyarrow and DuckDB return."""
    if isinstance(v, uuid.UUID):
        return v.bytes
    if isinstance(v, (memoryview, bytearray)):
        return bytes(v)
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc)
    return v


@pytest.fixture(scope="module")
def expected(src, loaded):
    d, _ = loaded
    t = lock_table(d, "bronze.comp")
    names, rows = source_rows(src)
    types = {c["name"]: c["type"] for c in t["columns"]}
    return [{n: carried(v, types[n]) for n, v in zip(names, r)} for r in rows]


def test_the_table_loads_and_arrays_of_converted_records_are_refused(src, loaded):
    d, run = loaded
    states = {t["table"]: t for t in json.loads(run.out)["tables"]}
    assert states["bronze.comp"]["state"] == "loaded", states["bronze.comp"]
    assert states["bronze.comp"]["rows"] == 25004
    assert states["bronze.refused_array"]["state"] == "refused"
    plan = src.plan(d)
    refused = plan[("public", "refused_array")]
    assert refused["mode"] == "refused" and "array of tagged" in json.dumps(refused), refused
    cols = {c["name"]: c for c in plan[("public", "comp")]["columns"]}
    assert cols["homes"]["iceberg_type"] == "list<struct<street: string, zip: int, tags: list<string>>>"
    assert cols["w"]["iceberg_type"].startswith("struct<inner_t: struct<label: string, score: int,")
    assert run.rc == 0, run  # a refusal is an answer, not a failure


def pyiceberg_view(row, t):
    """PyIceberg 0.12 reads a NULL list<struct<…>> as [] (apache/iceberg-python#3833: its
    projection rebuilds the list without the null mask); the file holds NULL, as pyarrow and
    DuckDB read it. Every other value must be exact."""
    types = {c["name"]: c["type"] for c in t["columns"]}
    out = dict(row)
    for name, ty in types.items():
        if out[name] is None and isinstance(ty, dict) and ty["type"] == "list" \
                and isinstance(ty["element"], dict) and ty["element"]["type"] == "struct":
            out[name] = []
    return out


def test_pyiceberg_reads_the_source_values(loaded, expected):
    d, _ = loaded
    t = lock_table(d, "bronze.comp")
    tbl = catalog(d).load_table("bronze.comp")
    got = sorted((norm(r) for r in tbl.scan().to_arrow().to_pylist()), key=lambda r: r["id"])
    assert len(got) == len(expected)
    for g, w in zip(got, expected):
        assert g == pyiceberg_view(w, t), (g, w)
    by_id = {r["id"]: r for r in got}
    # A NULL record stays NULL; a record of NULLs is a struct whose fields are null.
    assert by_id[2]["home"] is None and by_id[2]["p"] is None and by_id[2]["w"] is None
    assert by_id[3]["home"] == {"street": None, "zip": None, "tags": None}
    assert by_id[3]["w"] == {"inner_t": None, "k": None, "g": None}
    assert by_id[1]["homes"][1] is None and by_id[1]["homes"][2] == {"street": None, "zip": None, "tags": None}
    assert by_id[1]["t"]["label"] == "happy" and by_id[1]["t"]["score"] == 7
    assert by_id[1]["w"]["inner_t"]["n"] == "NaN"


def test_the_data_files_hold_null_lists_of_structs_as_null(loaded, expected):
    d, _ = loaded
    tbl = catalog(d).load_table("bronze.comp")
    rows = []
    for task in tbl.scan().plan_files():
        rows += pq.read_table(local_path(task.file.file_path)).to_pylist()
    got = sorted((norm(r) for r in rows), key=lambda r: r["id"])
    assert got == expected


def duck():
    con = duckdb_with_iceberg()
    con.execute("SET TimeZone = 'UTC'")
    return con


def test_duckdb_reads_the_source_values(loaded, expected):
    d, _ = loaded
    tbl = catalog(d).load_table("bronze.comp")
    con = duck()
    cur = con.execute(f"select * from iceberg_scan('{tbl.metadata_location}') order by id")
    names = [c[0] for c in cur.description]
    got = [norm(dict(zip(names, r))) for r in cur.fetchall()]
    assert len(got) == len(expected)
    for g, w in zip(got, expected):
        assert g == w, (g, w)
    n, nulls, null_fields = con.execute(
        f"select count(*), count(*) filter (where home is null), "
        f"count(*) filter (where home is not null and home.street is null) "
        f"from iceberg_scan('{tbl.metadata_location}')").fetchone()
    assert (n, nulls, null_fields) == (25004, 1 + sum(1 for g in range(10, 25010) if g % 7 == 0), 1)


def lock_ids(t, out, path=""):
    """(path, id) of every nested field of a lock type."""
    if isinstance(t, dict) and t["type"] == "struct":
        for f in t["fields"]:
            out[f"{path}.{f['name']}"] = f["id"]
            lock_ids(f["type"], out, f"{path}.{f['name']}")
    elif isinstance(t, dict) and t["type"] == "list":
        out[f"{path}.element"] = t["element-id"]
        lock_ids(t["element"], out, f"{path}.element")
    return out


def iceberg_ids(t, out, path=""):
    from pyiceberg.types import ListType, StructType
    if isinstance(t, StructType):
        for f in t.fields:
            out[f"{path}.{f.name}"] = f.field_id
            iceberg_ids(f.field_type, out, f"{path}.{f.name}")
    elif isinstance(t, ListType):
        out[f"{path}.element"] = t.element_id
        iceberg_ids(t.element_type, out, f"{path}.element")
    return out


def parquet_ids(t, out, path=""):
    import pyarrow as pa
    if isinstance(t, pa.StructType):
        for f in t:
            out[f"{path}.{f.name}"] = int(f.metadata[b"PARQUET:field_id"])
            parquet_ids(f.type, out, f"{path}.{f.name}")
    elif isinstance(t, pa.ListType):
        out[f"{path}.element"] = int(t.value_field.metadata[b"PARQUET:field_id"])
        parquet_ids(t.value_type, out, f"{path}.element")
    return out


def leaves(t, out, inside_list=False):
    """Leaf field ids of a lock type, each with whether it lies inside a list."""
    if isinstance(t, dict) and t["type"] == "struct":
        for f in t["fields"]:
            if isinstance(f["type"], str):
                out[f["id"]] = inside_list
            leaves(f["type"], out, inside_list)
    elif isinstance(t, dict) and t["type"] == "list":
        if isinstance(t["element"], str):
            out[t["element-id"]] = True
        leaves(t["element"], out, True)
    return out


def test_field_ids_are_the_locks_in_the_schema_and_the_data_files(loaded):
    d, _ = loaded
    t = lock_table(d, "bronze.comp")
    want = {}
    for c in t["columns"]:
        want[c["name"]] = c["id"]
        lock_ids(c["type"], want, c["name"])
    tbl = catalog(d).load_table("bronze.comp")
    schema = tbl.schema()
    have = {}
    for f in schema.fields:
        have[f.name] = f.field_id
        iceberg_ids(f.field_type, have, f.name)
    assert have == want
    assert max(want.values()) == t["last-column-id"] == tbl.metadata.last_column_id
    files = [task.file for task in tbl.scan().plan_files()]
    assert files
    for f in files:
        arrow = pq.read_schema(local_path(f.file_path))
        got = {}
        for field in arrow:
            got[field.name] = int(field.metadata[b"PARQUET:field_id"])
            parquet_ids(field.type, got, field.name)
        assert got == want


def test_file_statistics_are_per_leaf_field_id_without_bounds_inside_lists(loaded):
    d, _ = loaded
    t = lock_table(d, "bronze.comp")
    leaf = {}
    for c in t["columns"]:
        if isinstance(c["type"], str):
            leaf[c["id"]] = False
        leaves(c["type"], leaf)
    tbl = catalog(d).load_table("bronze.comp")
    for task in tbl.scan().plan_files():
        f = task.file
        assert set(f.value_counts) == set(leaf) == set(f.null_value_counts)
        assert set(f.lower_bounds) == set(f.upper_bounds)
        assert all(not inside for fid, inside in leaf.items() if fid in f.lower_bounds)
        # every leaf outside a list that holds a value has bounds
        ids = {}
        for c in t["columns"]:
            ids[c["name"]] = c["id"]
            lock_ids(c["type"], ids, c["name"])
        assert ids["home.street"] in f.lower_bounds and ids["p.at.zip"] in f.lower_bounds
        assert ids["homes.element.street"] not in f.lower_bounds
        # home.zip is null in row 2 and rows g % 7 = 0 (NULL records), and in row 3 (a record of NULLs)
        nulls = 1 + sum(1 for g in range(10, 25010) if g % 7 == 0) + 1
        assert f.value_counts[ids["home.zip"]] == f.record_count
        assert f.null_value_counts[ids["home.zip"]] == nulls
        import struct
        assert struct.unpack("<i", f.lower_bounds[ids["home.zip"]])[0] == 0
        assert struct.unpack("<i", f.upper_bounds[ids["home.zip"]])[0] == 25009


def dump_form(v, kind):
    """A pyarrow value in parquet_fixture's canonical form (see tests/tools/parquet_fixture.c)."""
    import struct
    if v is None:
        return None
    if isinstance(v, list):
        return [dump_form(x, kind) for x in v]
    if kind == "double":
        return "f64:%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
    if kind == "decimal":
        return f"{v:f}"
    if kind == "timestamptz":
        return (v - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(microseconds=1)
    if kind == "date":
        return (v - dt.date(1970, 1, 1)).days
    if kind in ("uuid", "binary"):
        return "x:" + (v.bytes if isinstance(v, uuid.UUID) else bytes(v)).hex()
    return v


def leaf_of(row, parts):
    """The value of a leaf path ("p.at.zip", "homes.list.element.zip") in a pyarrow row."""
    if not parts or row is None:
        return row
    if parts[0] == "list":
        return [leaf_of(x, parts[2:]) for x in row]
    return leaf_of(row[parts[0]], parts[1:])


def test_floes_own_reader_reads_struct_leaves_and_refuses_a_list_in_a_list(loaded):
    import os
    import subprocess
    d, _ = loaded
    tools = os.environ.get("FLOE_TOOLS", str(Path(__file__).resolve().parents[2] / "build" / "tools"))
    tbl = catalog(d).load_table("bronze.comp")
    for task in tbl.scan().plan_files():
        path = local_path(task.file.file_path)
        proc = subprocess.run([f"{tools}/parquet_fixture", "dump", path], capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        dump = json.loads(proc.stdout)
        rows = pq.read_table(path).to_pylist()
        leaves = {l["path"]: l for l in dump["leaves"]}
        refused = {p: l["unsupported"] for p, l in leaves.items() if l["type"] == "unsupported"}
        assert refused == {"homes.list.element.tags.list.element": "a list inside a list"}
        assert leaves["homes.list.element.zip"]["in_list"] and not leaves["p.at.zip"]["in_list"]
        for p, leaf in leaves.items():
            if p in refused:
                assert dump["columns"][p] is None
                continue
            want = [dump_form(leaf_of(r, p.split(".")), leaf["type"]) for r in rows]
            assert dump["columns"][p] == want, p
        # the footer's statistics, per leaf field id, agree with the manifest's
        stats = {c["field_id"]: c for c in dump["stats"]["columns"]}
        assert set(stats) == set(task.file.value_counts)
        for fid, c in stats.items():
            assert c["value_count"] == task.file.value_counts[fid]
            assert c["null_count"] == task.file.null_value_counts[fid]


def test_floe_query_prints_struct_and_list_columns_as_duckdb_text(src, loaded):
    """DuckDB has text for a nested value only through its cast to VARCHAR: `floe query` runs a
    result with struct or list columns through that cast, in every output format."""
    d, _ = loaded
    out = json.loads(src.floe(d, "query", "--json",
                              "SELECT id, home, homes, home.zip AS zip FROM bronze.comp WHERE id <= 3 ORDER BY id -- a comment").out)
    assert [r["id"] for r in out] == ["1", "2", "3"]
    assert out[0]["home"] == "{'street': Main St ☃, 'zip': 12345, 'tags': [a, NULL, '']}", out[0]
    assert out[0]["zip"] == "12345"
    assert out[0]["homes"].startswith("[{'street': A, 'zip': 1, 'tags': [x]}, NULL, {'street': NULL"), out[0]
    assert out[1]["home"] is None and out[1]["homes"] is None
    assert out[2]["home"] == "{'street': NULL, 'zip': NULL, 'tags': NULL}"  # a record of NULLs is not NULL
    table = src.floe(d, "query", "SELECT id, w FROM bronze.comp WHERE id = 1;").out
    assert "{'inner_t': {'label': ok" in table and "(1 row)" in table, table
    csv = src.floe(d, "query", "--csv", "SELECT p.name, geos FROM bronze.comp WHERE id = 1").out
    assert csv.splitlines() == ["name,geos", "Café,\"[{'lat': 1.0, 'lon': 2.0}, {'lat': NULL, 'lon': 3.0}]\""], csv
