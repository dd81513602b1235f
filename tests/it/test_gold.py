"""Gold marts from descriptions: `floe gold draft` on the shop's silver (scale 0.01) asks questions
written into the file and proposes nothing until they are answered; then it commits the model, its
tests and the lock's `marts` entry on floe/mart/<name> without touching HEAD; once merged,
`floe generate` keeps the mart and reports a hand edit as drift."""
import json
import subprocess

import pytest

from conftest import floe
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


def shop_source(stack, name, seed):
    """A shop at scale 0.01 in a database of its own, readable by its role."""
    s = Source(stack, name, name.replace("_it", "_reader"))
    s.create("")
    floe("shop", "generate", "--scale", "0.01", "--seed", str(seed),
         "--target", f"{stack['socket_dir']}:{stack['port']}/{name}", check=0)
    s.grant_read("public")
    return s


def shop_project(src, d):
    """A project on `src` with its pipeline generated, bronze and silver built, and a marts/ folder."""
    src.project(d)
    src.floe(d, "generate", check=0)
    src.floe(d, "run", check=0)
    (d / "marts").mkdir()
    return d


@pytest.fixture(scope="module")
def src(stack):
    return shop_source(stack, "gold_it", 3)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    return shop_project(src, tmp_path_factory.mktemp("gold"))


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
    dag = [f for f in files if f.startswith("airflow/dags/")]  # the DAG gains the mart's task
    assert len(dag) == 1 and "monthly_revenue" in git(d, "show", f"floe/mart/monthly_revenue:{dag[0]}")
    assert files == dag + ["dbt/models/gold/monthly_revenue.sql", "dbt/models/gold/monthly_revenue.yml",
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
    # drafting a merged mart again proposes nothing (no empty commit on the branch)
    tip = git(d, "rev-parse", "floe/mart/monthly_revenue")
    assert draft(src, d, "monthly_revenue", MONTHLY, check=0)["commit"] is None
    assert git(d, "rev-parse", "floe/mart/monthly_revenue") == tip
    r = src.floe(d, "generate", "--json", check=0)
    gen = json.loads(r.out)
    model = "dbt/models/gold/monthly_revenue.sql"
    assert {f["path"]: f["action"] for f in gen["files"]}[model] == "unchanged"
    # the merged branch carried everything generate would write: nothing to commit
    assert {f["action"] for f in gen["files"]} == {"unchanged"} and gen.get("commit") is None, gen
    assert lock_of(d)["marts"][0]["name"] == "monthly_revenue"
    path = d / "pipeline" / model
    original = path.read_text()
    path.write_text(original + "-- a person's note\n")
    gen = json.loads(src.floe(d, "generate", "--json", check=0).out)
    edited = [f for f in gen["files"] if f["path"] == model]
    assert edited == [{"path": model, "action": "kept", "drift": True}]
    assert path.read_text().endswith("-- a person's note\n")
    path.write_text(original)


def source_monthly(src):
    """monthly_revenue computed by PostgreSQL from the source itself (silver holds the same rows)."""
    month = "date_trunc('month', o.order_purchase_timestamp)::date"
    with src.reader() as conn:
        revenue = conn.execute(f"select {month}, c.customer_state, sum(i.price) from order_items i "
                               "join orders o using (order_id) join customers c using (customer_id) "
                               "where o.order_status <> 'canceled' group by 1, 2").fetchall()
        orders = conn.execute(f"select {month}, c.customer_state, count(*) from orders o "
                              "join customers c using (customer_id) "
                              "where o.order_status <> 'canceled' group by 1, 2").fetchall()
    rows = {}
    for m, s, v in revenue:
        rows.setdefault((m, s), [None, 0])[0] = v
    for m, s, n in orders:
        rows.setdefault((m, s), [None, 0])[1] = n
    return {k: (v[0], v[1], None if v[0] is None or not v[1] else float(v[0]) / v[1]) for k, v in rows.items()}


def mart_rows(rows):
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}


def assert_same(got, want):
    assert set(got) == set(want)
    for k, (rev, n, aov) in want.items():
        g = got[k]
        assert g[0] == rev and g[1] == n, (k, g, want[k])
        assert (g[2] is None and aov is None) or abs(g[2] - aov) < 1e-9, (k, g, want[k])


def gold_run(src, d, check):
    r = src.floe(d, "run", "--layer", "gold", "--json", check=check)
    return {g["mart"]: g for g in json.loads(r.out)["gold"]}


def test_run_builds_the_merged_mart_read_back_by_pyiceberg_and_duckdb(src, proj):
    from lakecheck import catalog, duckdb_iceberg
    d = proj
    gold = gold_run(src, d, check=0)["monthly_revenue"]
    assert gold["state"] == "built" and gold["tests"] == {"passed": 5, "failed": 0}, gold
    want = source_monthly(src)
    tbl = catalog(d).load_table("gold.monthly_revenue")
    cols = [f.name for f in tbl.schema().fields]
    assert cols == ["month", "state", "revenue", "orders", "average_order_value"]
    arrow = tbl.scan().to_arrow().to_pylist()
    assert_same(mart_rows([[r[c] for c in cols] for r in arrow]), want)
    got = duckdb_iceberg().execute(f"select * from iceberg_scan('{tbl.metadata_location}')").fetchall()
    assert_same(mart_rows(got), want)
    assert gold["rows"] == len(want)
    # floe status shows the mart, its state and its tests
    st = json.loads(src.floe(d, "status", "--json", check=None).out)
    (row,) = [t for t in st["tables"] if t["table"] == "gold.monthly_revenue"]
    assert row["layer"] == "gold" and row["state"] == "built", row
    assert "tests 5 passed, 0 failed" in json.dumps(row)


