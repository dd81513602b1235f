"""`floe init` and `floe doctor` against a real PostgreSQL."""
import json
import stat

import pytest

from conftest import floe, make_role

TABLES = """
DROP SCHEMA IF EXISTS sales CASCADE;
DROP TABLE IF EXISTS public.orders, public.items;
CREATE TABLE public.orders (id int PRIMARY KEY, note text, card_number text);
CREATE TABLE public.items (id int PRIMARY KEY, order_id int REFERENCES public.orders);
CREATE SCHEMA sales;
CREATE TABLE sales.targets (month date PRIMARY KEY, amount numeric(12,2));
"""

READ_ONLY = [
    "GRANT USAGE ON SCHEMA sales TO {role}",
    "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",
    "GRANT SELECT ON ALL TABLES IN SCHEMA sales TO {role}",
]


@pytest.fixture(scope="module", autouse=True)
def tables(stack):
    import psycopg
    with psycopg.connect(stack["admin"], autocommit=True) as conn:
        conn.execute(TABLES)


def init(stack, project, role="floe_reader", password=None, extra=()):
    env = {"FLOE_SOURCE_PASSWORD": password or stack["password"]}
    return floe("init", "--source", f"127.0.0.1:{stack['port']}/shop", "--source-user", role,
                *extra, str(project), env=env)


def doctor(stack, project, password, *args):
    return floe("-C", str(project), "doctor", *args, env={"FLOE_SOURCE_PASSWORD": password})


def checks(result):
    return {c["id"]: c for c in json.loads(result.out)["checks"]}


def test_init_discovers_schemas_and_writes_layout(stack, admin, project):
    make_role(admin, "reader_all", "pw-reader-all", READ_ONLY)
    r = init(stack, project, "reader_all", "pw-reader-all")
    assert r.rc == 0, r
    toml = (project / "floe.toml").read_text()
    assert 'schemas = ["public", "sales"]' in toml, toml
    assert "public (2 tables), sales (1 table)" in toml
    assert f"port = {stack['port']}" in toml and 'user = "reader_all"' in toml
    assert 'password-env = "FLOE_SOURCE_PASSWORD"' in toml
    for d in ["marts", ".floe", "warehouse"]:
        assert (project / d).is_dir()
    assert (project / "warehouse" / "catalog.db").is_file()
    assert "3 tables in 2 schemas" in r.out, r


def test_init_twice_never_overwrites(stack, project):
    assert init(stack, project).rc == 0
    edited = (project / "floe.toml").read_text() + "\n# my own note\n"
    (project / "floe.toml").write_text(edited)
    (project / "marts" / "README.md").write_text("mine")
    r = init(stack, project)
    assert r.rc == 0, r
    assert "kept floe.toml" in r.out, r
    assert (project / "floe.toml").read_text() == edited
    assert (project / "marts" / "README.md").read_text() == "mine"


def test_init_unreachable_source_still_writes_a_valid_config(project):
    r = floe("init", "--source", "127.0.0.1:1/shop", "--source-user", "x", str(project))
    assert r.rc == 0, r
    assert "could not discover the source" in r.out, r
    assert 'schemas = ["public"]' in (project / "floe.toml").read_text()
    d = floe("-C", str(project), "doctor")
    assert d.rc == 1, d
    assert "fail  source reachable" in d.out and "→" in d.out, d


def test_save_password_is_owner_only(stack, project):
    r = init(stack, project, extra=["--save-password"])
    assert r.rc == 0, r
    f = project / ".floe" / "secrets" / "source-password"
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    assert stat.S_IMODE(f.parent.stat().st_mode) == 0o700
    assert f.read_text() == stack["password"]
    assert stack["password"] not in (project / "floe.toml").read_text()
    # doctor connects with the saved password when the variable is unset
    d = floe("-C", str(project), "doctor", "--json", unset=["FLOE_SOURCE_PASSWORD"])
    assert checks(d)["source.reachable"]["status"] == "ok", d


def test_doctor_passes_for_a_read_only_role(stack, admin, project):
    make_role(admin, "reader_ok", "pw-reader-ok", READ_ONLY)
    assert init(stack, project, "reader_ok", "pw-reader-ok").rc == 0
    r = doctor(stack, project, "pw-reader-ok")
    assert r.rc == 0, r
    assert "0 fail" in r.out
    j = doctor(stack, project, "pw-reader-ok", "--json")
    assert j.rc == 0 and json.loads(j.out)["ok"] is True
    c = checks(j)
    assert c["session.read_only"]["status"] == "ok"
    assert c["columns.visible"]["facts"] == "3 tables, 7 columns, all visible"
    assert c["engine.duckdb"]["status"] == "ok"


def test_doctor_fails_and_names_a_writable_table(stack, admin, project):
    make_role(admin, "reader_ins", "pw-reader-ins", READ_ONLY + ["GRANT INSERT ON public.items TO {role}"])
    assert init(stack, project, "reader_ins", "pw-reader-ins").rc == 0
    r = doctor(stack, project, "pw-reader-ins", "--json")
    assert r.rc == 1, r
    c = checks(r)["role.table_writes"]
    assert c["status"] == "fail" and c["facts"] == "public.items (INSERT)" and c["todo"], c


