"""A lost catalog (warehouse/catalog.db deleted) is noticed, never papered over: run, query,
reconcile and status stop and name `floe catalog recover`; no command creates an empty catalog
over tables on disk; `floe catalog recover` registers each table from its newest valid metadata
file with its whole history, so PyIceberg sees the same snapshots, DuckDB reads the tables, and
the next run continues incrementally. A damaged newest metadata file is passed over and named."""
import json
import os

import pytest

from icebergkit import local_path
from lakecheck import assert_equals_source, catalog, duckdb_iceberg
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.events (id bigint PRIMARY KEY, payload text,
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.events SELECT g, 'p' || g, now() - interval '1 day' - g * interval '1 second'
    FROM generate_series(1, 5000) g;
CREATE TABLE public.colours (name text PRIMARY KEY, hex text);
INSERT INTO public.colours VALUES ('red', '#f00'), ('green', '#0f0');
CREATE SCHEMA shop;
CREATE TABLE shop.items (id int PRIMARY KEY, label text);
INSERT INTO shop.items SELECT g, 'item ' || g FROM generate_series(1, 300) g;
'''
TABLES = ("bronze.events", "bronze.colours", "bronze.shop__items")


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "recover_it", "recover_reader", SQL, schemas=("public", "shop"))


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    """Two runs with changes between them: every table has a history of its own."""
    d = src.generated(tmp_path_factory.mktemp("recover"), schemas=("public", "shop"))
    src.floe(d, "run", check=0)
    src.admin("UPDATE public.events SET payload = 'changed' WHERE id <= 10")
    src.admin("INSERT INTO public.colours VALUES ('blue', '#00f')")
    src.admin("INSERT INTO shop.items VALUES (301, 'item 301')")
    src.floe(d, "run", check=0)
    return d


def every_table(d):
    """Every table the catalog lists: the bronze tables, and the silver ones `floe run` built."""
    cat = catalog(d)
    return sorted(".".join(t) for ns in cat.list_namespaces() for t in cat.list_tables(ns))


def history(d, tables=TABLES):
    return {t: [(s.snapshot_id, s.parent_snapshot_id, s.summary.get("floe.run-id"))
                for s in catalog(d).load_table(t).snapshots()] for t in tables}


def recover(src, d, *args, check=0):
    return json.loads(src.floe(d, "catalog", "recover", "--json", *args, check=check).out)


def test_a_lost_catalog_stops_every_command_and_recover_brings_back_every_table(src, proj):
    d = proj
    tables = every_table(d)
    assert set(TABLES) <= set(tables) and any(t.startswith("silver.") for t in tables), tables
    before = history(d, tables)
    assert all(len(before[t]) >= 2 for t in TABLES), before
    db = d / "warehouse" / "catalog.db"
    db.unlink()

    run = src.floe(d, "run", check=2)
    assert f"is missing, but the warehouse holds {len(tables)} tables" in run.err, run
    assert "floe catalog recover" in run.err, run
    assert not db.exists(), "run created an empty catalog over the tables on disk"
    for args in (("query", "select 1"), ("reconcile",), ("init",)):
        r = src.floe(d, *args)
        assert r.rc == 2 and "floe catalog recover" in r.err, (args, r)
        assert not db.exists(), args

    status = src.floe(d, "status", check=1)
    rows = [line for line in status.out.splitlines() if line.startswith("bronze.")]
    assert len(rows) == 3 and all(" catalog missing " in r and "verified" not in r for r in rows), status
    assert "floe catalog recover" in status.out, status
    js = json.loads(src.floe(d, "status", "--json", check=1).out)
    assert js["catalog_missing"] == len(js["tables"]) and "is missing" in js["catalog_error"], js
    assert sorted(t["table"] for t in js["tables"] if t["layer"] == "bronze") == sorted(TABLES), js
    assert {t["state"] for t in js["tables"]} == {"catalog missing"}, js

    dry = recover(src, d, "--dry-run")
    assert [t["action"] for t in dry["tables"]] == ["would register"] * len(tables), dry
    assert not db.exists(), "a dry run created the catalog"

    got = recover(src, d)
    by_name = {f'{t["namespace"]}.{t["table"]}': t for t in got["tables"]}
    assert sorted(by_name) == tables, got
    for name, t in by_name.items():
        assert t["action"] == "registered" and t["damaged"] == [], t
        assert t["snapshots"] == len(before[name]), (t, before[name])
    assert history(d, tables) == before
    for t in TABLES:
        assert_equals_source(src, d, t)  # PyIceberg and DuckDB's iceberg_scan

    again = recover(src, d)
    assert [t["action"] for t in again["tables"]] == ["kept"] * len(tables), again

    status = src.floe(d, "status", check=0)
    assert "catalog missing" not in status.out, status
    src.floe(d, "query", "select count(*) from bronze.events", check=0)

    src.admin("UPDATE public.events SET payload = 'again' WHERE id BETWEEN 11 AND 20")
    src.floe(d, "run", check=0)
    s = catalog(d).load_table("bronze.events").current_snapshot().summary
    assert s["floe.load-mode"] == "incremental" and int(s["floe.rows-read"]) < 100, s
    assert len(catalog(d).load_table("bronze.events").snapshots()) == len(before["bronze.events"]) + 1
    assert_equals_source(src, d, "bronze.events")


def test_a_damaged_newest_metadata_file_is_passed_over_and_named(src, proj):
    d = proj
    tbl = catalog(d).load_table("bronze.colours")
    newest = tbl.metadata_location
    snapshots = len(tbl.snapshots())
    meta = sorted((d / "warehouse" / "bronze" / "colours" / "metadata").glob("*.metadata.json"))
    assert newest.endswith(meta[-1].name), (newest, meta)
    (d / "warehouse" / "catalog.db").unlink()
    meta[-1].write_text(meta[-1].read_text()[:200])  # a torn write

    got = recover(src, d)
    t = next(t for t in got["tables"] if t["table"] == "colours")
    assert t["action"] == "registered", t
    assert t["metadata_location"].endswith(meta[-2].name), t
    assert [x["file"].rsplit("/", 1)[1] for x in t["damaged"]] == [meta[-1].name], t
    assert t["damaged"][0]["reason"], t
    text = src.floe(d, "catalog", "recover", "--dry-run", check=0).out
    assert "kept" in text and "passed over" not in text, text

    tbl = catalog(d).load_table("bronze.colours")
    assert tbl.metadata_location.endswith(meta[-2].name)
    assert len(tbl.snapshots()) <= snapshots
    con = duckdb_iceberg()
    assert con.execute(f"select count(*) from iceberg_scan('{tbl.metadata_location}')").fetchone()[0] >= 2


def test_an_entry_whose_metadata_file_is_gone_is_pointed_at_the_newest_valid_one(src, proj):
    d = proj
    gone = catalog(d).load_table("bronze.shop__items").metadata_location
    path = local_path(gone)
    previous = sorted(p.name for p in (d / "warehouse" / "bronze" / "shop__items" / "metadata").glob("*.metadata.json")
                      if p.name != path.rsplit("/", 1)[1])[-1]
    os.remove(path)

    text = src.floe(d, "catalog", "recover", check=0).out
    assert "repaired" in text and "bronze.shop__items" in text, text
    assert catalog(d).load_table("bronze.shop__items").metadata_location.endswith(previous)
    assert len(catalog(d).load_table("bronze.shop__items").scan().to_arrow()) >= 300
    got = recover(src, d)
    assert {t["action"] for t in got["tables"]} == {"kept"}, got
