"""Integrity of the Parquet files floe writes: every page carries the spec's CRC-32
(PageHeader.crc, over the page's bytes as written) and every zstd frame its content checksum,
so one flipped bit is caught by every reader that verifies either — floe's own reader always,
pyarrow with page_checksum_verification=True, and (zstd, floe's default) pyarrow, PyIceberg and
DuckDB by decompression. Which reader catches what is recorded in docs/iceberg.md."""
import json
import os
import subprocess
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import floe
from icebergkit import local_path
from lakecheck import catalog, duckdb_iceberg
from sourcedb import Source

REPO = Path(__file__).resolve().parents[2]
FIXTURE = str(Path(os.environ.get("FLOE_TOOLS", str(REPO / "build" / "tools"))) / "parquet_fixture")
CODECS = ("zstd", "snappy", "none")


def write(tmp_path, codec, case="types"):
    path = tmp_path / f"{case}_{codec}.parquet"
    proc = subprocess.run([FIXTURE, "write", case, str(path), "--codec", codec, "--rows", "2000"],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return path


def flip(src: Path, dst: Path, column: str):
    """A copy of `src` with one bit flipped in the middle of `column`'s first row group's data."""
    meta = pq.ParquetFile(src).metadata.row_group(0)
    chunk = next(meta.column(i) for i in range(meta.num_columns) if meta.column(i).path_in_schema == column)
    assert chunk.dictionary_page_offset is None, "a column without a dictionary: its data page is the chunk"
    at = chunk.data_page_offset + chunk.total_compressed_size // 2
    data = bytearray(src.read_bytes())
    data[at] ^= 0x10
    dst.write_bytes(bytes(data))
    return dst


def floe_dump(path):
    return subprocess.run([FIXTURE, "dump", str(path)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("case", ["types", "lists", "allnull"])
def test_every_page_checksum_floe_writes_verifies(tmp_path, codec, case):
    path = write(tmp_path, codec, case)
    verified = pq.read_table(path, page_checksum_verification=True)  # every page of every column
    assert verified.num_rows == pq.read_metadata(path).num_rows > 0
    assert floe_dump(path).returncode == 0


@pytest.mark.parametrize("codec", CODECS)
def test_a_flipped_bit_in_a_data_page_is_caught_by_the_page_crc(tmp_path, codec):
    good = write(tmp_path, codec)
    bad = flip(good, tmp_path / "flipped.parquet", "u")  # uuid: random bytes, stored as they are

    with pytest.raises(OSError, match="CRC checksum verification failed"):
        pq.read_table(bad, page_checksum_verification=True)

    dump = floe_dump(bad)
    assert dump.returncode == 1, dump
    assert f'Parquet file "{bad}" is damaged' in dump.stderr and "column u" in dump.stderr, dump.stderr
    assert "fails its checksum" in dump.stderr and "hint:" in dump.stderr, dump.stderr


def test_a_flipped_bit_in_a_zstd_page_fails_decompression_in_every_reader(tmp_path):
    """The zstd frame checksum: readers that skip the page CRC still refuse the page."""
    good = write(tmp_path, "zstd")
    bad = flip(good, tmp_path / "flipped.parquet", "u")
    with pytest.raises(OSError, match="doesn't match checksum"):
        pq.read_table(bad)  # no page CRC verification: zstd's own check
    with pytest.raises(duckdb.Error, match="ZSTD"):
        duckdb.sql(f"select u from '{bad}'").fetchall()


SQL = '''
CREATE TABLE public.things (id int PRIMARY KEY, u uuid NOT NULL DEFAULT gen_random_uuid(), note text);
INSERT INTO public.things (id, note) SELECT g, 'note ' || g FROM generate_series(1, 5000) g;
'''


@pytest.fixture(scope="module")
def loaded(stack, tmp_path_factory):
    src = Source.readable(stack, "crc_it", "crc_reader", SQL)
    d = src.generated(tmp_path_factory.mktemp("crc"))
    src.floe(d, "run", check=0)
    return src, d


def test_a_flipped_bit_in_a_table_s_data_file_is_refused_by_every_reader(loaded):
    src, d = loaded
    tbl = catalog(d).load_table("bronze.things")
    files = [local_path(t.file.file_path) for t in tbl.scan().plan_files()]
    assert len(files) == 1, files
    data = Path(files[0])
    pristine = data.read_bytes()
    flip(data, Path(str(data) + ".flipped"), "u")
    os.replace(str(data) + ".flipped", data)
    try:
        with pytest.raises(OSError, match="CRC checksum verification failed"):
            pq.read_table(data, page_checksum_verification=True)
        with pytest.raises(Exception, match="checksum"):
            tbl.scan().to_arrow()  # PyIceberg: pyarrow, zstd's frame checksum
        with pytest.raises(duckdb.Error, match="ZSTD"):
            duckdb_iceberg().execute(f"select * from iceberg_scan('{tbl.metadata_location}')").fetchall()
        dump = floe_dump(data)
        assert dump.returncode == 1 and "fails its checksum" in dump.stderr, dump
        q = src.floe(d, "query", "select count(distinct u) from bronze.things")
        assert q.rc != 0 and "ZSTD" in q.err, q
        rec = json.loads(src.floe(d, "reconcile", "--json").out)
        assert [t["outcome"] for t in rec["tables"]] != ["verified"], rec
    finally:
        Path(str(data) + ".pristine").write_bytes(pristine)
        os.replace(str(data) + ".pristine", data)
    assert json.loads(src.floe(d, "reconcile", "--json", check=0).out)["tables"][0]["outcome"] == "verified"
