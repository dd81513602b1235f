"""`floe shop`: the Olist-shaped source, checked by an independent reader (psycopg + SQL).

Everything runs in a database of its own (`shop_it`), provisioned like the demo's with
`floe stack up --database shop_it --reader floe_reader`, so other test files are untouched.
The scale-1 shop is generated once for the module; the other tests use small shops in their
own schemas.
"""
import json
import subprocess
import time

import psycopg
import pytest

from conftest import FLOE, OUTPUTS, floe

DB = "shop_it"


# ---- fixtures and helpers ----------------------------------------------------------------


@pytest.fixture(scope="module")
def shopdb(stack):
    """The module's database and how to reach it: the trusted socket as the owner."""
    floe("stack", "up", "--database", DB, "--reader", "floe_reader", cwd=stack["dir"],
         env={"FLOE_SOURCE_PASSWORD": stack["password"]}, check=0)
    yield {
        "target": f"{stack['socket_dir']}:{stack['port']}/{DB}",
        "dsn": f"host={stack['socket_dir']} port={stack['port']} user=postgres dbname={DB}",
        "stack": stack,
    }
    # Dropping the database discards its dirty buffers, so the cluster's shutdown stays quick.
    with psycopg.connect(stack["admin"], autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")


def shop(shopdb, *args, check=0):
    return floe("shop", *args, "--target", shopdb["target"], check=check)


def connect(shopdb, schema="public"):
    conn = psycopg.connect(shopdb["dsn"], autocommit=True)
    conn.execute(f'SET search_path = "{schema}"')
    return conn


def one(conn, sql, *params):
    return conn.execute(sql, params or None).fetchone()[0]


def shares(conn, sql):
    """{key: share} from a query returning (key, count)."""
    rows = conn.execute(sql).fetchall()
    total = sum(r[1] for r in rows)
    return {r[0]: r[1] / total for r in rows}


@pytest.fixture(scope="module")
def scale1(shopdb):
    started = time.monotonic()
    r = shop(shopdb, "generate", "--scale", "1", "--seed", "1", "--replace", "--json")
    result = json.loads(r.out)
    result["wall_seconds"] = time.monotonic() - started
    return result


@pytest.fixture(scope="module")
def s1(shopdb, scale1):
    with connect(shopdb) as conn:
        yield conn


def small_shop(shopdb, schema, scale="0.05", seed="3"):
    r = shop(shopdb, "generate", "--scale", scale, "--seed", seed, "--schema", schema, "--replace", "--json")
    return json.loads(r.out)


def orphans(conn, schema):
    """Rows whose foreign key finds no parent, for every foreign key in the schema (from the catalog)."""
    fks = conn.execute(
        """SELECT c.conrelid::regclass::text, c.confrelid::regclass::text,
                  array_agg(a.attname ORDER BY k.ord), array_agg(b.attname ORDER BY k.ord)
           FROM pg_constraint c
           CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY k(ck, fk, ord)
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.ck
           JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = k.fk
           WHERE c.contype = 'f' AND c.connamespace = %s::regnamespace
           GROUP BY c.oid, c.conrelid, c.confrelid""", (schema,)).fetchall()
    found = {}
    for child, parent, ccols, pcols in fks:
        on = " AND ".join(f"p.{p} = c.{c}" for c, p in zip(ccols, pcols))
        notnull = " AND ".join(f"c.{c} IS NOT NULL" for c in ccols)
        n = one(conn, f"SELECT count(*) FROM {child} c WHERE {notnull} AND NOT EXISTS "
                      f"(SELECT 1 FROM {parent} p WHERE {on})")
        found[f"{child}({','.join(ccols)}) -> {parent}"] = n
    return found


CAUSAL = {
    "approved before purchase": "SELECT count(*) FROM orders WHERE order_approved_at < order_purchase_timestamp",
    "carrier before approval": "SELECT count(*) FROM orders WHERE order_delivered_carrier_date < order_approved_at",
    "carrier without approval": "SELECT count(*) FROM orders WHERE order_delivered_carrier_date IS NOT NULL "
                                "AND order_approved_at IS NULL",
    "delivered before carrier": "SELECT count(*) FROM orders "
                                "WHERE order_delivered_customer_date < order_delivered_carrier_date",
    "delivered iff status delivered": "SELECT count(*) FROM orders WHERE (order_delivered_customer_date IS NOT NULL)"
                                      " <> (order_status = 'delivered')",
    "promise before purchase": "SELECT count(*) FROM orders "
                               "WHERE order_estimated_delivery_date <= order_purchase_timestamp::date",
    "updated before purchase": "SELECT count(*) FROM orders "
                               "WHERE updated_at < order_purchase_timestamp AT TIME ZONE INTERVAL '-03:00'",
    "shipping limit before purchase": "SELECT count(*) FROM order_items i JOIN orders o USING (order_id) "
                                      "WHERE i.shipping_limit_date < o.order_purchase_timestamp",
    "review of an undelivered order": "SELECT count(*) FROM reviews r JOIN orders o USING (order_id) "
                                      "WHERE o.order_status NOT IN ('delivered', 'canceled')",
    "review before delivery": "SELECT count(*) FROM reviews r JOIN orders o USING (order_id) "
                              "WHERE r.review_creation_date < o.order_delivered_customer_date::date",
    "review before purchase": "SELECT count(*) FROM reviews r JOIN orders o USING (order_id) "
                              "WHERE r.review_creation_date < o.order_purchase_timestamp::date",
    "answer before review": "SELECT count(*) FROM reviews "
                            "WHERE review_answer_timestamp < review_creation_date::timestamp",
    "payments differ from items": "SELECT count(*) FROM (SELECT order_id, sum(price + freight_value) s "
                                  "FROM order_items GROUP BY 1) i JOIN (SELECT order_id, sum(payment_value) s "
                                  "FROM payments GROUP BY 1) p USING (order_id) WHERE i.s <> p.s",
}


def causal_violations(conn):
    return {name: n for name, sql in CAUSAL.items() if (n := one(conn, sql))}


# ---- scale 1: size, distributions, causality, integrity ------------------------------------


def test_scale1_has_olists_size(scale1, s1):
    counts = {t["name"]: t["rows"] for t in scale1["tables"]}
    assert counts["orders"] == 99441 and counts["customers"] == 99441
    assert counts["products"] == 32951 and counts["sellers"] == 3095
    assert counts["product_categories"] == 71
    assert abs(counts["order_items"] / 112650 - 1) < 0.01
    assert abs(counts["payments"] / 103886 - 1) < 0.01
    assert 95000 < counts["reviews"] < 100000
    assert 15000 < counts["geolocation"] < 25000
    assert abs(one(s1, "SELECT count(DISTINCT customer_unique_id) FROM customers") / 96096 - 1) < 0.01
    # what the command reported is what is there
    for t in scale1["tables"]:
        assert one(s1, f"SELECT count(*) FROM {t['name']}") == t["rows"], t



def test_order_status_mix(s1):
    got = shares(s1, "SELECT order_status::text, count(*) FROM orders GROUP BY 1")
    want = {"delivered": (0.970, 0.01), "shipped": (0.011, 0.003), "canceled": (0.0063, 0.002),
            "unavailable": (0.0061, 0.002), "invoiced": (0.0032, 0.0015), "processing": (0.0030, 0.0015)}
    for status, (share, tol) in want.items():
        assert abs(got[status] - share) < tol, (status, got)
    assert got.get("created", 0) < 0.0005 and got.get("approved", 0) < 0.0005


def test_items_per_order(s1):
    got = shares(s1, "SELECT n, count(*) FROM (SELECT count(*) n FROM order_items GROUP BY order_id) s GROUP BY 1")
    assert abs(got[1] - 0.901) < 0.01, got
    assert abs(got[2] - 0.076) < 0.01, got
    assert abs(got[3] - 0.013) < 0.005, got
    assert max(got) >= 8  # the long tail


def test_payment_mix_and_installments(s1):
    got = shares(s1, "SELECT payment_type, count(*) FROM payments GROUP BY 1")
    assert abs(got["credit_card"] - 0.739) < 0.02, got
    assert abs(got["boleto"] - 0.190) < 0.01, got
    assert abs(got["voucher"] - 0.056) < 0.01, got
    assert abs(got["debit_card"] - 0.015) < 0.005, got
    inst = shares(s1, "SELECT payment_installments, count(*) FROM payments WHERE payment_type = 'credit_card' "
                      "GROUP BY 1")
    assert abs(inst[1] - 0.331) < 0.02 and abs(inst[10] - 0.069) < 0.01, inst
    assert one(s1, "SELECT count(*) FROM payments WHERE payment_type <> 'credit_card' "
                   "AND payment_installments <> 1") == 0
    # vouchers split orders into several payments
    multi = one(s1, "SELECT count(*) FROM (SELECT order_id FROM payments GROUP BY 1 HAVING count(*) > 1) s")
    assert 2000 < multi < 4000
    assert one(s1, "SELECT count(*) FROM orders o WHERE NOT EXISTS "
                   "(SELECT 1 FROM payments p WHERE p.order_id = o.order_id)") == 0


def test_review_scores_and_texts(s1):
    got = shares(s1, "SELECT review_score, count(*) FROM reviews GROUP BY 1")
    want = {5: (0.583, 0.01), 4: (0.196, 0.01), 3: (0.082, 0.01), 2: (0.031, 0.005), 1: (0.109, 0.01)}
    for score, (share, tol) in want.items():
        assert abs(got[score] - share) < tol, (score, got)
    with_text = one(s1, "SELECT avg((review_comment_message IS NOT NULL)::int) FROM reviews")
    assert 0.3 < with_text < 0.5
    # late deliveries are reviewed worse
    late, on_time = s1.execute(
        "SELECT avg(review_score) FILTER (WHERE late), avg(review_score) FILTER (WHERE NOT late) FROM "
        "(SELECT r.review_score, o.order_delivered_customer_date::date > o.order_estimated_delivery_date late "
        "FROM reviews r JOIN orders o USING (order_id) WHERE o.order_status = 'delivered') s").fetchone()
    assert late < on_time - 1
    assert one(s1, "SELECT count(*) FROM reviews WHERE review_comment_message LIKE E'%\\r\\n%'") > 0


def test_customers_states_and_returning(s1):
    got = shares(s1, "SELECT customer_state, count(*) FROM customers GROUP BY 1")
    assert abs(got["SP"] - 0.42) < 0.01 and abs(got["RJ"] - 0.129) < 0.01 and abs(got["MG"] - 0.117) < 0.01, got
    assert len(got) == 27
    returning = one(s1, "SELECT avg((n > 1)::int) FROM (SELECT count(*) n FROM customers "
                        "GROUP BY customer_unique_id) s")
    assert 0.025 < returning < 0.04, returning
    # a returning customer's later order comes after the first
    assert one(s1, "SELECT count(*) FROM (SELECT customer_unique_id, min(order_number) FILTER (WHERE rn = 1) f, "
                   "min(order_number) FILTER (WHERE rn = 2) s FROM (SELECT c.customer_unique_id, o.order_number, "
                   "row_number() OVER (PARTITION BY c.customer_unique_id ORDER BY o.order_purchase_timestamp) rn "
                   "FROM customers c JOIN orders o USING (customer_id)) x GROUP BY 1) y WHERE s < f") == 0


def test_purchase_calendar(s1):
    weekday = shares(s1, "SELECT extract(isodow FROM order_purchase_timestamp)::int, count(*) FROM orders GROUP BY 1")
    assert abs(weekday[1] - 0.163) < 0.01 and abs(weekday[6] - 0.109) < 0.01, weekday
    hour = shares(s1, "SELECT extract(hour FROM order_purchase_timestamp)::int, count(*) FROM orders GROUP BY 1")
    assert hour[16] > 0.06 and hour[4] < 0.005, hour
    months = dict(s1.execute("SELECT to_char(order_purchase_timestamp, 'YYYY-MM'), count(*) FROM orders "
                             "GROUP BY 1").fetchall())
    assert abs(months["2017-11"] - 7544) < 80 and abs(months["2018-01"] - 7269) < 80, months
    assert min(months) == "2016-09" and max(months) == "2018-10"
    black_friday = one(s1, "SELECT count(*) FROM orders WHERE order_purchase_timestamp::date = '2017-11-24'")
    assert black_friday > 800


def test_prices_freight_and_delivery(s1):
    med_price, med_freight = s1.execute(
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY price), "
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY freight_value) FROM order_items").fetchone()
    assert 60 < med_price < 95 and 12 < med_freight < 21
    # price depends on the product: its sellers' prices stay within a few percent
    spread = one(s1, "SELECT max(max_p / min_p) FROM (SELECT product_id, max(price) max_p, min(price) min_p "
                     "FROM order_items GROUP BY 1) s")
    assert spread < 1.25
    # freight grows with weight
    light, heavy = s1.execute(
        "SELECT avg(freight_value) FILTER (WHERE p.product_weight_g < 500), "
        "avg(freight_value) FILTER (WHERE p.product_weight_g > 5000) FROM order_items i JOIN products p "
        "USING (product_id)").fetchone()
    assert float(heavy) > float(light) * 1.5
    # each product is sold by its own few sellers
    assert one(s1, "SELECT max(n) FROM (SELECT count(DISTINCT seller_id) n FROM order_items GROUP BY product_id) s") <= 3
    late = one(s1, "SELECT avg((order_delivered_customer_date::date > order_estimated_delivery_date)::int) "
                   "FROM orders WHERE order_status = 'delivered'")
    assert 0.065 < late < 0.095, late


