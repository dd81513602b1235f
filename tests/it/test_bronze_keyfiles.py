"""Key files: every data file a merge-on-read table's loads write leaves its keys on the local disk
(.floe/keys/bronze.<table>.<field ids>/), and an incremental load finds its changed keys' rows,
counts the rows of the pieces between change keys and lists the keys of the pieces it diffs by
binary search over them instead of reading the touched files' key columns. Checked here: the same
load (rows updated, deleted, pieces diffed) with key files as without them, on uuid, bigint and
composite keys, through several rounds; a damaged or missing key file made again from its data
file, never trusted; the cache following compaction; text keys keep none. After
every load PyIceberg and DuckDB read bronze equal to the source."""
import json
import re
import shutil

import pytest

from lakecheck import assert_equals_source, catalog
from sourcedb import TOUCH, Source

FILE_ROWS = 4000

EXTRA = TOUCH + '''
CREATE TABLE public.ua (id uuid PRIMARY KEY, payload text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE public.ub (LIKE public.ua INCLUDING ALL);
CREATE TABLE public.na (id bigint PRIMARY KEY, payload text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE public.nb (LIKE public.na INCLUDING ALL);
CREATE TABLE public.pa (a int, b int, payload text, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (a, b));
CREATE TABLE public.pb (LIKE public.pa INCLUDING ALL);
CREATE TABLE public.words (k text PRIMARY KEY, payload text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.ua FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.ub FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.na FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.nb FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.pa FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.pb FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.words FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.na SELECT g, 'p' || g, now() - interval '3 years' + g * interval '1 hour'
    FROM generate_series(1, 20000) g;
INSERT INTO public.nb SELECT * FROM public.na;
INSERT INTO public.ua SELECT gen_random_uuid(), payload, updated_at FROM public.na;
INSERT INTO public.ub SELECT * FROM public.ua;
INSERT INTO public.pa SELECT g / 8, g % 8, 'p' || g, now() - interval '3 years' + g * interval '1 hour'
    FROM generate_series(0, 15999) g;
INSERT INTO public.pb SELECT * FROM public.pa;
INSERT INTO public.words SELECT 'w' || lpad(g::text, 6, '0'), 'p', now() - interval '2 years' + g * interval '1 hour'
    FROM generate_series(1, 9000) g;
'''

TWINS = {"uuid": ("public.ua", "public.ub"), "bigint": ("public.na", "public.nb"), "composite": ("public.pa", "public.pb")}


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "keyfiles_it", "keyfiles_reader", EXTRA)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("keyfiles")
    src.project(d, extra=f'\n[bronze]\ntarget-file-rows = {FILE_ROWS}\nwrite-mode = "merge-on-read"\n'
                         '\n[compaction]\nafter-run = false\n')
    src.floe(d, "generate", check=0)
    first = json.loads(src.floe(d, "run", "--json", "--layer", "bronze", check=0).out)
    assert all(t["state"] == "loaded" for t in first["tables"]), first
    return d


def bronze_of(table):
    return "bronze." + table.split(".")[1]


def key_files(d, table):
    """The key files of `table` (none: an empty list)."""
    return sorted((d / ".floe" / "keys").glob(bronze_of(table) + ".*/*.keys"))


def live_files(d, table):
    return {t.file.file_path for t in catalog(d).load_table(bronze_of(table)).scan().plan_files()}


def summary(d, table):
    return catalog(d).load_table(bronze_of(table)).current_snapshot().summary


def load(src, d, table, keyfiles=True, verbose="-v", refine=None, connections=None):
    """An incremental load at -v (-vv: `verbose`): its stderr, and what its snapshot and log say of it.
    `refine`: FLOE_COUNT_REFINE (differing pieces counted again in parts; by default with key files);
    `connections`: FLOE_COUNT_CONNECTIONS (2: pieces and parts counted on two, as for a million rows)."""
    env = {"FLOE_BRONZE_KEYFILES": "on" if keyfiles else "off"}
    if refine:
        env["FLOE_COUNT_REFINE"] = refine
    if connections:
        env["FLOE_COUNT_CONNECTIONS"] = connections
    run = src.floe(d, verbose, "run", "--no-reconcile", "--table", table, check=0, env=env)
    s = summary(d, table)
    assert s["floe.load-mode"] == "incremental", (s, run.err)
    m = re.search(r"(\d+ of \d+ key ranges differ in count; \d+ of \d+ sub-ranges key-set diffed)", run.err)
    assert m, run.err
    said = (s.get("floe.rows-inserted"), s.get("floe.rows-updated"), s.get("floe.rows-deleted"),
            s.get("floe.rows-missing"))
    assert_equals_source(src, d, bronze_of(table))
    return run.err, said


def change(src, table, key, rnd):
    """The same changes on either twin (chosen by the rows' key order, not by their values): updates and
    deletes scattered over every file, a run of deletes across a file's bound, inserts."""
    src.admin(f"UPDATE {table} SET payload = 'u{rnd}' WHERE hashtext(({key})::text || '{rnd}') % 23 = 0")
    src.admin(f"DELETE FROM {table} WHERE ({key}) IN (SELECT {key} FROM {table} ORDER BY md5(({key})::text || '{rnd}') "
              f"LIMIT 40) OR ({key}) IN (SELECT {key} FROM {table} ORDER BY {key} OFFSET 3990 LIMIT 15)")


