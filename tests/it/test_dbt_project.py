"""`floe generate` writes pipeline/dbt/, and real dbt (dbt-core + dbt-duckdb, .venv-dbt) parses,
compiles and builds it against floe's bronze tables: tests derived from the shop's primary keys,
NOT NULLs, foreign keys, enum and CHECKs, user rules from quality/*.toml, PII masked with
floe_hmac, every file hashed in the lock, a hand edit kept as drift, an untranslatable CHECK
named, no credential in any generated file, and a planted orphan failing `relationships`.

dbt runs from pipeline/dbt (profiles.yml and the plugins are found there); its interpreter is
$FLOE_DBT or <repo>/.venv-dbt/bin/dbt (scripts/setup-dbt.sh).
"""
import hashlib
import hmac
import json
import os
import subprocess
from pathlib import Path

import duckdb
import pytest

from conftest import REPO, floe
from lakecheck import lock_of
from sourcedb import Source

DBT = os.environ.get("FLOE_DBT", str(REPO / ".venv-dbt" / "bin" / "dbt"))
PII_KEY = "pii-key-" + "5f3a9c"  # a test key: it must appear in no generated file
QUALITY = '''
[[rule]]
table = "public.order_items"
kind = "range"
columns = ["price"]
min = 0
max = 100000
severity = "warn"

[[rule]]
table = "public.customers"
kind = "regex"
columns = ["customer_state"]
pattern = '^[A-Z]{2}$'

[[rule]]
table = "public.orders"
kind = "row_count"
min = 1

[[rule]]
table = "public.orders"
kind = "freshness"
columns = ["updated_at"]
max_age_seconds = 86400
severity = "warn"        # the shop's timeline ends in 2018: stale, reported, not fatal
'''
EXTRA = ('\n[silver.pii]\n"public.customers.customer_email" = "hmac"\n"public.customers.customer_city" = "null"\n'
         '"public.customers.customer_unique_id" = "hmac"\n')


def dbt(d: Path, *args, check=0):
    if not Path(DBT).exists():
        pytest.fail(f"dbt not found at {DBT}: run scripts/setup-dbt.sh (or set FLOE_DBT)")
    env = dict(os.environ, FLOE_PII_KEY=PII_KEY, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    p = subprocess.run([DBT, *args, "--profiles-dir", ".", "--project-dir", "."], cwd=d / "pipeline" / "dbt",
                       env=env, capture_output=True, text=True, timeout=600)
    if check is not None:
        assert p.returncode == check, p.stdout[-6000:] + p.stderr[-3000:]
    return p


@pytest.fixture(scope="module", autouse=True)
def pii_key():
    """floe generate and run refuse to start without the key when floe.toml masks with hmac."""
    old = os.environ.get("FLOE_PII_KEY")
    os.environ["FLOE_PII_KEY"] = PII_KEY
    yield
    if old is None:
        del os.environ["FLOE_PII_KEY"]
    else:
        os.environ["FLOE_PII_KEY"] = old


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "dbt_it", "dbt_reader")
    s.create("")
    floe("shop", "generate", "--scale", "0.01", "--seed", "7",
         "--target", f"{stack['socket_dir']}:{stack['port']}/dbt_it", check=0)
    # A CHECK no DuckDB translation keeps (a regular expression operator): left out, and said so.
    s.admin("ALTER TABLE customers ADD CONSTRAINT customers_email_shape CHECK (customer_email ~ '@')")
    # Hostile names: quotes in table and column names, Jinja in a comment and in a column name.
    s.admin('CREATE SCHEMA "Odd Schema"; '
            'CREATE TABLE "Odd Schema"."Mixed ""Case""" ("Col ""x""" int PRIMARY KEY, "a\'b" text NOT NULL '
            'CHECK ("a\'b" <> \'x\'), "Up" int CHECK ("Up" > 0 AND "Up" < 100)); '
            'COMMENT ON TABLE "Odd Schema"."Mixed ""Case""" IS \'has {{ boom }} and {% x %} and "quotes"\'; '
            'INSERT INTO "Odd Schema"."Mixed ""Case""" VALUES (1, \'it\'\'s\', 5), (2, \'b\', NULL); '
            'CREATE TABLE "Odd Schema".jin ("{{y}}" int PRIMARY KEY)')
    s.grant_read("public", "Odd Schema")
    return s


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("dbtproj")
    src.project(d, schemas=("public", "Odd Schema"), extra=EXTRA)
    src.floe(d, "init", check=0)
    (d / "quality").mkdir()
    (d / "quality" / "shop.toml").write_text(QUALITY)
    gen = src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    return {"dir": d, "generate": gen}


