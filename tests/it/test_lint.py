"""`floe check --lint` on the shop's pipeline: its coverage figures equal dbt-project-evaluator's
formulas computed here, independently, from the manifest.json real dbt (`dbt parse`, .venv-dbt)
writes for the same project — dbt-project-evaluator itself is a dbt hub package that `dbt deps`
cannot download offline. A column planted without a description, a model planted without tests
or a description and a source no model reads are reported with file:line; a ref() to nothing is
an error (exit 1); a hand edit is drift; sqlfluff (dialect duckdb) reports style at file:line."""
import json
import os
import subprocess
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from conftest import REPO
from sourcedb import Source

DBT = os.environ.get("FLOE_DBT", str(REPO / ".venv-dbt" / "bin" / "dbt"))
SQLFLUFF = os.environ.get("FLOE_SQLFLUFF", str(REPO / ".venv" / "bin" / "sqlfluff"))
EXTRA_MODEL = """select seller_city, count(*) as sellers
from {{ ref('sellers') }}
group by seller_city
"""
EXTRA_SOURCES = """version: 2
sources:
  - name: crm
    schema: crm
    tables:
      - name: leads
"""


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "lint_it", "lint_reader").shop()
    s.admin("COMMENT ON COLUMN sellers.seller_city IS NULL")  # the planted undocumented column
    s.grant_read("public")
    return s


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = src.generated(tmp_path_factory.mktemp("lint"))
    models = d / "pipeline" / "dbt" / "models"
    (models / "silver" / "seller_cities.sql").write_text(EXTRA_MODEL)  # the planted untested model
    (models / "crm_sources.yml").write_text(EXTRA_SOURCES)             # a source no model reads
    return d


def lint(src, d, *args, check=None, sqlfluff="/nonexistent/sqlfluff"):
    r = src.floe(d, "check", "--lint", "--json", *args, env={"FLOE_SQLFLUFF": sqlfluff}, check=check)
    return r, json.loads(r.out)


