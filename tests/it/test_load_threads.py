"""A full load with its COPY stream decoded on a thread of its own (FLOE_LOAD_THREADS=2) writes
what the one-thread load writes — the same rows, split into the same key-bounded files — and a
decoding failure on that thread reaches the user as the table's error, with nothing committed."""
import json

import pyarrow.parquet as pq
import pytest

from icebergkit import local_path
from lakecheck import catalog
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
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
    s = Source(stack, "threads_it", "threads_reader")
    s.create(SQL)
    s.admin(f"GRANT USAGE ON SCHEMA public TO {s.role}")
    s.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {s.role}")
    return s


def loaded(src, d, threads, table):
    src.project(d, extra=f"\n[bronze]\ntarget-file-rows = {FILE_ROWS}\n")
    src.floe(d, "init", check=0)
    src.floe(d, "generate", check=0)
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