@pytest.fixture(scope="module")
def built(proj):
    d = proj["dir"]
    parse = dbt(d, "parse", "--warn-error")
    compiled = dbt(d, "compile")
    build = dbt(d, "build")
    manifest = json.loads((d / "pipeline" / "dbt" / "target" / "manifest.json").read_text())
    return {"parse": parse, "compile": compiled, "build": build, "manifest": manifest}


def dbt_tests_of(manifest):
    return {n["name"]: n for n in manifest["nodes"].values() if n["resource_type"] == "test"}


def test_dbt_parse_compile_and_build_are_clean(built):
    out = built["build"].stdout
    assert "ERROR=0" in out and "WARN=1 " in out, out[-3000:]
    assert "WARN 1 freshness_orders_updated_at" in out.replace("\x1b[33m", "").replace("\x1b[0m", ""), out[-3000:]
    # 9 shop tables, each a silver model in schema silver, read from the bronze source
    models = {n["name"]: n for n in built["manifest"]["nodes"].values() if n["resource_type"] == "model"}
    assert len(models) == 10 and all(m["schema"] == "silver" for m in models.values())
    odd = next(m for m in models.values() if m["name"].startswith("odd_schema_mixed_case-"))
    assert odd["description"] == 'has {{ boom }} and {% x %} and "quotes"'  # rendered as written
    assert "OK created sql table model silver.odd_schema_mixed_case-" in out.replace(
        "\x1b[32m", "").replace("\x1b[0m", ""), out[-3000:]
    assert models["orders"]["depends_on"]["nodes"] == ["source.dbt_it.bronze.orders"]
    assert models["orders"]["config"]["materialized"] == "incremental"
    assert models["customers"]["config"]["materialized"] == "table"
    assert "Orders placed on the marketplace" in models["orders"]["description"]
    assert models["orders"]["columns"]["order_id"]["description"] == "Order identifier."