def insert(src, table, rnd):
    if table in ("public.ua", "public.ub"):
        src.admin(f"INSERT INTO {table} SELECT md5('{rnd}-' || g)::uuid, 'i', now() FROM generate_series(1, 30) g")
    elif table in ("public.na", "public.nb"):
        src.admin(f"INSERT INTO {table} SELECT 100000 * {rnd + 1} + g, 'i', now() FROM generate_series(1, 30) g")
    else:
        src.admin(f"INSERT INTO {table} SELECT 9000 + {rnd}, g, 'i', now() FROM generate_series(1, 30) g")


@pytest.mark.parametrize("kind", ["uuid", "bigint", "composite"])
def test_a_load_from_key_files_is_the_load_from_the_key_columns(src, proj, kind):
    d = proj
    with_files, without = TWINS[kind]
    key = "a, b" if kind == "composite" else "id"
    assert len(key_files(d, with_files)) == len(live_files(d, with_files)) >= 4  # one per data file
    refined = 0
    for rnd in range(3):
        for t in (with_files, without):
            change(src, t, key, rnd)
            insert(src, t, rnd)
        # the last round counts on two connections: the second counts half the pieces, then half the parts
        err_a, said_a = load(src, d, with_files, connections="2" if rnd == 2 else None)
        # the twin reads its keys; in the second round it counts its differing pieces again in parts too
        err_b, said_b = load(src, d, without, keyfiles=False, refine="on" if rnd == 1 else "off")
        assert "the changes' rows found in the key files" in err_a, err_a
        assert "made ahead" not in err_a, err_a  # the deltas each load wrote left theirs
        assert "keys of the touched files read" in err_b, err_b
        assert said_a == said_b, (rnd, said_a, said_b)  # the same rows inserted, updated, deleted, missing
        assert int(said_a[2]) >= 40, said_a  # the deletes found
        # a differing piece of 128 rows or more is counted again in parts, only its differing parts diffed
        again = re.search(r"(\d+) differing pieces counted again in (\d+) parts, (\d+) of them differ", err_a)
        assert not again or int(again.group(2)) >= 2 * int(again.group(1)) > 0, err_a
        refined += bool(again)
        assert "counted again in" not in err_b or rnd == 1, err_b  # only when asked (its pieces big enough)
        assert ("counted on a second connection" in err_a) == (rnd == 2), err_a
        assert "the second count connection failed" not in err_a, err_a
        # the table's key files: its live files', the deltas' included
        assert len(key_files(d, with_files)) == len(live_files(d, with_files))
    assert refined, "no load counted a differing piece again in parts"
    # a load of the twin without key files read its keys and wrote none for its deltas
    assert len(key_files(d, without)) < len(live_files(d, without))


def test_a_damaged_or_missing_key_file_is_made_again_from_its_data_file(src, proj):
    d, table = proj, "public.ua"
    files = sorted(key_files(d, table), key=lambda p: p.stat().st_size)
    damaged, removed = files[-1], files[-2]  # two data files' of thousands of rows
    raw = bytearray(damaged.read_bytes())
    raw[-200] ^= 0x5A  # a key's byte
    damaged.write_bytes(bytes(raw))
    removed.unlink()
    change(src, table, "id", 7)
    err, said = load(src, d, table, verbose="-vv")
    assert "its keys' checksum does not match; made ahead" in err, err
    assert "there is none; made ahead" in err, err
    assert re.search(r"key files of 2 data files made ahead", err), err
    assert "the changes' rows found in the key files" in err, err
    assert int(said[2]) >= 40, said
    change(src, table, "id", 8)
    err, _ = load(src, d, table)
    assert "made ahead" not in err, err


def test_compaction_leaves_the_key_files_of_the_live_files(src, proj):
    d, table = proj, "public.na"
    kdir = key_files(d, table)[0].parent
    (kdir / ".0123456789abcdef.keys.tmp").write_bytes(b"a killed writer's")
    (kdir / "0123456789abcdef.keys").write_bytes(b"a killed run's, of a file never committed")
    out = src.floe(d, "compact", "--table", table, check=0)
    assert "compacted" in out.out + out.err, out.out + out.err
    assert len(key_files(d, table)) == len(live_files(d, table))
    assert not (kdir / ".0123456789abcdef.keys.tmp").exists()
    assert not (kdir / "0123456789abcdef.keys").exists()
    change(src, table, "id", 9)
    err, _ = load(src, d, table)
    assert "made ahead" not in err and "the changes' rows found in the key files" in err, err


def test_a_text_key_keeps_no_key_files(src, proj):
    d, table = proj, "public.words"
    src.admin("UPDATE public.words SET payload = 'u' WHERE k LIKE '%7'")
    src.admin("DELETE FROM public.words WHERE k LIKE '%33'")
    err, said = load(src, d, table)
    assert key_files(d, table) == []
    assert "keys of the touched files read" in err, err
    assert int(said[2]) == 90, said


def test_a_key_directory_that_cannot_be_written_leaves_the_load_to_the_key_columns(src, proj):
    """The key files are a cache: when the missing ones cannot be made (here a file stands where their
    directory should be), the load reads the touched files' keys instead, and succeeds."""
    d, table = proj, "public.pa"
    kdir = key_files(d, table)[0].parent
    shutil.rmtree(kdir)
    kdir.write_bytes(b"not a directory")
    change(src, table, "a, b", 11)
    err, said = load(src, d, table, verbose="-vv")
    assert "the key file of" in err and "was not written" in err, err
    assert "no key file for" in err and "keys of the touched files read" in err, err
    assert int(said[2]) >= 40, said
    kdir.unlink()
    change(src, table, "a, b", 12)
    err, _ = load(src, d, table)
    assert re.search(r"key files of \d+ data files made ahead", err), err
    assert "the changes' rows found in the key files" in err, err
