"""`floe pentaho translate`: Kettle .ktr/.kjb files become dbt models and Dagster jobs on branch
floe/pentaho/<name> of pipeline/, with a coverage report. Real dbt (dbt-duckdb, .venv-dbt) compiles
every translated model and builds the step-type transformations (tests/data/pentaho/steps) over
floe's bronze tables, whose rows are computed here by hand from Kettle's documented meaning. The
coverage report is compared with an independent count of the corpus' step types (ElementTree).
"""
import json
import os
import py_compile
import shutil
import socket
import subprocess
import threading
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from conftest import REPO
from sourcedb import Source

DBT = os.environ.get("FLOE_DBT", str(REPO / ".venv-dbt" / "bin" / "dbt"))
CORPUS = REPO / "tests" / "data" / "pentaho"
STEPS = CORPUS / "steps"
SECRET = "2be98afc86aa7f2e4cb79ce10df90acde"  # the encrypted password in the step files

SOURCE_SQL = """
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, city text);
INSERT INTO customers VALUES (1, 'Ana', 'Lisbon'), (2, 'Bo', NULL), (3, 'Cy', 'Porto');
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, amount numeric(10,2) NOT NULL, status text);
INSERT INTO orders VALUES (1, 1, 150, 'paid'), (2, 2, 80, 'paid'), (3, 9, 300, 'open'), (4, 1, 20, NULL),
                          (5, 3, 120, 'paid'), (6, 2, 60, 'open'), (7, 1, 10, 'paid');
"""


def git(d, *args):
    return subprocess.run(["git", "-C", str(d), *args], capture_output=True, text=True, check=True).stdout


