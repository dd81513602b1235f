"""An incremental silver build tests only what its change can break (docs/silver.md, "Incremental"):
row rules over the changed rows, uniqueness over the values they hold, relationships over the new
rows' foreign keys and the parent keys removed since the last publish. Each planted failure below
reaches silver through an incremental build — a changed child row's orphan foreign key, an orphan
left by deleting a parent under an unchanged child, a duplicate value a change introduced, a NULL in
a changed row — and is caught as the whole test would catch it; the run says which tests ran
incrementally. When the parent was built in the same run, the keys it lost come from its own build
(docs/silver.md): a new row referencing a key the parent deleted in that run, one referencing a key
the parent never had while the parent moved too, and the children of a parent row quarantined in
that run are each caught."""
import json

import pytest

from lakecheck import catalog, norm
from sourcedb import Source

SQL = '''
CREATE TABLE public.parents (p_id int PRIMARY KEY, name text NOT NULL);
INSERT INTO public.parents SELECT g, 'p' || g FROM generate_series(1, 20) g;
CREATE TABLE public.kids (kid_id int PRIMARY KEY, p_id int NOT NULL REFERENCES parents,
                          code text, qty int NOT NULL);
INSERT INTO public.kids SELECT g, 1 + g % 20, 'c' || g, g FROM generate_series(1, 200) g;
CREATE TABLE public.kid_parts (p_id int NOT NULL REFERENCES parents, part int, qty int NOT NULL,
                               PRIMARY KEY (p_id, part));
INSERT INTO public.kid_parts SELECT 1 + g % 20, g, g FROM generate_series(1, 100) g;
'''

