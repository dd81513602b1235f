"""Incremental loads and repairs of a table with composite columns: test_bronze_composite.py's
table (nested composites, arrays inside them and of them, NULL records apart from records of
NULLs) with a proven watermark, loaded sorted by key into several files; changed composite
values — to other values, to NULL, to a record of NULLs — inserts and deletes merge into the
files they fall in (floe's own reader rebuilds the struct values it copies and compares), and
bronze read back by PyIceberg, DuckDB's iceberg extension and pyarrow equals PostgreSQL's rows."""
import pyarrow.parquet as pq
import pytest

from icebergkit import local_path
from sourcedb import Source
from test_bronze_composite import SOURCE, carried, catalog, duck, lock_table, norm, pyiceberg_view, source_rows
from test_incremental import repair, results

# The composite table gets a watermark floe can prove: an insert default and a BEFORE UPDATE
# trigger, both now(). The rows already there are stamped a day and more back, ten minutes
# apart, so the late window (5 minutes) of the next run re-reads only the newest of them (id 1).
WATERMARK = '''
ALTER TABLE public.comp ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE public.comp SET updated_at = now() - interval '1 day' - id * interval '10 minutes';
CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER touch BEFORE UPDATE ON public.comp FOR EACH ROW EXECUTE FUNCTION touch();
'''

FILE_ROWS = 3000
ROWS = 25004
BRONZE = "bronze.comp"

# Every kind of change a composite value can make, in the first file (ids 1-4 and 10-3005) and
# the last (ids up to 25009), so the files between stay as they are.
CHANGES = '''
UPDATE public.comp SET home = ROW('New St', 99, ARRAY['n', NULL, ''])::addr WHERE id = 20;
UPDATE public.comp SET p = NULL, homes = NULL, geos = NULL WHERE id = 21;
UPDATE public.comp SET home = ROW(NULL, NULL, NULL), w = ROW(NULL, NULL, NULL), t = ROW(NULL, NULL, NULL, NULL, NULL)
    WHERE id = 22;
UPDATE public.comp SET homes = ARRAY[ROW('z', 1, '{}')::addr, NULL, ROW(NULL, NULL, NULL)::addr,
                                     ROW('y', NULL, ARRAY[NULL, 'q'])::addr],
                       geos = '{}' WHERE id = 23;
UPDATE public.comp SET w = ROW(ROW('sad', 3, '{"k": [1]}', 2.5, ARRAY[NULL]::int[])::tagged, -7, ROW(-0.0, 'NaN')::geo),
                       p.name = 'renamed', p.at = ROW('Elm', NULL, ARRAY[]::text[])::addr WHERE id = 24;
UPDATE public.comp SET home = NULL, homes = ARRAY[NULL]::addr[] WHERE id = 2;
UPDATE public.comp SET home = ROW('was null', 1, NULL)::addr, w = ROW(NULL, 1, NULL) WHERE id = 25009;
INSERT INTO public.comp (id, home, p, t, w, homes, geos) VALUES
    (5, ROW('five', 5, ARRAY['5'])::addr, NULL, ROW('ok', 5, 'null', 5, NULL)::tagged, ROW(NULL, NULL, NULL)::wrapper,
        ARRAY[ROW(NULL, NULL, NULL)::addr], ARRAY[ROW(NULL, NULL)::geo, NULL]),
    (30000, NULL, NULL, NULL, NULL, NULL, NULL),
    (30001, ROW(NULL, NULL, NULL)::addr, ROW(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::place,
        NULL, ROW(ROW(NULL, NULL, NULL, NULL, NULL)::tagged, NULL, NULL)::wrapper, '{}', ARRAY[NULL]::geo[]);
DELETE FROM public.comp WHERE id IN (3, 25008);
'''
UPDATED, INSERTED, DELETED = 7, 3, 2


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "comp_incr_it", "comp_incr_reader", SOURCE + WATERMARK)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    """The project, several files of at most FILE_ROWS rows, and its first run."""
    d = src.project(tmp_path_factory.mktemp("comp_incr"), extra=f'\n[bronze]\ntarget-file-rows = {FILE_ROWS}\nwrite-mode = "copy-on-write"\n')
    src.floe(d, "generate", check=0)
    return d, src.floe(d, "run", "--json", check=0)


def snapshot(d):
    return catalog(d).load_table(BRONZE).current_snapshot()


def data_files(d):
    """The live data files: path → (min id, max id)."""
    out = {}
    for task in catalog(d).load_table(BRONZE).scan().plan_files():
        ids = pq.read_table(local_path(task.file.file_path), columns=["id"]).column(0).to_pylist()
        out[task.file.file_path] = (min(ids), max(ids))
    return out


