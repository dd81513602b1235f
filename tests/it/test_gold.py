"""Gold marts from descriptions: `floe gold draft` on the shop's silver (scale 0.01) asks questions
written into the file and proposes nothing until they are answered; then it commits the model, its
tests and the lock's `marts` entry on floe/mart/<name> without touching HEAD; once merged,
`floe generate` keeps the mart and reports a hand edit as drift."""
import json
import subprocess

import pytest

from lakecheck import lock_of
from sourcedb import Source

MONTHLY = """---
mart: monthly_revenue
grain: [month, state]
dimensions:
  month: month of orders.order_purchase_timestamp
  state: customers.customer_state
measures:
  revenue: sum of order_items.price
  orders: number of orders
  average_order_value: the revenue divided by the number of orders
filters:
  - orders.order_status is not 'canceled'
---
Revenue per month and customer state.
"""


def git(d, *args):
    p = subprocess.run(["git", "-C", str(d / "pipeline"), *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "gold_it", "gold_reader")
    s.create("")
    from conftest import floe
    floe("shop", "generate", "--scale", "0.01", "--seed", "3",
         "--target", f"{stack['socket_dir']}:{stack['port']}/gold_it", check=0)
    s.grant_read("public")
    return s


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("gold")
    src.project(d)
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    (d / "marts").mkdir()
    return d


def draft(src, d, name, text, check):
    (d / "marts" / f"{name}.md").write_text(text)
    r = src.floe(d, "gold", "draft", f"marts/{name}.md", "--json", check=check)
    return json.loads(r.out)


def test_questions_are_written_into_the_file_and_no_sql_is_proposed(src, proj):
    d = proj
    head = git(d, "rev-parse", "HEAD")
    text = MONTHLY.replace("orders.order_status is", "orders.status is").replace("sum of order_items.price",
                                                                                   "total price of items")
    out = draft(src, d, "monthly_revenue", text, check=1)
    assert not out["resolved"] and out["branch"] is None and out["model"] is None
    kinds = {q["term"]: q["kind"] for q in out["questions"]}
    assert kinds == {"filters[1]": "unknown_column", "measures.revenue": "unsupported"}, out
    md = (d / "marts" / "monthly_revenue.md").read_text()
    assert md.startswith(text)
    assert "\n## Questions\n" in md
    assert "did you mean `orders.order_status`?" in md
    assert "floe/mart/monthly_revenue" not in git(d, "branch", "--list")
    assert git(d, "rev-parse", "HEAD") == head
    # the human-readable form prints the same numbered questions
    r = src.floe(d, "gold", "draft", "marts/monthly_revenue.md", check=1)
    assert "2 questions" in r.out and "  1. " in r.out and "  2. " in r.out


def test_answered_description_is_proposed_on_a_branch(src, proj):
    d = proj
    head = git(d, "rev-parse", "HEAD")
    out = draft(src, d, "monthly_revenue", MONTHLY, check=0)
    assert out["resolved"] and out["questions"] == []
    assert out["branch"] == "floe/mart/monthly_revenue" and out["commit"]
    assert out["tables"] == ["silver.customers", "silver.order_items", "silver.orders"]
    assert "silver.orders.order_status" in out["reads"]
    # the questions section is gone, the prose kept
    assert (d / "marts" / "monthly_revenue.md").read_text() == MONTHLY
    # HEAD and the work tree untouched; the branch holds the proposal
    assert git(d, "rev-parse", "HEAD") == head
    assert not (d / "pipeline" / "dbt" / "models" / "gold").exists()
    files = git(d, "diff", "--name-only", "HEAD", "floe/mart/monthly_revenue").split()
    assert files == ["dbt/models/gold/monthly_revenue.sql", "dbt/models/gold/monthly_revenue.yml",
                     "dbt/tests/gold/monthly_revenue__reconcile_orders.sql",
                     "dbt/tests/gold/monthly_revenue__reconcile_revenue.sql", "lakehouse.lock.json"]
    lock = json.loads(git(d, "show", "floe/mart/monthly_revenue:lakehouse.lock.json"))
    (mart,) = lock["marts"]
    assert mart["name"] == "monthly_revenue" and mart["table"] == "gold.monthly_revenue"
    assert mart["reads"] == out["tables"] and mart["grain"] == ["month", "state"]
    assert mart["model"] == "dbt/models/gold/monthly_revenue.sql"
    # drafting again with nothing changed commits nothing
    again = draft(src, d, "monthly_revenue", MONTHLY, check=0)
    assert again["commit"] is None


def test_merged_mart_is_kept_by_generate_and_edits_are_drift(src, proj):
    d = proj
    git(d, "merge", "--no-edit", "floe/mart/monthly_revenue")
    assert lock_of(d)["marts"][0]["name"] == "monthly_revenue"
    r = src.floe(d, "generate", "--json", check=0)
    gen = json.loads(r.out)
    model = "dbt/models/gold/monthly_revenue.sql"
    assert {f["path"]: f["action"] for f in gen["files"]}[model] == "unchanged"
    assert lock_of(d)["marts"][0]["name"] == "monthly_revenue"
    path = d / "pipeline" / model
    original = path.read_text()
    path.write_text(original + "-- a person's note\n")
    gen = json.loads(src.floe(d, "generate", "--json", check=0).out)
    edited = [f for f in gen["files"] if f["path"] == model]
    assert edited == [{"path": model, "action": "kept", "drift": True}]
    assert path.read_text().endswith("-- a person's note\n")
    path.write_text(original)