def test_scale1_is_causal(s1):
    assert causal_violations(s1) == {}


def test_scale1_has_no_orphans(s1):
    found = orphans(s1, "public")
    assert len(found) == 9 and set(found.values()) == {0}, found


# ---- the schema ------------------------------------------------------------------------------


def test_schema_constraints_types_and_comments(s1):
    pks = dict(s1.execute(
        "SELECT conrelid::regclass::text, array_length(conkey, 1) FROM pg_constraint "
        "WHERE contype = 'p' AND connamespace = 'public'::regnamespace").fetchall())
    assert pks["order_items"] == 2 and pks["payments"] == 2 and pks["orders"] == 1 and len(pks) == 9
    checks = " ".join(r[0] for r in s1.execute(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'c' "
        "AND connamespace = 'public'::regnamespace").fetchall())
    assert "review_score >= 1" in checks and "price >= (0)::numeric" in checks
    labels = [r[0] for r in s1.execute("SELECT enumlabel FROM pg_enum WHERE enumtypid = 'order_status'::regtype "
                                       "ORDER BY enumsortorder").fetchall()]
    assert labels[0] == "created" and "delivered" in labels and len(labels) == 8
    types = {r[0] for r in s1.execute(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0").fetchall()}
    for t in ["uuid", "integer", "bigint", "smallint", "numeric(10,2)", "double precision", "character(2)",
              "character varying(20)", "text", "boolean", "date", "timestamp without time zone",
              "timestamp with time zone", "jsonb", "text[]", "bytea", "order_status"]:
        assert t in types, (t, types)
    uncommented = s1.execute(
        "SELECT c.relname || '.' || coalesce(a.attname, '') FROM pg_class c LEFT JOIN pg_attribute a "
        "ON a.attrelid = c.oid AND a.attnum > 0 WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' "
        "AND (obj_description(c.oid, 'pg_class') IS NULL OR col_description(c.oid, a.attnum) IS NULL)").fetchall()
    assert uncommented == []
    not_null = one(s1, "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' "
                       "AND is_nullable = 'NO'")
    assert not_null > 40
    assert one(s1, "SELECT count(*) FROM products WHERE product_attributes ? 'brand'") == 32951


def test_watermark_columns(s1):
    triggers = s1.execute(
        "SELECT tgrelid::regclass::text, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal "
        "AND tgrelid::regclass::text IN ('orders', 'payments', 'reviews', 'customers')").fetchall()
    by_table = {t: d for t, d in triggers}
    assert set(by_table) == {"orders", "payments"}
    for d in by_table.values():
        assert "BEFORE UPDATE" in d and "FOR EACH ROW" in d and "set_updated_at()" in d
    defaults = dict(s1.execute(
        "SELECT table_name, column_default FROM information_schema.columns WHERE table_schema = 'public' "
        "AND column_name = 'updated_at'").fetchall())
    assert set(defaults) == {"orders", "payments", "reviews"}
    assert all(d == "now()" for d in defaults.values())


def test_reader_can_read_the_shop(shopdb, scale1):
    st = shopdb["stack"]
    dsn = f"host=127.0.0.1 port={st['port']} user=floe_reader password={st['password']} dbname={DB}"
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM orders").fetchone()[0] == 99441
        assert conn.execute("SELECT count(*) FROM reviews").fetchone()[0] > 0


# ---- determinism -------------------------------------------------------------------------------


def test_same_seed_same_checksum_other_seed_other(shopdb):
    a = small_shop(shopdb, "det_a", seed="5")
    b = small_shop(shopdb, "det_b", seed="5")
    c = small_shop(shopdb, "det_c", seed="6")
    assert a["checksum"] == b["checksum"] and a["tables"] == [
        {**t, "seconds": u["seconds"]} for t, u in zip(b["tables"], a["tables"])]
    assert c["checksum"] != a["checksum"]
    again = json.loads(shop(shopdb, "checksum", "--schema", "det_a", "--json").out)
    assert again["checksum"] == a["checksum"]
    text = shop(shopdb, "checksum", "--schema", "det_a").out
    assert f"checksum {a['checksum']}" in text
    # the checksum is of the contents: one changed value changes it
    with connect(shopdb, "det_b") as conn:
        conn.execute("UPDATE order_items SET price = price + 0.01 WHERE order_item_id = 1 AND order_id = "
                     "(SELECT order_id FROM order_items ORDER BY 1 LIMIT 1)")
    changed = json.loads(shop(shopdb, "checksum", "--schema", "det_b", "--json").out)
    assert changed["checksum"] != a["checksum"]


def test_small_scales_hold_together(shopdb):
    for scale in ("0.001", "0.02"):
        small_shop(shopdb, "tiny", scale=scale, seed="9")
        with connect(shopdb, "tiny") as conn:
            assert set(orphans(conn, "tiny").values()) == {0}
            assert causal_violations(conn) == {}
            assert one(conn, "SELECT count(*) FROM orders") == max(1, round(99441 * float(scale)))


# ---- tick --------------------------------------------------------------------------------------


def table_counts(conn):
    return {t: one(conn, f"SELECT count(*) FROM {t}") for t in
            ("customers", "orders", "order_items", "payments", "reviews")}


def test_tick_changes_what_it_reports(shopdb):
    small_shop(shopdb, "ticks", scale="0.05")
    with connect(shopdb, "ticks") as conn:
        for _ in range(3):  # make fresh checkouts, some of them abandoned
            shop(shopdb, "tick", "--schema", "ticks", "--orders", "20", "--updates", "0", "--deletes", "0",
                 "--late", "0")
        before = table_counts(conn)
        marks = {t: one(conn, f"SELECT max(updated_at) FROM {t}") for t in ("orders", "payments", "reviews")}
        r = json.loads(shop(shopdb, "tick", "--schema", "ticks", "--orders", "10", "--updates", "30",
                            "--deletes", "2", "--late", "1", "--seed", "77", "--json").out)
        after = table_counts(conn)
        assert r["orders"]["inserted"] == 10 and r["orders"]["progressed"] == 30 + 1  # the late one too
        assert r["orders"]["deleted"] == 2 and r["late"]["orders"] == 1
        assert after["orders"] - before["orders"] == r["orders"]["inserted"] - r["orders"]["deleted"]
        assert after["customers"] - before["customers"] == \
            r["customers"]["inserted"] - r["customers"]["deleted"]
        assert after["order_items"] - before["order_items"] == \
            r["order_items"]["inserted"] - r["order_items"]["deleted"]
        assert after["payments"] - before["payments"] == r["payments"]["inserted"] - r["payments"]["deleted"]
        assert after["reviews"] - before["reviews"] == r["reviews"]["inserted"]
        assert r["reviews"]["edited"] >= 1 and r["payments"]["updated"] >= 1
        # every insert and update moved its watermark (the triggers), nothing else did
        moved = {t: one(conn, f"SELECT count(*) FROM {t} WHERE updated_at > %s", marks[t]) for t in marks}
        assert moved["orders"] == r["orders"]["inserted"] + r["orders"]["progressed"]
        assert moved["payments"] == r["payments"]["inserted"] + r["payments"]["updated"]
        # review edits did not move reviews.updated_at: only new reviews are past the mark
        assert moved["reviews"] == r["reviews"]["inserted"]
        assert one(conn, "SELECT count(*) FROM reviews WHERE review_comment_message LIKE '%%vendedor resolveu%%'") \
            >= r["reviews"]["edited"]
        assert set(orphans(conn, "ticks").values()) == {0}
        assert causal_violations(conn) == {}
        # many ticks later, still whole
        for seed in range(1, 6):
            shop(shopdb, "tick", "--schema", "ticks", "--seed", str(seed), "--late", "1", "--hold-ms", "0")
        assert set(orphans(conn, "ticks").values()) == {0}
        assert causal_violations(conn) == {}


def test_tick_text_output(shopdb):
    small_shop(shopdb, "tick_text", scale="0.01")
    out = shop(shopdb, "tick", "--schema", "tick_text", "--hold-ms", "0").out
    for word in ("orders", "customers", "order_items", "payments", "reviews", "late commit", "+10 new"):
        assert word in out, out


def test_late_commit_is_observable(shopdb):
    small_shop(shopdb, "late", scale="0.02")
    with connect(shopdb, "late") as conn:
        start_mark = one(conn, "SELECT max(updated_at) FROM orders")
        proc = subprocess.Popen(
            [FLOE, "shop", "tick", "--target", shopdb["target"], "--schema", "late", "--orders", "0",
             "--updates", "3", "--deletes", "0", "--late", "1", "--hold-ms", "4000", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # an incremental reader: poll until the on-time changes are visible and take their watermark
        deadline = time.monotonic() + 20
        mark = start_mark
        while mark == start_mark and time.monotonic() < deadline:
            time.sleep(0.05)
            mark = one(conn, "SELECT max(updated_at) FROM orders")
        seen = {r[0] for r in conn.execute("SELECT order_id::text FROM orders WHERE updated_at > %s",
                                           (start_mark,)).fetchall()}
        out, err = proc.communicate(timeout=60)
        OUTPUTS.texts.append(out + err)
        assert proc.returncode == 0, err
        r = json.loads(out)
        late_id = r["late"]["order_id"]
        assert mark > start_mark and late_id not in seen
        late_stamp = one(conn, "SELECT updated_at FROM orders WHERE order_id = %s", late_id)
        # committed after the reader took its watermark, yet stamped before it: the reader never sees it
        assert late_stamp < mark
        assert one(conn, "SELECT count(*) FROM orders WHERE updated_at > %s AND order_id = %s", mark, late_id) == 0
        assert r["late"]["stamp"] < r["late"]["committed_after_stamp"]


# ---- evolve ------------------------------------------------------------------------------------


def columns(conn, table):
    return dict(conn.execute(
        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = %s::regclass "
        "AND attnum > 0 AND NOT attisdropped", (table,)).fetchall())


EVOLVE_CHECKS = {
    "add-column": lambda c: columns(c, "customers").get("customer_phone") == "character varying(20)",
    "add-column-not-null": lambda c: one(c, "SELECT count(*) FROM orders WHERE order_channel = 'web'") ==
    one(c, "SELECT count(*) FROM orders"),
    "rename-column": lambda c: "shipping_cost" in columns(c, "order_items")
    and "freight_value" not in columns(c, "order_items"),
    "drop-column": lambda c: "product_description_length" not in columns(c, "products"),
    "widen-int": lambda c: columns(c, "products")["product_weight_g"] == "bigint",
    "widen-varchar": lambda c: columns(c, "payments")["payment_type"] == "character varying(50)",
    "widen-numeric": lambda c: columns(c, "order_items")["price"] == "numeric(12,2)",
    "narrow-type": lambda c: columns(c, "sellers")["seller_city"].startswith("character varying(")
    and columns(c, "sellers")["seller_city"] != "character varying(64)",
    "change-pk": lambda c: one(c, "SELECT array_length(conkey, 1) FROM pg_constraint WHERE contype = 'p' "
                                  "AND conrelid = 'payments'::regclass") == 1
    and "payment_id" in columns(c, "payments"),
    "add-table": lambda c: one(c, "SELECT count(*) FROM promotions") > 0,
    "drop-trigger": lambda c: one(c, "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'orders'::regclass "
                                     "AND NOT tgisinternal") == 0,
    "add-enum-value": lambda c: one(c, "SELECT count(*) FROM pg_enum WHERE enumtypid = 'order_status'::regtype "
                                       "AND enumlabel = 'returned'") == 1,
}


def test_evolve_lists_its_kinds(shopdb):
    listed = json.loads(floe("shop", "evolve", "--list", "--json", check=0).out)["kinds"]
    assert [k["name"] for k in listed] == list(EVOLVE_CHECKS)
    text = floe("shop", "evolve", "--list", check=0).out
    assert all(k in text for k in EVOLVE_CHECKS)


def test_every_evolve_kind_leaves_a_valid_schema(shopdb):
    small_shop(shopdb, "evo", scale="0.01")
    with connect(shopdb, "evo") as conn:
        for kind, check in EVOLVE_CHECKS.items():
            r = json.loads(shop(shopdb, "evolve", "--schema", "evo", "--change", kind, "--json").out)
            assert r["kind"] == kind and r["ddl"].strip() and r["summary"], r
            assert check(conn), (kind, r)
            assert set(orphans(conn, "evo").values()) == {0}, kind
            shop(shopdb, "checksum", "--schema", "evo")  # every table still readable as a whole
        text = shop(shopdb, "evolve", "--schema", "evo", "--change", "widen-varchar").out
        assert "ran:\n  ALTER TABLE payments ALTER COLUMN payment_type TYPE varchar(80);" in text
        # the watermark without its trigger no longer moves on update
        mark = one(conn, "SELECT updated_at FROM orders ORDER BY order_id LIMIT 1")
        conn.execute("UPDATE orders SET order_channel = 'app' WHERE order_id = "
                     "(SELECT order_id FROM orders ORDER BY order_id LIMIT 1)")
        assert one(conn, "SELECT updated_at FROM orders ORDER BY order_id LIMIT 1") == mark


def test_evolve_refuses_what_does_not_fit(shopdb):
    small_shop(shopdb, "evo_bad", scale="0.01")
    r = shop(shopdb, "evolve", "--schema", "evo_bad", "--change", "change-pk", "--table", "orders", check=2)
    assert "foreign keys reference its primary key" in r.err
    r = shop(shopdb, "evolve", "--schema", "evo_bad", "--change", "drop-trigger", "--table", "reviews", check=2)
    assert "no trigger" in r.err
    r = shop(shopdb, "evolve", "--schema", "evo_bad", "--change", "add-column", "--table", "nope", check=2)
    assert 'table "nope" does not exist' in r.err
    r = shop(shopdb, "evolve", "--schema", "evo_bad", "--change", "add-table", "--table", "orders", check=2)
    assert "already exists" in r.err


# ---- bad input ---------------------------------------------------------------------------------


def test_bad_input_is_refused_clearly(shopdb):
    r = shop(shopdb, "evolve", "--change", "chnage-pk", check=2)
    assert 'unknown change kind "chnage-pk"' in r.err and "change-pk" in r.err
    for bad in ("-1", "0", "abc", "1e9"):
        r = shop(shopdb, "generate", "--scale", bad, check=2)
        assert "--scale" in r.err
    r = floe("shop", "generate", "--scale", "0.01", "--target", "127.0.0.1:1/nowhere", check=3)
    assert "could not connect" in r.err
    r = floe("shop", "frobnicate", check=2)
    assert "generate" in r.err or "did you mean" in r.err or "action" in r.err
    r = shop(shopdb, "tick", "--schema", "no_such_schema", check=2)
    assert "holds no shop" in r.err


def test_an_existing_shop_is_kept_unless_replaced(shopdb):
    first = small_shop(shopdb, "keep", scale="0.01", seed="1")
    r = shop(shopdb, "generate", "--scale", "0.01", "--seed", "2", "--schema", "keep", check=2)
    assert "already holds a shop" in r.err and "--replace" in r.err
    again = json.loads(shop(shopdb, "checksum", "--schema", "keep", "--json").out)
    assert again["checksum"] == first["checksum"]


def test_a_failed_generate_leaves_nothing(shopdb):
    with connect(shopdb) as conn:
        conn.execute("DROP SCHEMA IF EXISTS half CASCADE")
        conn.execute("CREATE SCHEMA half")
        # a table named like one of the shop's indexes makes the post-data step fail
        conn.execute("CREATE TABLE half.orders_updated_at_idx (x int)")
    r = shop(shopdb, "generate", "--scale", "0.01", "--schema", "half", check=4)
    assert "nothing was kept" in r.err and "orders_updated_at_idx" in r.err
    with connect(shopdb, "half") as conn:
        left = [r[0] for r in conn.execute("SELECT relname FROM pg_class WHERE relnamespace = 'half'::regnamespace")]
        assert left == ["orders_updated_at_idx"]
        assert one(conn, "SELECT count(*) FROM pg_type WHERE typnamespace = 'half'::regnamespace "
                         "AND typname = 'order_status'") == 0


def test_password_target_and_no_leak(shopdb):
    planted = "Shop-Planted-Secret-51ad"
    st = shopdb["stack"]
    with connect(shopdb) as conn:
        conn.execute("DROP SCHEMA IF EXISTS owned CASCADE")
        if one(conn, "SELECT count(*) FROM pg_roles WHERE rolname = 'shop_owner'"):
            conn.execute("DROP OWNED BY shop_owner")
            conn.execute("DROP ROLE shop_owner")
        conn.execute(f"CREATE ROLE shop_owner LOGIN PASSWORD '{planted}'")
        # the owner of one schema, without CREATE on the database: the shop goes into its schema
        conn.execute("CREATE SCHEMA owned AUTHORIZATION shop_owner")
    tcp = f"127.0.0.1:{st['port']}/{DB}"
    start = len(OUTPUTS.texts)
    args = ("shop", "generate", "--scale", "0.01", "--schema", "owned", "--target", tcp,
            "--target-user", "shop_owner")
    floe(*args, "-v", "-v", env={"FLOE_SHOP_PASSWORD": planted}, check=0)
    r = floe(*args, env={"FLOE_SHOP_PASSWORD": planted + "x"}, check=3)
    assert "FLOE_SHOP_PASSWORD" in r.err
    r = floe("shop", "checksum", "--schema", "owned", "--target", f"postgresql://shop_owner@{tcp}",
             env={"FLOE_SHOP_PASSWORD": planted}, check=0)
    assert "checksum" in r.out
    assert not [o for o in OUTPUTS.texts[start:] if planted in o]


# ---- help --------------------------------------------------------------------------------------


def test_help_lists_actions_with_examples():
    r = floe("shop", "--help", check=0)
    for action in ("shop generate", "shop tick", "shop evolve", "shop checksum"):
        assert action in r.out
    for action in ("generate", "tick", "evolve", "checksum"):
        h = floe("shop", action, "--help", check=0).out
        assert f"usage: floe shop {action}" in h and "examples:" in h
    assert floe("shop", check=2).rc == 2
    assert "shop" in floe("--help", check=0).out
