"""Issue 21's load settings, end to end: `[warehouse] zstd-level` sets the ZSTD level of bronze's
data files (a higher level writes a smaller file of the same rows, which PyIceberg and DuckDB read
back; a level out of range is a config error, exit 2); a full load with its COPY stream decoded on
a thread of its own (FLOE_LOAD_THREADS=2) writes what the one-thread load writes — the same rows,
split into the same key-bounded files — and a decoding failure on that thread reaches the user as
the table's error, with nothing committed."""
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from icebergkit import local_path
from lakecheck import catalog
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.notes (id bigint PRIMARY KEY, body text, amount numeric(12,2));
INSERT INTO public.notes
  SELECT g, repeat(md5((g % 997)::text), 1 + g % 4) || ' ' || (g * 7919 % 100003), (g % 100000) / 100.0
  FROM generate_series(1, 40000) g;
CREATE TABLE public.items (id bigint PRIMARY KEY, sku uuid NOT NULL, price numeric(10,2),
                           note text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.items FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.items
  SELECT g, md5((g % 5000)::text)::uuid, (g % 99999) / 100.0,
         CASE WHEN g % 7 = 0 THEN NULL ELSE repeat('n', g % 30) END,
         now() - interval '1 day' - g * interval '1 second'
  FROM generate_series(1, 150000) g;
CREATE TABLE public.odd (id int PRIMARY KEY, amount numeric(12,2));
INSERT INTO public.odd SELECT g, g FROM generate_series(1, 200000) g;
UPDATE public.odd SET amount = 'NaN' WHERE id = 190000;
'''

FILE_ROWS = 40000


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "load_cpu_it", "load_cpu_reader")
    s.create(SQL)
    s.admin(f"GRANT USAGE ON SCHEMA public TO {s.role}")
    s.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {s.role}")
    return s


def project(src, d: Path):
    src.project(d, extra=f"\n[bronze]\ntarget-file-rows = {FILE_ROWS}\n")
    src.floe(d, "init", check=0)
    src.floe(d, "generate", check=0)


def load(src, d: Path, level):
    """`floe run` of the table with floe.toml's [warehouse] zstd-level set to `level` (None: unset)."""
    toml = re.sub(r"\nzstd-level = \d+\n", "\n", (d / "floe.toml").read_text())
    if "\n[warehouse]\n" not in toml:
        toml += "\n[warehouse]\n"
    if level is not None:
        toml = toml.replace("\n[warehouse]\n", f"\n[warehouse]\nzstd-level = {level}\n")
    (d / "floe.toml").write_text(toml)
    return src.floe(d, "run", "--table", "public.notes", "--no-reconcile")


def data_file(d: Path):
    tbl = catalog(d).load_table("bronze.notes")
    files = [t.file for t in tbl.scan().plan_files()]
    assert len(files) == 1
    return tbl, files[0]


def test_a_higher_level_writes_a_smaller_file_of_the_same_rows(src, tmp_path):
    import duckdb
    sizes, rows = {}, {}
    project(src, tmp_path)
    for level in (None, 1, 19):
        r = load(src, tmp_path, level)
        assert r.rc == 0, r
        tbl, f = data_file(tmp_path)
        sizes[level] = f.file_size_in_bytes
        path = re.sub("^file://", "", f.file_path)
        assert Path(path).stat().st_size == f.file_size_in_bytes
        rows[level] = sorted(tbl.scan().to_arrow().to_pylist(), key=lambda x: x["id"])
        got = duckdb.sql(f"select count(*), sum(id), sum(amount) from read_parquet('{path}')").fetchone()
        assert got[0] == 40000 and got[1] == 40000 * 40001 // 2, got
    assert rows[None] == rows[1] == rows[19]
    assert sizes[None] == sizes[1], sizes          # level 1 is the default
    assert sizes[19] < sizes[1] * 0.97, sizes       # md5 text repeats: level 19 finds more of it


def test_a_level_out_of_range_is_a_config_error(src, tmp_path):
    project(src, tmp_path)
    r = load(src, tmp_path, 23)
    assert r.rc == 2, r
    assert "`warehouse.zstd-level` = 23 is out of range: expected from 1 to 19" in r.err, r.err


def loaded(src, d, threads, table):
    project(src, d)
    return src.floe(d, "-vv", "run", "--table", table, "--no-reconcile", "--json",
                    env={"FLOE_LOAD_THREADS": str(threads)})


def files_of(d, bronze):
    tbl = catalog(d).load_table(bronze)
    files = sorted((f.file.record_count, f.file.file_size_in_bytes, local_path(f.file.file_path))
                   for f in tbl.scan().plan_files())
    return tbl, files


def test_two_threads_write_what_one_writes(src, tmp_path):
    out = {}
    for threads in (1, 2):
        d = tmp_path / f"t{threads}"
        d.mkdir()
        r = loaded(src, d, threads, "public.items")
        assert r.rc == 0, r
        said = "on a thread of its own" if threads == 2 else "inline"
        assert f"bronze.items: COPY decoded {said}" in r.err, r.err
        tbl, files = files_of(d, "bronze.items")
        rows = sorted(tbl.scan().to_arrow().to_pylist(), key=lambda x: x["id"])
        out[threads] = ([(n, size) for n, size, _ in files], rows)
        # key-bounded files: FILE_ROWS rows each but the last, every file sorted by key
        assert sorted(n for n, _, _ in files) == [30000] + [FILE_ROWS] * 3, files
        for _, _, path in files:
            ids = pq.read_table(path, columns=["id"]).column(0).to_pylist()
            assert ids == sorted(ids)
    assert len(out[2][1]) == 150000
    assert out[1][1] == out[2][1]
    assert out[1][0] == out[2][0]   # the same files, byte for byte in size


@pytest.mark.parametrize("threads", [1, 2])
def test_a_decoding_failure_on_the_decoder_thread_fails_the_table(src, tmp_path, threads):
    r = loaded(src, tmp_path, threads, "public.odd")
    assert r.rc == 1, r
    table = json.loads(r.out)["tables"][0]
    assert table["state"] == "failed", table
    assert "NaN" in table["error"], table
    assert not list((tmp_path / "warehouse").rglob("*.parquet"))  # nothing left behind