def plant(d, change):
    path = d / "pipeline" / "dbt" / "models" / "gold" / "monthly_revenue.sql"
    original = path.read_text()
    path.write_text(change(original))
    return path, original


def duplicate_a_row(sql):
    head, body = sql.split("\nwith\n", 1)
    body = "with\n" + body
    return f"{head}\nselect * from ({body}) as a\nunion all\n(select * from ({body}) as b limit 1)\n"


@pytest.mark.parametrize("change,failed_test", [
    (duplicate_a_row, "floe_grain_unique_monthly_revenue failed"),
    (lambda sql: sql.replace("where (\"orders\".\"order_status\" is distinct from 'canceled')", ""),
     "monthly_revenue__reconcile_revenue failed"),
])
def test_a_planted_failure_fails_a_test_and_keeps_the_snapshot(src, proj, change, failed_test):
    from lakecheck import catalog
    d = proj
    before = catalog(d).load_table("gold.monthly_revenue").current_snapshot().snapshot_id
    path, original = plant(d, change)
    try:
        gold = gold_run(src, d, check=1)["monthly_revenue"]
    finally:
        path.write_text(original)
    assert gold["state"] == "failed" and gold["tests"]["failed"] >= 1, gold
    assert failed_test in gold["error"] + (gold["detail"] or ""), gold
    assert "not published" in gold["error"]
    assert catalog(d).load_table("gold.monthly_revenue").current_snapshot().snapshot_id == before
    st = json.loads(src.floe(d, "status", "--json", check=None).out)
    (row,) = [t for t in st["tables"] if t["table"] == "gold.monthly_revenue"]
    assert row["state"] == "failed"


class FakeOllama:
    """A stand-in for an Ollama server (no model runs offline): POST /api/generate answers a recorded
    draft chosen by the measure named in the prompt, and every request is kept for the test to check."""

    def __init__(self, drafts):
        import http.server
        import threading
        self.requests = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "type": self.headers["Content-Type"], "body": body})
                name = next(n for n in drafts if f"The measure: {n}:" in body["prompt"])
                out = json.dumps({"model": body["model"], "response": drafts[name], "done": True}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


SPREAD = """---
mart: price_spread
grain: [month]
dimensions:
  month: month of orders.order_purchase_timestamp
measures:
  spread: the gap between the highest and the lowest order_items.price
  cheap_items: how many order_items.price are cheap
---
"""


def test_a_local_model_drafts_prose_terms_and_inventions_are_rejected(src, proj):
    d = proj
    fake = FakeOllama({"spread": "```sql\nmax(order_items.price) - min(order_items.price)\n```",
                       "cheap_items": "count(*) filter (where order_items.price < 10)"})
    toml = (d / "floe.toml").read_text()
    (d / "floe.toml").write_text(toml + f'\n[gold]\nmodel = "fake-coder"\nendpoint = "{fake.url}"\n')
    try:
        out = draft(src, d, "price_spread", SPREAD, check=1)
        # the faithful draft is accepted; the one that invents a condition and a constant is a question
        (q,) = out["questions"]
        assert q["term"] == "measures.cheap_items" and q["kind"] == "unsupported", q
        assert "The local model fake-coder drafted `count(*) filter (where order_items.price < 10)`, rejected:" in q["text"]
        assert "constant `10`" in q["text"] or "condition" in q["text"]
        assert out["model"] is None
        # answered by removing the invented term: the accepted draft is the measure's SQL
        out = draft(src, d, "price_spread", SPREAD.replace("  cheap_items: how many order_items.price are cheap\n", ""),
                    check=0)
        sql = git(d, "show", "floe/mart/price_spread:dbt/models/gold/price_spread.sql")
        assert "max(order_items.price) - min(order_items.price) as \"spread\"" in sql
    finally:
        (d / "floe.toml").write_text(toml)
        fake.stop()
    # the protocol: POST /api/generate, JSON, the configured model, not streamed, the term in the prompt
    assert fake.requests and all(r["path"] == "/api/generate" and r["type"] == "application/json"
                                 for r in fake.requests)
    body = fake.requests[0]["body"]
    assert body["model"] == "fake-coder" and body["stream"] is False
    assert "order_items(" in body["prompt"] and "The measure: spread:" in body["prompt"]


def test_gold_without_an_action_prints_its_help():
    r = floe("gold", check=2)
    assert "gold draft" in r.out + r.err
    r = floe("gold", "draft", check=2)
    assert "needs more arguments" in r.err
