"""floe run's fixed cost (issue #22): the sync before a run is skipped while its inputs — the
source's schema catalog (fingerprinted by the server), floe.toml, pipeline/ and the proposals —
are as the last sync that found nothing left them, and runs again the moment one moves; the role
check and the sync share one source session; the role warning still comes on every run."""
import json

import pytest

from sourcedb import Source

SQL = '''
CREATE TABLE public.items (id bigint PRIMARY KEY, name text NOT NULL);
INSERT INTO public.items SELECT g, 'item ' || g FROM generate_series(1, 50) g;
'''
SKIPPED = "sync skipped: the source's catalog, floe.toml and pipeline/ are as the last sync left them"


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "fixed_it", "fixed_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    return src.generated(tmp_path_factory.mktemp("fixed"))


def run(src, d):
    r = src.floe(d, "-v", "run", "--layer", "bronze", "--json")
    assert r.rc == 0, r.out + r.err
    return r


def lock_columns(d, table="items"):
    lock = json.loads((d / "pipeline" / "lakehouse.lock.json").read_text())
    t = next(t for t in lock["tables"] if t["table"] == table)
    return [c["name"] for c in t["columns"]]


def test_a_quiet_sync_is_skipped_until_an_input_moves(src, proj):
    d = proj
    assert SKIPPED not in run(src, d).err  # the first sync runs and records its inputs
    assert (d / ".floe" / "sync" / "quiet").is_file()
    r = run(src, d)
    assert SKIPPED in r.err, r.err
    # data and statistics do not move the catalog
    src.admin("INSERT INTO public.items VALUES (51, 'more'); ANALYZE public.items")
    assert SKIPPED in run(src, d).err
    # DDL does: the sync runs, and its safe change is committed and loaded
    src.admin("ALTER TABLE public.items ADD COLUMN note text")
    r = run(src, d)
    assert SKIPPED not in r.err, r.err
    assert "note" in lock_columns(d), lock_columns(d)
    assert SKIPPED not in run(src, d).err  # a sync that committed records nothing: the next one does
    assert SKIPPED in run(src, d).err


@pytest.mark.parametrize("change", ["comment", "schema comment", "grant", "toml", "pipeline"])
def test_each_input_moves_the_stamp(src, proj, change):
    d = proj
    run(src, d)
    assert SKIPPED in run(src, d).err
    if change == "comment":
        src.admin("COMMENT ON COLUMN public.items.name IS 'what it is called'")
    elif change == "schema comment":  # public's OID (2200) is below a user object's: still fingerprinted
        src.admin("COMMENT ON SCHEMA public IS 'the shop'")
    elif change == "grant":
        src.admin(f"REVOKE SELECT ON public.items FROM {src.role}; GRANT SELECT ON public.items TO {src.role}")
    elif change == "toml":
        (d / "floe.toml").write_text((d / "floe.toml").read_text() + "\n# a comment\n")
    else:
        sql = d / "pipeline" / "bronze" / "items.sql"
        sql.write_text(sql.read_text().replace("FROM ", "FROM  "))  # a hand edit
    assert SKIPPED not in run(src, d).err


def test_the_role_warning_stays_on_every_run(src, proj):
    d = proj
    run(src, d)
    src.admin(f"GRANT INSERT ON public.items TO {src.role}")
    try:
        for _ in range(2):
            r = run(src, d)
            assert 'the source role "fixed_reader" is not read-only' in r.err, r.err
        assert SKIPPED in r.err  # the grant moved the catalog once; the second run skipped the sync
    finally:
        src.admin(f"REVOKE INSERT ON public.items FROM {src.role}")


def test_a_quiet_run_loads_on_the_session_of_its_role_check(src, proj):
    """One source session for the role check, the sync's stamp and the load: a run whose sync is
    skipped connects once (without reconciliation, which reads on sessions of its own) — and
    loads what it should."""
    d = proj
    run(src, d)
    src.admin("INSERT INTO public.items VALUES (1000, 'one more')")
    r = src.floe(d, "-v", "run", "--layer", "bronze", "--json", "--no-reconcile")  # reconciliation has its own
    assert r.rc == 0 and SKIPPED in r.err, r.err
    assert r.err.count("connecting to ") == 1, r.err
    loaded = json.loads(r.out)["tables"]
    assert [t["state"] for t in loaded] == ["loaded"], loaded
    rows = src.admin("SELECT count(*) FROM public.items").fetchone()[0]
    assert loaded[0]["table_rows"] == rows, (loaded, rows)
