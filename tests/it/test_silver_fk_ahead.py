"""The index of a foreign key made ahead, or on an idle core (docs/silver.md, "Incremental"): a
merge-on-read child whose foreign key is not in its key asks, when its parent lost keys, whether a
kept row holds one — of the index of that foreign key (.floe/keys/). A full build hands the missing
index to the run's idle builder (src/silver/idle.c), which makes it while the builds leave a core
idle and stops at the run's end; what it did not make, the first incremental build after its
parent's bronze table lost rows to source deletes makes from the published files before the build
needs DuckDB, instead of answering with a scan and making it at its publish; a parent that lost
none, or an index already made, makes nothing. The made-ahead tests run with FLOE_SILVER_IDLE=off
(no idle builder), the idle builder's with =wait (every index it was handed made before the run
ends) and with neither. The suite runs with FLOE_SILVER_KEYS_CHECK=1: every answer of the index is
checked by the scan it saves."""
import json

import pytest

from lakecheck import catalog, norm
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.owners (owner_id int PRIMARY KEY, name text NOT NULL,
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.owners FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.owners (owner_id, name, updated_at)
    SELECT g, 'o' || g, now() - interval '1 day' FROM generate_series(1, 40) g;
CREATE TABLE public.pets (pet_id int PRIMARY KEY, owner_id int NOT NULL REFERENCES owners, name text NOT NULL,
                          updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.pets FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.pets (pet_id, owner_id, name, updated_at)
    SELECT g, 1 + g % 40, 'p' || g, now() - interval '1 day' FROM generate_series(1, 400) g;
'''

AHEAD = "relationships_pets_owner_id_fkey: the index of its foreign key made ahead"
IDLE = "silver.pets: relationships_pets_owner_id_fkey: the index of its foreign key made on an idle core"
OFF = {"FLOE_SILVER_IDLE": "off"}


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "silver_fk_ahead", "silver_fk_ahead_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("silver_fk_ahead")
    src.project(d, extra='\n[bronze]\nwrite-mode = "merge-on-read"\ntarget-file-rows = 100\n')
    src.floe(d, "generate", check=0)
    r, silver = run_vv(src, d)
    assert r.rc == 0 and silver["silver.pets"]["changed_keys"] == -1, r.out + r.err  # the first build: full
    assert AHEAD not in r.err and IDLE not in r.err
    return d


def run_vv(src, d, *args, env=OFF):
    r = src.floe(d, "-vv", "run", "--json", *args, check=None, env=env)
    return r, {t["table"]: t for t in json.loads(r.out).get("silver", [])}


def fk_index(d):
    """The index of pets' owner_id: the one of silver.pets' indexes that is not its key's (field id 1)."""
    return [p for p in (d / ".floe" / "keys").glob("silver.pets.*") if not p.name.endswith(".1")]


def pets(d):
    return sorted([norm(v) for v in r.values()] for r in catalog(d).load_table("silver.pets").scan().to_arrow().to_pylist())


def source_pets(src):
    with src.reader() as conn:
        return sorted([norm(v) for v in r] for r in conn.execute("select * from pets").fetchall())


def test_a_parent_that_lost_rows_has_its_childrens_index_made_before_it_is_asked(src, proj):
    # a run where no owner is deleted: nothing made ahead, no index of owner_id yet
    src.admin("UPDATE owners SET name = 'renamed' WHERE owner_id = 2; UPDATE pets SET name = 'x' WHERE pet_id = 3")
    r, silver = run_vv(src, proj)
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    assert AHEAD not in r.err and fk_index(proj) == [], r.err[-3000:]
    # owner 5 deleted with its pets: bronze.owners' load deleted a row, so pets' next build makes the
    # index ahead — and asks it whether a kept pet holds owner 5 (none: they went with it)
    src.admin("DELETE FROM pets WHERE owner_id = 5; DELETE FROM owners WHERE owner_id = 5; "
              "UPDATE pets SET name = 'y' WHERE pet_id = 4")
    r, silver = run_vv(src, proj)
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    assert AHEAD + " (bronze.owners lost 1 rows to deletes in its last load)" in r.err, r.err[-3000:]
    assert "silver.pets: foreign keys' indexes made ahead" in r.err, r.err[-3000:]
    assert ("relationships_pets_owner_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: none"
            in r.err), r.err[-3000:]
    assert len(fk_index(proj)) == 1 and pets(proj) == source_pets(src)
    # made once: the next deletes find it there (and kept by each publish)
    src.admin("DELETE FROM pets WHERE owner_id = 6; DELETE FROM owners WHERE owner_id = 6")
    r, silver = run_vv(src, proj)
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    assert AHEAD not in r.err, r.err[-3000:]
    assert ("relationships_pets_owner_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: none"
            in r.err), r.err[-3000:]
    assert pets(proj) == source_pets(src)


def test_the_index_made_ahead_finds_a_kept_row_of_a_lost_parent(src, proj):
    # the index dropped (a cache), then an owner deleted under kept pets (foreign keys not enforced):
    # made ahead, the index finds them and the relationships test fails the table
    for index in fk_index(proj):
        for f in index.iterdir():
            f.unlink()
        index.rmdir()
    orphans = [p for p, o, _, _ in source_pets(src) if o == 7]
    src.admin("SET session_replication_role = replica; DELETE FROM owners WHERE owner_id = 7; "
              "UPDATE pets SET name = 'z' WHERE pet_id = 1")
    r, silver = run_vv(src, proj)
    assert r.rc == 1 and silver["silver.pets"]["state"] == "failed", silver["silver.pets"]
    assert AHEAD in r.err, r.err[-3000:]
    assert ("relationships_pets_owner_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: some"
            in r.err), r.err[-3000:]
    assert f"relationships_pets_owner_id_fkey failed: {len(orphans)} rows" in silver["silver.pets"]["error"]


def drop_fk_index(d):
    for index in fk_index(d):
        for f in index.iterdir():
            f.unlink()
        index.rmdir()


def test_a_full_build_hands_the_missing_index_to_the_idle_builder(src, proj):
    # FLOE_SILVER_IDLE=wait: the full build's publish hands the index of owner_id to the idle
    # builder, which makes it from the published files before the run ends; the next build that
    # asks finds it there (nothing made ahead), and the scan (FLOE_SILVER_KEYS_CHECK) agrees
    src.admin("INSERT INTO owners (owner_id, name) VALUES (7, 'o7 again') ON CONFLICT DO NOTHING")
    r, silver = run_vv(src, proj)  # the last test's orphans have their owner again
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    drop_fk_index(proj)
    r, silver = run_vv(src, proj, "--layer", "silver", "--full-refresh", env={"FLOE_SILVER_IDLE": "wait"})
    assert r.rc == 0 and silver["silver.pets"]["changed_keys"] == -1, r.err[-3000:]
    assert IDLE in r.err, r.err[-3000:]
    assert "foreign keys' indexes on an idle core: 1 made, 0 left" in r.err, r.err[-3000:]
    assert len(fk_index(proj)) == 1
    src.admin("DELETE FROM pets WHERE owner_id = 8; DELETE FROM owners WHERE owner_id = 8")
    r, silver = run_vv(src, proj)
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    assert AHEAD not in r.err and "foreign keys' indexes made ahead" not in r.err, r.err[-3000:]
    assert ("relationships_pets_owner_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: none"
            in r.err), r.err[-3000:]
    assert pets(proj) == source_pets(src)
    # a build that does not ask it (owners loaded again, none deleted) leaves the index as it is; the
    # next that asks reads in the one file it lacks before it needs DuckDB
    src.admin("UPDATE owners SET name = 'v' WHERE owner_id = 12; UPDATE pets SET name = 'v' WHERE pet_id = 10")
    r, silver = run_vv(src, proj)
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    assert "relationships_pets_owner_id_fkey: the index of its foreign key" not in r.err, r.err[-3000:]
    src.admin("DELETE FROM pets WHERE owner_id = 11; DELETE FROM owners WHERE owner_id = 11")
    r, silver = run_vv(src, proj)
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    assert ("relationships_pets_owner_id_fkey: the index of its foreign key completed ahead, 1 files read in "
            "(bronze.owners lost 1 rows" in r.err), r.err[-3000:]
    assert ("relationships_pets_owner_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: none"
            in r.err), r.err[-3000:]
    assert pets(proj) == source_pets(src)


def test_the_idle_builder_stops_at_the_runs_end_and_the_build_that_asks_makes_the_rest(src, proj):
    # the default: whether the idle builder made the index before the run ended depends on the
    # cores; either way the log says which, and the next build that asks answers right — from the
    # index it finds, or from one it makes (or completes: a segment a file) ahead
    drop_fk_index(proj)
    r, silver = run_vv(src, proj, "--layer", "silver", "--full-refresh", env={})
    assert r.rc == 0 and silver["silver.pets"]["changed_keys"] == -1, r.err[-3000:]
    made = IDLE in r.err
    assert "foreign keys' indexes on an idle core: " + ("1 made, 0 left" if made else "0 made, 1 left") in r.err, \
        r.err[-3000:]
    src.admin("DELETE FROM pets WHERE owner_id = 9; DELETE FROM owners WHERE owner_id = 9")
    r, silver = run_vv(src, proj, env={})
    assert r.rc == 0 and silver["silver.pets"]["state"] == "built", r.err[-3000:]
    ahead = AHEAD in r.err or "relationships_pets_owner_id_fkey: the index of its foreign key completed ahead" in r.err
    assert ahead != made, r.err[-3000:]  # made whole on the idle core, or (the rest of it) ahead
    assert ("relationships_pets_owner_id_fkey: kept rows of 1 lost keys found in the index of its foreign key: none"
            in r.err), r.err[-3000:]
    assert pets(proj) == source_pets(src)