def test_doctor_fails_and_names_a_hidden_column(stack, admin, project):
    grants = [g for g in READ_ONLY if "public" not in g] + [
        "GRANT SELECT ON public.items TO {role}",
        "GRANT SELECT (id, note) ON public.orders TO {role}",
    ]
    make_role(admin, "reader_col", "pw-reader-col", grants)
    assert init(stack, project, "reader_col", "pw-reader-col").rc == 0
    r = doctor(stack, project, "pw-reader-col")
    assert r.rc == 1, r
    assert "not visible: public.orders.card_number" in r.out, r
    assert "floe refuses to load a table it cannot read whole" in r.out


def test_doctor_fails_for_a_superuser(stack, admin, project):
    make_role(admin, "reader_su", "pw-reader-su", ["ALTER ROLE {role} SUPERUSER"])
    assert init(stack, project, "reader_su", "pw-reader-su").rc == 0
    c = checks(doctor(stack, project, "pw-reader-su", "--json"))
    assert c["role.read_only"]["status"] == "fail" and "superuser" in c["role.read_only"]["facts"]
    # even a superuser's floe session is read-only
    assert c["session.read_only"]["status"] == "ok"


def test_doctor_fails_for_create_on_schema_and_database(stack, admin, project):
    make_role(admin, "reader_cr", "pw-reader-cr", READ_ONLY + [
        "GRANT CREATE ON SCHEMA sales TO {role}", "GRANT CREATE ON DATABASE shop TO {role}"])
    assert init(stack, project, "reader_cr", "pw-reader-cr").rc == 0
    c = checks(doctor(stack, project, "pw-reader-cr", "--json"))
    assert c["role.schema_create"]["status"] == "fail" and "sales" in c["role.schema_create"]["facts"]
    assert c["role.database_create"]["status"] == "fail"
    admin.execute('REVOKE CREATE ON DATABASE shop FROM "reader_cr"')


def test_doctor_fails_for_pg_write_all_data(stack, admin, project):
    make_role(admin, "reader_wad", "pw-reader-wad", READ_ONLY + ["GRANT pg_write_all_data TO {role}"])
    assert init(stack, project, "reader_wad", "pw-reader-wad").rc == 0
    c = checks(doctor(stack, project, "pw-reader-wad", "--json"))
    assert c["role.read_only"]["status"] == "fail" and "pg_write_all_data" in c["role.read_only"]["facts"]
    assert c["role.table_writes"]["status"] == "fail"


def test_doctor_warns_on_row_level_security(stack, admin, project):
    make_role(admin, "reader_rls", "pw-reader-rls", READ_ONLY)
    admin.execute("ALTER TABLE sales.targets ENABLE ROW LEVEL SECURITY")
    try:
        assert init(stack, project, "reader_rls", "pw-reader-rls").rc == 0
        r = doctor(stack, project, "pw-reader-rls", "--json")
        c = checks(r)["tables.row_security"]
        assert c["status"] == "warn" and "sales.targets" in c["facts"], c
        assert r.rc == 0
    finally:
        admin.execute("ALTER TABLE sales.targets DISABLE ROW LEVEL SECURITY")


def test_doctor_fails_when_a_schema_is_missing(stack, admin, project):
    make_role(admin, "reader_ms", "pw-reader-ms", READ_ONLY)
    assert init(stack, project, "reader_ms", "pw-reader-ms").rc == 0
    t = project / "floe.toml"
    t.write_text(t.read_text().replace('schemas = ["public", "sales"]', 'schemas = ["public", "nope"]'))
    c = checks(doctor(stack, project, "pw-reader-ms", "--json"))
    assert c["schemas.usable"]["status"] == "fail" and "nope (does not exist)" in c["schemas.usable"]["facts"]


def test_doctor_fails_when_warehouse_is_missing(stack, admin, project):
    make_role(admin, "reader_wh", "pw-reader-wh", READ_ONLY)
    assert init(stack, project, "reader_wh", "pw-reader-wh").rc == 0
    (project / "warehouse" / "catalog.db").unlink()
    (project / "warehouse").rmdir()
    c = checks(doctor(stack, project, "pw-reader-wh", "--json"))
    assert c["warehouse.writable"]["status"] == "fail"
    assert c["catalog.opens"]["status"] == "fail"


def test_save_password_later_and_refuse_a_readable_secret_file(stack, project):
    assert init(stack, project).rc == 0
    r = init(stack, project, extra=["--save-password"])
    assert r.rc == 0 and "kept floe.toml" in r.out and "saved the password" in r.out, r
    f = project / ".floe" / "secrets" / "source-password"
    f.chmod(0o644)
    d = floe("-C", str(project), "doctor", "--json", unset=["FLOE_SOURCE_PASSWORD"])
    assert "readable by others" in d.err and "chmod 600" in d.err, d
    assert checks(d)["source.reachable"]["status"] == "fail"
