"""The shop's example marts (examples/shop/marts: monthly revenue, RFM segments, payment mix, seller
scorecard), each drafted by `floe gold draft`, merged and built by `floe run`; real dbt (dbt-duckdb,
.venv-dbt) builds the merged project — silver and gold, with the grain and reconciliation tests — and
its gold rows equal floe's. A fan-out mart (revenue from order_items and payments from payments, per
month) has the totals each fact gives alone, computed by PostgreSQL from the source."""
import json
import math
import shutil

import duckdb
import pytest

from conftest import REPO
from lakecheck import catalog, norm
from test_dbt_project import dbt
from test_gold import git, shop_project, shop_source

MARTS = ["monthly_revenue", "customer_segments", "payment_mix", "seller_scorecard"]
FAN_OUT = """---
mart: money_by_month
grain: [month]
dimensions:
  month: month of orders.order_purchase_timestamp
measures:
  revenue: sum of order_items.price
  paid: sum of payments.payment_value
  orders: number of orders
---
Item revenue and payments per month of purchase, each aggregated on its own fact.
"""


@pytest.fixture(scope="module")
def src(stack):
    return shop_source(stack, "gold_shop_it", 11)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = shop_project(src, tmp_path_factory.mktemp("goldshop"))
    for name in MARTS:
        shutil.copy(REPO / "examples" / "shop" / "marts" / f"{name}.md", d / "marts")
    (d / "marts" / "money_by_month.md").write_text(FAN_OUT)
    drafted = {}
    for name in MARTS + ["money_by_month"]:
        r = src.floe(d, "gold", "draft", f"marts/{name}.md", "--json", check=0)
        drafted[name] = json.loads(r.out)
        git(d, "merge", "--no-edit", f"floe/mart/{name}")
    r = src.floe(d, "run", "--layer", "gold", "--json", check=None)
    return {"dir": d, "drafted": drafted, "run": r}


def iceberg_rows(d, table):
    tbl = catalog(d).load_table(table)
    cols = [f.name for f in tbl.schema().fields]
    return cols, [[norm(r[c]) for c in cols] for r in tbl.scan().to_arrow().to_pylist()]


def same_rows(a, b):
    key = lambda r: repr(r[:2])
    a, b = sorted(a, key=key), sorted(b, key=key)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            if isinstance(u, float) or isinstance(v, float):
                assert (u is None and v is None) or math.isclose(float(u), float(v), rel_tol=1e-9), (x, y)
            else:
                assert u == v, (x, y)


def test_every_example_is_drafted_merged_and_built(proj):
    for name, out in proj["drafted"].items():
        assert out["resolved"] and out["branch"] == f"floe/mart/{name}", out
    assert proj["run"].rc == 0, proj["run"]
    gold = {g["mart"]: g for g in json.loads(proj["run"].out)["gold"]}
    assert set(gold) == set(MARTS) | {"money_by_month"}
    for g in gold.values():
        assert g["state"] == "built" and g["tests"]["failed"] == 0 and g["rows"] > 0, g


def test_real_dbt_builds_the_merged_project_and_its_gold_equals_floes(proj):
    d = proj["dir"]
    dbt(d, "build", check=0)
    con = duckdb.connect(str(d / "pipeline" / "dbt" / "floe_dbt.duckdb"), read_only=True)
    for name in MARTS + ["money_by_month"]:
        cols, floe_rows = iceberg_rows(d, f"gold.{name}")
        dbt_rows = [[norm(v) for v in r] for r in
                    con.execute(f'select {", ".join(chr(34) + c + chr(34) for c in cols)} from gold.{name}').fetchall()]
        same_rows(floe_rows, dbt_rows)
    # dbt ran floe's grain and reconciliation tests too
    results = json.loads((d / "pipeline" / "dbt" / "target" / "run_results.json").read_text())["results"]
    ran = {r["unique_id"].split(".")[2]: r["status"] for r in results if r["unique_id"].startswith("test.")}
    assert ran["monthly_revenue__reconcile_revenue"] == "pass"
    assert ran["floe_grain_unique_seller_scorecard"] == "pass"


def test_fan_out_totals_equal_each_fact_alone(src, proj):
    _, rows = iceberg_rows(proj["dir"], "gold.money_by_month")
    with src.reader() as conn:
        items = conn.execute("select sum(price) from order_items").fetchone()[0]
        paid = conn.execute("select sum(payment_value) from payments").fetchone()[0]
        orders = conn.execute("select count(*) from orders").fetchone()[0]
        # a row-level join of the two facts would count each item once per payment of its order
        joined = conn.execute("select sum(i.price) from order_items i join payments p using (order_id)").fetchone()[0]
    assert joined != items  # the shop has orders with several payments: the trap is real
    assert sum(r[1] for r in rows) == items
    assert sum(r[2] for r in rows) == paid
    assert sum(r[3] for r in rows) == orders