def assert_bronze_equals_source(src, d):
    """PostgreSQL's rows as the lock's types carry them, read back three ways."""
    t = lock_table(d, BRONZE)
    types = {c["name"]: c["type"] for c in t["columns"]}
    names, rows = source_rows(src)
    want = [{n: carried(v, types[n]) for n, v in zip(names, r)} for r in rows]
    tbl = catalog(d).load_table(BRONZE)
    got = sorted((norm(r) for r in tbl.scan().to_arrow().to_pylist()), key=lambda r: r["id"])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == pyiceberg_view(w, t), (g, w)
    cur = duck().execute(f"select * from iceberg_scan('{tbl.metadata_location}') order by id")
    cols = [c[0] for c in cur.description]
    got = [norm(dict(zip(cols, r))) for r in cur.fetchall()]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w, (g, w)
    files = []
    for task in tbl.scan().plan_files():  # the files themselves: NULL lists of structs stay NULL
        files += pq.read_table(local_path(task.file.file_path)).to_pylist()
    assert sorted((norm(r) for r in files), key=lambda r: r["id"]) == want


def test_the_first_load_sorts_composite_rows_by_key_into_files(src, proj):
    d, first = proj
    table = src.plan(d)[("public", "comp")]
    assert table["mode"] == "incremental" and table["watermark"] == "updated_at", table
    out = results(first)[BRONZE]
    assert out["state"] == "loaded" and out["rows"] == ROWS, out
    s = snapshot(d).summary
    assert s["floe.load-mode"] == "full" and "floe.watermark" in s and s["floe.key"], s
    files = sorted(data_files(d).values())
    assert len(files) == -(-ROWS // FILE_ROWS), files
    assert all(a[1] < b[0] for a, b in zip(files, files[1:])), files
    assert_bronze_equals_source(src, d)


def test_changed_composites_merge_into_the_files_they_fall_in(src, proj):
    d, _ = proj
    before = data_files(d)
    src.admin(CHANGES)
    run = src.floe(d, "run", "--json", check=0)
    out = results(run)[BRONZE]
    assert out["state"] == "loaded" and out["detail"].startswith("incremental:"), out
    s = snapshot(d).summary
    assert s["floe.load-mode"] == "incremental", s  # not a full reload
    # the changes and row 1 (in the late window, read again and found equal), not the table
    assert s["floe.rows-read"] == str(UPDATED + INSERTED + 1), s
    assert (s["floe.rows-updated"], s["floe.rows-inserted"], s["floe.rows-deleted"]) == \
        (str(UPDATED), str(INSERTED), str(DELETED)), s
    first, last = min(before.items(), key=lambda f: f[1]), max(before.items(), key=lambda f: f[1])
    assert s["floe.files-rewritten"] == "2", s
    after = data_files(d)
    assert first[0] not in after and last[0] not in after
    assert {p: r for p, r in before.items() if p not in (first[0], last[0])}.items() <= after.items()
    assert len(after) == len(before)
    assert_bronze_equals_source(src, d)


def test_rereading_the_changed_composites_finds_them_equal(src, proj):
    """The late window re-reads the rows just merged: compared with the struct values floe's
    reader rebuilds from the rewritten files, every one is equal, so nothing is committed."""
    d, _ = proj
    before = snapshot(d).snapshot_id
    out = results(src.floe(d, "run", "--json", check=0))[BRONZE]
    assert out["state"] == "loaded" and out["detail"].startswith("no changes"), out
    assert snapshot(d).snapshot_id == before


def test_a_repair_recopies_composite_keys_without_a_full_reload(src, proj):
    """What reconciliation does with a diverged composite table: the given keys re-read and
    upserted into the files they fall in, the gone deleted."""
    d, _ = proj
    before = snapshot(d).summary
    files = data_files(d)
    keys = [500, 7000, 12000, 40000]
    # Changes the watermark cannot see (the trigger off, as for a transaction committed late).
    src.admin("ALTER TABLE public.comp DISABLE TRIGGER touch")
    src.admin("UPDATE public.comp SET home = ROW(NULL, NULL, NULL), homes = ARRAY[NULL, ROW('r', 2, ARRAY[NULL])::addr] "
              "WHERE id = 500")
    src.admin("UPDATE public.comp SET p = NULL, w = ROW(ROW('happy', 1, '{}', 0, '{}')::tagged, 2, NULL) WHERE id = 12000")
    src.admin("ALTER TABLE public.comp ENABLE TRIGGER touch")
    src.admin("DELETE FROM public.comp WHERE id = 7000")
    r = repair(src, d, "public.comp", 1, *map(str, keys))
    assert r.returncode == 0 and r.stdout.startswith("loaded repair of 4 keys"), r
    s = snapshot(d).summary
    assert s["floe.load-mode"] == "repair", s
    assert (s["floe.rows-read"], s["floe.rows-updated"], s["floe.rows-deleted"], s["floe.rows-inserted"]) == \
        ("2", "2", "1", "0"), s
    touched = {p for p, (lo, hi) in files.items() if any(lo <= k <= hi for k in keys)}
    assert len(touched) == 3 and s["floe.files-rewritten"] == str(len(touched)), (s, files)
    assert s["floe.watermark"] == before["floe.watermark"]  # a repair does not move the watermark
    assert not touched & set(data_files(d))
    assert_bronze_equals_source(src, d)
