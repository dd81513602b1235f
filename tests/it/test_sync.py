"""`floe sync`: every change `floe shop evolve` offers, applied to one shop, gives its class and
action; safe ones are committed on main of pipeline/, breaking ones become branches
floe/change/<table>/<id> with proposals/<id>.md; a rename, drop or narrowing pauses its table
(others load) until a person merges with plain git; the run after the merge evolves bronze with
the lock's field ids and reads back equal to the source (PyIceberg and DuckDB).

One source database and one project serve the whole module: the tests run in file order, each
leaving main merged or the branch settled."""
import fcntl
import json
import os
import subprocess

import pytest
from pyiceberg.io.pyarrow import ArrowScan

from conftest import floe
from lakecheck import assert_equals_source, catalog, lock_table
from sourcedb import Source

GIT_ENV = {"GIT_AUTHOR_NAME": "reviewer", "GIT_AUTHOR_EMAIL": "reviewer@example.com",
           "GIT_COMMITTER_NAME": "reviewer", "GIT_COMMITTER_EMAIL": "reviewer@example.com"}


class Shop:
    def __init__(self, stack, d):
        self.src = Source(stack, "sync_shop", "sync_shop_reader")
        self.src.create("")
        self.target = f"{stack['socket_dir']}:{stack['port']}/sync_shop"
        floe("shop", "generate", "--scale", "0.01", "--seed", "5", "--target", self.target, check=0)
        self.src.grant_read("public")
        self.d = d
        self.src.project(d)

    def floe(self, *args, check=0):
        return self.src.floe(self.d, *args, check=check)

    def evolve(self, kind):
        r = json.loads(floe("shop", "evolve", "--change", kind, "--target", self.target, "--json", check=0).out)
        self.src.grant_read("public")  # a new table is readable as a real reader role would be granted
        return r

    def sync(self, *args, check=0):
        return json.loads(self.floe("sync", "--json", *args, check=check).out)

    def run(self, *args, check=None):
        r = self.floe("run", "--json", *args, check=check)
        out = json.loads(r.out)
        failed = [s for s in out.get("silver", []) if s["state"] == "failed"]
        assert not failed, failed  # the regenerated silver models and tests run
        return {t["source"]: t for t in out["tables"]}

    def git(self, *args, check=True):
        env = dict(os.environ, **GIT_ENV)
        r = subprocess.run(["git", "-C", str(self.d / "pipeline"), *args], capture_output=True, text=True, env=env)
        assert not check or r.returncode == 0, r.stderr
        return r.stdout.strip()

    def branches(self):
        return set(self.git("branch", "--list", "floe/change/*", "--format=%(refname:short)").split())

    def head(self):
        return self.git("rev-parse", "HEAD")


@pytest.fixture(scope="module")
def shop(stack, tmp_path_factory):
    s = Shop(stack, tmp_path_factory.mktemp("sync"))
    s.floe("generate")
    first = s.run("--no-sync", check=0)
    assert all(t["state"] == "loaded" for t in first.values()), first
    return s


def ids(shop, bronze):
    return {c["name"]: c["id"] for c in lock_table(shop.d, bronze)["columns"]}


def lake_ids(shop, bronze):
    return {f.name: f.field_id for f in catalog(shop.d).load_table(bronze).schema().fields}


def assert_bronze(shop, bronze):
    """Bronze equals the source (PyIceberg and DuckDB), its field ids those the lock gives."""
    assert lake_ids(shop, bronze) == ids(shop, bronze)
    assert_equals_source(shop.src, shop.d, bronze)


def only_table(result, table):
    t = [x for x in result["tables"] if x["table"] == table]
    assert len(t) == 1, result
    return t[0]


def test_a_sync_with_nothing_new_changes_nothing(shop):
    head = shop.head()
    for _ in range(2):
        r = shop.sync()
        assert r["tables"] == [] and r["commit"] is None, r
    assert shop.head() == head and shop.branches() == set()


