"""`floe plan` against a real PostgreSQL: every built-in type classified as docs/types.md says,
the watermark proof on real triggers, refusals, skips, partitions and hostile names."""
import json
import re

import pytest

from conftest import REPO, floe
from sourcedb import Source

# column type → (Iceberg type, class), as docs/types.md states them
MATRIX = {
    "bool": ("boolean", "exact"), "int2": ("int", "widening"), "int4": ("int", "exact"),
    "int8": ("long", "exact"), "float4": ("float", "exact"), "float8": ("double", "exact"),
    "numeric(12,2)": ("decimal(12,2)", "exact"), "numeric(38,38)": ("decimal(38,38)", "exact"),
    "numeric(5,-2)": ("decimal(7,0)", "exact"), "numeric(3,5)": ("decimal(5,5)", "exact"),
    "numeric(50,10)": ("string", "exact"), "numeric": ("string", "exact"),
    "money": ("decimal(19,2)", "lossy"),
    "char(5)": ("string", "exact"), "varchar(20)": ("string", "exact"), "text": ("string", "exact"),
    "name": ("string", "exact"), '"char"': ("string", "exact"), "bytea": ("binary", "exact"),
    "date": ("date", "exact"), "time": ("time", "exact"), "timetz": ("string", "exact"),
    "timestamp": ("timestamp", "exact"), "timestamptz": ("timestamptz", "exact"),
    "interval": ("string", "exact"), "uuid": ("uuid", "exact"),
    "json": ("string", "exact"), "jsonb": ("string", "exact"), "jsonpath": ("string", "exact"),
    "xml": ("string", "exact"), "inet": ("string", "exact"), "cidr": ("string", "exact"),
    "macaddr": ("string", "exact"), "macaddr8": ("string", "exact"),
    "bit(4)": ("string", "exact"), "varbit(8)": ("string", "exact"),
    "tsvector": ("string", "exact"), "tsquery": ("string", "exact"),
    "point": ("string", "exact"), "line": ("string", "exact"), "lseg": ("string", "exact"),
    "box": ("string", "exact"), "path": ("string", "exact"), "polygon": ("string", "exact"),
    "circle": ("string", "exact"),
    "int4range": ("string", "exact"), "int8range": ("string", "exact"),
    "numrange": ("string", "exact"), "daterange": ("string", "exact"),
    "tsrange": ("string", "exact"), "tstzrange": ("string", "exact"),
    "int4multirange": ("string", "exact"), "int8multirange": ("string", "exact"),
    "nummultirange": ("string", "exact"), "datemultirange": ("string", "exact"),
    "tsmultirange": ("string", "exact"), "tstzmultirange": ("string", "exact"),
    "oid": ("long", "widening"), "regclass": ("long", "widening"),
    "regcollation": ("long", "widening"), "regconfig": ("long", "widening"),
    "regdictionary": ("long", "widening"), "regnamespace": ("long", "widening"),
    "regoper": ("long", "widening"), "regoperator": ("long", "widening"),
    "regproc": ("long", "widening"), "regprocedure": ("long", "widening"),
    "regrole": ("long", "widening"), "regtype": ("long", "widening"),
    "xid": ("long", "widening"), "xid8": ("decimal(20,0)", "widening"), "cid": ("long", "widening"),
    "tid": ("string", "exact"), "pg_lsn": ("string", "exact"),
    "txid_snapshot": ("string", "exact"), "pg_snapshot": ("string", "exact"),
    "aclitem": ("string", "exact"), "refcursor": ("string", "exact"),
    "int2vector": ("list<int>", "widening"), "oidvector": ("list<long>", "widening"),
    "int4[]": ("list<int>", "exact"), "text[]": ("list<string>", "exact"),
    "jsonb[]": ("list<string>", "exact"), "numeric(8,3)[]": ("list<decimal(8,3)>", "exact"),
    "money[]": ("list<decimal(19,2)>", "lossy"), "timestamptz[]": ("list<timestamptz>", "exact"),
    "mood": ("string", "exact"), "mood[]": ("list<string>", "exact"),
    "posint": ("int", "exact"), "price": ("decimal(10,2)", "exact"), "posint[]": ("list<int>", "exact"),
    "addr": ("struct<street: string, zip: string, loc: string>", "exact"),
    "pair": ("struct<a: int, b: string>", "exact"), "pair[]": ("list<struct<a: int, b: string>>", "exact"),
    "citext": ("string", "exact"),
}
REFUSED = ["pg_node_tree", "gtsvector", "pg_ndistinct", "pg_dependencies", "pg_mcv_list",
           "pg_brin_bloom_summary", "pg_brin_minmax_multi_summary", "hstore", "addr[]"]


