"""`floe generate`: pipeline/ as a git repository with bronze SQL and lakehouse.lock.json;
no commit when nothing changed, hand edits kept and reported, stable field ids."""
import hashlib
import json
import subprocess

import pytest

from sourcedb import Source

SCHEMA = r'''
CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.updated_at := now(); RETURN NEW; END $$;
CREATE TABLE orders (id int PRIMARY KEY, note text, amount numeric(12,2), tags text[],
                     updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER orders_touch BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TABLE reviews (id int PRIMARY KEY, body text, doc jsonb);
CREATE TABLE extra (id int PRIMARY KEY);
CREATE TABLE "Mixed ""Case""" ("Key Col" int PRIMARY KEY, "naïve" interval);
CREATE TABLE hidden (id int PRIMARY KEY, secret text);
INSERT INTO orders VALUES (1, 'n', 9.99, '{a,b}'), (2, NULL, NULL, NULL);
INSERT INTO reviews VALUES (1, 'good', '{"stars": 5}');
INSERT INTO "Mixed ""Case""" VALUES (7, '1 day 2 hours');
GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};
REVOKE SELECT ON hidden FROM {role};
GRANT SELECT (id) ON hidden TO {role};
'''


@pytest.fixture(scope="module")
def gen(stack, tmp_path_factory):
    src = Source(stack, "gen_it", "gen_reader")
    src.create(SCHEMA.replace("{role}", src.role))
    d = tmp_path_factory.mktemp("gen")
    home = tmp_path_factory.mktemp("home")  # no git identity: the commit author is floe's default
    src.project(d)
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home)}

    def run(*args, check=0):
        return src.floe(d, "generate", *args, check=check, env=env)
    return src, d, run


def git(d, *args):
    return subprocess.run(["git", "-C", str(d / "pipeline"), *args], capture_output=True, text=True,
                          check=True, env={"HOME": str(d), "PATH": "/usr/bin:/bin"}).stdout


def lock(d):
    return json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())


def table(lk, name):
    return next(t for t in lk["tables"] if t["schema"] == "public" and t["table"] == name)


def ids(lk, name):
    return {c["name"]: c["id"] for c in table(lk, name)["columns"]}


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def commits(d):
    return int(git(d, "rev-list", "--count", "HEAD"))


