"""Silver over a bronze table loaded in full: each run's bronze snapshot is diffed by key against
the one silver was last built from, so only the changed keys are rebuilt (docs/silver.md,
"Incremental"), and the audit of such a build stays exact — a new row that breaks a uniqueness
rule with an old row fails the table, though only the new rows' groups are read."""
import json

import pytest

from lakecheck import catalog, norm
from sourcedb import Source
from test_silver import run  # `floe run --json`: the result and its silver tables by name

SQL = '''
CREATE TABLE public.regions (region_id int PRIMARY KEY, code text NOT NULL, name text);
INSERT INTO public.regions SELECT g, 'r' || g, 'region ' || g FROM generate_series(1, 500) g;
'''

QUALITY = '''
[[rule]]
name = "unique_regions_code"
table = "public.regions"
kind = "unique"
columns = ["code"]

[[rule]]
name = "not_null_regions_name"
table = "public.regions"
kind = "not_null"
columns = ["name"]
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "silver_diff_it", "silver_diff_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("silver_diff")
    src.project(d, extra='\n[bronze]\ntarget-file-rows = 100\nwrite-mode = "copy-on-write"\n')
    (d / "quality").mkdir()
    (d / "quality" / "rules.toml").write_text(QUALITY)
    src.floe(d, "generate", check=0)
    r = src.floe(d, "run", "--json", check=0)
    assert {t["table"]: t["state"] for t in json.loads(r.out)["silver"]} == {"silver.regions": "built"}
    return d


def rows(d):
    got = catalog(d).load_table("silver.regions").scan().to_arrow().to_pylist()
    return sorted(([norm(v) for v in r.values()] for r in got), key=repr)


def expected(src):
    with src.reader() as conn:
        return sorted(([norm(v) for v in r] for r in conn.execute("select * from regions").fetchall()), key=repr)


def status_of(src, d, table):
    st = json.loads(src.floe(d, "status", "--json", check=None).out)
    return next(t for t in st["tables"] if t["table"] == table)


def quarantine(d):
    got = catalog(d).load_table("silver.regions__quarantine").scan().to_arrow().to_pylist()
    return sorted((r["region_id"], r["floe_rule"]) for r in got)


def test_status_json_counts_the_silver_tests_as_numbers(src, proj):
    d = proj
    lock = json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())
    n = len(next(t for t in lock["tables"] if t.get("silver", {}).get("table") == "silver.regions")["silver"]["tests"])
    row = status_of(src, d, "silver.regions")
    assert (row["tests_passed"], row["tests_failed"], row["tests_warned"], row["quarantined_rows"]) == (n, 0, 0, 0), row
    bronze = status_of(src, d, "bronze.regions")  # a bronze table has no tests: null, like every unknown count
    assert (bronze["tests_passed"], bronze["tests_failed"], bronze["quarantined_rows"]) == (None, None, None), bronze


def test_a_full_bronze_table_rebuilds_only_its_changed_keys(src, proj):
    d = proj
    lock = json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())
    t = next(t for t in lock["tables"] if t.get("silver", {}).get("table") == "silver.regions")
    assert t["silver"]["materialized"] == "table", t
    src.admin("UPDATE public.regions SET name = 'renamed' WHERE region_id = 7")
    src.admin("DELETE FROM public.regions WHERE region_id = 8")
    src.admin("INSERT INTO public.regions VALUES (501, 'r501', 'new')")
    r, silver = run(src, d)
    assert r.rc == 0, r.out + r.err
    s = silver["silver.regions"]
    assert s["state"] == "built" and s["changed_keys"] == 3, s
    # keys 7 and 8 are in the first key range's file: it is rewritten, the other four are kept
    summary = catalog(d).load_table("silver.regions").current_snapshot().summary
    assert summary["deleted-data-files"] == "1", summary
    assert rows(d) == expected(src)
    incremental = rows(d)
    r, silver = run(src, d, "--layer", "silver", "--full-refresh")
    assert r.rc == 0 and silver["silver.regions"]["changed_keys"] == -1, silver
    assert rows(d) == incremental


def test_a_new_bronze_snapshot_with_the_same_rows_publishes_nothing(src, proj):
    d = proj
    before = catalog(d).load_table("silver.regions").current_snapshot().snapshot_id
    r, silver = run(src, d)  # bronze loads the table in full again: a new snapshot, the same rows
    assert r.rc == 0, r.out + r.err
    s = silver["silver.regions"]
    assert s["state"] == "built" and s["changed_keys"] == 0 and s["tests"]["failed"] == 0, s
    assert catalog(d).load_table("silver.regions").current_snapshot().snapshot_id == before


def test_a_new_row_duplicating_an_old_rows_value_fails_uniqueness(src, proj):
    d = proj
    before = catalog(d).load_table("silver.regions").current_snapshot().snapshot_id
    src.admin("INSERT INTO public.regions VALUES (502, 'r3', 'copy of 3')")
    r, silver = run(src, d)
    assert r.rc == 1, r.out + r.err
    s = silver["silver.regions"]
    assert s["state"] == "failed" and "unique_regions_code failed: 2 rows, keys (r3)" in s["error"], s
    assert catalog(d).load_table("silver.regions").current_snapshot().snapshot_id == before
    src.admin("DELETE FROM public.regions WHERE region_id = 502")


def test_a_hand_edited_table_model_builds_in_full(src, proj):
    d = proj
    src.admin("UPDATE public.regions SET name = 'again' WHERE region_id = 9")
    m = d / "pipeline" / "dbt" / "models" / "silver" / "regions.sql"
    m.write_text(m.read_text().replace('"name"', 'upper("name") as "name"', 1))
    r, silver = run(src, d)
    assert r.rc == 0, r.out + r.err
    assert silver["silver.regions"]["changed_keys"] == -1, silver  # a hand-edited model may not be per key
    with src.reader() as conn:
        want = sorted(([norm(v) for v in r] for r in conn.execute(
            "select region_id, code, upper(name) from regions").fetchall()), key=repr)
    assert rows(d) == want
    src.floe(d, "generate", check=0)  # the hand edit stays (drift): put the generated model back
    m.write_text(m.read_text().replace('upper("name") as "name"', '"name"', 1))
    r, silver = run(src, d, "--layer", "silver")
    assert r.rc == 0 and rows(d) == expected(src), r.out + r.err


def test_a_full_refresh_does_not_quarantine_the_same_row_again(src, proj):
    d = proj
    src.admin("INSERT INTO public.regions VALUES (600, 'r600', NULL)")
    r, silver = run(src, d)
    assert r.rc == 0 and silver["silver.regions"]["quarantined"] == 1, r.out + r.err
    assert quarantine(d) == [(600, "not_null_regions_name")]
    assert status_of(src, d, "silver.regions")["quarantined_rows"] == 1
    for _ in range(2):
        r, silver = run(src, d, "--layer", "silver", "--full-refresh")
        assert r.rc == 0 and silver["silver.regions"]["quarantined"] == 1, r.out + r.err
    assert quarantine(d) == [(600, "not_null_regions_name")]
    # an incremental build that does not touch the row keeps it once; one that fixes it removes it
    src.admin("UPDATE public.regions SET name = 'other' WHERE region_id = 10")
    r, silver = run(src, d)
    assert r.rc == 0 and silver["silver.regions"]["changed_keys"] == 1, silver
    assert quarantine(d) == [(600, "not_null_regions_name")]
    src.admin("UPDATE public.regions SET name = 'fixed' WHERE region_id = 600")
    r, silver = run(src, d)
    assert r.rc == 0 and silver["silver.regions"]["changed_keys"] == 1, silver
    assert quarantine(d) == [] and rows(d) == expected(src)


def test_silver_alone_counts_the_tables_whose_bronze_is_not_reconciled(src, proj):
    d = proj
    src.admin("CREATE TABLE public.zones (zone_id int PRIMARY KEY, label text)")
    src.admin("INSERT INTO public.zones VALUES (1, 'a'), (2, 'b')")
    src.admin(f"GRANT SELECT ON public.zones TO {src.role}")
    src.floe(d, "generate", check=0)
    r = src.floe(d, "run", "--table", "public.zones", "--layer", "bronze", "--no-reconcile", check=0)
    r, silver = run(src, d, "--layer", "silver", "--table", "public.zones")
    assert r.rc == 0, r.out + r.err
    out = json.loads(r.out)
    assert out["not_reconciled"] == 1 and silver["silver.zones"]["state"] == "skipped", out
    assert "not reconciled" in silver["silver.zones"]["detail"], silver


def test_a_failed_build_names_duckdbs_error_class_never_a_value(src, proj):
    d = proj
    src.admin("UPDATE public.regions SET name = 'PLANTEDVALUE' || region_id")
    m = d / "pipeline" / "dbt" / "models" / "silver" / "regions.sql"
    text = m.read_text()
    m.write_text(text.replace('"name"', 'cast("name" as int) as "name"', 1))  # DuckDB quotes what it cannot convert
    r, silver = run(src, d)
    assert r.rc != 0, r.out + r.err
    err = silver["silver.regions"]["error"]
    assert "DuckDB's Conversion error" in err and "pipeline/dbt/models/silver/regions.sql" in err, err
    row = status_of(src, d, "silver.regions")
    assert row["state"] == "failed", row
    ledger = [p.read_bytes().decode("latin-1") for p in (d / ".floe").glob("state.db*")]
    for where in [r.out, r.err, src.floe(d, "status", check=None).out, json.dumps(row)] + ledger:
        assert "PLANTEDVALUE" not in where
    m.write_text(text)


def test_a_first_build_that_fails_its_tests_leaves_no_table(src, proj):
    d = proj
    src.admin("CREATE TABLE public.pairs (pair_id int, label text)")
    src.admin("INSERT INTO public.pairs VALUES (1, 'a'), (1, 'b'), (2, 'c')")
    src.admin(f"GRANT SELECT ON public.pairs TO {src.role}")
    rules = d / "quality" / "rules.toml"
    rules.write_text(rules.read_text() + '''
[[rule]]
name = "unique_pairs_pair_id"
table = "public.pairs"
kind = "unique"
columns = ["pair_id"]
''')
    src.floe(d, "generate", check=0)
    r, silver = run(src, d, "--table", "public.pairs")
    assert r.rc == 1 and silver["silver.pairs"]["state"] == "failed", r.out + r.err
    assert "unique_pairs_pair_id failed: 2 rows, keys (1)" in silver["silver.pairs"]["error"], silver
    # readers see no silver.pairs at all — not an empty table — and no file of the build is left
    assert not catalog(d).table_exists("silver.pairs")
    assert not list((d / "warehouse").glob("silver/pairs*/**/*.parquet"))
    src.admin("DELETE FROM public.pairs WHERE label = 'b'")
    r, silver = run(src, d, "--table", "public.pairs")
    assert r.rc == 0 and silver["silver.pairs"]["state"] == "built", r.out + r.err
    assert catalog(d).load_table("silver.pairs").scan().to_arrow().num_rows == 2