@pytest.fixture(scope="module")
def manifest(proj):
    if not Path(DBT).exists():
        pytest.fail(f"dbt not found at {DBT}: run scripts/setup-dbt.sh (or set FLOE_DBT)")
    env = dict(os.environ, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    p = subprocess.run([DBT, "parse", "--profiles-dir", ".", "--project-dir", "."], cwd=proj / "pipeline" / "dbt",
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    return json.loads((proj / "pipeline" / "dbt" / "target" / "manifest.json").read_text())


def rounded(x, places):
    return float(Decimal(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def evaluator_figures(manifest):
    """fct_test_coverage and fct_documentation_coverage, computed from dbt's manifest: a test
    counts for the model it is attached to (attached_node), a model is described when its
    description is not blank."""
    models = {k: n for k, n in manifest["nodes"].items() if n["resource_type"] == "model"}
    tests = {k: 0 for k in models}
    for n in manifest["nodes"].values():
        if n["resource_type"] == "test" and n.get("attached_node") in tests:
            tests[n["attached_node"]] += 1
    total, tested, n_tests = len(models), sum(1 for v in tests.values() if v), sum(tests.values())
    documented = sum(1 for m in models.values() if m["description"].strip())
    columns = [c for m in models.values() for c in m["columns"].values()]
    return {
        "test_coverage": {"total_models": total, "total_tests": n_tests, "tested_models": tested,
                          "test_coverage_pct": rounded(Decimal(tested) * 100 / total, 2),
                          "test_to_model_ratio": rounded(Decimal(n_tests) / total, 4)},
        "documentation_coverage": {"total_models": total, "documented_models": documented,
                                   "documentation_coverage_pct": rounded(Decimal(documented) * 100 / total, 2),
                                   "total_columns": len(columns),
                                   "documented_columns": sum(1 for c in columns if c["description"].strip())},
        "untested": sorted(models[k]["name"] for k, v in tests.items() if not v),
        "undocumented_models": sorted(m["name"] for m in models.values() if not m["description"].strip()),
        "undocumented_columns": sorted(f"{m['name']}.{c['name']}" for m in models.values()
                                       for c in m["columns"].values() if not c["description"].strip()),
        "unused_sources": sorted(f"{s['source_name']}.{s['name']}" for k, s in manifest["sources"].items()
                                 if not manifest["child_map"].get(k)),
    }


def of_rule(report, rule):
    return [f for f in report["findings"] if f["rule"] == rule]


def test_coverage_figures_equal_the_evaluators_from_dbts_manifest(src, proj, manifest):
    r, rep = lint(src, proj, check=0)
    want = evaluator_figures(manifest)
    assert rep["test_coverage"] == want["test_coverage"]
    assert rep["documentation_coverage"] == want["documentation_coverage"]
    assert want["test_coverage"]["tested_models"] < want["test_coverage"]["total_models"]  # the plant counts
    assert sorted(f["message"].split()[1] for f in of_rule(rep, "untested_models")) == want["untested"]
    assert sorted(f["message"].split()[1] for f in of_rule(rep, "undocumented_models")) == want["undocumented_models"]
    assert sorted(f["message"].split()[1] for f in of_rule(rep, "undocumented_columns")) == \
        want["undocumented_columns"]
    assert sorted(f["message"].split()[2] for f in of_rule(rep, "unused_sources")) == want["unused_sources"]


def test_planted_gaps_are_reported_with_file_and_line(src, proj):
    _, rep = lint(src, proj, check=0)
    schema = (proj / "pipeline" / "dbt" / "models" / "silver" / "schema.yml").read_text().splitlines()
    col = [f for f in of_rule(rep, "undocumented_columns") if f["message"].startswith("column sellers.seller_city ")]
    assert len(col) == 1 and col[0]["file"] == "dbt/models/silver/schema.yml", col
    assert schema[col[0]["line"] - 1].strip() == '- name: "seller_city"'
    untested = of_rule(rep, "untested_models")
    assert [(f["file"], f["line"]) for f in untested] == [("dbt/models/silver/seller_cities.sql", 1)]
    assert any(f["file"] == "dbt/models/silver/seller_cities.sql" for f in of_rule(rep, "undocumented_models"))
    unused = of_rule(rep, "unused_sources")
    assert [(f["file"], f["line"], f["message"]) for f in unused] == [
        ("dbt/models/crm_sources.yml", 6, "source table crm.leads is read by no model")]
    assert rep["errors"] == 0 and not of_rule(rep, "drift")


def test_text_output_gives_file_line_and_the_figures(src, proj):
    r = src.floe(proj, "check", "--lint", env={"FLOE_SQLFLUFF": "/nonexistent/sqlfluff"}, check=0)
    assert "dbt/models/crm_sources.yml:6: warning unused_sources: source table crm.leads is read by no model" in r.out
    assert "test_coverage: 9 of 10 models tested (90.00%)" in r.out, r.out
    assert "sqlfluff is not installed (/nonexistent/sqlfluff): SQL style not checked" in r.out


def test_sqlfluff_findings_carry_file_line_and_code(src, proj):
    if not Path(SQLFLUFF).exists():
        pytest.fail(f"sqlfluff not found at {SQLFLUFF}: tests/requirements.txt pins it (scripts/setup.sh venv)")
    (proj / "pipeline" / "dbt" / "models" / "silver" / "styled.sql").write_text(
        "SELECT seller_id FROM {{ ref('sellers') }}   \n")
    try:
        _, rep = lint(src, proj, check=0, sqlfluff=SQLFLUFF)
    finally:
        (proj / "pipeline" / "dbt" / "models" / "silver" / "styled.sql").unlink()
    assert rep["sqlfluff"]["version"] and rep["sqlfluff"]["note"] is None, rep["sqlfluff"]
    styled = {(f["rule"], f["line"]) for f in rep["findings"] if f["file"] == "dbt/models/silver/styled.sql"}
    assert ("sqlfluff/LT01", 1) in styled, styled                     # trailing whitespace
    # the generated models pass floe's .sqlfluff but for what the generator itself should fix
    generated = {f["rule"] for f in rep["findings"] if f["rule"].startswith("sqlfluff/") and
                 f["file"] != "dbt/models/silver/seller_cities.sql" and f["file"] != "dbt/models/silver/styled.sql"}
    assert "sqlfluff/RF06" not in generated


def test_a_broken_ref_is_an_error_and_a_hand_edit_is_drift(src, proj):
    silver = proj / "pipeline" / "dbt" / "models" / "silver"
    (silver / "broken.sql").write_text("select 1 as x\nfrom {{ ref('nope') }} join {{ source('bronze', 'nothing') }}\n")
    sellers = silver / "sellers.sql"
    kept = sellers.read_text()
    sellers.write_text(kept + "-- a person's note\n")
    try:
        r, rep = lint(src, proj, check=1)
    finally:
        (silver / "broken.sql").unlink()
        sellers.write_text(kept)
    errors = [(f["rule"], f["file"], f["line"], f["col"]) for f in rep["findings"] if f["severity"] == "error"]
    assert errors == [("unresolved_ref", "dbt/models/silver/broken.sql", 2, 9),
                      ("unresolved_source", "dbt/models/silver/broken.sql", 2, 32)], errors
    assert [(f["file"], f["line"]) for f in of_rule(rep, "drift")] == [("dbt/models/silver/sellers.sql", 1)]
    assert rep["errors"] == 2


def test_check_without_lint_is_a_usage_error(src, proj):
    r = src.floe(proj, "check")
    assert r.rc == 2 and "--lint" in r.err