# kind → (table, classes, action, pauses)
SAFE = {
    "add-column": ("public.customers", {"add-column"}),
    "add-column-not-null": ("public.orders", {"add-column"}),
    "widen-int": ("public.products", {"widen-type"}),
    "widen-varchar": ("public.payments", {"widen-type"}),
    "widen-numeric": ("public.order_items", {"widen-type"}),
    "add-table": ("public.promotions", {"add-table"}),
    "add-enum-value": ("public.orders", {"add-enum-value"}),
}


@pytest.mark.parametrize("kind", list(SAFE))
def test_a_safe_change_is_committed_on_main_and_loads(shop, kind):
    table, classes = SAFE[kind]
    before = shop.head()
    shop.evolve(kind)
    r = shop.sync()
    t = only_table(r, table)
    assert {c["class"] for c in t["changes"]} == classes and t["action"] == "commit", t
    assert all(c["action"] == "commit" and not c["breaking"] for c in t["changes"]), t
    assert r["commit"] and shop.head() == r["commit"] != before and shop.branches() == set()
    assert shop.git("log", "-1", "--format=%s").startswith("floe sync:")
    assert shop.sync()["commit"] is None  # nothing new the second time
    runs = shop.run("--table", table)
    bronze = "bronze." + table.split(".")[1]
    assert runs[table]["state"] == "loaded" and runs[table]["check"] == "verified", runs[table]
    assert_bronze(shop, bronze)


def test_a_rename_is_a_branch_that_pauses_its_table_until_merged(shop):
    old = ids(shop, "bronze.order_items")
    snap = catalog(shop.d).load_table("bronze.order_items").current_snapshot().snapshot_id
    main_lock = (shop.d / "pipeline" / "lakehouse.lock.json").read_text()
    shop.evolve("rename-column")  # order_items.freight_value → shipping_cost
    r = shop.sync()
    t = only_table(r, "public.order_items")
    assert [c["class"] for c in t["changes"]] == ["rename-column"] and t["action"] == "branch", t
    c = t["changes"][0]
    assert (c["old_name"], c["column"], c["field_id"]) == ("freight_value", "shipping_cost", old["freight_value"])
    branch = t["branch"]
    assert branch == f"floe/change/order_items/{t['id']}" and t["new_branch"] and t["pauses"]
    assert r["commit"] is None and shop.branches() == {branch}
    assert (shop.d / "pipeline" / "lakehouse.lock.json").read_text() == main_lock  # main keeps the deployed plan
    proposal = shop.git("show", f"{branch}:proposals/{t['id']}.md")
    for words in ("rename-column (breaking)", "column freight_value renamed to shipping_cost",
                  f"field id {old['freight_value']}", "CREATE TABLE public.order_items", "shipping_cost numeric",
                  "## What it reaches", "bronze.order_items.freight_value", "## What merging will do", "First seen"):
        assert words in proposal, (words, proposal)
    branch_lock = json.loads(shop.git("show", f"{branch}:lakehouse.lock.json"))
    cols = {x["name"]: x["id"] for x in next(x for x in branch_lock["tables"] if x["bronze"] == "bronze.order_items")["columns"]}
    assert cols["shipping_cost"] == old["freight_value"] and "freight_value" not in cols

    # a second sync: the same branch stands, nothing new
    again = shop.sync()
    assert only_table(again, "public.order_items")["new_branch"] is False and shop.branches() == {branch}

    runs = shop.run()
    assert runs["public.order_items"]["state"] == "paused" and branch in runs["public.order_items"]["detail"]
    assert all(x["state"] == "loaded" for k, x in runs.items() if k != "public.order_items"), runs
    status = {x["table"]: x for x in json.loads(shop.floe("status", "--json").out)["tables"] if x["layer"] == "bronze"}
    assert status["bronze.order_items"]["state"] == "paused", status["bronze.order_items"]
    assert branch in status["bronze.order_items"]["facts"] and "renamed" in status["bronze.order_items"]["facts"]

    shop.git("merge", "--no-ff", "-m", "approve the rename", branch)  # the approval: plain git
    r = shop.sync()
    assert any(x.startswith("merged: " + branch) for x in r["closed"]), r
    shop.git("branch", "-d", branch)
    runs = shop.run("--table", "public.order_items")
    assert runs["public.order_items"]["state"] == "loaded", runs["public.order_items"]
    assert ids(shop, "bronze.order_items")["shipping_cost"] == old["freight_value"]
    assert_bronze(shop, "bronze.order_items")
    # the history of the column reads under its new name in the snapshot before the rename
    tbl = catalog(shop.d).load_table("bronze.order_items")
    scan = tbl.scan(snapshot_id=snap)
    old_rows = ArrowScan(tbl.metadata, tbl.io, tbl.schema(), scan.row_filter).to_table(scan.plan_files())
    assert old_rows.num_rows > 0 and old_rows.column("shipping_cost").null_count == 0, old_rows.schema
    status = {x["table"]: x for x in json.loads(shop.floe("status", "--json").out)["tables"] if x["layer"] == "bronze"}
    assert status["bronze.order_items"]["state"] != "paused"


