"""`[warehouse] zstd-level` sets the ZSTD level of bronze's data files: a higher level writes a
smaller file of the same rows, which PyIceberg and DuckDB read back; a level out of range is a
config error (exit 2) before anything is loaded."""
import re
from pathlib import Path

import pytest

from lakecheck import catalog
from sourcedb import Source

SQL = '''
CREATE TABLE public.notes (id bigint PRIMARY KEY, body text, amount numeric(12,2));
INSERT INTO public.notes
  SELECT g, repeat(md5((g % 997)::text), 1 + g % 4) || ' ' || (g * 7919 % 100003), (g % 100000) / 100.0
  FROM generate_series(1, 40000) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "zstd_level_it", "zstd_level_reader")
    s.create(SQL)
    s.admin(f"GRANT USAGE ON SCHEMA public TO {s.role}")
    s.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {s.role}")
    return s


def project(src, d: Path):
    src.project(d)
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