def column_name(sql_type):
    words = sql_type.lower().replace("[]", " array").replace("-", "minus ")
    return "c_" + re.sub(r"[^a-z0-9]+", "_", words).strip("_")


TOUCH = """CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.updated_at := now(); RETURN NEW; END $$;"""
TOUCH_IF = """CREATE FUNCTION touch_if() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.body IS DISTINCT FROM OLD.body THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END $$;"""
TOUCH_IF_ELSE = """CREATE FUNCTION touch_if_else() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.body IS DISTINCT FROM OLD.body THEN NEW.updated_at := clock_timestamp();
  ELSE NEW.updated_at = current_timestamp; END IF;
  RETURN NEW;
END $$;"""
TOUCH_LATER = """CREATE FUNCTION touch_later() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.updated_at := OLD.updated_at + interval '1 second'; RETURN NEW; END $$;"""


def proof_table(name, trigger="", default="DEFAULT now()", pk="PRIMARY KEY"):
    sql = f"CREATE TABLE {name} (id int {pk}, body text, updated_at timestamptz {default});\n"
    if trigger:
        sql += trigger.format(t=name) + ";\n"
    return sql


SCHEMA = "\n".join([
    "CREATE EXTENSION hstore; CREATE EXTENSION citext;",
    "CREATE TYPE mood AS ENUM ('sad', 'ok');",
    "CREATE DOMAIN posint AS int CHECK (VALUE > 0);",
    "CREATE DOMAIN price AS numeric(10,2);",
    "CREATE TYPE addr AS (street text, zip varchar(10), loc point);",
    "CREATE TYPE pair AS (a int, b text);",
    "CREATE TABLE matrix (id int PRIMARY KEY, "
    + ", ".join(f"{column_name(t)} {t}" for t in MATRIX) + ");",
    "CREATE TABLE refused_types (id int PRIMARY KEY, "
    + ", ".join(f"{column_name(t)} {t}" for t in REFUSED) + ");",
    TOUCH, TOUCH_IF, TOUCH_IF_ELSE, TOUCH_LATER,
    proof_table("t_proven", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch()"),
    proof_table("t_no_trigger"),
    proof_table("t_disabled", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch();"
                " ALTER TABLE {t} DISABLE TRIGGER touch"),
    proof_table("t_after", "CREATE TRIGGER touch AFTER UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch()"),
    proof_table("t_statement", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH STATEMENT EXECUTE FUNCTION touch()"),
    proof_table("t_if_only", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch_if()"),
    proof_table("t_if_else", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch_if_else()"),
    proof_table("t_not_now", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch_later()"),
    proof_table("t_no_default", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch()",
                default=""),
    proof_table("t_no_pk", "CREATE TRIGGER touch BEFORE UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION touch()", pk=""),
    proof_table("t_update_of", "CREATE TRIGGER touch BEFORE UPDATE OF body ON {t} FOR EACH ROW EXECUTE FUNCTION touch()"),
    "CREATE TABLE t_wm_config (id int PRIMARY KEY, created_at timestamptz DEFAULT now(),"
    " updated_at timestamptz DEFAULT now());",
    "CREATE TRIGGER touch BEFORE UPDATE ON t_wm_config FOR EACH ROW EXECUTE FUNCTION touch();",
    "CREATE TABLE t_secret (id int PRIMARY KEY, name text, secret text);",
    "CREATE VIEW v_orders AS SELECT id, body FROM t_proven;",
    "CREATE MATERIALIZED VIEW mv_orders AS SELECT id FROM t_proven;",
    "CREATE UNLOGGED TABLE t_unlogged (id int PRIMARY KEY);",
    "CREATE TABLE excluded_one (id int);",
    "CREATE TABLE events (id int, at date, updated_at timestamptz DEFAULT now(), PRIMARY KEY (id, at))"
    " PARTITION BY RANGE (at);",
    "CREATE TABLE events_2023 PARTITION OF events FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');",
    "CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');",
    "CREATE TRIGGER touch BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION touch();",
    'CREATE SCHEMA "Sales Ω";',
    'CREATE TABLE "Sales Ω"."Order ""Items""" ("Mixed Case" int PRIMARY KEY, "select" text,'
    ' "naïve col" jsonb, "quote""d" numeric, "tab\tname" date);',
    "INSERT INTO \"Sales Ω\".\"Order \"\"Items\"\"\" VALUES (1, 'a', '{\"k\": 1}', 1.5, '2024-02-29');",
    "GRANT USAGE ON SCHEMA public, \"Sales Ω\" TO {role};",
    "GRANT SELECT ON ALL TABLES IN SCHEMA public, \"Sales Ω\" TO {role};",
    "REVOKE SELECT ON t_secret FROM {role}; GRANT SELECT (id, name) ON t_secret TO {role};",
])

HOSTILE = ("Sales Ω", 'Order "Items"')


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "plan_it", "plan_reader")
    s.create(SCHEMA.replace("{role}", s.role))
    return s


@pytest.fixture(scope="module")
def plan(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("plan")
    extra = ('exclude = ["public.excluded_one"]\n\n[watermarks]\n"public.t_wm_config" = "created_at"\n')
    src.project(d, schemas=["public", "Sales Ω"], extra=extra)
    return src.plan(d), d


def columns(table):
    return {c["name"]: c for c in table["columns"]}


def docs_rows():
    text = (REPO / "docs" / "types.md").read_text()
    table = text.split("<!-- types:begin (floe plan --types) -->\n")[1].split("<!-- types:end -->")[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows[cells[0].replace("\\|", "|")] = cells
    return rows


def test_every_builtin_type_is_classified_as_documented(plan):
    tables, _ = plan
    t = tables[("public", "matrix")]
    cols = columns(t)
    docs = docs_rows()
    for sql_type, (iceberg, cls) in MATRIX.items():
        c = cols[column_name(sql_type)]
        assert (c["iceberg_type"], c["class"]) == (iceberg, cls), (sql_type, c)
        assert c["rule"] in docs, (sql_type, c["rule"])
        if c["rule"] not in ("domains", "composite types", "T[] (an array of a mapped type)"):
            assert docs[c["rule"]][2] == cls, (sql_type, docs[c["rule"]])
    assert t["mode"] == "full" and "has no timestamp column" not in t["reason"]
    assert "2 columns are lossy" in " ".join(t["notes"])


def test_refused_types_refuse_the_table_naming_the_column(plan):
    tables, _ = plan
    t = tables[("public", "refused_types")]
    assert t["mode"] == "refused"
    assert "column c_pg_node_tree (pg_node_tree) cannot be carried" in t["reason"]
    cols = columns(t)
    for sql_type in REFUSED:
        assert cols[column_name(sql_type)]["class"] == "refused", sql_type
    assert t["file"] is None and t["sql"] is None


def test_the_type_table_covers_every_type_of_the_server(src):
    r = floe("plan", "--types", "--json", check=0)
    keys = {row["key"] for row in json.loads(r.out)["types"]}
    with src.reader() as conn:
        names = [n for (n,) in conn.execute(
            "select t.typname from pg_type t join pg_namespace n on n.oid = t.typnamespace"
            " where n.nspname = 'pg_catalog' and t.typtype in ('b', 'r', 'm')"
            " and not exists (select 1 from pg_type e where e.typarray = t.oid)")]
    assert len(names) > 80
    missing = [n for n in names if n not in keys and n != "numeric"]
    assert missing == [], missing
    md = floe("plan", "--types", check=0).out
    assert md in (REPO / "docs" / "types.md").read_text()


@pytest.mark.parametrize("table, mode, fragment", [
    ("t_proven", "incremental", "t_proven.updated_at is set from the clock on every update by trigger touch"),
    ("t_no_trigger", "full", "t_no_trigger.updated_at has no BEFORE UPDATE trigger setting it"),
    ("t_disabled", "full", "is set by trigger touch, but that trigger is disabled"),
    ("t_after", "full", "fires AFTER"),
    ("t_statement", "full", "FOR EACH STATEMENT"),
    ("t_if_only", "full", "returns NEW (line 6) on a path that does not set it"),
    ("t_if_else", "incremental", "trigger touch"),
    ("t_not_now", "full", "assigns it from `OLD.updated_at + interval '1 second'` (line 2)"),
    ("t_no_default", "full", "has no insert default of now() or current_timestamp"),
    ("t_no_pk", "full", "t_no_pk has no primary key"),
    ("t_update_of", "full", "fires only on UPDATE OF some columns"),
    ("t_wm_config", "full", "t_wm_config.created_at has no BEFORE UPDATE trigger setting it"),
])
def test_watermark_proof(plan, table, mode, fragment):
    tables, _ = plan
    t = tables[("public", table)]
    assert t["mode"] == mode, t
    assert fragment in t["reason"], t["reason"]
    if mode == "incremental":
        assert t["watermark"] == "updated_at" and t["key"] == ["id"]
    else:
        assert t["watermark"] is None


def test_watermark_config_picks_among_proven_columns(plan):
    t = plan[0][("public", "t_wm_config")]
    cands = {c["column"]: c for c in t["watermark_candidates"]}
    assert cands["updated_at"]["proven"] and not cands["created_at"]["proven"]


def test_hidden_column_refuses_its_table_only(plan):
    tables, _ = plan
    t = tables[("public", "t_secret")]
    assert t["mode"] == "refused"
    assert "column secret is not visible to role plan_reader" in t["reason"]
    assert not columns(t)["secret"]["visible"] and columns(t)["name"]["visible"]
    assert tables[("public", "t_proven")]["mode"] == "incremental"


def test_views_skipped_partitions_through_parent(plan):
    tables, _ = plan
    assert tables[("public", "v_orders")]["mode"] == "skipped"
    assert "view" in tables[("public", "v_orders")]["reason"]
    assert tables[("public", "mv_orders")]["mode"] == "skipped"
    ev = tables[("public", "events")]
    assert ev["kind"] == "partitioned table" and ev["mode"] == "incremental", ev
    assert any("2 partitions load through it" in n for n in ev["notes"])
    assert ("public", "events_2023") not in tables and ("public", "events_2024") not in tables
    assert ("public", "excluded_one") not in tables
    assert tables[("public", "t_unlogged")]["mode"] == "full"
    assert any(n.startswith("unlogged") for n in tables[("public", "t_unlogged")]["notes"])


def test_hostile_names_round_trip(plan, src):
    tables, _ = plan
    t = tables[HOSTILE]
    assert t["bronze"] == 'bronze.Sales Ω__Order "Items"'
    assert re.fullmatch(r"bronze/sales_order_items-[0-9a-f]{12}\.sql", t["file"]), t["file"]
    names = [c["name"] for c in t["columns"]]
    assert names == ["Mixed Case", "select", "naïve col", 'quote"d', "tab\tname"]
    assert t["key"] == ["Mixed Case"]
    assert 'FROM "Sales Ω"."Order ""Items"""' in t["sql"]
    session = {"search_path": "pg_catalog", "IntervalStyle": "iso_8601", "TimeZone": "UTC"}
    got, rows = src.run_extraction(t["sql"], session)
    assert got == names
    assert rows == [(1, "a", '{"k": 1}', "1.5", __import__("datetime").date(2024, 2, 29))]


def test_text_output_and_exit_codes(plan, src):
    _, d = plan
    r = src.floe(d, "plan", check=0)
    assert "public.t_proven → bronze.t_proven  incremental" in r.out
    assert "public.t_secret → bronze.t_secret  refused" in r.out
    assert "  public.v_orders  a view" in r.out
    assert re.search(r"c_int2\s+smallint\s+→ int\s+widening", r.out)
    assert "Sales Ω.Order \"Items\" → bronze.Sales Ω__Order \"Items\"" in r.out
    assert "tab\\tname" in r.out  # a control character cannot break the layout
    assert re.search(r"\d+ tables: \d+ incremental, \d+ full, \d+ refused; 2 skipped", r.out)
    r = src.floe(d, "plan", "--strict")
    assert r.rc == 1, r


def test_plan_unreachable_source_exits_3(project):
    (project / "floe.toml").write_text('[source]\nhost = "127.0.0.1"\nport = 1\ndatabase = "x"\nuser = "x"\n')
    r = floe("-C", str(project), "plan")
    assert r.rc == 3 and "could not connect" in r.err, r