def test_a_drop_plus_an_add_is_never_a_rename_and_a_rejected_branch_stays_paused(shop):
    shop.src.admin("ALTER TABLE public.sellers DROP COLUMN seller_state")
    shop.src.admin("ALTER TABLE public.sellers ADD COLUMN seller_region varchar(2)")
    r = shop.sync()
    t = only_table(r, "public.sellers")
    assert sorted(c["class"] for c in t["changes"]) == ["add-column", "drop-column"], t
    branch = t["branch"]
    shop.git("branch", "-D", branch)  # rejected: deleted unmerged
    r = shop.sync()
    assert any(x.startswith("rejected: " + branch) for x in r["closed"]) and shop.branches() == set(), r
    runs = shop.run("--table", "public.sellers", "--layer", "bronze")
    assert runs["public.sellers"]["state"] == "paused" and "rejected" in runs["public.sellers"]["detail"]
    status = {x["table"]: x for x in json.loads(shop.floe("status", "--json").out)["tables"] if x["layer"] == "bronze"}
    assert status["bronze.sellers"]["state"] == "paused" and "rejected" in status["bronze.sellers"]["facts"]
    # made again on request, then merged
    r = shop.sync("--repropose", "public.sellers")
    assert only_table(r, "public.sellers")["new_branch"] and shop.branches() == {branch}
    shop.git("merge", "--no-ff", "-m", "approve", branch)
    shop.git("branch", "-d", branch)
    runs = shop.run("--table", "public.sellers")
    assert runs["public.sellers"]["state"] == "loaded", runs["public.sellers"]
    assert "seller_state" not in ids(shop, "bronze.sellers")
    assert_bronze(shop, "bronze.sellers")


def test_a_rejected_change_is_withdrawn_when_the_source_changes_back(shop):
    shop.src.admin("ALTER TABLE public.customers RENAME COLUMN customer_state TO state")
    t = only_table(shop.sync(), "public.customers")
    assert t["changes"][0]["class"] == "rename-column" and t["pauses"], t
    shop.git("branch", "-D", t["branch"])
    assert only_table(shop.sync(), "public.customers")["state"] == "rejected"
    shop.src.admin("ALTER TABLE public.customers RENAME COLUMN state TO customer_state")
    r = shop.sync()
    assert r["tables"] == [] and any(x.startswith("withdrawn: " + t["branch"]) for x in r["closed"]), r
    runs = shop.run("--table", "public.customers", "--layer", "bronze")
    assert runs["public.customers"]["state"] == "loaded", runs["public.customers"]


BREAKING = {
    "drop-column": ("public.products", {"drop-column"}, True),
    "narrow-type": ("public.sellers", {"narrow-type"}, True),
    # the surrogate key is an identity column: NOT NULL with no default expression (the catalog shows none)
    "change-pk": ("public.payments", {"change-key", "add-required-column"}, False),
    "drop-trigger": ("public.orders", {"change-watermark"}, False),
}


