"""Bronze names: one bronze table per source table, for good.

A bronze name a deployed plan gave to a source table stays that table's: a table that
arrives later with the same name (a new schema `h` with table `a__b` next to `h__a.b`, both
`bronze.h__a__b`), or one differing only in case, is refused with the reason, and a load never
writes one source table into another's Iceberg table (the table records its source). Names an
Iceberg table name cannot hold ('.', '/', control characters) are refused in plan, and every
name floe prints reaches the terminal escaped."""
import json
import re

import pytest

from lakecheck import catalog, lock_of
from sourcedb import Source

TAKEOVER = '''
CREATE SCHEMA h__a;
CREATE SCHEMA h;
CREATE TABLE h__a.b (id int PRIMARY KEY, v text);
CREATE TABLE h.a__b (id int PRIMARY KEY, v text);
INSERT INTO h__a.b VALUES (1, 'owner-1'), (2, 'owner-2');
INSERT INTO h.a__b VALUES (10, 'newcomer-10'), (11, 'newcomer-11'), (12, 'newcomer-12');
'''


def rows(d, bronze):
    return sorted(catalog(d).load_table(bronze).scan().to_arrow().to_pylist(), key=lambda r: r["id"])


def initialised(stack, tmp_path_factory, name, sql, *schemas):
    """A source made by `sql` and a project on it, reading `schemas`, after `floe init`."""
    src = Source.readable(stack, f"names_{name}", f"names_{name}_reader", sql, schemas=schemas)
    d = tmp_path_factory.mktemp(name)
    src.project(d, schemas=schemas)
    src.floe(d, "init", check=0)
    return src, d


def owner_rows():
    return [{"id": 1, "v": "owner-1"}, {"id": 2, "v": "owner-2"}]


@pytest.fixture(scope="module")
def takeover(stack, tmp_path_factory):
    src, d = initialised(stack, tmp_path_factory, "takeover", TAKEOVER, "h__a")
    src.grant_read("h")
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    assert rows(d, "bronze.h__a__b") == owner_rows()
    src.project(d, schemas=("h__a", "h"))  # schema h arrives: h.a__b is bronze.h__a__b too
    return src, d


def test_a_newcomer_is_refused_the_name_another_table_owns(takeover):
    src, d = takeover
    plan = src.plan(d)
    assert plan[("h__a", "b")]["mode"] == "full"
    newcomer = plan[("h", "a__b")]
    assert newcomer["mode"] == "refused", newcomer
    assert "bronze.h__a__b belongs to h__a.b" in newcomer["reason"], newcomer["reason"]
    text = src.floe(d, "plan", check=0).out
    assert "belongs to h__a.b" in text

    src.floe(d, "generate", check=0)
    lk = {(t["schema"], t["table"]): t for t in lock_of(d)["tables"]}
    assert lk[("h", "a__b")]["mode"] == "refused" and not lk[("h", "a__b")]["files"]
    assert lk[("h__a", "b")]["mode"] == "full"

    run = json.loads(src.floe(d, "run", "--json", check=0).out)
    by_source = {t["source"]: t for t in run["tables"]}
    assert by_source["h__a.b"]["state"] == "loaded" and by_source["h__a.b"]["check"] == "verified"
    assert by_source["h.a__b"]["state"] == "refused", by_source["h.a__b"]
    assert rows(d, "bronze.h__a__b") == owner_rows()

    status = json.loads(src.floe(d, "status", "--json", check=0).out)["tables"]
    named = [t for t in status if t["table"] == "bronze.h__a__b"]
    assert len(named) == 1 and named[0]["source"] == "h__a.b" and named[0]["state"] == "verified", status
    refused = [t for t in status if t["source"] == "h.a__b"]
    assert len(refused) == 1 and refused[0]["state"] == "refused", status
    assert "belongs to h__a.b" in refused[0]["facts"]

    # bronze.h__a__b names the owner alone, in run and reconcile alike.
    one = json.loads(src.floe(d, "run", "--table", "bronze.h__a__b", "--json", check=0).out)["tables"]
    assert [(t["source"], t["state"]) for t in one] == [("h__a.b", "loaded")], one
    rec = json.loads(src.floe(d, "reconcile", "--table", "bronze.h__a__b", "--json", check=0).out)
    assert [t["outcome"] for t in rec["tables"]] == ["verified"], rec
    assert rows(d, "bronze.h__a__b") == owner_rows()

    # A bronze table made before it recorded its source is claimed by its next load.
    with catalog(d).load_table("bronze.h__a__b").transaction() as tx:
        tx.remove_properties("floe.source-schema", "floe.source-table")
    assert "floe.source-table" not in catalog(d).load_table("bronze.h__a__b").properties
    src.floe(d, "run", "--table", "h__a.b", check=0)
    props = catalog(d).load_table("bronze.h__a__b").properties
    assert props.get("floe.source-schema") == "h__a" and props.get("floe.source-table") == "b", props


def test_a_load_never_writes_into_another_tables_iceberg_table(takeover):
    """A lock edited by hand (or left by a version that let names collide) that sends h.a__b
    into bronze.h__a__b: the Iceberg table says whose rows it holds, and the load fails."""
    src, d = takeover
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    path = d / "pipeline" / "lakehouse.lock.json"
    lk = json.loads(path.read_text())
    owner = next(t for t in lk["tables"] if t["schema"] == "h__a")
    forged = dict(owner, schema="h", table="a__b")
    sql_path = next(iter(owner["files"]))
    (d / "pipeline" / sql_path).write_text('SELECT "id", "v" FROM h.a__b\n')
    lk["tables"] = [forged]
    path.write_text(json.dumps(lk, indent=2))

    r = src.floe(d, "run", "--json")
    assert r.rc == 1, r
    t = json.loads(r.out)["tables"][0]
    assert t["source"] == "h.a__b" and t["state"] == "failed", t
    assert "holds the rows of h__a.b, not of h.a__b" in t["error"], t
    assert rows(d, "bronze.h__a__b") == owner_rows()
    props = catalog(d).load_table("bronze.h__a__b").properties
    assert props.get("floe.source-schema") == "h__a" and props.get("floe.source-table") == "b", props


