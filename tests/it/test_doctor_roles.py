"""`floe doctor`'s read-only check follows role membership as PostgreSQL does: every role the
login role can SET ROLE to counts (a NOINHERIT member still can), CREATEROLE fails, and
`floe run` / `floe plan` warn once when the role is not read-only."""
import json

import psycopg
import pytest

from sourcedb import Source

TABLES = """
CREATE TABLE t (id int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
"""

ROLES = ["dr_member", "dr_mid", "dr_owner", "dr_creator", "dr_wad", "dr_sowner", "dr_col", "dr_col_writer"]
WARNING = "is not read-only"


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "doctor_roles_it", "dr_reader")
    s.create(TABLES)  # a fresh database first: the roles own nothing left in it
    with psycopg.connect(stack["admin"], autocommit=True) as conn:
        for role in ROLES:
            if conn.execute("select 1 from pg_roles where rolname = %s", (role,)).fetchone():
                conn.execute(f'DROP OWNED BY "{role}"')
                conn.execute(f'DROP ROLE "{role}"')
    s.grant_read("public")
    # t belongs to dr_owner; dr_member reaches it only through dr_mid, and inherits nothing
    s.admin("CREATE ROLE dr_owner NOLOGIN; ALTER TABLE t OWNER TO dr_owner;"
            "CREATE ROLE dr_mid NOLOGIN; GRANT dr_owner TO dr_mid;"
            f"CREATE ROLE dr_member LOGIN NOINHERIT PASSWORD '{s.password}'; GRANT dr_mid TO dr_member;"
            "GRANT USAGE ON SCHEMA public TO dr_member; GRANT SELECT ON t TO dr_member;"
            f"CREATE ROLE dr_creator LOGIN CREATEROLE PASSWORD '{s.password}';"
            "GRANT USAGE ON SCHEMA public TO dr_creator; GRANT SELECT ON t TO dr_creator;"
            f"CREATE ROLE dr_wad LOGIN NOINHERIT PASSWORD '{s.password}'; GRANT pg_write_all_data TO dr_wad;"
            "GRANT USAGE ON SCHEMA public TO dr_wad; GRANT SELECT ON t TO dr_wad;"
            # owns the schema but has given up CREATE in it: it can still drop the tables
            f"CREATE ROLE dr_sowner LOGIN PASSWORD '{s.password}'; ALTER SCHEMA public OWNER TO dr_sowner;"
            "REVOKE CREATE ON SCHEMA public FROM dr_sowner; GRANT SELECT ON t TO dr_sowner;"
            # may UPDATE one column only, through a role it can become
            "CREATE ROLE dr_col_writer NOLOGIN; GRANT UPDATE (v) ON t TO dr_col_writer;"
            f"CREATE ROLE dr_col LOGIN PASSWORD '{s.password}'; GRANT USAGE ON SCHEMA public TO dr_col;"
            "GRANT SELECT ON t TO dr_col; GRANT INSERT (id) ON t TO dr_col; GRANT dr_col_writer TO dr_col;"
            "GRANT TRIGGER ON t TO dr_col;")
    return s


def project_as(src, directory, role):
    src.project(directory)
    toml = directory / "floe.toml"
    toml.write_text(toml.read_text().replace(f'user = "{src.role}"', f'user = "{role}"'))
    src.floe(directory, "init", check=0)
    return directory


def checks(result):
    return {c["id"]: c for c in json.loads(result.out)["checks"]}


def test_a_noinherit_member_of_the_owner_can_delete(src):
    """The threat is real: the old checks passed (no privilege is inherited), yet SET ROLE works."""
    with psycopg.connect(host="127.0.0.1", port=src.stack["port"], dbname=src.name,
                         user="dr_member", password=src.password) as conn:
        assert conn.execute("select has_table_privilege('t', 'DELETE'),"
                            " pg_has_role('dr_owner', 'USAGE')").fetchone() == (False, False)
        conn.execute("SET ROLE dr_owner")
        assert conn.execute("DELETE FROM t").rowcount == 2
        conn.rollback()


def test_doctor_fails_for_a_noinherit_member_naming_the_chain(src, tmp_path):
    d = project_as(src, tmp_path, "dr_member")
    r = src.floe(d, "doctor", "--json")
    assert r.rc == 1, r
    c = checks(r)
    ro = c["role.read_only"]
    assert ro["status"] == "fail", ro
    assert ('role "dr_member" can SET ROLE to "dr_owner" (dr_member → dr_mid → dr_owner), '
            "which owns public.t") in ro["facts"], ro
    assert 'REVOKE "dr_mid" FROM "dr_member"' in ro["todo"], ro
    # what the login role itself holds is still clean: the failure comes from the chain alone
    assert c["role.table_writes"]["status"] == "ok", c
    text = src.floe(d, "doctor")
    assert "fail  source role is read-only" in text.out and "dr_mid → dr_owner" in text.out, text


