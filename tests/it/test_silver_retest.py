"""A silver table whose bronze did not move is still tested when its tests say it must be
(docs/silver.md, "What a build skips"): a freshness test depends on the clock, so it runs every
run — a table whose source went quiet turns stale and fails, its published snapshot kept; a rule
added to quality/*.toml runs at the next run over every row, not at the next source change."""
import time

from lakecheck import query_rows, run_layers, snapshot_id, table_rows
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.pings (ping_id int PRIMARY KEY, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.pings FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.pings SELECT g, now() FROM generate_series(1, 30) g;
CREATE TABLE public.notes (note_id int PRIMARY KEY, body text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.notes FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.notes SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE 'n' || g END, now() - interval '1 day'
    FROM generate_series(1, 50) g;
'''

MAX_AGE = 6

FRESHNESS = f'''
[[rule]]
name = "freshness_pings_updated_at"
table = "public.pings"
kind = "freshness"
columns = ["updated_at"]
max_age_seconds = {MAX_AGE}
'''

NOT_NULL = '''
[[rule]]
name = "not_null_notes_body"
table = "public.notes"
kind = "not_null"
columns = ["body"]
'''


def project(stack, tmp_path, name):
    src = Source.readable(stack, name, name + "_reader", SQL)
    d = tmp_path
    src.project(d)
    (d / "quality").mkdir()
    return src, d


def test_a_freshness_test_runs_while_bronze_stands_still_and_a_stale_table_fails(stack, tmp_path):
    src, d = project(stack, tmp_path, "silver_fresh")
    (d / "quality" / "rules.toml").write_text(FRESHNESS)
    src.floe(d, "generate", check=0)
    src.admin("UPDATE pings SET updated_at = now()")
    r, bronze, silver = run_layers(src, d)
    assert r.rc == 0 and silver["silver.pings"]["state"] == "built", r.out + r.err
    pings_bronze = snapshot_id(d, "bronze.pings")
    published = snapshot_id(d, "silver.pings")
    time.sleep(MAX_AGE + 1)  # nothing changes at the source; the newest value ages past the rule
    r, bronze, silver = run_layers(src, d)
    assert bronze["bronze.pings"]["mode"] == "incremental" and snapshot_id(d, "bronze.pings") == pings_bronze
    p = silver["silver.pings"]
    assert r.rc == 1 and p["state"] == "failed", p
    assert "freshness_pings_updated_at" in p["error"], p
    assert snapshot_id(d, "silver.pings") == published
    src.admin("UPDATE pings SET updated_at = now() WHERE ping_id = 1")  # the source speaks again: fresh
    r, _, silver = run_layers(src, d)
    assert r.rc == 0 and silver["silver.pings"]["state"] == "built", silver["silver.pings"]


def test_a_rule_added_runs_over_every_row_at_the_next_run(stack, tmp_path):
    src, d = project(stack, tmp_path, "silver_newrule")
    src.floe(d, "generate", check=0)
    r, _, silver = run_layers(src, d)
    assert r.rc == 0 and silver["silver.notes"]["state"] == "built", r.out + r.err
    assert len(table_rows(d, "silver.notes")) == 50
    r, _, silver = run_layers(src, d)  # nothing moved, no rule changed: nothing to build or test
    assert r.rc == 0 and silver["silver.notes"]["state"] == "unchanged", silver
    (d / "quality" / "rules.toml").write_text(NOT_NULL)
    src.floe(d, "generate", check=0)
    r, _, silver = run_layers(src, d)  # the source did not move; the new rule runs over every row
    n = silver["silver.notes"]
    assert r.rc == 0 and n["state"] == "built" and n["quarantined"] == 5, n
    assert table_rows(d, "silver.notes") == query_rows(src, "select * from notes where body is not null")
    quarantined = sorted(row[0] for row in table_rows(d, "silver.notes__quarantine"))
    assert quarantined == [10, 20, 30, 40, 50]
    r, _, silver = run_layers(src, d)  # tested as they stand now: unchanged again
    assert r.rc == 0 and silver["silver.notes"]["state"] == "unchanged", silver["silver.notes"]