def test_first_generate_commits_sql_and_lock(gen):
    src, d, run = gen
    r = run("--json")
    out = json.loads(r.out)
    assert out["committed"] and not out["drift"], out
    p = d / "pipeline"
    assert (p / ".git").is_dir() and commits(d) == 1
    assert git(d, "log", "-1", "--format=%an <%ae>").strip() == "floe <floe@localhost>"
    assert git(d, "status", "--porcelain") == ""
    assert git(d, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    lk = lock(d)
    assert lk["format"] == 1 and lk["session"]["TimeZone"] == "UTC"
    orders = table(lk, "orders")
    assert orders["mode"] == "incremental" and orders["watermark"] == "updated_at"
    assert orders["key"] == ["id"] and orders["bronze"] == "bronze.orders"
    assert ids(lk, "orders") == {"id": 1, "note": 2, "amount": 3, "tags": 4, "updated_at": 6}
    tags = next(c for c in orders["columns"] if c["name"] == "tags")
    assert tags["type"] == {"type": "list", "element-id": 5, "element": "string", "element-required": False}
    assert orders["columns"][2]["type"] == "decimal(12,2)" and orders["columns"][0]["required"]
    assert orders["last-column-id"] == 6
    assert table(lk, "hidden")["mode"] == "refused" and table(lk, "hidden")["files"] == {}
    assert not (p / "bronze" / "hidden.sql").exists()
    for t in lk["tables"]:
        for path, digest in t["files"].items():
            assert sha(p / path) == digest, path
    assert git(d, "show", "--stat", "--format=%B", "HEAD").count("added bronze/") == 4


def test_generated_sql_runs_as_the_reader(gen):
    src, d, _ = gen
    lk = lock(d)
    ran = 0
    for t in lk["tables"]:
        for path in (f for f in t["files"] if f.startswith("bronze/")):  # not its dbt model
            names, rows = src.run_extraction((d / "pipeline" / path).read_text(), lk["session"])
            assert names == [c["name"] for c in t["columns"]], path
            ran += 1
            if t["table"] == 'Mixed "Case"':
                assert rows == [(7, "P1DT2H")]
            if t["table"] == "reviews":
                assert rows == [(1, "good", '{"stars": 5}')]
    assert ran == 4


def test_generate_again_makes_no_commit(gen):
    _, d, run = gen
    r = run()
    assert "nothing changed: no commit" in r.out, r
    assert commits(d) == 1


def test_hand_edit_is_kept_and_reported(gen):
    _, d, run = gen
    f = d / "pipeline" / "bronze" / "reviews.sql"
    generated = f.read_text()
    f.write_text(generated.replace("FROM public.reviews", "FROM public.reviews WHERE id > 0"))
    edited = f.read_text()
    r = run("--json")
    out = json.loads(r.out)
    assert out["drift"] and not out["committed"], out
    assert {"path": "bronze/reviews.sql", "action": "kept", "drift": True} in out["files"]
    assert f.read_text() == edited
    digest = table(lock(d), "reviews")["files"]["bronze/reviews.sql"]
    assert digest == hashlib.sha256(generated.encode()).hexdigest() != sha(f)
    assert git(d, "status", "--porcelain").strip() == "M bronze/reviews.sql"
    text = run().out
    assert "kept      bronze/reviews.sql  edited by hand: drift" in text, text
    assert commits(d) == 1


def test_new_column_gets_a_new_id_others_keep_theirs(gen):
    src, d, run = gen
    before = ids(lock(d), "orders")
    src.admin("ALTER TABLE orders ADD COLUMN status text")
    r = run()
    assert "public.orders: new column status, id 7" in r.out, r
    after = ids(lock(d), "orders")
    assert after == {**before, "status": 7}
    assert commits(d) == 2
    message = git(d, "log", "-1", "--format=%B")
    assert "public.orders: new column status, id 7" in message and "updated bronze/orders.sql" in message
    assert "status" in (d / "pipeline" / "bronze" / "orders.sql").read_text()
    assert git(d, "status", "--porcelain").strip() == "M bronze/reviews.sql"  # the edit stays the person's


def test_dropped_and_added_again_gets_a_new_id_rename_keeps_it(gen):
    src, d, run = gen
    src.admin("ALTER TABLE orders DROP COLUMN note; ALTER TABLE orders ADD COLUMN note text;"
              " ALTER TABLE orders RENAME COLUMN amount TO total")
    r = run()
    lk = lock(d)
    got = ids(lk, "orders")
    assert got["note"] == 8 and got["total"] == 3 and got["id"] == 1 and got["tags"] == 4
    assert table(lk, "orders")["last-column-id"] == 8
    assert "column note dropped, id 2 retired" in r.out and "column amount renamed to total, id 3 kept" in r.out
    assert 2 not in got.values()


def test_removed_table_file_is_deleted_and_ids_kept(gen):
    src, d, run = gen
    src.admin("DROP TABLE extra")
    r = run()
    assert "removed   bronze/extra.sql" in r.out, r
    assert not (d / "pipeline" / "bronze" / "extra.sql").exists()
    extra = table(lock(d), "extra")
    assert extra["mode"] == "removed" and extra["columns"][0]["id"] == 1
    assert "bronze/extra.sql" not in git(d, "ls-files")


def test_deleted_file_is_restored_and_git_config_author_is_used(gen):
    src, d, run = gen
    (d / "pipeline" / "bronze" / "orders.sql").unlink()  # deleted: floe writes it again
    r = run()
    assert "restored  bronze/orders.sql" in r.out and "nothing changed: no commit" in r.out, r
    git(d, "config", "user.name", "Ada Lovelace")
    git(d, "config", "user.email", "ada@example.org")
    src.admin("ALTER TABLE orders ADD COLUMN shipped boolean")
    r = run()
    assert "committed" in r.out, r
    assert git(d, "log", "-1", "--format=%an <%ae>").strip() == "Ada Lovelace <ada@example.org>"


def test_broken_lock_is_a_configuration_error(gen):
    _, d, run = gen
    path = d / "pipeline" / "lakehouse.lock.json"
    good = path.read_text()
    path.write_text(good.replace('"last-column-id": 9', '"last-column-id": 1'))
    r = run(check=2)
    assert "tables[" in r.err and "last-column-id is 1, below field id" in r.err, r
    path.write_text(good)