def test_derived_tests_in_schema_yml_and_manifest(proj, built):
    tests = dbt_tests_of(built["manifest"])
    meta = {k: (v["test_metadata"]["name"],
                {a: x for a, x in v["test_metadata"]["kwargs"].items() if a not in ("model", "column_name")},
                v["config"]["severity"].upper()) for k, v in tests.items()}
    # primary key → unique + not_null; composite → one combined uniqueness test
    assert meta["unique_orders_order_id"][0] == "unique"
    assert meta["not_null_orders_order_id"][0] == "not_null"
    assert meta["unique_combination_order_items"][0] == "floe_unique_combination"
    assert meta["unique_combination_order_items"][1]["columns"] == ["order_id", "order_item_id"]
    # NOT NULL → not_null
    assert meta["not_null_orders_order_purchase_timestamp"][0] == "not_null"
    assert "not_null_orders_order_approved_at" not in meta  # nullable
    # foreign key → relationships, to the referenced silver model
    rel = meta["relationships_orders_customer_id_fkey"]
    assert rel[0] == "relationships" and rel[1]["field"] == "customer_id" and "ref('customers')" in rel[1]["to"]
    # enum → accepted_values with the labels in order
    av = meta["accepted_values_orders_order_status"]
    assert av[0] == "accepted_values" and av[1]["values"][:3] == ["created", "approved", "invoiced"]
    # CHECK (col IN (...)) → accepted_values; other CHECKs → row rules in DuckDB SQL
    assert meta["check_payments_payment_type_check"][1]["values"] == [
        "credit_card", "boleto", "voucher", "debit_card", "not_defined"]
    assert meta["check_order_items_price_check"] == ("floe_row_rule", {"expression": '("price" >= 0)'}, "ERROR")
    assert meta["check_orders_approved_after_purchase"][1]["expression"] == \
        '("order_approved_at" >= "order_purchase_timestamp")'
    # quality/shop.toml → range (warn), regex, row_count, freshness
    assert meta["range_order_items_price"] == ("floe_range", {"min_value": 0, "max_value": 100000}, "WARN")
    assert meta["regex_customers_customer_state"][0] == "floe_regex"
    assert meta["row_count_orders_rows"][1] == {"min_rows": 1}
    assert meta["freshness_orders_updated_at"][1]["max_age_seconds"] == 86400
    assert meta["freshness_orders_updated_at"][2] == "WARN"
    # the untranslatable CHECK is not a test
    assert not [k for k in meta if "email_shape" in k]
    schema = (proj["dir"] / "pipeline" / "dbt" / "models" / "silver" / "schema.yml").read_text()
    assert "data_tests:" in schema and "arguments:" in schema and "severity: warn" in schema
    assert "\n    tests:" not in schema and "\n        tests:" not in schema
    # every test ran: the models and tests pass, the stale table warns
    assert f"PASS={len(tests) + 10 - 1} WARN=1" in built["build"].stdout


def test_lock_silver_section_and_every_dbt_file_hashed(proj):
    d = proj["dir"]
    lock = lock_of(d)
    hashes = dict(lock["files"])
    for t in lock["tables"]:
        hashes.update(t["files"])
    dbt_dir = d / "pipeline" / "dbt"
    committed = subprocess.run(["git", "-C", str(d / "pipeline"), "ls-files", "dbt"], capture_output=True,
                               text=True, check=True).stdout.split()
    assert len(committed) >= 9 + 9, committed
    for rel in committed:
        assert rel in hashes, rel
        assert hashlib.sha256((d / "pipeline" / rel).read_bytes()).hexdigest() == hashes[rel], rel
    assert (dbt_dir / "profiles.yml").exists() and (dbt_dir / "floe_plugins" / "floe_udfs.py").exists()
    orders = next(t for t in lock["tables"] if t["table"] == "orders")
    s = orders["silver"]
    assert s["table"] == "silver.orders" and s["model"] == "dbt/models/silver/orders.sql"
    assert s["materialized"] == "incremental" and s["unique_key"] == ["order_id"]
    assert [c["id"] for c in s["columns"]] == [c["id"] for c in orders["columns"]]
    assert {t["origin"] for t in s["tests"]} >= {"primary key", "not null", "foreign key orders_customer_id_fkey",
                                                 "enum order_status", "check orders_approved_after_purchase",
                                                 "quality/shop.toml"}
    customers = next(t for t in lock["tables"] if t["table"] == "customers")["silver"]
    email = next(c for c in customers["columns"] if c["name"] == "customer_email")
    assert email["pii"] == "hmac" and email["type"] == "string"


