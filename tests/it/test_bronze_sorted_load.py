"""A keyed table's first load reads its rows ORDER BY the key. When the key lies in random order
in the table (uuid keys: pg_stats correlation near 0), PostgreSQL's index scan in key order would
fetch a heap page per row at random; floe turns index scans off for that query so the table is
seq-scanned and sorted (for that query only, put back after it): a serial key (correlation 1)
keeps its index scan. Both read back equal to the source."""
import json

import pytest

from lakecheck import assert_equals_source
from sourcedb import TOUCH, Source

EXTRA = TOUCH + '''
CREATE TABLE public.by_uuid (id uuid PRIMARY KEY, payload text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE public.by_serial (id bigint PRIMARY KEY, payload text, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.by_uuid FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.by_serial FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.by_uuid SELECT gen_random_uuid(), 'p' || g, now() - interval '1 day' FROM generate_series(1, 5000) g;
INSERT INTO public.by_serial SELECT g, 'p' || g, now() - interval '1 day' FROM generate_series(1, 5000) g;
ANALYZE public.by_uuid;
ANALYZE public.by_serial;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "sorted_load_it", "sorted_load_reader", EXTRA)


def test_a_random_key_is_sorted_after_a_seq_scan_a_serial_one_read_by_its_index(src, tmp_path):
    src.project(tmp_path, extra='\n[bronze]\ntarget-file-rows = 1000\n')
    src.floe(tmp_path, "generate", check=0)
    run = src.floe(tmp_path, "-v", "run", "--json", "--layer", "bronze", check=0)
    tables = {t["table"]: t for t in json.loads(run.out)["tables"]}
    assert all(t["state"] == "loaded" for t in tables.values()), tables
    assert "bronze.by_uuid: read by a seq scan and sorted: the key lies in random order" in run.err, run.err
    assert "bronze.by_serial: read by a seq scan" not in run.err, run.err
    for bronze in ("bronze.by_uuid", "bronze.by_serial"):
        assert tables[bronze]["detail"].startswith("first load: in full, sorted by key"), tables[bronze]
        assert_equals_source(src, tmp_path, bronze)