@pytest.mark.parametrize("kind", list(BREAKING))
def test_a_breaking_change_is_a_branch_and_loads_after_the_merge(shop, kind):
    table, classes, pauses = BREAKING[kind]
    shop.evolve(kind)
    r = shop.sync()
    t = only_table(r, table)
    assert {c["class"] for c in t["changes"]} == classes and t["action"] == "branch", t
    assert t["pauses"] == pauses and r["commit"] is None and shop.branches() == {t["branch"]}
    runs = shop.run("--table", table, "--layer", "bronze")
    assert (runs[table]["state"] == "paused") == pauses, runs[table]
    shop.git("merge", "--no-ff", "-m", "approve", t["branch"])
    shop.git("branch", "-d", t["branch"])  # as a forge does after a merge
    runs = shop.run("--table", table)
    assert runs[table]["state"] == "loaded", runs[table]
    assert_bronze(shop, "bronze." + table.split(".")[1])
    assert shop.sync()["tables"] == []


def test_every_evolve_kind_is_covered():
    listed = json.loads(floe("shop", "evolve", "--list", "--json", check=0).out)["kinds"]
    assert {k["name"] for k in listed} == set(SAFE) | set(BREAKING) | {"rename-column"}


def test_a_sync_holding_the_lock_makes_the_other_report_it(shop):
    lock = shop.d / ".floe" / "locks" / "floe_sync.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write("run test-holder (pid 1, since now)\n")
        f.flush()
        r = shop.floe("sync", check=None)
        assert r.rc != 0 and "another floe sync holds the project's sync lock" in r.err, r.err
    # two real syncs racing: both end well or one reports the lock; never two branches
    shop.src.admin("ALTER TABLE public.customers RENAME COLUMN customer_city TO city")
    env = dict(os.environ, FLOE_SOURCE_PASSWORD=shop.src.password)
    procs = [subprocess.Popen([os.environ.get("FLOE_BIN", "floe"), "-C", str(shop.d), "sync"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate() + (p.returncode,) for p in procs]
    assert any(code == 0 for _, _, code in outs), outs
    assert all(code == 0 or "sync lock" in err for _, err, code in outs), outs
    assert len(shop.branches()) == 1
    (branch,) = shop.branches()
    shop.git("merge", "--no-ff", "-m", "approve", branch)
    shop.git("branch", "-d", branch)
    runs = shop.run("--table", "public.customers")
    assert runs["public.customers"]["state"] == "loaded"
    assert_bronze(shop, "bronze.customers")


def test_policy_overrides_the_action_per_class_and_names_the_valid_ones(shop):
    toml = shop.d / "floe.toml"
    base = toml.read_text()
    try:
        toml.write_text(base + '\n[policy]\nrename = "branch"\n')
        r = shop.floe("sync", check=2)
        assert 'key "rename" in [policy] is not valid' in r.err and "rename-column" in r.err, r.err
        toml.write_text(base + '\n[policy]\nadd-column = "merge"\n')
        r = shop.floe("sync", check=2)
        assert '"commit", "branch" or "refuse"' in r.err, r.err
        shop.src.admin("ALTER TABLE public.customers ADD COLUMN vip boolean")
        toml.write_text(base + '\n[policy]\nadd-column = "refuse"\n')
        r = shop.sync(check=1)
        t = only_table(r, "public.customers")
        assert t["state"] == "refused" and t["branch"] is None and shop.branches() == set(), t
        toml.write_text(base + '\n[policy]\nadd-column = "branch"\n')
        r = shop.sync()
        t = only_table(r, "public.customers")
        assert t["action"] == "branch" and r["commit"] is None and shop.branches() == {t["branch"]}, r
        shop.git("merge", "--no-ff", "-m", "approve", t["branch"])
        shop.git("branch", "-d", t["branch"])
    finally:
        toml.write_text(base)
    runs = shop.run("--table", "public.customers")
    assert runs["public.customers"]["state"] == "loaded"
    assert "vip" in ids(shop, "bronze.customers")
    assert_bronze(shop, "bronze.customers")