def test_masked_column_holds_the_hmac(src, proj, built):
    with src.reader() as conn:
        clear = {r[0]: r[1:] for r in conn.execute(
            "select customer_id::text, customer_email, customer_unique_id::text from customers").fetchall()}
    db = proj["dir"] / "pipeline" / "dbt" / "floe_dbt.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("select customer_id::varchar, customer_email, customer_unique_id "
                           "from silver.customers").fetchall()
    assert len(rows) == len(clear) > 0
    mac = lambda v: hmac.new(PII_KEY.encode(), v.encode(), hashlib.sha256).hexdigest()
    for cid, email, unique_id in rows:
        assert email == mac(clear[cid][0]) and email != clear[cid][0]
        assert unique_id == mac(clear[cid][1])  # a uuid column: the HMAC of its text form
    with duckdb.connect(str(db), read_only=True) as con:
        cities = con.execute("select count(*), count(customer_city), any_value(typeof(customer_city)) "
                             "from silver.customers").fetchone()
    assert cities == (len(clear), 0, "VARCHAR")  # pii = null: the column kept, typed, empty
    # a test over the nulled column cannot run in silver: left out and said so
    assert "column customer_city is masked (pii = null)" in proj["generate"].out
    assert "not_null_customers_customer_city" not in (proj["dir"] / "pipeline" / "dbt" / "models" / "silver" /
                                                      "schema.yml").read_text()


def test_untranslatable_check_is_named_by_plan_and_generate(src, proj):
    gen = proj["generate"].out
    assert "CHECK customers_email_shape not tested in silver" in gen and "operator ~" in gen, gen
    assert "Odd Schema.jin: no silver model: the name {{y}} holds Jinja delimiters" in gen, gen
    plan = src.floe(proj["dir"], "plan", check=0).out
    assert "silver does not test CHECK customers_email_shape" in plan and "operator ~" in plan, plan


def test_no_credential_in_generated_files(src, proj, built):
    for path in (proj["dir"] / "pipeline").rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            data = path.read_bytes()
            assert src.password.encode() not in data, path
            assert PII_KEY.encode() not in data, path
    profiles = (proj["dir"] / "pipeline" / "dbt" / "profiles.yml").read_text()
    assert "password: \"{{ env_var('FLOE_TRINO_PASSWORD'" in profiles


def test_the_trino_target_and_the_models_are_trinos_too(proj):
    """What `make scale-out` runs on a real Trino (tests/scaleout/test_trino.py), checked here on
    the text: the trino target's method and scheme are variables (a private Trino: none over
    http), and a model deduplicates without QUALIFY, which Trino does not parse."""
    dbt_dir = proj["dir"] / "pipeline" / "dbt"
    profiles = (dbt_dir / "profiles.yml").read_text()
    assert "method: \"{{ env_var('FLOE_TRINO_METHOD', 'ldap') }}\"" in profiles, profiles
    assert "http_scheme: \"{{ env_var('FLOE_TRINO_HTTP_SCHEME', 'https') }}\"" in profiles, profiles
    orders = (dbt_dir / "models" / "silver" / "orders.sql").read_text()
    assert "qualify" not in orders.lower() and orders.endswith(") numbered\nwhere floe_row_number = 1\n"), orders
    assert 'select *, row_number() over (partition by "order_id" order by "updated_at" desc) as floe_row_number' in orders


def test_hand_edit_is_kept_and_reported_as_drift(src, proj):
    d = proj["dir"]
    model = d / "pipeline" / "dbt" / "models" / "silver" / "orders.sql"
    before = lock_of(d)
    edited = model.read_text() + "-- a person's note\n"
    model.write_text(edited)
    r = src.floe(d, "generate", "--json", check=0)
    files = {f["path"]: f for f in json.loads(r.out)["files"]}
    assert files["dbt/models/silver/orders.sql"]["action"] == "kept"
    assert files["dbt/models/silver/orders.sql"]["drift"] is True
    assert model.read_text() == edited
    after = lock_of(d)
    key = "dbt/models/silver/orders.sql"
    orders = lambda lk: next(t for t in lk["tables"] if t["table"] == "orders")["files"][key]
    assert orders(after) == orders(before)  # what floe would write, so the drift stays visible
    status = json.loads(src.floe(d, "status", "--json", check=0).out)
    assert status["drift"] and next(t for t in status["tables"] if t["table"] == "bronze.orders")["drift"]
    model.unlink()
    r = src.floe(d, "generate", "--json", check=0)
    assert {f["path"]: f["action"] for f in json.loads(r.out)["files"]}[key] == "restored"