CASES = '''
CREATE SCHEMA c;
CREATE TABLE c."CamelCase" (id int PRIMARY KEY);
CREATE TABLE c.camelcase (id int PRIMARY KEY);
INSERT INTO c."CamelCase" VALUES (1);
INSERT INTO c.camelcase VALUES (2);
'''


def test_names_differing_only_in_case_are_one_name(stack, tmp_path_factory):
    src, d = initialised(stack, tmp_path_factory, "case", CASES, "c")
    plan = src.plan(d)
    first, second = plan[("c", "CamelCase")], plan[("c", "camelcase")]
    assert first["mode"] == "full", first
    assert second["mode"] == "refused", second
    assert "already taken by c.CamelCase" in second["reason"] and "only in case" in second["reason"]
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    assert [r["id"] for r in rows(d, "bronze.c__CamelCase")] == [1]
    # The owner keeps the name once it leaves the plan: its Iceberg table keeps its rows.
    src.admin('DROP TABLE c."CamelCase"')
    src.floe(d, "generate", check=0)
    t = src.plan(d)[("c", "camelcase")]
    assert t["mode"] == "refused" and "belongs to c.CamelCase" in t["reason"] and "removed" in t["reason"], t
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    assert [r["id"] for r in rows(d, "bronze.c__CamelCase")] == [1]


HOSTILE = '''
CREATE SCHEMA x;
CREATE TABLE x."a.b" (id int PRIMARY KEY);
CREATE TABLE x."a/b" (id int PRIMARY KEY);
CREATE TABLE x."new
line" (id int PRIMARY KEY);
CREATE TABLE x."esc{esc}[31m" (id int PRIMARY KEY);
CREATE TABLE x."c1{csi}name" (id int PRIMARY KEY, "col
nl" text, "e{esc}[31m" text, "c1{nel}x" text);
INSERT INTO x."c1{csi}name" VALUES (1, 'a', 'b', 'c'), (2, NULL, 'x', 'y');
'''.replace("{esc}", "\x1b").replace("{csi}", "\u009b").replace("{nel}", "\u0085")

RAW = ("\x1b", "\u009b", "\u0085", "new\nline", "col\nnl")


def no_raw_control(label, r):
    for text in (r.out, r.err):
        for raw in RAW:
            assert raw not in text, f"{label}: raw {raw!r} in output\n{r!r}"
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]", text), f"{label}: {r!r}"


def test_hostile_names_refused_in_plan_and_escaped_everywhere(stack, tmp_path_factory):
    src, d = initialised(stack, tmp_path_factory, "hostile", HOSTILE, "x")
    plan = src.plan(d)
    for name, why in (("a.b", "'.'"), ("a/b", "'/'"), ("new\nline", "control character"),
                      ("esc\x1b[31m", "control character")):
        t = plan[("x", name)]
        assert t["mode"] == "refused" and why in t["reason"] and "Iceberg table name" in t["reason"], t
    assert plan[("x", "c1\u009bname")]["mode"] == "full"

    outputs = {}
    for args in (("plan",), ("generate",), ("run",), ("status",), ("reconcile",), ("run", "--no-reconcile"),
                 ("query", 'select * from bronze."x__c1\u009bname" order by id'),
                 ("reconcile", "--table", "bronze.nope\x1b[31m\nx")):
        r = src.floe(d, *args)
        outputs[args[0] + " ".join(args[1:2])] = r
        no_raw_control(args, r)
    for args in (("plan",), ("run",), ("status",), ("reconcile",), ("generate",),
                 ("query", 'select * from bronze."x__c1\u009bname"')):
        no_raw_control(args + ("--json",), src.floe(d, *args, "--json"))  # JSON escapes them
    assert outputs["plan"].rc == 0 and "x.new\\nline" in outputs["plan"].out
    assert "x.c1\\u{009b}name" in outputs["plan"].out and "col\\nnl" in outputs["plan"].out
    assert "e\\e[31m" in outputs["plan"].out and "c1\\u{0085}x" in outputs["plan"].out
    assert outputs["generate"].rc == 0
    run = outputs["run"]
    assert run.rc == 0, run
    assert "x__new\\nline" in run.out, run
    assert "1 failed" not in run.out and "internal error" not in run.out, run
    assert "bronze.x__c1\\u{009b}name" in outputs["status"].out
    assert outputs["reconcile"].rc == 0, outputs["reconcile"]
    q = outputs["queryselect * from bronze.\"x__c1\u009bname\" order by id"]
    assert q.rc == 0 and "col\\nnl" in q.out and "e\\e[31m" in q.out, q
    bad = outputs["reconcile--table"]
    assert bad.rc == 2 and "nope\\e[31m\\nx" in bad.err, bad

    # The refused tables were skipped by run as refused, with the plan's reason.
    run = json.loads(src.floe(d, "run", "--json", check=0).out)
    states = {t["source"]: t["state"] for t in run["tables"]}
    assert states["x.a.b"] == states["x.a/b"] == states["x.new\nline"] == "refused", states
    assert states["x.c1\u009bname"] == "loaded"
    got = rows(d, "bronze.x__c1\u009bname")
    assert got == [{"id": 1, "col\nnl": "a", "e\x1b[31m": "b", "c1\u0085x": "c"},
                   {"id": 2, "col\nnl": None, "e\x1b[31m": "x", "c1\u0085x": "y"}]