# a NULL code is quarantined; a code must be unique (a table-level test: fails the table); a warn
# test reads the whole table, incremental build or not
QUALITY = '''
[[rule]]
name = "not_null_kids_code"
table = "public.kids"
kind = "not_null"
columns = ["code"]

[[rule]]
name = "unique_kids_code"
table = "public.kids"
kind = "unique"
columns = ["code"]

[[rule]]
name = "regex_parents_name"
table = "public.parents"
kind = "regex"
columns = ["name"]
pattern = "^p"

[[rule]]
name = "range_kids_qty"
table = "public.kids"
kind = "range"
columns = ["qty"]
min = 0
severity = "warn"
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "silver_narrowed", "silver_narrowed_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("silver_narrowed")
    src.project(d, extra='\n[bronze]\nwrite-mode = "merge-on-read"\ntarget-file-rows = 50\n')
    (d / "quality").mkdir()
    (d / "quality" / "rules.toml").write_text(QUALITY)
    src.floe(d, "generate", check=0)
    r, silver = run(src, d)
    assert r.rc == 0 and silver["silver.kids"]["changed_keys"] == -1, r.out + r.err  # the first build: full
    return d


def run(src, d):
    r = src.floe(d, "run", "--json", check=None)
    return r, {t["table"]: t for t in json.loads(r.out).get("silver", [])}


def error_tests(d):
    lock = json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())
    kids = next(t for t in lock["tables"] if t.get("silver", {}).get("table") == "silver.kids")
    return [t for t in kids["silver"]["tests"] if t["severity"] == "error"]


def snapshot(d):
    return catalog(d).load_table("silver.kids").current_snapshot().snapshot_id


def kids(d):
    rows = catalog(d).load_table("silver.kids").scan().to_arrow().to_pylist()
    return sorted([norm(v) for v in r.values()] for r in rows)


def source_kids(src):
    with src.reader() as conn:
        return sorted([norm(v) for v in r] for r in conn.execute("select * from kids").fetchall())


def children(src, sql):
    """The first column of `sql`'s rows in the source, sorted: at least five of them."""
    with src.reader() as conn:
        rows = sorted(r[0] for r in conn.execute(sql).fetchall())
    assert len(rows) >= 5, rows
    return rows


def bypass(src, sql):
    """`sql` with the source's foreign keys not enforced (replica role: no FK triggers)."""
    src.admin("SET session_replication_role = replica; " + sql)


def test_an_incremental_build_runs_every_error_test_on_the_change_only(src, proj):
    src.admin("UPDATE kids SET qty = qty + 1 WHERE kid_id IN (3, 4)")
    r, silver = run(src, proj)
    k = silver["silver.kids"]
    assert r.rc == 0 and k["state"] == "built" and k["changed_keys"] == 2, k
    n = len(error_tests(proj))
    assert k["tests"]["passed"] == n + 1 and k["tests"]["incremental"] == n, k
    assert f"{n} of them incrementally" in k["detail"], k
    assert "over the whole table: range_kids_qty" in k["detail"], k
    assert kids(proj) == source_kids(src)


def test_an_orphan_foreign_key_in_a_changed_row_fails_the_table(src, proj):
    before = snapshot(proj)
    bypass(src, "UPDATE kids SET p_id = 999 WHERE kid_id = 5")
    r, silver = run(src, proj)
    k = silver["silver.kids"]
    assert r.rc == 1 and k["state"] == "failed" and k["changed_keys"] == 1, k
    assert k["tests"]["incremental"] == len(error_tests(proj)), k  # caught by the narrowed test
    assert "relationships_kids_p_id_fkey failed: 1 row, keys (5)" in k["error"], k
    assert snapshot(proj) == before
    src.admin("UPDATE kids SET p_id = 1 WHERE kid_id = 5")
    r, silver = run(src, proj)
    assert r.rc == 0 and silver["silver.kids"]["state"] == "built", silver["silver.kids"]


def test_deleting_a_parent_under_unchanged_children_fails_them(src, proj):
    # the children did not change at all: only the parent's removed key can orphan them
    before = snapshot(proj)
    orphans = children(src, "select kid_id from kids where p_id = 7")
    bypass(src, "DELETE FROM parents WHERE p_id = 7")
    r, silver = run(src, proj)
    k = silver["silver.kids"]
    assert r.rc == 1 and k["state"] == "failed" and k["changed_keys"] == 0, k
    assert k["tests"]["incremental"] == len(error_tests(proj)), k
    shown = "; ".join(f"({i})" for i in sorted(orphans, key=str)[:5])
    assert f"relationships_kids_p_id_fkey failed: {len(orphans)} rows, keys {shown}" in k["error"], k
    assert snapshot(proj) == before
    src.admin("INSERT INTO parents VALUES (7, 'p7')")
    r, silver = run(src, proj)
    assert r.rc == 0 and silver["silver.kids"]["state"] == "built", silver["silver.kids"]


def test_a_duplicate_value_a_change_introduced_fails_the_table(src, proj):
    before = snapshot(proj)
    src.admin("UPDATE kids SET code = 'c11' WHERE kid_id = 12")
    r, silver = run(src, proj)
    k = silver["silver.kids"]
    assert r.rc == 1 and k["state"] == "failed" and k["changed_keys"] == 1, k
    assert k["tests"]["incremental"] == len(error_tests(proj)), k
    assert "unique_kids_code failed: 2 rows, keys (c11)" in k["error"], k
    assert snapshot(proj) == before
    src.admin("UPDATE kids SET code = 'c12' WHERE kid_id = 12")
    r, silver = run(src, proj)
    assert r.rc == 0 and silver["silver.kids"]["state"] == "built", silver["silver.kids"]


def test_a_null_in_a_changed_row_is_quarantined(src, proj):
    src.admin("UPDATE kids SET code = NULL WHERE kid_id = 20")
    r, silver = run(src, proj)
    k = silver["silver.kids"]
    assert r.rc == 0 and k["state"] == "built" and k["changed_keys"] == 1 and k["quarantined"] == 1, k
    assert k["tests"]["incremental"] == len(error_tests(proj)), k
    assert "not_null_kids_code: 1 row quarantined" in k["detail"], k
    q = catalog(proj).load_table("silver.kids__quarantine").scan().to_arrow().to_pylist()
    assert [(r["kid_id"], r["floe_rule"]) for r in q] == [(20, "not_null_kids_code")], q
    assert kids(proj) == [r for r in source_kids(src) if r[0] != 20]


REMEMBERED = "relationships_kids_p_id_fkey: the keys silver.parents lost come from its own build in this run"


def run_vv(src, d):
    r = src.floe(d, "-vv", "run", "--json", check=None)
    return r, {t["table"]: t for t in json.loads(r.out).get("silver", [])}


def published(src, proj, sql):
    """`sql` (foreign keys not enforced), then a run that publishes silver.kids."""
    bypass(src, sql)
    r, silver = run(src, proj)
    assert r.rc == 0 and silver["silver.kids"]["state"] == "built", silver["silver.kids"]


def caught_through_the_parents_build(src, proj, plant, failure, fix, **parents):
    """`plant` (foreign keys not enforced) fails silver.kids with `failure`, found through
    silver.parents' own build in the same run (built, its result holding `parents`); the kids'
    snapshot stays. Then `fix` publishes them again. The kids' result of the failed run."""
    before = snapshot(proj)
    bypass(src, plant)
    r, silver = run_vv(src, proj)
    k, p = silver["silver.kids"], silver["silver.parents"]
    assert p["state"] == "built" and all(p[f] == v for f, v in parents.items()), p
    assert r.rc == 1 and k["state"] == "failed", k
    assert REMEMBERED in r.err, r.err[-3000:]
    assert failure in k["error"], k
    assert snapshot(proj) == before
    published(src, proj, fix)
    return k


def test_a_new_row_referencing_a_parent_key_deleted_in_the_same_run_fails(src, proj):
    # no kept row references parent 9 (moved to 1 first): only the new kid does, and the parent's
    # build in the same run deleted 9 — the lost key known from that build, not from a scan
    published(src, proj, "UPDATE kids SET p_id = 1 WHERE p_id = 9")
    k = caught_through_the_parents_build(
        src, proj, "DELETE FROM parents WHERE p_id = 9; INSERT INTO kids VALUES (501, 9, 'c501', 1)",
        "relationships_kids_p_id_fkey failed: 1 row, keys (501)", "INSERT INTO parents VALUES (9, 'p9')",
        changed_keys=1)
    assert k["changed_keys"] == 1, k
    assert kids(proj) == [r for r in source_kids(src) if r[0] != 20]  # 20: quarantined above


def test_a_new_orphan_while_the_parent_moved_too_fails(src, proj):
    # the parent changed another key in the same run: the new kid's parent 998 is none the parent
    # changed, so the parent itself is read for it
    caught_through_the_parents_build(
        src, proj, "UPDATE parents SET name = 'p2 renamed' WHERE p_id = 2; INSERT INTO kids VALUES (502, 998, 'c502', 1)",
        "relationships_kids_p_id_fkey failed: 1 row, keys (502)", "DELETE FROM kids WHERE kid_id = 502",
        changed_keys=1)


def test_children_of_a_parent_row_quarantined_in_the_same_run_fail(src, proj):
    # the parent row of key 8 fails its own row test in this run: kept out of silver.parents, so
    # the unchanged kids of parent 8 are orphans in silver. First a published kids snapshot that
    # read the parent as it is now (the last run published none: its one change was a kid never published)
    published(src, proj, "UPDATE kids SET qty = qty + 1 WHERE kid_id = 1")
    orphans = children(src, "select kid_id from kids where p_id = 8")
    shown = "; ".join(f"({i})" for i in sorted(orphans, key=str)[:5])
    k = caught_through_the_parents_build(
        src, proj, "UPDATE parents SET name = 'x8' WHERE p_id = 8",
        f"relationships_kids_p_id_fkey failed: {len(orphans)} rows, keys {shown}",
        "UPDATE parents SET name = 'p8' WHERE p_id = 8", quarantined=1)
    assert k["changed_keys"] == 0, k
    assert kids(proj) == [r for r in source_kids(src) if r[0] != 20]


def test_deleting_a_parent_under_unchanged_children_keyed_by_it_fails_them(src, proj):
    # kid_parts' key holds its foreign key: the scan that finds its changed rows also counts the
    # kept rows of the keys the parent lost in the same run (no second scan), and finds these
    bypass(src, "UPDATE kid_parts SET qty = qty + 1 WHERE part = 1")
    r, silver = run(src, proj)
    assert r.rc == 0 and silver["silver.kid_parts"]["state"] == "built", silver["silver.kid_parts"]
    orphans = children(src, "select part from kid_parts where p_id = 11")
    bypass(src, "DELETE FROM parents WHERE p_id = 11; UPDATE kid_parts SET qty = qty + 1 WHERE part = 2")
    r, silver = run_vv(src, proj)
    k = silver["silver.kid_parts"]
    assert r.rc == 1 and k["state"] == "failed" and k["changed_keys"] == 1, k
    assert ("relationships_kid_parts_p_id_fkey: kept rows of lost keys counted with the changed rows: "
            f"{len(orphans)}") in r.err, r.err[-3000:]
    shown = "; ".join(f"(11, {i})" for i in sorted(orphans, key=lambda i: f"(11, {i})")[:5])
    assert f"relationships_kid_parts_p_id_fkey failed: {len(orphans)} rows, keys {shown}" in k["error"], k
    published(src, proj, "INSERT INTO parents VALUES (11, 'p11')")
    r, silver = run(src, proj)
    assert r.rc == 0 and silver["silver.kid_parts"]["state"] == "built", silver["silver.kid_parts"]


def test_builds_at_once_read_a_parent_only_once_its_build_is_over(src, proj):
    # --jobs 3: the three tables start together; each child's own work overlaps the parent's build,
    # and it reads the parent (its relationships tests, the keys it lost) only once that build has
    # published and left its lost keys — the log's order says so
    bypass(src, "UPDATE parents SET name = 'p3 again' WHERE p_id = 3; "
                "UPDATE kids SET qty = qty + 1 WHERE kid_id = 3; UPDATE kid_parts SET qty = qty + 1 WHERE part = 3")
    r = src.floe(proj, "-vv", "run", "--jobs", "3", "--json", check=None)
    silver = {t["table"]: t for t in json.loads(r.out).get("silver", [])}
    assert r.rc == 0, r.out + r.err[-3000:]
    assert all(silver[t]["state"] == "built" for t in ("silver.parents", "silver.kids", "silver.kid_parts")), silver
    lines = r.err.splitlines()

    def at(text):
        found = [i for i, line in enumerate(lines) if text in line]
        assert found, f"no line with {text!r}: " + r.err[-3000:]
        return found[0]
    over = at("silver.parents: gone keys")
    for child in ("silver.kids", "silver.kid_parts"):
        assert over < at(f"{child}: waited for the silver tables it reads"), r.err[-3000:]
        assert over < at(f"{child}: relationships_"), r.err[-3000:]


def test_kept_rows_of_a_lost_parent_key_are_asked_of_the_foreign_key_index(src, proj):
    # kids' foreign key p_id is not in its key: whether a kept kid holds a key the parent lost is
    # asked of the index of silver.kids' p_id (.floe/keys/silver.kids.<its field id>) — made by the
    # publish of the first build that asked (the scan answers that one), kept by every publish
    # after; FLOE_SILVER_KEYS_CHECK=1 (the suite's) asks the scan too and fails the build when they differ
    for p in (900, 901):
        src.admin(f"INSERT INTO parents VALUES ({p}, 'p{p}')")
        published(src, proj, "UPDATE kids SET qty = qty + 1 WHERE kid_id = 5")
        src.admin(f"DELETE FROM parents WHERE p_id = {p}; UPDATE kids SET qty = qty + 1 WHERE kid_id = 6")
        r, silver = run_vv(src, proj)
        assert r.rc == 0 and silver["silver.kids"]["state"] == "built", r.err[-3000:]
        index = [p for p in (proj / ".floe" / "keys").glob("silver.kids.*") if (p / "manifest").is_file()]
        assert len(index) == 2, index  # the key's and p_id's
    assert "relationships_kids_p_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: none" in r.err, r.err[-3000:]
    # a parent deleted under kept kids (foreign keys not enforced): the index finds them, the test fails
    orphans = children(src, "select kid_id from kids where p_id = 13")
    bypass(src, "DELETE FROM parents WHERE p_id = 13; UPDATE kids SET qty = qty + 1 WHERE kid_id = 7")
    r, silver = run_vv(src, proj)
    k = silver["silver.kids"]
    assert r.rc == 1 and k["state"] == "failed", k
    assert "relationships_kids_p_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: some" in r.err, r.err[-3000:]
    assert f"relationships_kids_p_id_fkey failed: {len(orphans)} rows" in k["error"], k
    published(src, proj, "INSERT INTO parents VALUES (13, 'p13')")
    assert kids(proj) == [r for r in source_kids(src) if r[0] != 20]