@pytest.mark.parametrize("text, message", [
    ('[[rule]]\ntable = "public.orders"\nkind = "row_count"\nminimum = 1\n',
     "quality/zz_bad.toml:4:1: unknown key `minimum` in a row_count [[rule]]"),
    ('[[rule]]\ntable = "public.nope"\nkind = "not_null"\ncolumns = ["a"]\n',
     "quality/zz_bad.toml:1:1: table public.nope is not among the tables floe plans"),
    ('[[rule]]\ntable = "public.orders"\nkind = "not_null"\ncolumns = ["nope"]\n',
     'quality/zz_bad.toml:1:1: public.orders has no column "nope"'),
])
def test_quality_rule_mistakes_are_configuration_errors(src, proj, text, message):
    bad = proj["dir"] / "quality" / "zz_bad.toml"
    bad.write_text(text)
    try:
        r = src.floe(proj["dir"], "generate", check=2)
        assert message in r.err, r
    finally:
        bad.unlink()


def test_incremental_build_holds_what_a_full_build_gives(src, proj, built):
    """Updates, inserts and deletes in the source; bronze loads them; dbt's incremental run of
    silver.orders (the watermark predicate, delete+insert, the floe_remove_deleted post-hook)
    ends with the source's rows, as a full build would."""
    d = proj["dir"]
    with src.reader() as conn:
        gone = [r[0] for r in conn.execute("select order_id from orders order by order_id limit 2").fetchall()]
    ids = ", ".join(f"'{g}'" for g in gone)
    src.admin(f"DELETE FROM reviews WHERE order_id IN ({ids}); DELETE FROM payments WHERE order_id IN ({ids}); "
              f"DELETE FROM order_items WHERE order_id IN ({ids}); DELETE FROM orders WHERE order_id IN ({ids}); "
              "UPDATE orders SET order_status = 'canceled' WHERE order_id = "
              "(SELECT order_id FROM orders ORDER BY order_id DESC LIMIT 1)")
    floe("shop", "tick", "--target", f"{src.stack['socket_dir']}:{src.stack['port']}/dbt_it", check=0)
    src.floe(d, "run", check=0)
    r = dbt(d, "build", "--select", "orders", check=None)
    assert "OK loaded" in r.stdout or "OK created" in r.stdout or "OK " in r.stdout, r.stdout[-3000:]
    assert "incremental model silver.orders" in r.stdout, r.stdout[-3000:]
    with src.reader() as conn:
        want = sorted(conn.execute("select order_id::text, order_status::text, updated_at from orders").fetchall())
    db = d / "pipeline" / "dbt" / "floe_dbt.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute("SET TimeZone = 'UTC'")
        got = sorted(con.execute("select order_id::varchar, order_status, updated_at from silver.orders").fetchall())
    assert not set(gone) & {g[0] for g in got}
    assert got == want


def test_orphan_foreign_key_fails_relationships(src, proj, built):
    d = proj["dir"]
    src.admin("SET session_replication_role = replica; "
              "INSERT INTO orders (order_id, customer_id, order_status, order_purchase_timestamp, "
              "order_estimated_delivery_date) VALUES (gen_random_uuid(), gen_random_uuid(), 'created', "
              "now(), current_date)")
    # floe's own silver run fails the same test and keeps silver.orders' previous snapshot (docs/silver.md)
    run = src.floe(d, "run", check=1)
    assert "relationships_orders_customer_id_fkey failed: 1 row" in run.out, run.out
    r = dbt(d, "build", check=None)
    assert r.returncode != 0
    assert "FAIL 1 relationships_orders_customer_id_fkey" in r.stdout.replace("\x1b[31m", "").replace(
        "\x1b[0m", "") or ("relationships_orders_customer_id_fkey" in r.stdout and "Got 1 result" in r.stdout), \
        r.stdout[-4000:]