def dbt(d: Path, *args, check=0):
    if not Path(DBT).exists():
        pytest.fail(f"dbt not found at {DBT}: run scripts/setup-dbt.sh (or set FLOE_DBT)")
    env = dict(os.environ, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    p = subprocess.run([DBT, *args, "--profiles-dir", ".", "--project-dir", "."], cwd=d, env=env,
                       capture_output=True, text=True, timeout=600)
    if check is not None:
        assert p.returncode == check, p.stdout[-6000:] + p.stderr[-3000:]
    return p


@pytest.fixture(scope="module")
def proj(stack, tmp_path_factory):
    src = Source.readable(stack, "pentaho_it", "pentaho_reader", SOURCE_SQL)
    d = src.generated(tmp_path_factory.mktemp("pentaho"))
    src.floe(d, "run", check=0)
    return {"src": src, "dir": d}


@pytest.fixture(scope="module")
def steps(proj):
    """The whole corpus translated once, its branch checked out in a separate work tree for dbt."""
    d = proj["dir"]
    r = proj["src"].floe(d, "pentaho", "translate", str(CORPUS), "--name", "corpus", "--json", check=0)
    report = json.loads(r.out)
    wt = d / "corpus-branch"
    git(d / "pipeline", "worktree", "add", str(wt), "floe/pentaho/corpus")
    models = wt / "dbt" / "models" / "pentaho" / "corpus"
    mine = sorted(p.stem for p in models.glob("*.sql") if "(steps/" in p.read_text().splitlines()[0])
    return {"report": report, "dbt": wt / "dbt", "wt": wt, "step_models": mine}


@pytest.fixture(scope="module")
def built(steps):
    """dbt compiles every translated model (real corpus included) and builds the step files' models, but
    the one with an unmapped step; the database is read back."""
    dbt(steps["dbt"], "compile")
    dbt(steps["dbt"], "run", "--select", *steps["step_models"], "--exclude", "pentaho_unmapped__out")

    def rows(model, order):
        """The model's rows, read by DuckDB (a connection per read: dbt needs the file's lock)."""
        con = duckdb.connect(str(steps["dbt"] / "floe_dbt.duckdb"), read_only=True)
        try:
            schema = con.execute("select table_schema from information_schema.tables where table_name = ?",
                                 [model]).fetchone()[0]
            cur = con.execute(f'select * from "{schema}"."{model}" order by {order}')
            names = [c[0] for c in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]
        finally:
            con.close()

    return rows


@pytest.fixture(scope="module")
def second_run(steps, built):
    """One `dbt run` with --vars: InsertUpdate again (its var given), the model with an unmapped step and
    one whose Kettle variable has no default (both must fail)."""
    no_default = next(p.stem for p in (steps["dbt"] / "models" / "pentaho" / "corpus").glob("*.sql")
                      if "floe_pentaho_var(" in p.read_text())
    p = dbt(steps["dbt"], "run", "--select", "pentaho_insert_update__upsert", "pentaho_unmapped__out", no_default,
            "--full-refresh", "--vars", '{"MIN_AMOUNT": "100"}', check=1)
    return {"out": p.stdout, "no_default": no_default}


def model_text(steps, name):
    return (steps["dbt"] / "models" / "pentaho" / "corpus" / f"{name}.sql").read_text()


def status(report, file):
    return {s["name"]: (s["status"], s["reason"]) for s in report["steps"] if s["file"] == "steps/" + file}


def test_branch_holds_models_jobs_and_report_and_main_is_untouched(proj, steps):
    d = proj["dir"] / "pipeline"
    assert git(d, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    files = git(d, "ls-tree", "-r", "--name-only", "floe/pentaho/corpus").split()
    assert "proposals/pentaho-corpus.md" in files and "proposals/pentaho-corpus.json" in files
    assert f"dagster/src/floe_pentaho_it/defs/pentaho_nightly.py" in files
    assert "dbt/models/pentaho/corpus/pentaho_filter_rows__big.sql" in files
    on_main = git(d, "ls-tree", "-r", "--name-only", "main").split()  # (the project is named pentaho_it)
    assert not [f for f in on_main if f.startswith(("proposals/pentaho-", "dbt/models/pentaho/")) or "/defs/pentaho_" in f]
    assert git(d, "status", "--porcelain").strip() == ""
    # the same input again: nothing new to commit
    again = json.loads(proj["src"].floe(proj["dir"], "pentaho", "translate", str(CORPUS), "--name", "corpus",
                                        "--json", check=0).out)
    assert again["commit"] is None


def test_no_password_in_any_output(steps):
    for p in steps["wt"].rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            text = p.read_text(errors="replace")
            assert SECRET not in text and "Encrypted " not in text, p


def test_every_model_compiles_and_reads_bronze_sources(built, steps):
    manifest = json.loads((steps["dbt"] / "target" / "manifest.json").read_text())
    models = {n["name"]: n for n in manifest["nodes"].values() if n["resource_type"] == "model"
              and n["name"].startswith("pentaho_")}
    assert len(steps["step_models"]) == 24, steps["step_models"]  # 17 files; 2 write 2, distribute 4, switch_case 3
    assert len(models) == len(list((steps["dbt"] / "models" / "pentaho" / "corpus").glob("*.sql")))  # 14 transformations; FilterRows and generated_rows write 2
    assert sorted(models["pentaho_stream_lookup__out"]["depends_on"]["nodes"]) == [
        "source.pentaho_it.bronze.customers", "source.pentaho_it.bronze.orders"]
    assert all(m["schema"] == "silver" for m in models.values())
    header = model_text(steps, "pentaho_stream_lookup__out").splitlines()[:2]
    assert 'Pentaho transformation "stream_lookup" (steps/stream_lookup.ktr), output step "out"' in header[0]
    assert '"lookup customer" (StreamLookup, mapped)' in header[1]


def test_filter_rows_both_branches(built, steps):
    big = [r["id"] for r in built("pentaho_filter_rows__big", "id")]
    rest = [r["id"] for r in built("pentaho_filter_rows__rest", "id")]
    # (amount > 100 and status = 'paid') or status is null
    assert big == [1, 4, 5]
    assert rest == [2, 3, 6, 7]
    assert status(steps["report"], "filter_rows.ktr")["split"] == ("mapped", None)


def test_switch_case_sends_each_row_to_its_case_and_the_rest_to_the_default(built, steps):
    assert [r["id"] for r in built("pentaho_switch_case__paid", "id")] == [1, 2, 5, 7]
    assert [r["id"] for r in built("pentaho_switch_case__no_status", "id")] == [4]   # the empty case is NULL
    assert [r["id"] for r in built("pentaho_switch_case__other", "id")] == [3, 6]
    assert status(steps["report"], "switch_case.ktr")["switch"] == ("mapped", None)


def test_stream_lookup_defaults_only_when_no_row_matched(built):
    rows = built("pentaho_stream_lookup__out", "id")
    got = [(r["id"], r["customer_name"], r["city"]) for r in rows]
    assert got == [(1, "Ana", "Lisbon"), (2, "Bo", None), (3, "unknown", "nowhere"), (4, "Ana", "Lisbon"),
                   (5, "Cy", "Porto"), (6, "Bo", None), (7, "Ana", "Lisbon")]


def test_db_lookup_first_row_and_default(built):
    got = [(r["id"], r["customer_city"]) for r in built("pentaho_db_lookup__out", "id")]
    assert got == [(1, "Lisbon"), (2, None), (3, "?"), (4, "Lisbon"), (5, "Porto"), (6, None), (7, "Lisbon")]


GROUPS = [(None, 20.0, 1), ("open", 360.0, 2), ("paid", 360.0, 4)]


def groups(rows):
    return [(r["status"], float(r["total"]), r["n"]) for r in rows]


def test_group_by_sorted_and_memory_group_by_are_exact(built, steps):
    assert groups(built("pentaho_group_by_sorted__out", "status nulls first")) == GROUPS
    assert groups(built("pentaho_memory_group_by__out", "status nulls first")) == GROUPS
    assert status(steps["report"], "group_by_sorted.ktr")["group"][0] == "mapped"
    assert status(steps["report"], "memory_group_by.ktr")["group"][0] == "mapped"


def test_group_by_on_input_sorted_by_the_database_is_exact(built, steps):
    # "sort in the database": the source query's ORDER BY status makes Kettle's runs the groups
    assert groups(built("pentaho_group_by_db_sorted__out", "status nulls first")) == GROUPS
    assert status(steps["report"], "group_by_db_sorted.ktr")["group"] == ("mapped", None)


def test_group_by_on_unsorted_input_is_flagged(built, steps):
    # Kettle's Group by on the orders by id (paid paid open NULL paid open paid) emits one row per run:
    kettle = [("paid", 230.0, 2), ("open", 300.0, 1), (None, 20.0, 1), ("paid", 120.0, 1), ("open", 60.0, 1),
              ("paid", 10.0, 1)]
    got = groups(built("pentaho_group_by_unsorted__out", "status nulls first"))
    assert got == GROUPS and len(got) != len(kettle)  # SQL gives one row per group: not Kettle's result
    st, reason = status(steps["report"], "group_by_unsorted.ktr")["group"]
    assert st == "partial" and "one row per run" in reason
    assert "-- floe: check step \"group\" (GroupBy)" in model_text(steps, "pentaho_group_by_unsorted__out")


def test_group_by_all_rows_is_a_window(built):
    got = [(r["id"], float(r["status_total"])) for r in built("pentaho_group_by_all_rows__out", "id")]
    assert got == [(1, 360.0), (2, 360.0), (3, 360.0), (4, 20.0), (5, 360.0), (6, 360.0), (7, 360.0)]


def test_unique_sorted_exact_and_unsorted_flagged(built, steps):
    sorted_ = [(r["status"], r["n"]) for r in built("pentaho_unique_sorted__out", "status nulls first")]
    assert sorted_ == [(None, 1), ("open", 2), ("paid", 4)]  # Kettle on sorted input: one row per run = group
    assert status(steps["report"], "unique_sorted.ktr")["unique"][0] == "mapped"
    # on the orders by id Kettle keeps paid, open, NULL, paid, open, paid (6 rows); DISTINCT keeps 3
    unsorted = built("pentaho_unique_unsorted__out", "status nulls first")
    assert len(unsorted) == 3
    st, reason = status(steps["report"], "unique_unsorted.ktr")["unique"]
    assert st == "partial" and "only on input sorted by (status)" in reason


def test_row_steps_chain(built, steps):
    rows = built("pentaho_row_steps__out", "order_id")
    assert [r["order_id"] for r in rows] == [1, 2, 3, 4, 5, 6, 7]
    assert set(rows[0]) == {"order_id", "status", "code", "doubled_text", "half", "status_label", "code_clean",
                            "source", "big", "line"}
    assert [float(r["doubled_text"]) for r in rows] == [300, 160, 600, 40, 240, 120, 20]
    assert [r["half"] for r in rows] == [0, 1, 1, 2, 2, 3, 3]                  # Integer division
    assert [r["status_label"] for r in rows] == ["Paid", "Paid", "other", "none", "Paid", "other", "Paid"]
    assert {r["code_clean"] for r in rows} == {"xxAB"}                          # trim, upper, pad left to 4
    assert {r["source"] for r in rows} == {"shop"}
    assert [r["big"] for r in rows] == ["no!", "no!", "no!", "yes!", "yes!", "yes!", "yes!"]
    assert [r["line"] for r in rows] == [10, 15, 20, 25, 30, 35, 40]            # after the sort: exact
    assert all(s == "mapped" for s, _ in status(steps["report"], "row_steps.ktr").values())


def test_merge_join_on_sorted_inputs(built, steps):
    got = [(r["id"], r["name"], float(r["amount"])) for r in built("pentaho_merge_join__out", "id, amount")]
    assert got == [(1, "Ana", 10.0), (1, "Ana", 20.0), (1, "Ana", 150.0), (2, "Bo", 60.0), (2, "Bo", 80.0),
                   (3, "Cy", 120.0)]
    assert status(steps["report"], "merge_join.ktr")["join"][0] == "mapped"


def test_insert_update_keys_and_dbt_vars(built, steps, second_run):
    text = model_text(steps, "pentaho_insert_update__upsert")
    assert "unique_key=['order_id']" in text and "{{ var('MIN_AMOUNT', '50') }}" in text
    # built with the default (50), then again with --vars MIN_AMOUNT 100 (second_run)
    con = duckdb.connect(str(steps["dbt"] / "floe_dbt.duckdb"), read_only=True)
    ids = [r[0] for r in con.execute("select order_id from silver.pentaho_insert_update__upsert order by 1").fetchall()]
    con.close()
    assert ids == [1, 3, 5]
    assert "OK created sql incremental model silver.pentaho_insert_update__upsert" in second_run["out"].replace(
        "\x1b[32m", "").replace("\x1b[0m", "")


def test_row_generator_and_data_grid(built, steps):
    assert [(r["label"], r["n"]) for r in built("pentaho_generated_rows__generated", "n")] == [("x", 7)] * 3
    assert [(r["k"], r["v"]) for r in built("pentaho_generated_rows__grid_out", "k")] == [(1, "one"), (2, None)]


def test_round_robin_distribution_is_flagged_copies_are_not(built, steps):
    st = status(steps["report"], "distribute.ktr")
    assert st["spread"][0] == "partial" and "round-robin over its 2 next steps" in st["spread"][1]
    assert st["copy"] == ("mapped", None)
    # each output of the copying step holds every row, as Kettle's copies do
    assert [r["id"] for r in built("pentaho_distribute__c", "id")] == [1, 2, 3]
    assert [r["id"] for r in built("pentaho_distribute__d", "id")] == [1, 2, 3]


def test_unmapped_step_fails_the_build_and_keeps_the_dag(steps, second_run):
    text = model_text(steps, "pentaho_unmapped__out")
    assert '-- floe: unmapped step "script" (ScriptValueMod)' in text and "var x = amount * 2;" in text
    assert "from s2_script" in text  # the output still reads the placeholder
    assert "were not translated from Pentaho" in second_run["out"]
    assert status(steps["report"], "unmapped.ktr")["script"][0] == "unmapped"


def test_dagster_job_follows_hops_and_parameters(steps):
    py = steps["wt"] / "dagster" / "src" / "floe_pentaho_it" / "defs" / "pentaho_nightly.py"
    py_compile.compile(str(py), doraise=True)
    text = py.read_text()
    assert 'PARAMETERS = {"MIN_AMOUNT": "75"}' in text
    assert "e3 = entry_3_filter(after_2=e2.success)" in text
    assert "e5 = entry_5_report_failure(after_3=e3.failure)" in text
    assert "e6 = entry_6_mail(after_4=e4.done)" in text
    assert '"build", "--select", "pentaho_filter_rows__big", "pentaho_filter_rows__rest"' in text
    assert '"run-operation", "pentaho_nightly__prepare"' in text
    macro = steps["dbt"] / "macros" / "pentaho" / "corpus" / "pentaho_nightly__prepare.sql"
    assert "-- floe: check SQL entry" in macro.read_text()
    entries = status(steps["report"], "nightly.kjb")
    assert entries["filter"][0] == "mapped" and entries["mail"][0] == "unmapped"
    assert entries["prepare"][0] == "partial"


def corpus_counts():
    counts = Counter()
    for p in CORPUS.rglob("*"):
        if p.suffix == ".ktr":
            counts.update(("step", s.findtext("type")) for s in ET.parse(p).getroot().findall("step"))
        elif p.suffix == ".kjb":
            counts.update(("entry", e.findtext("type")) for e in ET.parse(p).getroot().findall("entries/entry"))
    return counts


def test_coverage_report_counts_every_step_of_the_corpus(proj, steps):
    report = steps["report"]
    floe_counts = Counter()
    for t in report["types"]:
        floe_counts[("entry" if t["entry"] else "step", t["type"])] += t["mapped"] + t["partial"] + t["unmapped"]
    assert floe_counts == corpus_counts()
    assert report["steps_total"]["total"] == sum(n for (k, _), n in corpus_counts().items() if k == "step")
    assert all(f["error"] is None for f in report["files"])
    assert len(report["files"]) == len([p for p in CORPUS.rglob("*") if p.suffix in (".ktr", ".kjb")])
    md = git(proj["dir"] / "pipeline", "show", "floe/pentaho/corpus:proposals/pentaho-corpus.md")
    assert f"## `-- floe: check` markers ({len(report['checks'])})" in md
    marked = sum(p.read_text().count("-- floe: check ") for p in steps["dbt"].rglob("*.sql")
                 if "pentaho" in p.parts and "target" not in p.parts)
    assert marked == len(report["checks"])


def test_variable_without_default_compiles_but_fails_runs(second_run):
    assert "which has no default: pass it with --vars" in second_run["out"]
    assert second_run["no_default"] in second_run["out"]


class Listener:
    """A TCP port that records every connection: the reader must never open one."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.connections += 1
                c.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def test_hostile_files_are_refused_with_clear_errors(proj, tmp_path):
    net = Listener()
    h = tmp_path / "hostile"
    h.mkdir()
    (h / "malformed.ktr").write_text("<transformation><step><name>a</name></transformation>")
    lol = "".join(f'<!ENTITY l{i} "{"&l%d;" % (i - 1) * 10}">' for i in range(1, 10))
    (h / "laughs.ktr").write_text(f'<?xml version="1.0"?><!DOCTYPE t [<!ENTITY l0 "lol">{lol}]>'
                                  "<transformation>&l9;</transformation>")
    (h / "external.ktr").write_text(f'<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM '
                                    f'"http://127.0.0.1:{net.port}/x">]><transformation>&x;</transformation>')
    (h / "dtd.ktr").write_text(f'<?xml version="1.0"?><!DOCTYPE transformation SYSTEM "http://127.0.0.1:{net.port}/d">'
                               "<transformation><info><name>d</name></info></transformation>")
    with open(h / "huge.ktr", "wb") as f:
        f.truncate(100 * 1024 * 1024)
    shutil.copy(STEPS / "filter_rows.ktr", h / "cycle.ktr")
    text = (h / "cycle.ktr").read_text().replace("<order>", "<order><hop><from>big</from><to>orders</to>"
                                                 "<enabled>Y</enabled></hop>")
    (h / "cycle.ktr").write_text(text)
    r = proj["src"].floe(proj["dir"], "pentaho", "translate", str(h), "--name", "hostile")
    net.close()
    assert r.rc == 1, r
    lines = {"not read: " + line[len("not read: "):].split(": ")[0]: line for line in r.out.splitlines()
             if line.startswith("not read: ")}
    assert "malformed XML at line 1" in lines["not read: malformed.ktr"]
    assert "declares an XML entity" in lines["not read: laughs.ktr"]
    assert "declares an XML entity" in lines["not read: external.ktr"]
    assert "104857600 bytes is more than" in lines["not read: huge.ktr"]
    assert 'its hops form a cycle: "' in lines["not read: cycle.ktr"] and '"big"' in lines["not read: cycle.ktr"]
    assert "dtd.ktr" not in str(lines)  # a DOCTYPE without entities is read, its DTD never fetched
    assert net.connections == 0
    assert "Traceback" not in r.err and "AddressSanitizer" not in r.err


def test_report_names_partial_steps_and_markers(proj, steps):
    md = git(proj["dir"] / "pipeline", "show", "floe/pentaho/corpus:proposals/pentaho-corpus.md")
    assert "| transformation steps (.ktr) |" in md and "## Unmapped steps" in md
    assert '`steps/unmapped.ktr`: step "script" (ScriptValueMod): step type ScriptValueMod is not translated' in md
    report = steps["report"]
    marked = {c["path"].split("/")[-1] for c in report["checks"]}
    assert "pentaho_group_by_unsorted__out.sql" in marked and "pentaho_unique_unsorted__out.sql" in marked
    assert "pentaho_row_steps__out.sql" not in marked
