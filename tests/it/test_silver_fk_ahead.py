"""The index of a foreign key made ahead (docs/silver.md, "Incremental"): a merge-on-read child
whose foreign key is not in its key asks, when its parent lost keys, whether a kept row holds one —
of the index of that foreign key (.floe/keys/). The first incremental build after its parent's
bronze table lost rows to source deletes makes that index from the published files before the
build needs DuckDB, instead of answering with a scan and making it at its publish; a parent that
lost none, or an index already made, makes nothing. The suite runs with FLOE_SILVER_KEYS_CHECK=1:
every answer of the index is checked by the scan it saves."""
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
    assert AHEAD not in r.err
    return d


def run_vv(src, d):
    r = src.floe(d, "-vv", "run", "--json", check=None)
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