def test_doctor_fails_for_createrole_and_says_why(src, tmp_path):
    d = project_as(src, tmp_path, "dr_creator")
    r = src.floe(d, "doctor", "--json")
    assert r.rc == 1, r
    ro = checks(r)["role.read_only"]
    assert ro["status"] == "fail", ro
    assert 'role "dr_creator" has CREATEROLE' in ro["facts"], ro
    assert "NOCREATEROLE" in ro["todo"] and "pg_write_all_data" in ro["todo"], ro


def test_doctor_fails_for_a_noinherit_member_of_pg_write_all_data(src, tmp_path):
    d = project_as(src, tmp_path, "dr_wad")
    r = src.floe(d, "doctor", "--json")
    assert r.rc == 1, r
    c = checks(r)
    assert c["role.table_writes"]["status"] == "ok", c  # nothing inherited
    ro = c["role.read_only"]
    assert ro["status"] == "fail", ro
    assert ('can SET ROLE to "pg_write_all_data" (dr_wad → pg_write_all_data), which has the '
            "privileges of pg_write_all_data") in ro["facts"], ro
    assert "may write public.t (INSERT, UPDATE, DELETE)" in ro["facts"], ro


def test_doctor_fails_for_the_owner_of_a_selected_schema(src, tmp_path):
    with psycopg.connect(host="127.0.0.1", port=src.stack["port"], dbname=src.name,
                         user="dr_sowner", password=src.password) as conn:
        assert conn.execute("select has_schema_privilege('public', 'CREATE'),"
                            " has_table_privilege('t', 'DELETE')").fetchone() == (False, False)
        conn.execute("DROP TABLE t")  # the owner of a schema may drop what is in it
        conn.rollback()
    d = project_as(src, tmp_path, "dr_sowner")
    r = src.floe(d, "doctor", "--json")
    assert r.rc == 1, r
    c = checks(r)
    assert c["role.schema_create"]["status"] == "ok" and c["role.table_writes"]["status"] == "ok", c
    ro = c["role.read_only"]
    assert ro["status"] == "fail" and 'role "dr_sowner" owns schema public' in ro["facts"], ro
    assert "an owner can drop them" in ro["todo"], ro


def test_doctor_fails_for_a_write_privilege_on_one_column(src, tmp_path):
    d = project_as(src, tmp_path, "dr_col")
    r = src.floe(d, "doctor", "--json")
    assert r.rc == 1, r
    c = checks(r)
    # its own INSERT on one column and TRIGGER, and (inherited, and through SET ROLE) UPDATE on another
    assert c["role.table_writes"]["status"] == "fail", c
    assert c["role.table_writes"]["facts"] == "public.t (INSERT, UPDATE, TRIGGER)", c
    assert ('can SET ROLE to "dr_col_writer" (dr_col → dr_col_writer), which may write '
            "public.t (UPDATE)") in c["role.read_only"]["facts"], c


def test_doctor_passes_for_a_plain_reader(src, tmp_path):
    d = project_as(src, tmp_path, src.role)
    r = src.floe(d, "doctor", "--json")
    assert r.rc == 0, r
    ro = checks(r)["role.read_only"]
    assert ro["status"] == "ok" and 'role "dr_reader": not superuser, no CREATEROLE' in ro["facts"], ro


def test_run_and_plan_warn_once_when_the_role_is_not_read_only(src, tmp_path):
    bad, good = tmp_path / "bad", tmp_path / "good"
    for d, role in ((bad, "dr_member"), (good, src.role)):
        d.mkdir()
        project_as(src, d, role)
        src.floe(d, "generate", check=0)
    for verb in ("plan", "run"):
        r = src.floe(bad, verb)
        assert r.err.count(WARNING) == 1, r
        line = next(ln for ln in r.err.splitlines() if WARNING in ln)
        assert 'role "dr_member"' in line and "role.read_only" in line and "floe doctor" in line, r
        g = src.floe(good, verb)
        assert WARNING not in g.err, g
    # the warning is advice, not a refusal: the load still ran
    assert "verified" in src.floe(bad, "run").out
